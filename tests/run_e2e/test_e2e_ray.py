"""The ``ray`` runner on a real local multi-node Ray cluster (a head and two worker nodes, loopback only):
the receipt is the command runner's for the same agent, a worker killed mid-session leaves a run that
``--resume`` completes, and without an address a local Ray instance is started for the run."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest
from e2ehelp import agent_command, load, make_skill, rows, tree
from test_e2e_interrupt import _wait_for
from test_e2e_resume import _kill_agents, _log, cases, started
from test_e2e_shard import TIMING, timeless

# read when Ray is imported: every node of a local multi-node cluster then uses 127.0.0.1 (loopback only)
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
ray = pytest.importorskip("ray", reason="Ray is not installed here (the extra evalfmt[ray])")

RUN_ID = "20260101T000000Z"
SKILL_BODY = "!say SKILLED\n!write notes.md :: made by the skill\n"
# a-wins stages everything there is: a fixture (with a symlink inside it and one leading out), inline
# files and a setup that records which process ran it and changes a fixture file
SETUP = "setup: |\n  tr '\\0' ' ' < /proc/$PPID/cmdline > setup-parent.txt\n  echo set up >> data.txt\n"
CASES = {
    "a-wins": "task: |\n  !say hello\nfixture: ../fixtures/repo\nfiles:\n  seed/notes.txt: seeded\n  bin/tool: echo\n"
              f"{SETUP}checks:\n  - transcript_mentions: SKILLED\n  - file_exists: notes.md\n"
              "  - file_exists: seed/notes.txt\n",
    "b-loses": "task: |\n  !say hello\nchecks:\n  - transcript_omits: SKILLED\n",
    "c-ties": "task: |\n  !say hello\n  !write plain.md :: x\nchecks:\n  - transcript_mentions: hello\n"
              "  - file_exists: plain.md\n",
}


@pytest.fixture(scope="module")
def cluster():
    """A head and two worker nodes, one CPU each, every one of them on 127.0.0.1."""
    from ray.cluster_utils import Cluster

    made = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        made.add_node(num_cpus=1)
        made.add_node(num_cpus=1)
        made.wait_for_nodes()
        yield made
    finally:
        if ray.is_initialized():
            ray.shutdown()
        made.shutdown()


def notes_skill(root, cases: dict[str, str]):
    """The skill of CASES, with a-wins's fixture (evals/fixtures/repo)."""
    skill = make_skill(root, "notes", cases, body=SKILL_BODY, extra_files={"evals/fixtures/repo/data.txt": "data\n"})
    os.symlink("data.txt", skill / "evals" / "fixtures" / "repo" / "alias.txt")
    os.symlink(str(root / "secret.txt"), skill / "evals" / "fixtures" / "repo" / "secret.txt")
    (root / "secret.txt").write_text("left out of the sandbox\n")
    return skill


def sandboxes(out) -> dict[str, dict[str, bytes | str]]:
    """Each session's sandbox in a run folder: every path with its bytes (a symlink: where it leads)."""
    found = {}
    for box in sorted(out.glob("*/*/sandbox")):
        items: dict[str, bytes | str] = {}
        for rel in tree(box):
            path = box / rel
            items[rel] = os.readlink(path) if path.is_symlink() else b"<dir>" if path.is_dir() else path.read_bytes()
        found[str(box.relative_to(out))] = items
    return found


def ray_args(skill, out, address, *extra):
    return ["run", str(skill), "--runner", "ray", "--runner-opt", f"address={address}", "--agent-command",
            agent_command(), "--out", str(out), "--quiet", "--run-id", RUN_ID, *extra]


def test_the_cluster_has_three_nodes_all_on_loopback(cluster):
    if not ray.is_initialized():
        ray.init(address=cluster.address, log_to_driver=False)
    nodes = [n for n in ray.nodes() if n["Alive"]]
    assert len(nodes) == 3
    assert {n["NodeManagerAddress"] for n in nodes} == {"127.0.0.1"}


def test_the_ray_receipt_is_the_command_runners(cluster, run_cli, tmp_path):
    skill = notes_skill(tmp_path / "lib", CASES)
    code, _, stderr = run_cli(*ray_args(skill, tmp_path / "ray", cluster.address, "--jobs", "3"))
    assert (code, stderr) == (0, "")
    code, _, stderr = run_cli("run", str(skill), "--agent-command", agent_command(), "--out", str(tmp_path / "cmd"),
                              "--quiet", "--run-id", RUN_ID, "--jobs", "3")
    assert (code, stderr) == (0, "")
    a = (tmp_path / "ray" / "receipt.json").read_bytes()
    b = (tmp_path / "cmd" / "receipt.json").read_bytes()
    assert a.count(b'"runner": "ray"') == 1
    assert TIMING.sub(b"", a).replace(b'"runner": "ray"', b'"runner": "command"') == TIMING.sub(b"", b)
    assert rows(load(tmp_path / "ray" / "receipt.json")) == [
        ("a-wins", 1, "baseline", "win", "checks"), ("b-loses", 1, "baseline", "loss", "checks"),
        ("c-ties", 1, "baseline", "tie", "checks-equal-no-judge")]
    # the sandbox came back: the candidate's file, written on a worker node, is in the run folder
    assert (tmp_path / "ray" / "candidate" / "a-wins" / "sandbox" / "notes.md").read_text() == "made by the skill"
    assert (tmp_path / "ray" / "candidate" / "a-wins" / "sandbox" / ".claude" / "skills" / "notes" / "SKILL.md").exists()
    info = [load(tmp_path / "ray" / arm / case / "run.json")["info"]["ray"] for arm in ("baseline", "candidate")
            for case in CASES]
    # each session names the node it ran on, one of the cluster's. Which nodes Ray's scheduler picks is
    # Ray's business, not evalfmt's guarantee (all on one node is a valid schedule), so it is not asserted.
    if not ray.is_initialized():
        ray.init(address=cluster.address, log_to_driver=False)
    node_ids = {n["NodeID"] for n in ray.nodes()}
    assert {i["node"] for i in info} <= node_ids
    # staged on the worker: setup ran in the Ray task's process (with the command runner: in evalfmt's)
    for arm in ("baseline", "candidate"):
        box = tmp_path / "ray" / arm / "a-wins" / "sandbox"
        assert (box / "setup-parent.txt").read_text().startswith("ray::remote_session")
        assert not (tmp_path / "cmd" / arm / "a-wins" / "sandbox" / "setup-parent.txt").read_text().startswith("ray")
        assert (box / "data.txt").read_text() == "data\nset up\n"
        assert oct((box / "bin" / "tool").stat().st_mode & 0o777) == "0o755"
    # a staging time is a duration: a number, never negative (a fast staging rounds to 0.0)
    assert all(isinstance(i["seconds_staging"], float) and i["seconds_staging"] >= 0 for i in info)
    # ... and the run folders hold the same sandboxes (setup-parent.txt apart) and staging notes
    ray_boxes, cmd_boxes = sandboxes(tmp_path / "ray"), sandboxes(tmp_path / "cmd")
    for boxes in (ray_boxes, cmd_boxes):
        for items in boxes.values():
            items.pop("setup-parent.txt", None)
    assert ray_boxes == cmd_boxes
    assert ray_boxes["candidate/a-wins/sandbox"]["alias.txt"] == "data.txt"
    assert "secret.txt" not in ray_boxes["candidate/a-wins/sandbox"]
    assert ray_boxes["candidate/a-wins/sandbox"][".claude/skills/notes/SKILL.md"].startswith(b"---\nname: notes")
    notes = [load(tmp_path / run / "candidate" / "a-wins" / "run.json")["info"]["staging_notes"] for run in ("ray", "cmd")]
    assert notes[0] == notes[1] and len(notes[0]) == 1 and notes[0][0].startswith("left out symlink secret.txt -> ")


def test_staging_on_the_worker_keeps_to_the_sandbox_as_the_command_runner_does(cluster, run_cli, tmp_path):
    """Hostile staging: an inline path climbing out, a fixture symlink leading out with a file written
    below its name, and a setup that points .claude at a folder outside (the skill must not be staged
    through it, on the node). Nothing is written outside; drops, receipt and sandboxes are the command
    runner's."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    skill = make_skill(tmp_path / "lib", "hostile", {
        "climbs": "task: |\n  !say hi\nfiles:\n  ok.txt: fine\n  ../../outside.txt: gotcha\n"
                  "checks:\n  - transcript_mentions: hi\n",
        "link-out": "task: |\n  !say hi\nfixture: ../fixtures/repo\nfiles:\n  out/x.txt: gotcha\n"
                    "checks:\n  - file_exists: out/x.txt\n",
        "setup-link": f"task: |\n  !say hi\nsetup: ln -s {elsewhere} .claude\nchecks:\n  - transcript_mentions: hi\n",
    }, body="!say SKILLED\n", extra_files={"evals/fixtures/repo/data.txt": "x\n"})
    os.symlink(str(elsewhere), skill / "evals" / "fixtures" / "repo" / "out")
    code, _, stderr = run_cli(*ray_args(skill, tmp_path / "ray", cluster.address, "--jobs", "3"))
    assert (code, stderr) == (0, "")
    code, _, stderr = run_cli("run", str(skill), "--agent-command", agent_command(), "--out", str(tmp_path / "cmd"),
                              "--quiet", "--run-id", RUN_ID, "--jobs", "3")
    assert (code, stderr) == (0, "")
    assert os.listdir(elsewhere) == [] and not (tmp_path / "outside.txt").exists()
    a, b = ((tmp_path / run / "receipt.json").read_bytes() for run in ("ray", "cmd"))
    assert TIMING.sub(b"", a).replace(b'"runner": "ray"', b'"runner": "command"') == TIMING.sub(b"", b)
    receipt = load(tmp_path / "ray" / "receipt.json")
    assert receipt["dropped_cases"]["climbs"]["detail"].startswith("unsafe file path '../../outside.txt'")
    assert receipt["dropped_cases"]["setup-link"] == {
        "kind": "staging", "detail": "cannot stage the skill: .claude/skills leads out of the sandbox"}
    assert sandboxes(tmp_path / "ray") == sandboxes(tmp_path / "cmd")
    box = tmp_path / "ray" / "candidate" / "link-out" / "sandbox"
    assert (box / "out" / "x.txt").read_text() == "gotcha" and not (box / "out").is_symlink()
    assert (tmp_path / "ray" / "candidate" / "setup-link" / "sandbox" / ".claude").is_symlink()  # what setup left


def test_a_worker_killed_mid_session_then_resume(cluster, run_cli, tmp_path, evalfmt_exe):
    skill = make_skill(tmp_path / "lib", "slowish", cases(tmp_path), body="!say SKILLED\n")
    out = tmp_path / "out"
    proc = subprocess.Popen([*evalfmt_exe, *ray_args(skill, out, cluster.address, "--jobs", "3")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _wait_for(tmp_path / "runs.log", "b-waits")
        agent = next(pid for name, pid in _log(tmp_path) if name == "b-waits")
        with open(f"/proc/{agent}/stat") as fh:
            worker = int(fh.read().rsplit(") ", 1)[1].split()[1])  # the Ray worker running the session
        with open(f"/proc/{worker}/cmdline", "rb") as fh:
            assert b"ray" in fh.read()
        os.kill(worker, signal.SIGKILL)
        time.sleep(0.5)
        (tmp_path / "release").write_text("")
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        _kill_agents(tmp_path)
    assert proc.returncode == 0, stderr
    first = load(out / "receipt.json")
    assert first["execution_status"] == "partial"
    dead = list(out.rglob("dead.txt"))
    assert len(dead) == 1 and dead[0].read_text().startswith("lost: the Ray task failed (")
    before = started(tmp_path)
    code, _, stderr = run_cli(*ray_args(skill, out, cluster.address, "--jobs", "3", "--resume"))
    assert (code, stderr) == (0, "")
    after = started(tmp_path)
    assert after.count("a-fast") == 2 and after.count("c-waits") == 2  # nothing that finished ran again
    assert after.count("b-waits") == before.count("b-waits") + 1  # only the session that was lost
    receipt = load(out / "receipt.json")
    assert receipt["execution_status"] == "complete"
    assert rows(receipt) == [(c, 1, "baseline", "win", "checks") for c in ("a-fast", "b-waits", "c-waits")]


def _processes_of_session(sid: int) -> list[str]:
    """The processes of the session ``sid`` (evalfmt is started in a session of its own: its local Ray
    instance's daemons and Ray's worker processes are in it too), by name."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(") ", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                argv = fh.read().split(b"\0")
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append(os.path.basename(argv[0]).decode(errors="replace").strip())
    return found


def _reap(proc: subprocess.Popen) -> list[str]:
    """Kill evalfmt (started in its own session) if it is still running; then what is left of its
    session after a grace period (an instance shutting down takes a moment)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    end = time.monotonic() + 15
    while _processes_of_session(proc.pid) and time.monotonic() < end:
        time.sleep(0.1)
    return _processes_of_session(proc.pid)


@pytest.mark.parametrize("target", ["evalfmt", "group"])
def test_ctrl_c_without_an_address_cancels_the_tasks_stops_the_instance_and_resume_completes(tmp_path, evalfmt_exe,
                                                                                             run_cli, target):
    """Without an address the run starts a local Ray instance: Ctrl-C cancels the running tasks (their
    agents end), keeps what finished, writes the partial receipt and shuts the instance down, whether
    SIGINT reaches evalfmt alone (it must stop the tasks and the instance itself) or its whole process
    group, Ray's processes included (a terminal's Ctrl-C); ``--resume`` (a local instance again) runs
    only what did not finish."""
    skill = make_skill(tmp_path / "lib", "slowish", cases(tmp_path), body="!say SKILLED\n")
    out = tmp_path / "out"
    args = ["run", str(skill), "--runner", "ray", "--runner-opt", "num_cpus=0.5", "--agent-command", agent_command(),
            "--out", str(out), "--quiet", "--run-id", RUN_ID, "--jobs", "3"]
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    proc = subprocess.Popen([*evalfmt_exe, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        for arm in ("baseline", "candidate"):
            _wait_for(out / arm / "a-fast" / "score.json", "a-fast")
        end = time.monotonic() + 60  # three sessions in flight: both arms of b-waits, the baseline of c-waits
        while started(tmp_path) != ["a-fast", "a-fast", "b-waits", "b-waits", "c-waits"] and time.monotonic() < end:
            time.sleep(0.05)
        assert started(tmp_path) == ["a-fast", "a-fast", "b-waits", "b-waits", "c-waits"]
        running = _processes_of_session(proc.pid)
        assert {"raylet", "gcs_server", "ray::remote_session"} <= set(running), running  # the run's own instance
        if target == "group":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            os.kill(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=90)
    finally:
        left = _reap(proc)
        alive = [name for name, pid in _log(tmp_path) if _alive_agent(pid, tmp_path)]
        _kill_agents(tmp_path)
        strays = _strays(tmp_path)
    assert proc.returncode == 130
    assert stderr.splitlines()[-1] == "evalfmt: interrupted: 5 of 6 sessions ran; receipt written (partial)", stderr
    assert "Traceback" not in stderr
    assert left == [], f"processes of the interrupted run's Ray instance are still running: {left}"
    assert alive == [], f"agents of cancelled tasks are still running: {alive}"
    assert strays == [], f"processes the cancelled agents started are still running: {strays}"
    receipt = load(out / "receipt.json")
    assert (receipt["interrupted"], receipt["execution_status"]) == (True, "partial")
    for arm in ("baseline", "candidate"):
        assert (out / arm / "a-fast" / "score.json").exists() and not (out / arm / "a-fast" / "dead.txt").exists()
        assert (out / arm / "b-waits" / "dead.txt").read_text() == \
            "interrupted: the run was stopped while this session ran\n"
    assert (out / "candidate" / "c-waits" / "dead.txt").read_text() == "not run: the run was interrupted\n"
    if target == "group":
        return  # resuming is the same after either
    before = started(tmp_path)
    (tmp_path / "release").write_text("")
    again = subprocess.Popen([*evalfmt_exe, *args, "--resume"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env, start_new_session=True)
    try:
        stdout, stderr = again.communicate(timeout=300)
    finally:
        left = _reap(again)
    assert (again.returncode, stderr) == (0, "")
    assert stdout.splitlines()[0].startswith("a-fast vs baseline: win (checks)")
    assert left == [], f"the local Ray instance of the resumed run is still running: {left}"
    after = started(tmp_path)
    assert after.count("a-fast") == 2, "a finished session ran again"
    for name in ("b-waits", "c-waits"):  # none of their sessions had finished: both arms ran again
        assert after.count(name) == before.count(name) + 2
    assert len(load(out / "candidate" / "c-waits" / "run.json")["info"]["ray"]["node"]) == 56  # a Ray node id
    # the receipt is the one of the run done in one go (with the command runner: the same receipt)
    code, _, stderr = run_cli("run", str(skill), "--agent-command", agent_command(), "--out", str(tmp_path / "whole"),
                              "--quiet", "--run-id", RUN_ID, "--jobs", "3")
    assert (code, stderr) == (0, "")
    resumed = timeless((out / "receipt.json").read_bytes())
    assert resumed.replace(b'"runner": "ray"', b'"runner": "command"') == \
        timeless((tmp_path / "whole" / "receipt.json").read_bytes())
    assert load(out / "receipt.json")["execution_status"] == "complete"


def _pids_of_session(sid: int) -> set[int]:
    found = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if int(fh.read().rsplit(") ", 1)[1].split()[3]) == sid:
                    found.add(int(pid))
        except (OSError, IndexError, ValueError):
            continue
    return found


def _ss_listening(pids: set[int]) -> list[tuple[str, str]]:
    """(local address, process name) of every listening TCP socket ``ss -ltnp`` shows for ``pids``."""
    text = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True, check=True, timeout=30).stdout
    found = []
    for line in text.splitlines():
        fields = line.split()
        for name, pid in re.findall(r'\("([^"]*)",pid=(\d+),', line):
            if int(pid) in pids:
                found.append((fields[3], name))
    return sorted(set(found))


@pytest.mark.skipif(shutil.which("ss") is None, reason="ss (iproute2) is not installed: it lists the sockets")
def test_a_local_instance_listens_on_loopback_only(tmp_path, evalfmt_exe):
    """Without an address, every process of the run's own Ray instance (GCS, raylet, runtime-env agent,
    workers) and evalfmt's driver listen on 127.0.0.1 only, as ``ss -ltnp`` shows them while a session
    runs; the test's environment does not ask Ray for loopback itself (it is evalfmt's job)."""
    skill = make_skill(tmp_path / "lib", "slowish", cases(tmp_path), body="!say SKILLED\n")
    out = tmp_path / "out"
    args = ["run", str(skill), "--runner", "ray", "--runner-opt", "num_cpus=0.5", "--agent-command", agent_command(),
            "--out", str(out), "--quiet", "--run-id", RUN_ID, "--jobs", "3"]
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER")}
    proc = subprocess.Popen([*evalfmt_exe, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, start_new_session=True)
    try:
        _wait_for(tmp_path / "runs.log", "b-waits")
        time.sleep(1)  # the workers of the other sessions in flight
        sockets = _ss_listening(_pids_of_session(proc.pid))
        (tmp_path / "release").write_text("")
        stdout, stderr = proc.communicate(timeout=300)
    finally:
        (tmp_path / "release").write_text("")
        left = _reap(proc)
    assert (proc.returncode, stderr) == (0, ""), stderr
    assert left == []
    names = {name for _, name in sockets}
    assert {"gcs_server", "raylet"} <= names, sockets
    assert [s for s in sockets if not s[0].startswith(("127.0.0.1:", "[::ffff:127.0.0.1]:"))] == [], sockets


def test_an_instance_that_would_listen_on_every_interface_is_refused(tmp_path):
    """Ray imported before evalfmt could ask it for loopback (by a program that calls evalfmt as a
    library): the instance it started is stopped before any session, on one line that says why."""
    skill = make_skill(tmp_path / "lib", "notes", {"b-loses": CASES["b-loses"]})
    out = tmp_path / "out"
    code = ("import sys, ray\nfrom evalfmt.cli import main\n"
            f"main({['run', str(skill), '--runner', 'ray', '--agent-command', agent_command(), '--out', str(out)]!r})")
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER")}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300,
                          start_new_session=True)
    assert proc.returncode == 2, proc.stderr
    line, = [x for x in proc.stderr.splitlines() if x.startswith("evalfmt:")]
    assert re.fullmatch(r"evalfmt: the local Ray instance listened on \S+:\d+ \(\S+\)(, \S+:\d+ \(\S+\))*, "
                        r"not on loopback only: stopped, nothing ran\. Ray was imported before the run could ask it "
                        r"for loopback: set RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 before Ray is imported, or run on a "
                        r"cluster \(--runner-opt address=\.\.\.; docs/running\.md\)", line), line
    assert "Traceback" not in proc.stderr
    assert not list(out.glob("*/*/transcript.jsonl"))  # no session ran


def _strays(tmp_path, limit: float = 10.0) -> list[str]:
    """The processes an agent started (its ``!bash`` waiting for tmp_path/release) still running after
    ``limit`` seconds: a Ray worker stopped with its instance cannot end its session's jail, so the run
    ends those jails once the instance is down. Killed here, so that a failure leaves nothing behind."""
    mark = str(tmp_path / "release").encode()
    end = time.monotonic() + limit
    while True:
        found = {}
        for name in os.listdir("/proc"):
            try:
                with open(f"/proc/{name}/cmdline", "rb") as fh:
                    line = fh.read()
                with open(f"/proc/{name}/stat") as fh:
                    zombie = fh.read().rsplit(") ", 1)[1].startswith("Z")
            except (OSError, IndexError):
                continue
            if name.isdigit() and mark in line and not zombie:
                found[int(name)] = line.replace(b"\0", b" ").decode(errors="replace").strip()
        if not found or time.monotonic() > end:
            break
        time.sleep(0.1)
    for pid in found:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return sorted(found.values())


def _alive_agent(pid: int, tmp_path, limit: float = 10.0) -> bool:
    """Whether the agent ``pid`` (logged by the fake agent) is still running after ``limit`` seconds."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if str(tmp_path).encode() not in fh.read():
                    return False  # gone, and the pid taken by another process
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rsplit(") ", 1)[1].startswith("Z"):
                    return False
        except OSError:
            return False
        time.sleep(0.1)
    return True


@pytest.mark.parametrize("opt, message", [
    ("colour=red", "the ray runner has no option 'colour' (options: address, num_cpus, num_gpus, memory, max_retries)"),
    ("memory=lots", "--runner-opt memory=lots: not a number"),
    ("max_retries=1.5", "--runner-opt max_retries=1.5: not a whole number >= 0"),
    ("max_retries=nan", "--runner-opt max_retries=nan: not a whole number >= 0"),
    ("memory=inf", "--runner-opt memory=inf: not a whole number >= 0"),
    ("num_cpus=nan", "--runner-opt num_cpus=nan: not a number >= 0"),
])
def test_bad_runner_options_are_one_line(run_cli, tmp_path, opt, message):
    skill = make_skill(tmp_path / "lib", "notes", {"a-wins": CASES["a-wins"]})
    code, stdout, stderr = run_cli("run", str(skill), "--runner", "ray", "--runner-opt", opt, "--agent-command",
                                   agent_command(), "--out", str(tmp_path / "out"))
    assert (code, stdout, stderr) == (2, "", f"evalfmt: {message}\n")
    assert not (tmp_path / "out").exists()


def test_the_cli_and_the_runners_do_not_import_ray():
    code = ("import sys, evalfmt.cli, evalfmt.run.runners, evalfmt.run.skillrun, evalfmt.run.ray_runner; "
            "print(json.dumps(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.'))))")
    proc = subprocess.run([sys.executable, "-c", "import json; " + code], capture_output=True, text=True, timeout=60)
    assert json.loads(proc.stdout) == []
