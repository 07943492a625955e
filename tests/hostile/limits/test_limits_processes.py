"""No process outlives ``evalfmt run`` (issue 11.11): an agent whose children leave its process group
(``setsid``, a double fork, a child that keeps forking) has every one of them killed when its session
ends, with a cgroup where one can be made and with evalfmt as a child subreaper otherwise; so does a
case's ``setup`` and a ``command_succeeds`` check. evalfmt runs in a fresh process here, as a user runs
it (a subreaper is a property of the process)."""

from __future__ import annotations

import os
import pathlib
import shlex
import subprocess
import sys
import time

import pytest
from limitkit import HERE, make_skill, write_stream

from evalfmt.run import contain

AGENT = HERE / "agents" / "daemon_agent.py"


def _alive(piddir: pathlib.Path) -> list[int]:
    """The processes the hostile agent left that are still running (zombies count as gone). A recorded pid
    counts only while it is still one of this test's daemons (its environment names this test's pid
    folder): after a kill the kernel reuses pids, e.g. for another test run's daemons on a busy machine."""
    out = []
    mine = f"DAEMON_PIDDIR={piddir}".encode()
    for f in piddir.iterdir():
        if f.name.endswith(".tmp"):
            continue
        pid = int(f.read_text())
        try:
            stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
            cmd = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes()
            env = pathlib.Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"daemon_agent" in cmd and mine in env and stat[stat.rfind(")") + 2] != "Z":
            out.append(pid)
    return out


def _evalfmt(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalfmt", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **env})


def _cleanup(piddir: pathlib.Path) -> None:
    for pid in _alive(piddir):  # a failing test must not leave them running either
        os.kill(pid, 9)


def _mode_available(mode: str) -> None:
    if mode == "cgroup":
        cell = contain._CgroupJail.create()
        if cell is None:
            pytest.skip("no writable cgroup v2 hierarchy here (the reaper is tested instead)")
        cell.close()
    if not os.path.isdir("/proc/self/task"):
        pytest.skip("process containment beyond the process group needs Linux")


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("mode", ["cgroup", "reaper"])
def test_an_agent_that_daemonizes_leaves_nothing_behind(tmp_path, mode, jobs):
    _mode_available(mode)
    piddir = tmp_path / "pids"
    piddir.mkdir()
    skill = make_skill(tmp_path / "lib", "notes", {
        "a": "task: Write the notes.\nchecks:\n  - transcript_mentions: done\n",
        "b": "task: Write more notes.\nchecks:\n  - transcript_mentions: done\n"})
    cmd = f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENT))} {{task}}"
    try:
        proc = _evalfmt("run", str(skill), "--agent-command", cmd, "--out", str(tmp_path / "out"), "--quiet",
                        "--jobs", jobs, "--env", f"DAEMON_PIDDIR={piddir}", env={"EVALFMT_CONTAINMENT": mode})
        assert proc.returncode == 0, proc.stderr
        daemons = [f for f in piddir.iterdir() if f.name.startswith("daemon-")]
        assert len(daemons) == 4  # 2 cases x 2 arms: each session really left a daemon running
        assert _alive(piddir) == []
    finally:
        _cleanup(piddir)


@pytest.mark.parametrize("mode", ["cgroup", "reaper"])
def test_setup_and_command_succeeds_that_daemonize_leave_nothing_behind(tmp_path, mode):
    _mode_available(mode)
    piddir = tmp_path / "pids"
    piddir.mkdir()
    daemonize = f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENT))} x > /dev/null"
    skill = make_skill(tmp_path / "lib", "notes", {
        "a": f"task: Write the notes.\nsetup: {daemonize}\nchecks:\n  - command_succeeds: {daemonize}\n"})
    sandbox = tmp_path / "sandbox"
    sandbox.mkdir()
    transcript = write_stream(tmp_path / "t.jsonl", texts=["done"])
    env = {"EVALFMT_CONTAINMENT": mode, "DAEMON_PIDDIR": str(piddir)}
    try:
        proc = _evalfmt("score", str(skill / "evals/cases/a.yaml"), "--transcript", str(transcript),
                        "--sandbox", str(sandbox), env=env)
        assert (proc.returncode, proc.stderr) == (0, "")
        proc = _evalfmt("run", str(skill), "--dry-run", "--out", str(tmp_path / "out"), "--quiet", env=env)
        assert proc.returncode == 0, proc.stderr
        assert len([f for f in piddir.iterdir() if f.name.startswith("daemon-")]) == 2  # the check, the setup
        assert _alive(piddir) == []
    finally:
        _cleanup(piddir)


def test_the_jail_in_use(monkeypatch):
    """In a process that merely imports evalfmt (this one), the jail is a cgroup or the process group: never
    the subreaper, a property of the whole process that would re-parent its orphans to the caller."""
    monkeypatch.setenv("EVALFMT_CONTAINMENT", "group")
    assert contain.jail().kind == "group"
    cgroups = bool(contain._cgroup_dir() and os.access(contain._cgroup_dir(), os.W_OK))
    for mode in ("auto", "reaper"):
        monkeypatch.setenv("EVALFMT_CONTAINMENT", mode)
        cell = contain.jail()
        try:
            assert cell.kind == ("cgroup" if cgroups and mode == "auto" else "group")
        finally:
            cell.close()
    assert _subreaper_flag(os.getpid()) == 0


def test_evalfmt_s_own_process_takes_the_reaper():
    """``python -m evalfmt`` (and the console script) is evalfmt's own process: there the reaper is used."""
    if not os.path.isdir("/proc/self/task"):
        pytest.skip("the reaper needs Linux")
    code = ("import os, sys\nfrom evalfmt import program\nfrom evalfmt.run import contain\n"
            "os.environ['EVALFMT_CONTAINMENT'] = 'reaper'\nprint(contain.jail().kind)\nprogram.claim()\n"
            "print(contain.jail().kind)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (proc.stdout, proc.stderr) == ("group\nreaper\n", "")


def _subreaper_flag(pid: int) -> int:
    """prctl(PR_GET_CHILD_SUBREAPER) of this process."""
    import ctypes

    assert pid == os.getpid()
    value = ctypes.c_int(-1)
    assert ctypes.CDLL(None, use_errno=True).prctl(37, ctypes.byref(value), 0, 0, 0) == 0
    return value.value


def test_a_bad_containment_setting_is_a_one_line_error(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "notes", {"a": "task: t\nchecks:\n  - command_succeeds: 'true'\n"})
    sandbox = tmp_path / "sandbox"
    sandbox.mkdir()
    transcript = write_stream(tmp_path / "t.jsonl", texts=["done"])
    assert run_cli("score", str(skill / "evals/cases/a.yaml"), "--transcript", str(transcript), "--sandbox",
                   str(sandbox), env={"EVALFMT_CONTAINMENT": "jail"}) == (
        2, "", "evalfmt: EVALFMT_CONTAINMENT must be auto, cgroup, reaper or group, not 'jail'\n")


def test_no_cgroup_is_left_behind(tmp_path):
    base = contain._cgroup_dir()
    if base is None or not os.access(base, os.W_OK):
        pytest.skip("no writable cgroup v2 hierarchy here")
    mine = f"evalfmt-{os.getpid()}-"
    cell = contain.jail()
    assert cell.kind == "cgroup" and os.path.isdir(cell.path)
    proc = subprocess.Popen(["sleep", "60"], preexec_fn=cell.preexec(), start_new_session=True)
    cell.started(proc.pid)
    assert cell.entered
    os.killpg(proc.pid, 9)
    proc.wait()
    cell.close()
    time.sleep(0.05)
    assert [n for n in os.listdir(base) if n.startswith(mine)] == []


def test_the_empty_cgroup_of_a_killed_evalfmt_is_removed(tmp_path):
    """evalfmt killed (SIGKILL) while a command ran leaves its cgroup; the next one removes it when empty."""
    base = contain._cgroup_dir()
    if base is None or not os.access(base, os.W_OK):
        pytest.skip("no writable cgroup v2 hierarchy here")
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    stale = os.path.join(base, f"evalfmt-{proc.pid}-1")
    os.mkdir(stale)
    proc.kill()
    proc.wait()
    cell = contain.jail()
    cell.close()
    assert not os.path.exists(stale)


def _zombie_children() -> list[int]:
    """This process's children that ended and were not waited for."""
    out = []
    for tid in os.listdir("/proc/self/task"):
        for pid in pathlib.Path(f"/proc/self/task/{tid}/children").read_text().split():
            try:
                stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                continue
            if stat[stat.rfind(")") + 2] == "Z":
                out.append(int(pid))
    return out


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_run_called_in_process_leaves_the_caller_as_it_was(run_cli, tmp_path, jobs):
    """``run`` called from a program's own process (here pytest's, through the CLI's main function): the
    agents' daemons are still ended (a cgroup where one can be made), and the caller is not made a child
    subreaper, so it collects no zombie of them (a test run once had 205)."""
    if not os.path.isdir("/proc/self/task"):
        pytest.skip("needs Linux's /proc")
    piddir = tmp_path / "pids"
    piddir.mkdir()
    skill = make_skill(tmp_path / "lib", "notes", {
        "a": "task: Write the notes.\nchecks:\n  - transcript_mentions: done\n",
        "b": "task: Write more notes.\nchecks:\n  - transcript_mentions: done\n"})
    cmd = f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENT))} {{task}}"
    before = set(_zombie_children())
    try:
        code, _, stderr = run_cli("run", str(skill), "--agent-command", cmd, "--out", str(tmp_path / "out"),
                                  "--quiet", "--jobs", jobs, "--env", f"DAEMON_PIDDIR={piddir}")
        assert code == 0, stderr  # (stderr: the fake agent reports no skills, a warning)
        assert len([f for f in piddir.iterdir() if f.name.startswith("daemon-")]) == 4
        time.sleep(0.5)  # an orphan killed at the end of a session is re-parented before it is reaped
        assert _subreaper_flag(os.getpid()) == 0
        assert set(_zombie_children()) - before == set()
        cgroups = bool(contain._cgroup_dir() and os.access(contain._cgroup_dir(), os.W_OK))
        if cgroups or jobs == "2":  # a cgroup, or the pool's workers, which are evalfmt's own processes
            assert _alive(piddir) == []
    finally:
        _cleanup(piddir)
