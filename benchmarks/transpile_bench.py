"""Benchmark: one transpile in a cold process, evalfmt against the real ``agentv transpile`` (4.42.4,
from ``.cache/node/agentv/``, see scripts/node-deps.sh) on the same file; and the same on a generated
EVAL.yaml of 1,000 tests.

    .venv/bin/python benchmarks/transpile_bench.py [--runs 15]

Every run is its own process writing into a fresh folder, the three commands interleaved run by run;
medians (and min/max) of wall times are printed side by side. The outputs of the two tools are checked to be byte-identical first (agentv
layout). Nothing is asserted about time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BIN = os.path.dirname(sys.executable)
EVALFMT = os.path.join(BIN, "evalfmt")
AGENTV = os.path.join(ROOT, ".cache", "node", "agentv", "node_modules", ".bin", "agentv")
SAMPLE = os.path.join(ROOT, "..", "shared", "conformance", "agentv-4.42.4", "inputs", "examples", "features",
                      "basic", "evals", "dataset.eval.yaml")
FIXTURE = os.path.join(ROOT, "fixtures", "agentv", "EVAL.yaml")


def big_eval_yaml(path: str, n: int = 1000) -> None:
    """n tests over five skills: string and message inputs, criteria, output assertions, triggers."""
    skills = ["release-notes", "commit-message", "code-review", "deploy", "triage"]
    out = ["name: big-suite", "description: generated for the transpile benchmark", "tests:"]
    for i in range(n):
        skill = skills[i % len(skills)]
        out.append(f"  - id: test-{i:04d}")
        out.append(f"    criteria: The agent handles request {i} with the {skill} skill when it fits.")
        if i % 3 == 0:
            out += ["    input:", "      - role: system", "        content: You are a careful assistant.",
                    "      - role: user", "        content:", "          - type: file",
                    f"            value: docs/note-{i}.md", "          - type: text",
                    f"            value: Please handle request number {i} using the attached note."]
        else:
            out.append(f"    input: \"Please handle request number {i}; keep it short.\"")
        out += ["    assertions:", "      - type: skill-trigger", f"        skill: {skill}"]
        if i % 4 == 0:
            out.append("        should_trigger: false")
        out += ["      - type: contains", f"        value: request {i}", "      - type: regex",
                "        value: \"[Dd]one\\\\.?\""]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(out) + "\n")


def timed(cmds: list[tuple[list[str], str]], runs: int) -> list[list[float]]:
    """Wall times of each (command, out-dir flag), the commands interleaved run by run so that load
    from other processes falls on all of them alike."""
    times: list[list[float]] = [[] for _ in cmds]
    for _ in range(runs):
        for i, (cmd, out_flag) in enumerate(cmds):
            out = tempfile.mkdtemp(prefix="bench-out-")
            start = time.perf_counter()
            proc = subprocess.run(cmd + [out_flag, out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            times[i].append(time.perf_counter() - start)
            shutil.rmtree(out, ignore_errors=True)
            if proc.returncode != 0:
                raise SystemExit(f"{cmd} failed ({proc.returncode}): {proc.stderr.decode()[:500]}")
    return times


def outputs(cmd: list[str], out_flag: str) -> dict[str, bytes]:
    out = tempfile.mkdtemp(prefix="bench-cmp-")
    subprocess.run(cmd + [out_flag, out], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    files = {}
    for root, _dirs, names in os.walk(out):
        for name in names:
            full = os.path.join(root, name)
            with open(full, "rb") as fh:
                files[os.path.relpath(full, out)] = fh.read()
    shutil.rmtree(out, ignore_errors=True)
    return files


def row(label: str, times: list[float], base: float | None) -> str:
    ms = [t * 1000 for t in times]
    med = statistics.median(ms)
    ratio = f"{med / base:5.2f}x" if base else "  -  "
    return f"| {label:<44} | {med:9.1f} | {min(ms):8.1f} | {max(ms):8.1f} | {ratio} |"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    if not os.path.exists(AGENTV):
        raise SystemExit(f"agentv not installed at {AGENTV}: run scripts/node-deps.sh")
    tmp = tempfile.mkdtemp(prefix="bench-transpile-")
    big = os.path.join(tmp, "EVAL.yaml")
    big_eval_yaml(big)
    print("| command | median ms | min ms | max ms | vs agentv |")
    print("|---|---:|---:|---:|---:|")
    for title, src in [(f"one file ({os.path.basename(os.path.dirname(os.path.dirname(SAMPLE)))}/"
                        f"{os.path.basename(SAMPLE)}), cold process", SAMPLE),
                       ("fixtures/agentv/EVAL.yaml (5 tests, 3 skills), cold process", FIXTURE),
                       ("generated EVAL.yaml, 1,000 tests, 5 skills, cold process", big)]:
        agentv_cmd = [AGENTV, "transpile", src]
        ours_agentv = [EVALFMT, "transpile", "--layout", "agentv", src]
        ours_seed = [EVALFMT, "transpile", src]
        assert outputs(agentv_cmd, "-d") == outputs(ours_agentv, "-d"), f"outputs differ on {src}"
        print(f"| **{title}** | | | | |")
        base, ours_a, ours_s = timed([(agentv_cmd, "-d"), (ours_agentv, "-d"), (ours_seed, "--out-dir")], args.runs)
        med = statistics.median(base) * 1000
        print(row("agentv transpile", base, med))
        print(row("evalfmt transpile --layout agentv", ours_a, med))
        print(row("evalfmt transpile (seed layout)", ours_s, med))
        sys.stdout.flush()
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
