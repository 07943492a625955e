"""The ``ray`` runner on a real local multi-node Ray cluster (a head and two worker nodes, loopback only):
the receipt is the command runner's for the same agent, a worker killed mid-session leaves a run that
``--resume`` completes, and without an address a local Ray instance is started for the run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from e2ehelp import agent_command, load, make_skill, rows
from test_e2e_interrupt import _wait_for
from test_e2e_resume import _kill_agents, _log, cases, started
from test_e2e_shard import TIMING

# read when Ray is imported: every node of a local multi-node cluster then uses 127.0.0.1 (loopback only)
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
ray = pytest.importorskip("ray", reason="Ray is not installed here (the extra evalfmt[ray])")

RUN_ID = "20260101T000000Z"
SKILL_BODY = "!say SKILLED\n!write notes.md :: made by the skill\n"
CASES = {
    "a-wins": "task: |\n  !say hello\nchecks:\n  - transcript_mentions: SKILLED\n  - file_exists: notes.md\n",
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
    skill = make_skill(tmp_path / "lib", "notes", CASES, body=SKILL_BODY)
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
    node_ids = {n["NodeID"] for n in ray.nodes() if n["Alive"]} if ray.is_initialized() else set()
    assert {i["node"] for i in info} <= node_ids and len({i["node"] for i in info}) >= 2  # spread over the nodes


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
    dead = [p for p in out.rglob("dead.txt")]
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


def _ray_daemons() -> set[int]:
    """The pids of every Ray node daemon (raylet, GCS server) on this machine."""
    found = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                argv0 = fh.read().split(b"\0")[0]
        except OSError:
            continue
        if os.path.basename(argv0) in (b"raylet", b"gcs_server"):
            found.add(int(pid))
    return found


def test_without_an_address_a_local_instance_runs_the_sessions_and_stops(tmp_path, evalfmt_exe):
    skill = make_skill(tmp_path / "lib", "notes", {"a-wins": CASES["a-wins"]}, body=SKILL_BODY)
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    before = _ray_daemons()
    proc = subprocess.run([*evalfmt_exe, "run", str(skill), "--runner", "ray", "--agent-command", agent_command(),
                           "--out", str(tmp_path / "out"), "--quiet", "--runner-opt", "num_cpus=0.5"],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].startswith("a-wins vs baseline: win (checks)")
    info = load(tmp_path / "out" / "candidate" / "a-wins" / "run.json")["info"]["ray"]
    assert len(info["node"]) == 56  # a Ray node id (hex)
    end = time.monotonic() + 15
    while _ray_daemons() - before and time.monotonic() < end:
        time.sleep(0.1)
    assert not _ray_daemons() - before, "the local Ray instance of the run is still running"


@pytest.mark.parametrize("opt, message", [
    ("colour=red", "the ray runner has no option 'colour' (options: address, num_cpus, num_gpus, memory, max_retries)"),
    ("memory=lots", "--runner-opt memory=lots: not a number"),
    ("max_retries=1.5", "--runner-opt max_retries=1.5: not a whole number >= 0"),
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
