#!/usr/bin/env python3
"""Scale-out figures (issue 16): 400 fake sessions of 2 s each (the fake agent sleeps, so the 2 cores are
not the limit) on one node with ``evalfmt run --jobs 8``, and with ``--runner ray --jobs 8`` on a local
3-node Ray cluster holding the same 8 slots (3 + 3 + 2 CPUs; every node on 127.0.0.1).

    .venv/bin/python benchmarks/scale_bench.py [--cases 200] [--sleep 2] [--slots 8] [--only command|ray]
        [--fixture-kb 0]

Reports, for each: the wall time of the whole ``evalfmt run`` process, the ideal
(sessions x sleep / slots) and their ratio; for the Ray path, the per-session overhead: the median
over sessions of (the time evalfmt waited on the task - the agent's time on the node - staging on
the node), which covers checking the case and passing the inputs' refs, scheduling the task,
unpacking the inputs on the node, packing the sandbox there, returning it and unpacking it into the
run folder. Staging itself (which every runner does: the command runner where evalfmt runs, the Ray
runner on the node) is shown apart, as is the overhead with it.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # loopback-only nodes (read when Ray is imported)

ROOT = pathlib.Path(__file__).resolve().parents[1]
AGENT = ROOT / "tests" / "run_agents" / "fake_agent.py"
EVALFMT = pathlib.Path(sys.executable).with_name("evalfmt")


def make_skill(root: pathlib.Path, cases: int, sleep: float, fixture_kb: int = 0) -> pathlib.Path:
    """The skill; with ``fixture_kb``, every case stages one shared fixture of that many KiB (64 files)."""
    skill = root / "sleepy"
    (skill / "evals" / "cases").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: sleepy\ndescription: Sleeps.\n---\n\n!say SKILLED\n")
    fixture = ""
    if fixture_kb:
        repo = skill / "evals" / "fixtures" / "repo"
        repo.mkdir(parents=True)
        for n in range(64):
            (repo / f"f{n:02d}.txt").write_bytes(os.urandom(fixture_kb * 1024 // 64))
        fixture = "fixture: ../fixtures/repo\n"
    for i in range(cases):
        (skill / "evals" / "cases" / f"c{i:03d}.yaml").write_text(
            f"task: |\n  !sleep {sleep}\n  !say done {i}\n{fixture}checks:\n  - transcript_mentions: done {i}\n")
    return skill


def run(skill: pathlib.Path, out: pathlib.Path, slots: int, extra: list[str]) -> float:
    command = " ".join([shlex.quote(sys.executable), shlex.quote(str(AGENT)), "{task}"])
    start = time.monotonic()
    proc = subprocess.run([str(EVALFMT), "run", str(skill), "--out", str(out), "--agent-command", command,
                           "--jobs", str(slots), "--quiet", *extra], capture_output=True, text=True)
    wall = time.monotonic() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"evalfmt run failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall


def split(out: pathlib.Path) -> str:
    """Medians of the in-session split (staging, scoring) from every session's run.json."""
    runs = [json.loads(p.read_text())["seconds"] for p in out.glob("*/*/run.json")]
    return ", ".join(f"{k} {statistics.median(r[k] for r in runs) * 1000:.0f} ms" for k in ("stage", "score"))


def ray_overhead(out: pathlib.Path) -> tuple[list[float], list[float]]:
    """Per session: (waited - agent - staging on the node), and staging on the node."""
    found, staging = [], []
    for path in out.glob("*/*/run.json"):
        data = json.loads(path.read_text())
        ray = data["info"].get("ray")
        if ray:
            staged = ray.get("seconds_staging", 0.0)
            found.append(data["seconds"]["agent"] - ray["seconds_on_node"] - staged)
            staging.append(staged)
    return found, staging


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--sleep", type=float, default=2.0)
    ap.add_argument("--slots", type=int, default=8)
    ap.add_argument("--only", choices=["command", "ray"])
    ap.add_argument("--fixture-kb", type=int, default=0, help="a fixture of this many KiB staged by every case")
    args = ap.parse_args()
    sessions = args.cases * 2
    ideal = sessions * args.sleep / args.slots
    print(f"{sessions} sessions of {args.sleep:g} s, {args.slots} slots: ideal {ideal:.1f} s")
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        skill = make_skill(root, args.cases, args.sleep, args.fixture_kb)
        if args.only in (None, "command"):
            wall = run(skill, root / "cmd", args.slots, [])
            print(f"command runner, 1 node, --jobs {args.slots}: {wall:.1f} s = {wall / ideal:.3f}x ideal "
                  f"(median per session: {split(root / 'cmd')})")
        if args.only in (None, "ray"):
            import ray
            from ray.cluster_utils import Cluster

            per = [args.slots // 3 + (1 if i < args.slots % 3 else 0) for i in range(3)]
            t0 = time.monotonic()
            cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": per[0], "include_dashboard": False})
            try:
                for n in per[1:]:
                    cluster.add_node(num_cpus=n)
                cluster.wait_for_nodes()
                ray.init(address=cluster.address, log_to_driver=False)
                assert {n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]} == {"127.0.0.1"}
                ray.shutdown()
                print(f"local 3-node cluster ({'+'.join(map(str, per))} CPUs) up in {time.monotonic() - t0:.1f} s")
                wall = run(skill, root / "ray", args.slots, ["--runner", "ray", "--runner-opt",
                                                             f"address={cluster.address}"])
            finally:
                cluster.shutdown()
            over, staging = ray_overhead(root / "ray")
            both = [o + s for o, s in zip(over, staging)]
            print(f"ray runner, 3 nodes, --jobs {args.slots}: {wall:.1f} s = {wall / ideal:.3f}x ideal "
                  f"(median per session: {split(root / 'ray')}, staging on the node "
                  f"{statistics.median(staging) * 1000:.1f} ms)")
            for label, xs in (("ray path overhead per session", over), ("the same with staging on the node", both)):
                print(f"{label} ({len(xs)} sessions): median {statistics.median(xs) * 1000:.0f} ms,"
                      f" p90 {sorted(xs)[int(len(xs) * 0.9)] * 1000:.0f} ms")


if __name__ == "__main__":
    main()
