"""A commit holding an EVAL.yaml that agentv's YAML parser refuses (issue 12 item 3: a quoted string in
a flow list continued on an unindented line, which libyaml reads) is refused by the real pre-commit,
by each of the three hooks of .pre-commit-hooks.yaml; the fixed file (and the evals.json transpile
writes from it) goes through.

The hooks run as ``language: system`` hooks with this checkout's evalfmt (same ids, entries and file
patterns as the published hooks; test_precommit_hooks.py covers installing them from the repository).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT
from test_precommit_hooks import PRE_COMMIT, git, hook_env

sys.path.insert(0, str(ROOT / "tests" / "agentv_yaml"))
from corpus import ISSUE_FILE  # noqa: E402

HOOK_IDS = ("evalfmt-lint", "evalfmt-validate", "evalfmt-transpile-check")


def system_hooks(ids: tuple[str, ...]) -> list[dict]:
    """The repository's hook definitions, run with this checkout's evalfmt."""
    by_id = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))}
    hooks = []
    for hook_id in ids:
        h = dict(by_id[hook_id])
        h["entry"] = f"{sys.executable} -m {h['entry']}"
        h["language"] = "system"
        hooks.append(h)
    return hooks


def repo_with(tmp_path, hooks: list[dict], files: dict[str, str]):
    """A git repository with pre-commit installed for ``hooks`` and ``files`` written (not committed)."""
    repo = tmp_path / "work"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": hooks}]},
                                                                 sort_keys=False))
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    return repo


def commit(repo, env, message: str) -> subprocess.CompletedProcess:
    git(repo, "add", "-A")
    return subprocess.run(["git", "commit", "-qm", message], cwd=repo, capture_output=True, text=True, env=env)


@pytest.fixture(autouse=True)
def _pre_commit_installed():
    if PRE_COMMIT is None:
        pytest.fail("pre-commit is not installed: pip install -e '.[dev]'")


def test_commit_with_an_eval_yaml_agentv_cannot_parse_is_refused(tmp_path):
    env = hook_env(tmp_path)
    repo = repo_with(tmp_path, system_hooks(HOOK_IDS), {"evals/EVAL.yaml": ISSUE_FILE})
    installed = subprocess.run([PRE_COMMIT, "install"], cwd=repo, capture_output=True, text=True, env=env)
    assert installed.returncode == 0, installed.stderr

    refused = commit(repo, env, "unparsable eval")
    out = refused.stdout + refused.stderr
    assert refused.returncode == 1, out
    assert out.count("Failed") == 3, out
    where = "evals/EVAL.yaml:14:37: EV100 invalid YAML: missing closing \"quote (agentv's YAML parser)"
    assert out.count(where) == 3, out  # lint, validate, and transpile --check (its seed layout reads the file)
    assert git(repo, "log", "--oneline", check=False).stdout == ""

    (repo / "evals" / "EVAL.yaml").write_text(ISSUE_FILE.replace("\nchanges first", "\n      changes first"))
    written = subprocess.run([sys.executable, "-m", "evalfmt", "transpile", "evals/EVAL.yaml"], cwd=repo,
                             capture_output=True, text=True, env=env)
    assert written.returncode == 0, written.stderr
    accepted = commit(repo, env, "fixed eval")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert (accepted.stdout + accepted.stderr).count("Passed") == 3
    assert git(repo, "log", "--format=%s").stdout == "fixed eval\n"
    assert os.path.isfile(repo / "evals" / ".agentv" / "skills" / "release-notes" / "evals.json")
