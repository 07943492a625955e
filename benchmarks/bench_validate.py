"""Benchmark: `evalfmt validate` on one file (cold process, the pre-commit case) and on a corpus,
against check-jsonschema (same files, a JSON Schema of the case file) and a bare libyaml parse.

    .venv/bin/python benchmarks/bench_validate.py [--runs 7] [--skills 200]

Prints medians (and min/max) of whole-process wall times, side by side; nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from corpus import generate  # noqa: E402

# cold runs, as they were measured before the result cache (lint and validate keep one by default)
os.environ["EVALFMT_NO_CACHE"] = "1"

BIN = os.path.dirname(sys.executable)
SCHEMA = os.path.join(HERE, "terum-case.schema.json")
BARE_PARSE = ("import sys, yaml\n"
              "for p in sys.argv[1:]:\n"
              "    with open(p, 'rb') as fh: yaml.load(fh, Loader=yaml.CSafeLoader)\n")


def timed(cmd: list[str], runs: int, ok=(0, 1)) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - start)
        if proc.returncode not in ok:
            raise SystemExit(f"{cmd[:3]} failed ({proc.returncode}): {proc.stderr.decode()[:500]}")
    return times


def row(label: str, times: list[float], base: float | None) -> str:
    med = statistics.median(times)
    ratio = f"{med / base:5.2f}x" if base else "   - "
    return f"| {label:<44} | {med * 1000:9.1f} | {min(times) * 1000:8.1f} | {max(times) * 1000:8.1f} | {ratio} |"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--skills", type=int, default=200)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = generate(tmp, args.skills)
        cases = [f for f in files if "/evals/cases/" in f]
        one = cases[0]
        evalfmt = [os.path.join(BIN, "evalfmt")]
        cjs = [os.path.join(BIN, "check-jsonschema"), "--schemafile", SCHEMA]
        bare = [sys.executable, "-c", BARE_PARSE]
        print(f"corpus: {len(files)} files ({len(cases)} case files) in {args.skills} skills; {args.runs} runs each\n")
        print("| command | median ms | min ms | max ms | vs check-jsonschema |")
        print("|---|---:|---:|---:|---:|")
        print("one case file, cold process:")
        base_times = timed(cjs + [one], args.runs)
        base = statistics.median(base_times)
        print(row("check-jsonschema (one file)", base_times, base))
        print(row("evalfmt validate (one file)", timed(evalfmt + ["validate", one], args.runs), base))
        print(row("bare libyaml parse (one file)", timed(bare + [one], args.runs), base))
        print(f"all {len(cases)} case files:")
        base_times = timed(cjs + cases, max(3, args.runs // 2))
        base = statistics.median(base_times)
        print(row(f"check-jsonschema ({len(cases)} case files)", base_times, base))
        print(row(f"evalfmt validate ({len(cases)} case files)", timed(evalfmt + ["validate"] + cases, args.runs), base))
        print(row(f"evalfmt validate (the folder, {len(files)} files)", timed(evalfmt + ["validate", tmp], args.runs), base))
        print(row(f"bare libyaml parse ({len(cases)} case files)", timed(bare + cases, args.runs), base))


if __name__ == "__main__":
    main()
