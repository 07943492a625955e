"""``evalfmt run --resume``: after a Ctrl-C, a driver killed with SIGKILL, or agents that hung past their
timeout, only the missing or dead sessions run again, nothing that finished runs twice, and the receipt
is the one of the whole run."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest
from e2ehelp import agent_command, load, make_skill, rows

from evalfmt.run import contain
from test_e2e_interrupt import _agents, _wait_for
from test_e2e_shard import timeless

RUN_ID = "20260101T000000Z"


#: a run given these makes the agents that wait hang past their timeout (the fast case is not reached)
HANG = ("--timeout-minutes", "0.01")


def cases(tmp_path) -> dict[str, str]:
    """A fast case, and two that wait for tmp_path/release (each agent logs its case and pid to
    tmp_path/runs.log when it starts). The fast case sets a timeout of its own, so ``--timeout-minutes``
    (:data:`HANG`) reaches only the two that wait: how fast an agent that does not wait ends is up to
    the machine's load."""
    log, release = tmp_path / "runs.log", tmp_path / "release"

    def task(name: str, wait: bool) -> str:
        text = f"task: |\n  !bash echo {name} $PPID >> {log}\n"
        if wait:
            text += f"  !bash while [ ! -f {release} ]; do sleep 0.05; done\n"
        return text + f"  !say done {name}\nchecks:\n  - transcript_mentions: done {name}\n  - transcript_mentions: SKILLED\n" \
            + ("" if wait else "timeout_minutes: 60\n")

    return {"a-fast": task("a-fast", False), "b-waits": task("b-waits", True), "c-waits": task("c-waits", True)}


def started(tmp_path) -> list[str]:
    return sorted(name for name, _ in _log(tmp_path))


def _log(tmp_path) -> list[tuple[str, int]]:
    path = tmp_path / "runs.log"
    lines = path.read_text().splitlines() if path.exists() else []
    return [(line.split()[0], int(line.split()[1])) for line in lines]


def _kill_agents(tmp_path) -> None:
    """The agents a SIGKILLed driver left behind (their pids, logged when they started)."""
    for _, pid in _log(tmp_path):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if str(tmp_path).encode() not in fh.read():  # gone, and the pid taken by another process
                    continue
            os.kill(pid, signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass


def _cgroups() -> bool:
    """Whether evalfmt's jails are cgroups here (the one mechanism that ends an agent whose worker died)."""
    cell = contain._CgroupJail.create()
    if cell is not None:
        cell.close()
    return cell is not None


def run_args(skill, out, *extra):
    return ["run", str(skill), "--agent-command", agent_command(), "--out", str(out), "--quiet", "--run-id", RUN_ID,
            *extra]


def _worker_of(tmp_path, name: str) -> int:
    """The pool worker running the agent of ``name`` (the agent's parent)."""
    _wait_for(tmp_path / "runs.log", name)
    agent = next(pid for n, pid in _log(tmp_path) if n == name)
    with open(f"/proc/{agent}/stat") as fh:
        return int(fh.read().rsplit(") ", 1)[1].split()[1])


@pytest.mark.parametrize("how, jobs", [("SIGINT", "2"), ("SIGKILL", "1"), ("worker", "2")])
def test_resume_after_the_driver_is_stopped_runs_only_what_did_not_finish(tmp_path, evalfmt_exe, run_cli, how, jobs):
    """Ctrl-C of the driver, the driver killed outright, a worker process killed mid-session."""
    skill = make_skill(tmp_path / "lib", "slowish", cases(tmp_path), body="!say SKILLED\n")
    out = tmp_path / "out"
    proc = subprocess.Popen([*evalfmt_exe, *run_args(skill, out, "--jobs", jobs)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        for arm in ("baseline", "candidate"):
            _wait_for(out / arm / "a-fast" / "score.json", "a-fast")
        _wait_for(tmp_path / "runs.log", "b-waits")
        if how == "worker":
            os.kill(_worker_of(tmp_path, "b-waits"), signal.SIGKILL)
            _, stderr = proc.communicate(timeout=60)
            assert stderr.splitlines()[-1] == "evalfmt: interrupted: 2 of 6 sessions ran; receipt written (partial)"
            lost = (out / "baseline" / "b-waits" / "dead.txt").read_text()
            assert lost == "lost: a worker process died while the run's sessions ran (evalfmt run --resume runs it again)\n"
            left = _agents(str(tmp_path))  # (before _cgroups(): a jail it makes sweeps what gone workers' jails hold)
            if _cgroups():  # the agents the pool's workers ran end with the run (the jails of gone workers are swept)
                assert left == [], "an agent outlived the run"
        else:
            os.kill(proc.pid, getattr(signal, how))
            proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if how != "SIGINT":
            _kill_agents(tmp_path)
    assert proc.returncode == (-signal.SIGKILL if how == "SIGKILL" else 130)
    assert (out / "receipt.json").exists() == (how != "SIGKILL")
    before = started(tmp_path)
    assert before.count("a-fast") == 2
    if jobs == "1":  # one session at a time: the baseline of b-waits was running, nothing after it started
        assert before == ["a-fast", "a-fast", "b-waits"]
    (tmp_path / "release").write_text("")
    code, stdout, stderr = run_cli(*run_args(skill, out, "--jobs", jobs, "--resume"))
    assert (code, stderr) == (0, "")
    after = started(tmp_path)
    assert after.count("a-fast") == 2, "a finished session ran again"
    for name in ("b-waits", "c-waits"):  # none of their sessions had finished: both arms ran again
        assert after.count(name) == before.count(name) + 2
    receipt = load(out / "receipt.json")
    assert (receipt["execution_status"], receipt["interrupted"], receipt["run_id"]) == ("complete", False, RUN_ID)
    assert rows(receipt) == [(c, 1, "baseline", "win", "checks") for c in ("a-fast", "b-waits", "c-waits")]
    # the same as the run done in one go
    code, _, _ = run_cli(*run_args(skill, tmp_path / "whole", "--jobs", jobs))
    assert code == 0
    assert timeless((out / "receipt.json").read_bytes()) == timeless((tmp_path / "whole" / "receipt.json").read_bytes())


def test_resume_reruns_agents_that_hung_past_their_timeout_and_nothing_else(tmp_path, run_cli):
    skill = make_skill(tmp_path / "lib", "hangs", cases(tmp_path), body="!say SKILLED\n")
    out = tmp_path / "out"
    code, stdout, _ = run_cli(*run_args(skill, out, "--jobs", "2", *HANG))
    assert code == 0  # the fast case wins; the two others have both arms dead
    first = load(out / "receipt.json")
    assert first["execution_status"] == "partial"
    assert [r[-1] for r in rows(first)] == ["checks", "both-arms-failed", "both-arms-failed"]
    assert (out / "baseline" / "b-waits" / "dead.txt").read_text() == "agent timed out after 0.6 s\n"
    assert started(tmp_path) == ["a-fast", "a-fast", "b-waits", "b-waits", "c-waits", "c-waits"]
    (tmp_path / "release").write_text("")
    code, stdout, stderr = run_cli(*run_args(skill, out, "--jobs", "2", "--resume"))
    assert (code, stderr) == (0, "")
    assert started(tmp_path) == ["a-fast", "a-fast"] + ["b-waits"] * 4 + ["c-waits"] * 4
    receipt = (out / "receipt.json").read_bytes()
    assert load(out / "receipt.json")["execution_status"] == "complete"
    assert not (out / "baseline" / "b-waits" / "dead.txt").exists()
    # a resume of a complete run runs nothing and writes the same receipt
    code, _, stderr = run_cli(*run_args(skill, out, "--resume", "--jobs", "2"))
    assert (code, stderr) == (0, "")
    assert len(started(tmp_path)) == 10
    assert timeless((out / "receipt.json").read_bytes()) == timeless(receipt)


def test_resume_of_a_shard_then_merge(tmp_path, run_cli):
    skill = make_skill(tmp_path / "lib", "hangs", cases(tmp_path), body="!say SKILLED\n")
    s1, s2 = tmp_path / "s1", tmp_path / "s2"
    assert run_cli(*run_args(skill, s1, "--shard", "1/2", *HANG))[0] == 0  # a-fast wins; c-waits hangs
    assert run_cli(*run_args(skill, s2, "--shard", "2/2", *HANG))[0] == 1  # b-waits hangs: nothing scored
    (tmp_path / "release").write_text("")
    code, _, stderr = run_cli(*run_args(skill, s1, "--shard", "2/2", "--resume"))
    assert (code, stderr) == (2, f"evalfmt: --resume: {s1} is a run with shard 1/2, not 2/2\n")
    for i, folder in ((1, s1), (2, s2)):
        code, _, stderr = run_cli(*run_args(skill, folder, "--shard", f"{i}/2", "--resume"))
        assert (code, stderr) == (0, "")
    assert started(tmp_path).count("a-fast") == 2
    code, _, stderr = run_cli("merge", "--out", str(tmp_path / "m"), str(s1), str(s2))
    assert (code, stderr) == (0, "")
    assert load(tmp_path / "m" / "receipt.json")["execution_status"] == "complete"
    assert run_cli(*run_args(skill, tmp_path / "whole"))[0] == 0
    assert timeless((tmp_path / "m" / "receipt.json").read_bytes()) == \
        timeless((tmp_path / "whole" / "receipt.json").read_bytes())


def test_resume_refusals_and_a_fresh_start(tmp_path, run_cli):
    skill = make_skill(tmp_path / "lib", "quick", {"a": "task: |\n  !say hi\nchecks:\n  - transcript_mentions: hi\n"})
    out = tmp_path / "out"
    code, _, stderr = run_cli(*run_args(skill, out, "--resume"))  # nothing to resume: a fresh run
    assert (code, stderr) == (0, "")
    assert load(out / "plan.json")["k"] == 1
    code, stdout, stderr = run_cli(*run_args(skill, out, "--resume", "--k", "3"))
    assert (code, stdout, stderr) == (2, "", f"evalfmt: --resume: {out} is a run with k 1, not 3\n")
    code, _, stderr = run_cli(*run_args(skill, out, "--resume", "--model", "m2"))
    assert stderr == f"evalfmt: --resume: {out} is a run with model none, not 'm2'\n"
    code, _, stderr = run_cli(*run_args(skill, out, "--resume", "--force"))
    assert code == 2 and "--resume and --force contradict each other" in stderr
    (out / "plan.json").unlink()  # a run folder of an older evalfmt
    code, _, stderr = run_cli(*run_args(skill, out, "--resume"))
    assert (code, stderr) == (2, f"evalfmt: --resume: {out} holds a run without plan.json (candidate, baseline, "
                                 "receipt.json); give --force instead to replace it\n")


def test_ctrl_c_with_a_threaded_runner_interrupts_its_sessions_then_resume(tmp_path):
    """The executor's threads for runners whose sessions run elsewhere (ray): SIGINT calls the runner's
    interrupt(), the waiting sessions stop, start() and close() are called once, and --resume finishes."""
    import queue
    import threading

    from e2ehelp import RemoteLikeRunner

    from evalfmt.api import read
    from evalfmt.run import runners
    from evalfmt.run.skillrun import RunRequest, run_skill

    made: list[RemoteLikeRunner] = []
    first = RemoteLikeRunner()

    def factory(options):
        made.append(RemoteLikeRunner(blocking=False) if made else first)  # the resumed run's sessions do not wait
        return made[-1]

    skill = make_skill(tmp_path / "lib", "remote", {
        "a-fast": "task: |\n  say hi\nchecks:\n  - transcript_mentions: hi\n",
        "b-waits": "task: |\n  wait\n  say hi\nchecks:\n  - transcript_mentions: hi\n"})
    result = read(str(skill), "terum")
    runners.REGISTRY.register("remote-like", factory)
    try:
        def request(**extra):
            return RunRequest(skill_dir=str(skill), sets=result.sets, out=str(tmp_path / "out"), runner="remote-like",
                              jobs=2, quiet=True, run_id=RUN_ID, **extra)

        def ctrl_c() -> None:  # once both sessions of b-waits wait (so both of a-fast have finished)
            try:
                for _ in range(2):
                    first.waiting.get(timeout=60)
            except queue.Empty:  # they never waited: no SIGINT (the assertions below say what went wrong)
                return
            os.kill(os.getpid(), signal.SIGINT)

        sender = threading.Thread(target=ctrl_c)
        sender.start()
        try:
            outcome = run_skill(request())
        finally:
            sender.join()
        assert outcome.interrupted
        assert made[0].calls == ["start", "interrupt", "close"]
        assert (tmp_path / "out" / "baseline" / "b-waits" / "dead.txt").read_text() == \
            "interrupted: the run was stopped while this session ran\n"
        assert (tmp_path / "out" / "candidate" / "a-fast" / "score.json").exists()
        outcome = run_skill(request(resume=True))
    except KeyboardInterrupt:  # pragma: no cover - the SIGINT reached pytest: the handler was not installed
        raise AssertionError("the run did not handle SIGINT") from None
    finally:
        runners.REGISTRY.unregister("remote-like")
    assert made[1].calls == ["start", "close"]
    assert not outcome.interrupted and outcome.comparison is not None
    assert outcome.comparison.status == "complete"


# ------------------------------------------------------------------------------ hostile: links out of --out


def snapshot(folder) -> dict[str, str | bytes]:
    """Every entry under ``folder`` (links as their targets, never followed; files with their bytes)."""
    found: dict[str, str | bytes] = {}
    for base, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(base, name)
            rel = os.path.relpath(path, folder)
            if os.path.islink(path):
                found[rel] = "-> " + os.readlink(path)
            elif os.path.isfile(path):
                with open(path, "rb") as fh:
                    found[rel] = fh.read()
            else:
                found[rel] = "dir"
    return found


def _victim(tmp_path):
    victim = tmp_path / "victim"
    (victim / "a").mkdir(parents=True)
    (victim / "a" / "precious.txt").write_text("keep\n")
    (victim / "b-dead").mkdir()
    return victim


@pytest.mark.parametrize("where", ["arm", "case", "repetition"])
def test_resume_refuses_a_run_folder_whose_paths_lead_out_before_touching_anything(tmp_path, run_cli, where):
    """``out/candidate -> ../victim`` (or a case's or a repetition's folder linked out): --resume once
    deleted victim/a/precious.txt and wrote session folders into victim/. It is refused on one line and
    neither folder changes."""
    k = "2" if where == "repetition" else "1"
    skill = make_skill(tmp_path / "lib", "quick", {"a": "task: |\n  !say hi\nchecks:\n  - transcript_mentions: hi\n"})
    out = tmp_path / "out"
    code, _, stderr = run_cli(*run_args(skill, out, "--k", k))
    assert (code, stderr) == (0, "")
    victim = _victim(tmp_path)
    if where == "arm":
        link, target = out / "candidate", "../victim"
    elif where == "case":
        link, target = out / "candidate" / "a", "../../victim/a"
    else:
        link, target = out / "candidate" / "a" / "2", "../../../victim/a"
    import shutil

    shutil.rmtree(link)
    os.symlink(target, link)
    before, victim_before = snapshot(out), snapshot(victim)
    code, stdout, stderr = run_cli(*run_args(skill, out, "--k", k, "--resume"))
    assert (code, stdout) == (2, "")
    assert stderr == (f"evalfmt: refusing to resume into {link}: outside the run folder {out} "
                      "(through '..', an absolute path or a symlink); nothing touched\n")
    assert snapshot(out) == before and snapshot(victim) == victim_before


def test_force_replaces_an_arm_folder_linked_out_without_following_it(tmp_path, run_cli):
    skill = make_skill(tmp_path / "lib", "quick", {"a": "task: |\n  !say hi\nchecks:\n  - transcript_mentions: hi\n"})
    out = tmp_path / "out"
    assert run_cli(*run_args(skill, out))[0] == 0
    victim = _victim(tmp_path)
    import shutil

    shutil.rmtree(out / "candidate")
    os.symlink("../victim", out / "candidate")
    victim_before = snapshot(victim)
    code, _, stderr = run_cli(*run_args(skill, out, "--force"))
    assert (code, stderr) == (0, "")
    assert snapshot(victim) == victim_before
    assert not os.path.islink(out / "candidate") and (out / "candidate" / "a" / "score.json").is_file()


def test_merge_force_onto_a_folder_whose_arm_links_out(tmp_path, run_cli):
    skill = make_skill(tmp_path / "lib", "quick", {"a": "task: |\n  !say hi\nchecks:\n  - transcript_mentions: hi\n",
                                                    "b": "task: |\n  !say hi\nchecks:\n  - transcript_mentions: hi\n"})
    s1, s2, out = tmp_path / "s1", tmp_path / "s2", tmp_path / "m"
    for i, folder in ((1, s1), (2, s2)):
        assert run_cli(*run_args(skill, folder, "--shard", f"{i}/2"))[0] == 0
    out.mkdir()
    victim = _victim(tmp_path)
    os.symlink("../victim", out / "candidate")
    victim_before = snapshot(victim)
    code, _, stderr = run_cli("merge", "--out", str(out), str(s1), str(s2))
    assert (code, stderr) == (2, f"evalfmt: --out {out} already holds a run (candidate); give --force to replace it "
                                 "or --resume to continue it\n")
    code, _, stderr = run_cli("merge", "--out", str(out), "--force", str(s1), str(s2))
    assert (code, stderr) == (0, "")
    assert snapshot(victim) == victim_before
    assert not os.path.islink(out / "candidate") and sorted(os.listdir(out / "candidate")) == ["a", "b"]
    # --out reaching a shard through a symlink is that shard (--force would delete what it copies from)
    os.symlink("s1", tmp_path / "alias")
    before = snapshot(s1)
    code, _, stderr = run_cli("merge", "--out", str(tmp_path / "alias"), "--force", str(s1), str(s2))
    assert (code, stderr) == (2, f"evalfmt: merge: --out {tmp_path / 'alias'} is one of the shards; give a new folder\n")
    assert snapshot(s1) == before
