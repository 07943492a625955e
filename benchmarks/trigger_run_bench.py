#!/usr/bin/env python3
"""What ``evalfmt run EVAL.yaml --skills DIR`` adds per session: a 200-test trigger run (an EVAL.yaml of
200 tests over a 10-skill library, each test a skill-trigger and a contains assertion) with the fake
picker agent (tests/run_agents/fake_picker.py), against running the same agent alone 200 times by a bare
loop (same tasks, one after another in one folder holding the library, staged once; stdout to a file).

    .venv/bin/python benchmarks/trigger_run_bench.py [--runs 5] [--tests 200] [--baseline DIR]

``--baseline DIR`` also runs the evalfmt of another checkout (``DIR`` holds its ``evalfmt/`` package, e.g.
``git archive main | tar -x -C DIR``) in the same rounds, so a change is measured side by side.

Overhead per session = (evalfmt wall time - agent-alone wall time) / sessions; the CPU time (user + system,
of the process and everything it started) is reported the same way, a figure a loaded machine disturbs
less than the wall time. It covers evalfmt's
start-up and reading, staging the library into each sandbox, reading and scoring the session, the
fired-skill detection over the library, removing the sandbox and the receipt. Runs alternate.
"""

from __future__ import annotations

import argparse
import os
import resource
import pathlib
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
AGENT = ROOT / "tests" / "run_agents" / "fake_picker.py"
EVALFMT = [sys.executable, "-m", "evalfmt"]
SKILLS = [f"skill{i:02d}" for i in range(10)]


def setup(root: pathlib.Path, n: int) -> list[str]:
    lib = root / "skills"
    for i, name in enumerate(SKILLS):
        (lib / name / "references").mkdir(parents=True)
        (lib / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Handles topic{chr(97 + i) * 3} requests.\n---\n\n"
                                             + "Body text.\n" * 40)
        (lib / name / "references" / "guide.md").write_text("reference\n" * 100)
    tasks, lines = [], ["description: bench", "tests:"]
    for t in range(n):
        skill = SKILLS[t % len(SKILLS)]
        task = f"Please help with topic{chr(97 + t % len(SKILLS)) * 3} number {t}"
        tasks.append(task)
        lines += [f"  - id: t{t}", f"    input: {task}", "    assertions:", "      - type: skill-trigger",
                  f"        skill: {skill}", "      - type: contains", f"        value: used {skill}"]
    (root / "EVAL.yaml").write_text("\n".join(lines) + "\n")
    return tasks


def _cpu() -> float:
    """CPU seconds (user + system) of the children waited for so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def agent_alone(root: pathlib.Path, tasks: list[str]) -> tuple[float, float]:
    """The agent's own time (wall, CPU): the same tasks one after another in one folder holding the library
    (staged once, before the clock starts)."""
    work = pathlib.Path(tempfile.mkdtemp(dir=root))
    shutil.copytree(root / "skills", work / ".claude" / "skills")
    start, cpu = time.perf_counter(), _cpu()
    for task in tasks:
        with open(work / "out.jsonl", "wb") as fh:
            subprocess.run([sys.executable, str(AGENT), task], cwd=work, stdout=fh, check=True)
    wall, cpu = time.perf_counter() - start, _cpu() - cpu
    shutil.rmtree(work)
    return wall, cpu


def evalfmt_run(root: pathlib.Path, checkout: str | None = None) -> tuple[float, float]:
    out = root / "out"
    env = dict(os.environ)
    if checkout is not None:
        env["PYTHONPATH"] = checkout
    cmd = [*EVALFMT, "run", "EVAL.yaml", "--skills", "skills", "--out", str(out), "--force", "--format", "json",
           "--agent-command", f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENT))} {{task}}"]
    start, cpu = time.perf_counter(), _cpu()
    proc = subprocess.run(cmd, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    wall, cpu = time.perf_counter() - start, _cpu() - cpu
    if proc.returncode != 0:
        raise SystemExit(f"evalfmt run failed ({proc.returncode}): {proc.stderr}")
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tests", type=int, default=200)
    ap.add_argument("--baseline", metavar="DIR", help="another checkout's evalfmt, run in the same rounds")
    args = ap.parse_args()
    root = pathlib.Path(tempfile.mkdtemp(prefix="trigger-bench-"))
    try:
        tasks = setup(root, args.tests)
        alone: list[tuple[float, float]] = []
        run: list[tuple[float, float]] = []
        base: list[tuple[float, float]] = []
        for _ in range(args.runs):
            alone.append(agent_alone(root, tasks))
            run.append(evalfmt_run(root))
            if args.baseline:
                base.append(evalfmt_run(root, os.path.abspath(args.baseline)))
        n = args.tests
        print(f"sessions per run: {n}; library: {len(SKILLS)} skills; runs: {args.runs}")
        a_wall, a_cpu = (statistics.median(x[i] for x in alone) for i in (0, 1))
        walls = [x[0] for x in alone]
        print(f"agent alone     : median {a_wall:.2f} s (min {min(walls):.2f}, max {max(walls):.2f}), "
              f"{1000 * a_wall / n:.1f} ms/session; CPU {1000 * a_cpu / n:.1f} ms/session")
        for label, times in (("evalfmt run", run), ("baseline run", base)):
            if times:
                r_wall, r_cpu = (statistics.median(x[i] for x in times) for i in (0, 1))
                walls = [x[0] for x in times]
                print(f"{label:16}: median {r_wall:.2f} s (min {min(walls):.2f}, max {max(walls):.2f}), "
                      f"{1000 * r_wall / n:.1f} ms/session; overhead {1000 * (r_wall - a_wall) / n:.1f} ms/session; "
                      f"CPU {1000 * r_cpu / n:.1f} ms/session, overhead {1000 * (r_cpu - a_cpu) / n:.1f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "")
    main()
