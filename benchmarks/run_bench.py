#!/usr/bin/env python3
"""What ``evalfmt run`` adds per session: 40 short fake-agent sessions (20 cases x 2 arms) run by
``evalfmt run --jobs 1`` and ``--jobs 2``, against running the fake agent alone the same 40 times
(same task, a fresh empty folder each, stdout to a file; one at a time, and two at a time).

    .venv/bin/python benchmarks/run_bench.py [--runs 5] [--cases 20]

Each case has two inline files, a fixture folder of 5 files, and three checks (a transcript check,
a file check and a command_succeeds); the candidate arm also gets the skill staged. The overhead
per session is (evalfmt run wall time - agent-alone wall time) / sessions: it covers staging,
scoring, moving the sandbox into the run layout, the comparison, the receipt and evalfmt's start-up.
``run.json`` of every session also gives the in-session split (staging, agent, scoring): medians.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = pathlib.Path(__file__).resolve().parents[1]
AGENT = ROOT / "tests" / "run_agents" / "fake_agent.py"
TASK = "!say hello\n!write out.txt :: written by the agent\n"


def make_skill(root: pathlib.Path, n: int) -> pathlib.Path:
    skill = root / "bench-skill"
    cases = skill / "evals" / "cases"
    cases.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: bench-skill\ndescription: A benchmark skill.\n---\n\n# bench\n")
    (skill / "reference.md").write_text("some reference text\n" * 50)
    fixture = skill / "evals" / "fixtures" / "tree"
    (fixture / "src").mkdir(parents=True)
    for i in range(5):
        (fixture / "src" / f"f{i}.txt").write_text(f"file {i}\n" * 20)
    for i in range(n):
        (cases / f"case-{i:02d}.yaml").write_text(
            "task: |\n  !say hello\n  !write out.txt :: written by the agent\n"
            "fixture: ../fixtures/tree\n"
            "files:\n  notes/a.txt: a\n  run.sh: echo hi\n"
            "checks:\n  - transcript_mentions: hello\n  - file_exists: out.txt\n  - command_succeeds: test -f run.sh\n")
    return skill


def agent_alone(n: int, jobs: int) -> float:
    """Run the fake agent ``n`` times, ``jobs`` at a time, each in a fresh empty folder."""
    def one(_):
        folder = tempfile.mkdtemp(prefix="bench-alone-")
        try:
            with open(folder + ".jsonl", "wb") as out:
                subprocess.run([sys.executable, str(AGENT), TASK], cwd=folder, stdout=out, stderr=subprocess.DEVNULL,
                               stdin=subprocess.DEVNULL, check=True)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
            try:
                os.unlink(folder + ".jsonl")
            except OSError:
                pass

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, range(n)))
    return time.perf_counter() - start


def evalfmt_run(skill: pathlib.Path, out: pathlib.Path, jobs: int) -> tuple[float, list[dict]]:
    cmd = [str(ROOT / ".venv" / "bin" / "evalfmt"), "run", str(skill), "--out", str(out), "--quiet", "--force",
           "--jobs", str(jobs), "--agent-command", f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENT))} {{task}}"]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"evalfmt run failed ({proc.returncode}): {proc.stderr}")
    receipt = json.loads((out / "receipt.json").read_text())
    assert receipt["scored_rows"] == receipt["expected_rows"], receipt["execution_status"]
    splits = [json.loads(p.read_text())["seconds"] for p in out.glob("*/*/run.json")]
    return wall, splits


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cases", type=int, default=20)
    args = ap.parse_args()
    sessions = 2 * args.cases
    results: dict[str, list[float]] = {k: [] for k in ("alone1", "alone2", "run1", "run2")}
    split: dict[str, list[float]] = {"stage": [], "agent": [], "score": []}
    with tempfile.TemporaryDirectory(prefix="evalfmt-bench-") as tmp:
        skill = make_skill(pathlib.Path(tmp), args.cases)
        for i in range(args.runs):
            results["alone1"].append(agent_alone(sessions, 1))
            wall, s = evalfmt_run(skill, pathlib.Path(tmp) / "out1", 1)
            results["run1"].append(wall)
            for row in s:
                for k in split:
                    split[k].append(row[k])
            results["alone2"].append(agent_alone(sessions, 2))
            results["run2"].append(evalfmt_run(skill, pathlib.Path(tmp) / "out2", 2)[0])
            print(f"run {i + 1}/{args.runs}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in results.items()),
                  file=sys.stderr)
    med = {k: statistics.median(v) for k, v in results.items()}
    print(f"{sessions} sessions, {args.runs} runs, medians (min-max), {sys.version.split()[0]}")
    print("| what | wall s | per session ms | overhead per session ms |")
    print("|---|---:|---:|---:|")
    for label, key, base in (("fake agent alone, 1 at a time", "alone1", None),
                             ("evalfmt run --jobs 1", "run1", "alone1"),
                             ("fake agent alone, 2 at a time", "alone2", None),
                             ("evalfmt run --jobs 2", "run2", "alone2")):
        over = "" if base is None else f"{1000 * (med[key] - med[base]) / sessions:.1f}"
        lo, hi = min(results[key]), max(results[key])
        print(f"| {label} | {med[key]:.2f} ({lo:.2f}-{hi:.2f}) | {1000 * med[key] / sessions:.1f} | {over} |")
    print("in-session split (--jobs 1, median ms per session): " +
          ", ".join(f"{k} {1000 * statistics.median(v):.1f}" for k, v in split.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
