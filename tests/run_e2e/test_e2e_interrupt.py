"""Ctrl-C during ``evalfmt run`` (a real process and a real SIGINT): running agents are killed, what
finished is kept, the receipt says partial; and compare re-scores runs holding dead arms identically."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time

import pytest
from e2ehelp import agent_command, load, make_skill, rows

SLOW = "task: |\n  !bash echo $PPID > agent.pid\n  !stderr started\n  !sleep 60\nchecks:\n  - transcript_mentions: x\n"
CASES = {"a-fast": "task: |\n  !say hi\nchecks:\n  - transcript_mentions: hi\n", "b-slow": SLOW, "c-slow": SLOW}


def _wait_for(path, text: str, limit: float = 60.0) -> None:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            if text in path.read_text():
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"{path} never said {text!r}")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return not fh.read().split(") ", 1)[1].startswith("Z")
    except OSError:
        return False


@pytest.mark.parametrize("jobs, target", [("1", "group"), ("2", "group"), ("2", "parent")])
def test_ctrl_c_kills_agents_keeps_what_finished_and_writes_a_partial_receipt(tmp_path, evalfmt_exe, jobs, target):
    skill = make_skill(tmp_path / "lib", "slowish", CASES)
    out = tmp_path / "out"
    proc = subprocess.Popen([*evalfmt_exe, "run", str(skill), "--agent-command", agent_command(), "--out", str(out),
                             "--jobs", jobs], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        _wait_for(out / "baseline" / "b-slow" / "stderr.log", "started")
        for arm in ("baseline", "candidate"):  # the fast case has finished in both arms (with --jobs 2
            _wait_for(out / arm / "a-fast" / "run.json", "a-fast")  # they may end in either order)
        if target == "group":  # what a terminal's Ctrl-C does
            os.killpg(proc.pid, signal.SIGINT)
        else:  # a signal to evalfmt alone
            os.kill(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130
    assert re.fullmatch(r"evalfmt: interrupted: [34] of 6 sessions ran; receipt written \(partial\)",
                        stderr.splitlines()[-1])
    assert "Traceback" not in stderr
    receipt = load(out / "receipt.json")
    assert (receipt["interrupted"], receipt["execution_status"], receipt["expected_rows"], receipt["scored_rows"]) == \
        (True, "partial", 3, 1)
    assert rows(receipt) == [("a-fast", 1, "baseline", "tie", "checks-equal-no-judge"),
                             ("b-slow", 1, "baseline", "tie", "both-arms-failed"),
                             ("c-slow", 1, "baseline", "tie", "both-arms-failed")]
    assert stdout.splitlines()[0] == "a-fast vs baseline: tie (checks-equal-no-judge)"
    slow = out / "baseline" / "b-slow"
    assert (slow / "dead.txt").read_text() == "interrupted: the run was stopped while this session ran\n"
    pid = int((slow / "sandbox" / "agent.pid").read_text())
    end = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < end:
        time.sleep(0.05)
    assert not _alive(pid), "the interrupted agent is still running"
    for arm in ("baseline", "candidate"):
        assert (out / arm / "c-slow" / "dead.txt").read_text() == "not run: the run was interrupted\n"
        assert not (out / arm / "c-slow" / "transcript.jsonl").exists()


def test_compare_rescoring_a_run_with_dead_dropped_and_skipped_cases(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "mixed", {
        "dies": "task: |\n  !say hi\n  !exit 4\nchecks:\n  - transcript_mentions: hi\n",
        "drops": "task: hi\nsetup: exit 2\n",
        "fine": "task: |\n  !say hi\nchecks:\n  - transcript_mentions: SKILLED\n",
        "skips": "task: hi\nrequires: [evalfmt-no-such-tool-9]\n",
        "slow": "task: |\n  !sleep 30\ntimeout_minutes: 0.02\n",
    }, body="!say SKILLED\n")
    out = tmp_path / "out"
    code, stdout, _ = run_cli("run", str(skill), "--agent-command", agent_command(), "--out", str(out), "--quiet",
                              "--format", "json", "--jobs", "2")
    assert code == 0
    data = json.loads(stdout)
    assert rows(data) == [("dies", 1, "baseline", "tie", "both-arms-failed"),
                          ("drops", 1, "baseline", "tie", "both-arms-failed"),
                          ("fine", 1, "baseline", "win", "checks"),
                          ("skips", 1, "baseline", "tie", "both-arms-failed"),
                          ("slow", 1, "baseline", "tie", "both-arms-failed")]
    extra = {k: data.pop(k) for k in ("environment_skips", "dropped_cases", "interrupted")}
    assert extra == {"environment_skips": {"skips": ["evalfmt-no-such-tool-9"]},
                     "dropped_cases": {"drops": {"kind": "setup", "detail": "setup failed: exit 2"}},
                     "interrupted": False}
    code, again, _ = run_cli("compare", str(skill), "--arm", f"candidate={out}/candidate",
                             "--arm", f"baseline={out}/baseline", "--format", "json")
    assert json.loads(again) == data
    receipt = load(out / "receipt.json")
    details = {r["case"]: r["arms"]["candidate"]["error"] for r in receipt["rows"]}
    assert details == {"dies": "agent exited 4", "drops": "case dropped (setup): setup failed: exit 2", "fine": None,
                       "skips": "environment skip: missing evalfmt-no-such-tool-9",
                       "slow": "agent timed out after 1.2 s"}
    assert receipt["comparisons"]["candidate-vs-baseline"] == {"win": 1, "loss": 0, "tie": 0, "net_lift": 1.0,
                                                               "sign_p": 1.0}
