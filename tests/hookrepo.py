"""A temporary git repository that runs this repository's pre-commit hooks with the real `pre-commit`,
for tests that expect a commit to be refused (or let through).

    from hookrepo import HookRepo, documented_hooks

    repo = HookRepo(tmp_path, documented_hooks())      # hooks as the README tells users to add them
    repo.write("notes/SKILL.md", "...")
    repo.write("notes/EVAL.yaml", "...")
    result = repo.commit("a broken eval file")
    assert result.refused, result.output

Two hook sources:
- ``source="repo"`` (the default): `repo:` this checkout at its HEAD commit, `language: python` hooks, so
  pre-commit clones the repository and pip-installs it into its own virtualenv, as a user's machine does
  (~15 s for a new HEAD, then cached in .cache/pre-commit; HEAD's code, not uncommitted changes);
- ``source="local"``: the same ids, entries and file patterns as `language: system` hooks run by this
  checkout's Python (no install; the working tree's code).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

import pytest
import yaml

from conftest import ROOT

PRE_COMMIT = shutil.which("pre-commit", path=os.path.dirname(sys.executable)) or shutil.which("pre-commit")


def require_pre_commit() -> str:
    """pre-commit is a dev dependency: without it the hook tests fail (they used to skip silently)."""
    if PRE_COMMIT is None:
        pytest.fail("pre-commit is not installed: pip install -e '.[dev]'")
    return PRE_COMMIT


def git(repo, *args, check=True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=check,
                          env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo.parent)})


def head_rev() -> str:
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    assert head.returncode == 0, f"pre-commit installs hooks from a git commit; {ROOT} has none: {head.stderr}"
    return head.stdout.strip()


def hook_definitions() -> dict[str, dict]:
    """The hooks of .pre-commit-hooks.yaml by id."""
    return {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))}


def documented_hooks(doc: str = "README.md") -> list[dict]:
    """The `hooks:` of the .pre-commit-config.yaml snippet in a document (README.md, docs/lint.md)."""
    text = (ROOT / doc).read_text("utf-8")
    m = re.search(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", text, re.S)
    assert m, f"{doc} has no .pre-commit-config.yaml snippet"
    (entry,) = yaml.safe_load(m.group(1))["repos"]
    return entry["hooks"]


def hook_env(home) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update({"PRE_COMMIT_HOME": str(ROOT / ".cache" / "pre-commit"), "GIT_CONFIG_NOSYSTEM": "1",
                "HOME": str(home), "PATH": os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")})
    return env


def config_for(hooks: list[dict], source: str = "repo") -> dict:
    """A .pre-commit-config.yaml taking ``hooks`` (as users list them: ``{"id": ..., "args": ...}``)
    from this checkout."""
    if source == "repo":
        return {"repos": [{"repo": str(ROOT), "rev": head_rev(), "hooks": hooks}]}
    assert source == "local", source
    defs = hook_definitions()
    local = []
    for wanted in hooks:
        h = {**defs[wanted["id"]], **{k: v for k, v in wanted.items() if k != "id"}}
        assert h["entry"].startswith("evalfmt ") and h["language"] == "python"
        h["entry"] = f"{sys.executable} -m {h['entry']}"
        h["language"] = "system"
        local.append(h)
    return {"repos": [{"repo": "local", "hooks": local}]}


@dataclass
class Commit:
    returncode: int
    output: str  # stdout and stderr of `git commit` (the hooks' output)
    landed: bool  # the commit is in the log

    @property
    def refused(self) -> bool:
        return self.returncode != 0 and not self.landed


class HookRepo:
    """A git repository in ``tmp_path/work`` with pre-commit installed and ``hooks`` configured."""

    def __init__(self, tmp_path, hooks: list[dict], source: str = "repo"):
        require_pre_commit()
        self.path = tmp_path / "work"
        self.path.mkdir()
        self.env = hook_env(tmp_path)
        git(self.path, "init", "-q")
        git(self.path, "config", "user.email", "t@example.com")
        git(self.path, "config", "user.name", "t")
        self.write(".pre-commit-config.yaml", yaml.safe_dump(config_for(hooks, source), sort_keys=False))
        installed = self.pre_commit("install")
        assert installed.returncode == 0, installed.stdout + installed.stderr

    def pre_commit(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([PRE_COMMIT, *args], cwd=self.path, capture_output=True, text=True, env=self.env)

    def write(self, rel: str, text: str):
        path = self.path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def commit(self, message: str, paths: list[str] | None = None, verify: bool = True) -> Commit:
        """Stage everything (or only ``paths``) and commit; the hooks run on the staged files (pre-commit
        sets the changes that are not staged aside while they run). ``verify=False``: without the hooks."""
        git(self.path, "add", "-A", *(["--", *paths] if paths is not None else []))
        proc = subprocess.run(["git", "commit", "-qm", message, *([] if verify else ["--no-verify"])],
                              cwd=self.path, capture_output=True, text=True, env=self.env)
        log = git(self.path, "log", "--format=%s", check=False).stdout.split("\n")[0]
        return Commit(proc.returncode, proc.stdout + proc.stderr, log == message)
