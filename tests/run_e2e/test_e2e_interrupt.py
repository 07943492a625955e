"""Ctrl-C during ``evalfmt run`` (a real process and a real SIGINT): running agents are killed, what
finished is kept, the receipt says partial; and compare re-scores runs holding dead arms identically."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
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


# ``evalfmt run`` in a process of its own, with a SIGINT delivered at an exact point (argv: the window, a
# file that lets it fire once across evalfmt's processes, then evalfmt's arguments). "dropped": in the
# process running a session, just after the slow agent is forked, from a place whose exceptions Python
# drops (as it drops one raised in the hooks fork runs, where a Ctrl-C that lands during the fork is
# handled); "raised": there too, where the exception is seen, inside Popen (the child exists, Popen has
# not returned it); both as a terminal's Ctrl-C, to the whole process group. "staged": as "dropped", once
# the slow case's sandbox is staged (before its agent starts). "worker-start": in each of the two pool
# workers, once both are forked and before either has run its initializer.
WINDOW_DRIVER = """
import glob, os, signal, subprocess, sys, time
from evalfmt import cli, program

window, once, args = sys.argv[1], sys.argv[2], sys.argv[3:]
main = os.getpid()


def first():
    try:
        os.close(os.open(once, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False


class Dropped:
    def __del__(self):
        os.killpg(0, signal.SIGINT)


def unraisable(info):  # Python reports on stderr an exception it drops; under test is what evalfmt does next
    if not isinstance(info.exc_value, KeyboardInterrupt):
        sys.__unraisablehook__(info)


sys.unraisablehook = unraisable


execute_child = subprocess.Popen._execute_child


def forked(self, args, *rest, **kw):
    execute_child(self, args, *rest, **kw)
    if "b-slow-agent" in " ".join(map(str, args)) and first():
        if window == "dropped":
            Dropped()
        else:
            os.killpg(0, signal.SIGINT)


def worker_started():
    if os.getppid() != main:
        return
    os.close(os.open(f"{once}.{os.getpid()}", os.O_CREAT | os.O_WRONLY))
    end = time.monotonic() + 30
    while len(glob.glob(f"{once}.*")) < 2 and time.monotonic() < end:  # both workers forked, neither started
        time.sleep(0.01)
    os.kill(os.getpid(), signal.SIGINT)
    signal.pthread_sigmask(signal.SIG_BLOCK, [])  # handles it now, in this process, if it can take it now


def staged(spec, *rest, **kw):
    report = stage(spec, *rest, **kw)
    if spec.name == "b-slow" and first():
        Dropped()
    return report


if window == "worker-start":
    os.register_at_fork(after_in_child=worker_started)
elif window == "staged":
    from evalfmt.run import execute
    stage, execute.stage = execute.stage, staged
else:
    subprocess.Popen._execute_child = forked
program.claim()
cli.main(args)
"""


def _agents(marker: str) -> list[int]:
    """The processes whose command line holds ``marker`` (the slow agent's task holds the test's folder)."""
    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/cmdline", "rb") as fh:
                if marker.encode() in fh.read() and _alive(int(name)):
                    found.append(int(name))
        except (OSError, ValueError):
            pass
    return found


def _driven(tmp_path, window: str, *args: str) -> tuple[int, str]:
    """Run ``evalfmt ARGS`` through the window driver in tmp_path: (exit code, stderr), once it has ended
    and no slow agent (its task holds tmp_path/b-slow-agent) is left; one left running fails the test."""
    marker = str(tmp_path / "b-slow-agent")
    proc = subprocess.Popen([sys.executable, "-c", WINDOW_DRIVER, window, str(tmp_path / "once"), *args],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        left = _agents(marker)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
    assert left == [], "an agent outlived the interrupted run"
    assert "Traceback" not in stderr
    return proc.returncode, stderr


@pytest.mark.parametrize("window, jobs", [("dropped", "1"), ("dropped", "2"), ("raised", "1"), ("raised", "2"),
                                          ("staged", "1"), ("staged", "2"), ("worker-start", "2")])
def test_a_ctrl_c_at_the_edge_of_an_agent_s_start_is_never_lost(tmp_path, window, jobs):
    """A SIGINT that lands while the agent is being started is acted on as any other: the session ends as
    interrupted, its agent is killed, no further session starts, the receipt is written (a SIGINT handled
    where Python drops the exception was once lost, and the session ran its agent to its end; one raised
    inside Popen once left the agent running after evalfmt exited; one that reached a pool worker before
    its handler was lost)."""
    skill = make_skill(tmp_path / "lib", "slowish", {"b-slow": f"task: |\n  !say {tmp_path / 'b-slow-agent'}\n"
                                                               "  !sleep 60\nchecks:\n  - transcript_mentions: x\n"})
    out = tmp_path / "out"
    code, stderr = _driven(tmp_path, window, "run", str(skill), "--agent-command", agent_command(), "--out", str(out),
                           "--jobs", jobs)
    assert code == 130
    ran = "0" if window == "worker-start" else "1" if jobs == "1" else "[12]"
    assert re.fullmatch(rf"evalfmt: interrupted: {ran} of 2 sessions ran; receipt written \(failed\)",
                        stderr.splitlines()[-1])
    receipt = load(out / "receipt.json")
    assert (receipt["interrupted"], receipt["execution_status"]) == (True, "failed")
    dead = {arm: (out / arm / "b-slow" / "dead.txt").read_text() for arm in ("baseline", "candidate")}
    interrupted, not_run = "interrupted: the run was stopped while this session ran\n", "not run: the run was interrupted\n"
    if window == "worker-start":
        assert dead == {"baseline": not_run, "candidate": not_run}
    elif jobs == "1":
        assert dead == {"baseline": interrupted, "candidate": not_run}
    else:  # the other arm's session was running, or not started yet
        assert interrupted in dead.values() and set(dead.values()) <= {interrupted, not_run}


@pytest.mark.parametrize("window, jobs", [("dropped", "1"), ("dropped", "2"), ("raised", "1"), ("raised", "2"),
                                          ("worker-start", "2")])
def test_a_ctrl_c_at_the_edge_of_an_agent_s_start_in_a_library_run_is_never_lost(tmp_path, window, jobs):
    """The same in a trigger run over a skill library (``evalfmt run EVAL.yaml --skills DIR``): the run
    stops, every agent it started is killed."""
    from test_e2e_library import SKILLS, library

    library(tmp_path / "skills", SKILLS)
    (tmp_path / "EVAL.yaml").write_text("tests:\n" + "".join(
        f"  - id: slow{i}\n    input: |\n      !say {tmp_path / 'b-slow-agent'}\n      !sleep 60\n"
        "    assertions:\n      - type: contains\n        value: x\n" for i in range(3)))
    code, stderr = _driven(tmp_path, window, "run", "EVAL.yaml", "--skills", "skills", "--out", "out", "--jobs", jobs,
                           "--agent-command", agent_command())
    assert (code, stderr.splitlines()[-1]) == (130, "evalfmt: aborted")


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


@pytest.mark.parametrize("command", ["skill", "library"])
def test_a_worker_that_dies_takes_no_agent_with_it_past_the_run(tmp_path, command):
    """A ``--jobs 2`` worker killed outright (the OOM killer, a stray kill): the pool ends the other worker
    too, and every agent either was running ends with the run (the jails of the gone workers are swept); it
    once left both agents running after evalfmt exited. Where no cgroup can be made (the reaper or the process
    group), nothing is left to end them: the test needs cgroups."""
    from evalfmt.run import contain

    cell = contain._CgroupJail.create()
    if cell is None:
        pytest.skip("no writable cgroup v2 hierarchy here: an agent whose worker died is ended by a cgroup only")
    cell.close()
    log, marker = tmp_path / "started.log", str(tmp_path / "slow-agent")
    task = f"!bash echo $PPID >> {log}\n!say {marker}\n!sleep 60\n"
    if command == "skill":
        skill = make_skill(tmp_path / "lib", "slowish", {"a-slow": "task: |\n" + "".join(f"  {line}\n" for line in
                                                                                        task.splitlines())
                                                                      + "checks:\n  - transcript_mentions: x\n"})
        args = ["run", str(skill), "--jobs", "2"]
    else:
        from test_e2e_library import SKILLS, library

        library(tmp_path / "skills", SKILLS)
        (tmp_path / "EVAL.yaml").write_text("tests:\n" + "".join(
            f"  - id: slow{i}\n    input: |\n" + "".join(f"      {line}\n" for line in task.splitlines())
            + "    assertions:\n      - type: contains\n        value: x\n" for i in range(2)))
        args = ["run", "EVAL.yaml", "--skills", "skills", "--jobs", "2"]
    proc = subprocess.Popen([sys.executable, "-m", "evalfmt", *args, "--agent-command", agent_command(),
                             "--out", str(tmp_path / "out")], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        end = time.monotonic() + 60
        while len(log.read_text().split() if log.exists() else []) < 2:  # both agents started, one in each worker
            assert time.monotonic() < end, "the two agents never started"
            time.sleep(0.05)
        first = int(log.read_text().split()[0])
        with open(f"/proc/{first}/stat") as fh:
            worker = int(fh.read().rsplit(") ", 1)[1].split()[1])
        os.kill(worker, signal.SIGKILL)
        _, stderr = proc.communicate(timeout=60)
        left = _agents(marker)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for pid in _agents(marker):
            os.kill(pid, signal.SIGKILL)
    assert left == [], "an agent outlived the run"
    assert "Traceback" not in stderr
    if command == "skill":  # the sessions that did not finish are dead, and --resume runs them again
        assert (proc.returncode, stderr.splitlines()[-1]) == (
            130, "evalfmt: interrupted: 0 of 2 sessions ran; receipt written (failed)")
    else:
        assert (proc.returncode, stderr) == (
            2, "evalfmt: a worker process died while the agents ran (killed from outside: the OOM killer, a signal); "
               "the run stops, and the agents it had started are ended\n")
