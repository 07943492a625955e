"""``evalfmt run --dry-run``: every case and the suite seeded in throwaway sandboxes (requires probes,
fixture, files, setup), no agent, each failure reported with its case file and line."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from e2ehelp import make_skill

from conftest import FIXTURES

CASES = {
    "bad-fixture": "task: hi\nfixture: ../fixtures/nope\n",
    "bad-path": "task: hi\nfiles:\n  ok.txt: fine\n  ../x.txt: nope\n",
    "bad-setup": "task: hi\nsetup: |\n  echo preparing\n  echo boom >&2\n  exit 3\n",
    "good": "task: hi\nfiles:\n  a.txt: x\nsetup: test -f a.txt\n",
    "needs": "task: hi\nrequires: [sh, evalfmt-no-such-tool-9]\nsetup: exit 1\n",
}
SUITE = "task: hi\nsetup: 'false'\ncases:\n  - name: one\n    checks: [{transcript_mentions: x}]\n"


def test_dry_run_reports_each_failure_with_file_and_line(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "seeds", CASES, suite=SUITE)
    cases = skill / "evals" / "cases"
    code, stdout, stderr = run_cli("run", str(skill), "--dry-run")
    assert (code, stderr) == (1, "")
    assert stdout.splitlines() == [
        f"{cases}/bad-fixture.yaml:2:10: fixture directory not found: {skill}/evals/fixtures/nope",
        f"{cases}/bad-path.yaml:4:3: unsafe file path '../x.txt': is absolute or has a '..' segment",
        f"{cases}/bad-setup.yaml:2:1: setup failed: exit 3: boom",
        f"{cases}/needs.yaml:2:16: skipped: requires 'evalfmt-no-such-tool-9', not found on this machine "
        "(a run would make this an environment skip)",
        f"{skill}/evals/suite.yaml:2:1: setup failed: exit 1",
        "dry run: 1 of 6 seeded, 4 failed, 1 skipped (missing requirements)",
    ]
    assert not os.path.exists(tmp_path / "x.txt")


def test_dry_run_json_and_a_clean_skill(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "clean", {"good": CASES["good"]})
    code, stdout, _ = run_cli("run", str(skill), "--dry-run")
    assert (code, stdout) == (0, "dry run: 1 of 1 seeded, 0 failed, 0 skipped (missing requirements)\n")
    code, stdout, _ = run_cli("run", str(skill), "--dry-run", "--format", "json")
    assert code == 0
    assert json.loads(stdout) == {
        "cases": [{"case": "good", "file": f"{skill}/evals/cases/good.yaml", "line": 1, "column": 1, "status": "ok",
                   "kind": None, "message": "seeded"}],
        "seeded": 1, "failed": 0, "skipped": 0}


def test_dry_run_runs_no_agent_and_needs_no_out(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "quiet", {"good": "task: |\n  !write agent-ran.txt :: yes\n"})
    code, _, _ = run_cli("run", str(skill), "--dry-run", "--agent-command", "evalfmt-no-such-agent {task}")
    assert code == 0
    assert not list(tmp_path.rglob("agent-ran.txt"))


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_dry_run_of_the_fixture_skill(run_cli):
    code, stdout, _ = run_cli("run", str(FIXTURES / "library" / "release-notes"), "--dry-run")
    assert (code, stdout) == (0, "dry run: 5 of 5 seeded, 0 failed, 0 skipped (missing requirements)\n")
