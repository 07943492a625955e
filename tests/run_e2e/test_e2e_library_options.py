"""``--jobs``, ``--case`` and ``--tag`` in a trigger run over a skill library (``evalfmt run EVAL.yaml --skills
DIR``), as in a run of a skill's cases: N sessions at once give the serial run's receipt and output; the tests
are selected by id and by tag with the same rules and the same one-line errors; Ctrl-C with N sessions running
kills every agent."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import time

import pytest
from e2ehelp import agent_command, make_skill
from test_e2e_interrupt import _alive
from test_e2e_library import EVAL_YAML, PICKER, SKILLS, library

SUITE = """import { assert, type Case } from "skillgym";
const suite: Case[] = [
  {
    id: "ship-it",
    prompt: "Ship the service to production",
    tags: ["deploy", "smoke"],
    async assert(report) {
      assert.skills.has(report, "deploy");
    },
  },
  {
    id: "minutes",
    prompt: "Write the minutes of the meeting",
    tags: ["notes"],
    async assert(report) {
      assert.skills.has(report, "notes");
    },
  },
  {
    id: "review-it",
    prompt: "Review the pull requests",
    async assert(report) {
      assert.skills.has(report, "review");
    },
  },
];
export default suite;
"""


@pytest.fixture
def lib(tmp_path: pathlib.Path) -> pathlib.Path:
    library(tmp_path / "skills", SKILLS)
    (tmp_path / "EVAL.yaml").write_text(EVAL_YAML)
    (tmp_path / "deploy.eval.ts").write_text(SUITE)
    return tmp_path


def _run(run_cli, where: pathlib.Path, *args: str) -> tuple[int, str, str]:
    return run_cli("run", *args, "--agent-command", PICKER, "--run-id", "20260101T000000Z", cwd=str(where))


@pytest.mark.parametrize("skills", [("skills",), ("baseline=skills", "candidate=skills")])
def test_jobs_give_the_serial_run_receipt_and_output(run_cli, lib, skills):
    flags = [a for s in skills for a in ("--skills", s)]
    serial = _run(run_cli, lib, "EVAL.yaml", *flags, "--k", "2", "--out", "serial")
    parallel = _run(run_cli, lib, "EVAL.yaml", *flags, "--k", "2", "--out", "parallel", "--jobs", "3")
    assert parallel == (serial[0], serial[1].replace("serial/", "parallel/"), "")
    # the receipt holds no timing field; the run id is fixed: byte for byte the same
    assert (lib / "parallel" / "receipt.json").read_bytes() == (lib / "serial" / "receipt.json").read_bytes()
    arm = "candidate" if len(skills) == 2 else "library"
    for run in ("serial", "parallel"):  # every session has its folder and transcript; no sandbox is left
        assert sorted(p.name for p in (lib / run / arm).iterdir()) == ["minutes", "nothing", "ship", "silent", "wrong"]
        assert (lib / run / arm / "wrong" / "2" / "transcript.jsonl").is_file()


def test_case_runs_only_the_tests_named(run_cli, lib):
    code, out, err = _run(run_cli, lib, "EVAL.yaml", "--skills", "skills", "--out", "o", "--case", "minutes",
                          "--case", "silent")
    assert (code, err) == (1, "")
    assert out == """minutes: fired notes — passed
silent: fired no skill — failed skill-trigger:deploy
skill deploy: recall=0.00 precision=n/a F1=n/a fire rate=0.00 (tp=0 fn=1 fp=0 tn=0)
MISS: deploy silent
skill notes: recall=1.00 precision=1.00 F1=1.00 fire rate=1.00 (tp=1 fn=0 fp=0 tn=0)
confusion (sessions; rows: expected skill, columns: fired skill):
expected \\ fired | deploy | notes | (none)
deploy           |      0 |     0 |      1
notes            |      0 |     1 |      0
receipt: o/receipt.json
"""
    assert sorted(p.name for p in (lib / "o" / "library").iterdir()) == ["minutes", "silent"]


def test_an_unknown_case_is_the_one_line_error_of_a_skill_run(run_cli, lib, tmp_path):
    code, out, err = _run(run_cli, lib, "EVAL.yaml", "--skills", "skills", "--out", "o", "--case", "minutes",
                          "--case", "nope")
    assert (code, out, err) == (2, "", "evalfmt: no case named 'nope' (cases: minutes, nothing, ship, silent, wrong)\n")
    assert not (lib / "o").exists()
    # the same words as a run of a skill's cases
    skill = make_skill(tmp_path / "terum", "notes", {"a": "task: t\nchecks:\n  - transcript_mentions: x\n"})
    code, out, err = run_cli("run", str(skill), "--out", str(tmp_path / "o2"), "--agent-command", agent_command(),
                             "--case", "nope")
    assert (code, out, err) == (2, "", "evalfmt: no case named 'nope' (cases: a)\n")


def test_tag_selects_the_tests_carrying_one_of_the_tags(run_cli, lib):
    code, out, err = _run(run_cli, lib, "deploy.eval.ts", "--skills", "skills", "--out", "o", "--tag", "smoke,notes")
    assert (code, err) == (0, "")
    assert out.splitlines()[:2] == ["ship-it: fired deploy — passed", "minutes: fired notes — passed"]
    assert sorted(p.name for p in (lib / "o" / "library").iterdir()) == ["minutes", "ship-it"]
    # --tag first, then --case among what it selected
    code, out, err = _run(run_cli, lib, "deploy.eval.ts", "--skills", "skills", "--out", "o2", "--tag", "deploy",
                          "--case", "minutes")
    assert (code, out, err) == (2, "", "evalfmt: no case named 'minutes' (cases: ship-it)\n")
    code, out, err = _run(run_cli, lib, "deploy.eval.ts", "--skills", "skills", "--out", "o3", "--tag", "deploy",
                          "--case", "ship-it", "--format", "json")
    assert code == 0 and '"test": "ship-it"' in out and '"test": "minutes"' not in out


def test_tag_errors(run_cli, lib):
    # agentv tests carry no tags: none is selected, as for a skill's untagged cases
    assert _run(run_cli, lib, "EVAL.yaml", "--skills", "skills", "--out", "o", "--tag", "smoke") == (
        2, "", "evalfmt: EVAL.yaml: no tests to run with those tags\n")
    assert _run(run_cli, lib, "EVAL.yaml", "--skills", "skills", "--out", "o", "--tag", "a,,b") == (
        2, "", "evalfmt: --tag takes non-empty tags (comma-separated or repeated) (see 'evalfmt run --help')\n")
    assert not (lib / "o").exists()


SLOW = """  - id: slow{i}
    input: |
      !bash echo $PPID > "$PIDDIR/$PPID"
      !sleep 60
    assertions:
      - type: contains
        value: x
"""


def test_ctrl_c_with_jobs_kills_every_running_agent(tmp_path, evalfmt_exe):
    library(tmp_path / "skills", SKILLS)
    (tmp_path / "EVAL.yaml").write_text("tests:\n" + "".join(SLOW.format(i=i) for i in range(4)))
    piddir = tmp_path / "pids"
    piddir.mkdir()
    proc = subprocess.Popen([*evalfmt_exe, "run", "EVAL.yaml", "--skills", "skills", "--out", "out", "--jobs", "2",
                             "--agent-command", agent_command(), "--env", f"PIDDIR={piddir}"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        end = time.monotonic() + 60
        while len(os.listdir(piddir)) < 2 and time.monotonic() < end:  # two agents running at once
            time.sleep(0.05)
        pids = [int(p) for p in os.listdir(piddir)]
        assert len(pids) == 2
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert (proc.returncode, stderr.splitlines()[-1]) == (130, "evalfmt: aborted")
    assert "Traceback" not in stderr
    assert [p for p in pids if _alive(p)] == []
    assert sorted(os.listdir(piddir)) == sorted(map(str, pids))  # no further agent started
