"""Helpers for the linter tests: materialise a skill folder from a fixture spec and lint it.

Import the ``lint_spec`` fixture into a test module with ``from lintkit import lint_spec``."""

from __future__ import annotations

import os
import pathlib

import pytest

FIXTURES_LINT = pathlib.Path(__file__).resolve().parents[1] / "fixtures_lint"
DEFAULT_SKILL_MD = "---\nname: sample\ndescription: Drafts release notes from the git history.\n---\n# Sample\n"


def materialize(root: pathlib.Path, spec: dict) -> pathlib.Path:
    """``root/repo/sample`` holding the spec's files (a default SKILL.md unless given); ``root/repo``
    holds a ``.git`` folder (HYG8's repository root) and the spec's ``config`` as evalfmt.toml."""
    repo = root / "repo"
    skill = repo / "sample"
    (repo / ".git").mkdir(parents=True)
    skill.mkdir()
    files = dict(spec.get("files") or {})
    if "SKILL.md" not in files:
        files["SKILL.md"] = DEFAULT_SKILL_MD
    for rel, content in files.items():
        path = pathlib.Path(os.path.normpath(skill / rel))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    for rel, mode in (spec.get("modes") or {}).items():
        os.chmod(skill / rel, int(str(mode), 8))
    if spec.get("config"):
        (repo / "evalfmt.toml").write_text(spec["config"])
    return repo


@pytest.fixture
def lint_spec(tmp_path, run_cli):
    """``lint_spec(spec, codes, *args)`` -> (exit code, output lines, stderr) of ``evalfmt lint`` on it."""

    def _run(spec: dict, codes: list[str], *args: str):
        repo = materialize(tmp_path, spec)
        cli = ["lint", "--quiet", "--select", ",".join(codes)]
        if not spec.get("config"):
            cli.append("--isolated")
        code, out, err = run_cli(*cli, *args, "sample", cwd=str(repo))
        return code, [line for line in out.split("\n") if line], err

    return _run
