"""The pre-commit hooks of this repository (.pre-commit-hooks.yaml), run by the real `pre-commit`
against a temporary git repository: a commit with a broken eval file is refused, the fixed one
goes through.

`test_hooks_installed_from_this_repository` is what a user does: `repo:` this repository at its HEAD
commit, `language: python` hooks, so pre-commit clones the repository and pip-installs it into its own
virtualenv (from the package index: the one network access the CI machine has; ~15 s, then cached in
.cache/pre-commit). `test_hook_definitions_as_system_hooks` runs the same ids, entries and file
patterns as `language: system` hooks with this checkout's evalfmt: no install, the working tree's code,
and it checks each hook's file pattern on both kinds of commit.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT

PRE_COMMIT = shutil.which("pre-commit", path=os.path.dirname(sys.executable)) or shutil.which("pre-commit")


@pytest.fixture(autouse=True)
def _pre_commit_installed():
    """pre-commit is a dev dependency: without it these tests fail (they used to skip silently)."""
    if PRE_COMMIT is None:
        pytest.fail("pre-commit is not installed: pip install -e '.[dev]'")

SKILL_MD = "---\nname: notes\ndescription: Drafts release notes from the git history.\n---\n# Notes\n"
BAD = "task: Write the release notes since v1.4.0.\ncheck:\n  - file_absent: RELEASE_NOTES.md\n"
GOOD = ("task: Write the release notes since v1.4.0.\nbucket: adversarial\nchecks:\n"
        "  - transcript_mentions: LegacyConfigLoader\n  - file_absent: RELEASE_NOTES.md\n")


def git(repo, *args, check=True):
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=check,
                          env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo.parent)})


def make_repo(tmp_path, config: dict):
    repo = tmp_path / "work"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    (repo / "notes" / "evals" / "cases").mkdir(parents=True)
    (repo / "notes" / "SKILL.md").write_text(SKILL_MD)
    (repo / "notes" / "evals" / "fixtures").mkdir()
    (repo / "notes" / "evals" / "fixtures" / "settings.yaml").write_text("not: an eval file\n")
    return repo


def commit_twice(repo, env):
    """A commit with a broken case file (refused), then with the fixed one (accepted). Both commits
    also carry evals/fixtures/settings.yaml, which no hook may be given (it is not an eval file)."""
    run = lambda *a: subprocess.run([PRE_COMMIT, *a], cwd=repo, capture_output=True, text=True, env=env)  # noqa: E731
    installed = run("install")
    assert installed.returncode == 0, installed.stderr
    case = repo / "notes" / "evals" / "cases" / "release.yaml"
    case.write_text(BAD)
    git(repo, "add", "-A")
    refused = subprocess.run(["git", "commit", "-qm", "broken case"], cwd=repo, capture_output=True, text=True, env=env)
    case.write_text(GOOD)
    git(repo, "add", "-A")
    accepted = subprocess.run(["git", "commit", "-qm", "fixed case"], cwd=repo, capture_output=True, text=True, env=env)
    log = git(repo, "log", "--format=%s").stdout.split("\n")[0]
    return refused, accepted, log


def hook_env(tmp_path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update({"PRE_COMMIT_HOME": str(ROOT / ".cache" / "pre-commit"), "GIT_CONFIG_NOSYSTEM": "1",
                "HOME": str(tmp_path), "PATH": os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")})
    return env


def test_hooks_installed_from_this_repository(tmp_path):
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    assert head.returncode == 0, f"pre-commit installs hooks from a git commit; {ROOT} has none: {head.stderr}"
    config = {"repos": [{"repo": str(ROOT), "rev": head.stdout.strip(),
                         "hooks": [{"id": "evalfmt-lint"}, {"id": "evalfmt-validate"}]}]}
    repo = make_repo(tmp_path, config)
    refused, accepted, log = commit_twice(repo, hook_env(tmp_path))
    out = refused.stdout + refused.stderr
    assert refused.returncode == 1, out
    assert "evalfmt lint" in out and "Failed" in out
    assert "notes/evals/cases/release.yaml:2:1: EV101 unknown key 'check' (did you mean 'checks'?)" in out
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert log == "fixed case"


def test_hook_definitions_as_system_hooks(tmp_path):
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))
    by_id = {h["id"]: h for h in hooks}
    assert {"evalfmt-lint", "evalfmt-validate", "evalfmt-transpile-check"} <= set(by_id)
    local = []
    for hook_id in ("evalfmt-lint", "evalfmt-validate"):
        h = dict(by_id[hook_id])
        assert h["entry"].startswith("evalfmt ") and h["language"] == "python"
        h["entry"] = f"{sys.executable} -m {h['entry']}"
        h["language"] = "system"
        local.append(h)
    repo = make_repo(tmp_path, {"repos": [{"repo": "local", "hooks": local}]})
    refused, accepted, log = commit_twice(repo, hook_env(tmp_path))
    out = refused.stdout + refused.stderr
    assert refused.returncode == 1, out
    assert out.count("Failed") == 2  # both hooks refuse the broken case
    assert "1 error, 1 warning in 3 files (1 fixable)" in out  # lint: the case, SKILL.md's folder
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    passed = accepted.stdout + accepted.stderr
    assert "evalfmt lint" in passed and passed.count("Passed") == 2
    assert log == "fixed case"
