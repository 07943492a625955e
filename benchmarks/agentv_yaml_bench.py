"""Benchmark: reading agentv files as agentv's YAML parser reads them (issue 12 item 3).

    .venv/bin/python benchmarks/agentv_yaml_bench.py [--runs 9] [--baseline OTHER_CHECKOUT/.venv/bin/evalfmt]

1. In-process, per input: evalfmt's libyaml loader alone (what agentv files used before), the agentv
   loader (the plain-subset test, then libyaml or the model of the ``yaml`` npm package), the subset
   test alone and the model alone. Inputs: fixtures/agentv/EVAL.yaml, a generated EVAL.yaml of 1,000
   tests (the transpile benchmark's), and the same two with one anchor and alias added (outside the
   plain subset: the model reads them).
2. Cold processes, interleaved run by run: ``evalfmt validate`` on one agentv file (this checkout, and
   ``--baseline`` when given) against check-jsonschema with evalfmt's agentv schema; ``evalfmt transpile
   --layout agentv`` on the 1,000-test file (this checkout and the baseline).

Prints medians (and min/max) side by side; nothing is asserted.
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
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)
from transpile_bench import big_eval_yaml  # noqa: E402

# cold runs, as they were measured before the result cache (lint and validate keep one by default)
os.environ["EVALFMT_NO_CACHE"] = "1"

BIN = os.path.dirname(sys.executable)
FIXTURE = os.path.join(ROOT, "fixtures", "agentv", "EVAL.yaml")
SCHEMA = os.path.join(ROOT, "schemas", "agentv-eval.schema.json")
ANCHORED = "x-defaults: &defaults\n  criteria: shared criteria\n"
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def in_process(label: str, text: str, runs: int) -> None:
    from evalfmt.formats.agentv.loader import load_text as agentv_load
    from evalfmt.load import load_text as libyaml_load
    from evalfmt.npmyaml import load as model_load
    from evalfmt.npmyaml.simple import is_simple

    def med(fn) -> float:
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return statistics.median(times) * 1000

    lib = med(lambda: libyaml_load(text, "EVAL.yaml"))
    new = med(lambda: agentv_load(text, "EVAL.yaml"))
    simple = med(lambda: is_simple(text))
    model = med(lambda: model_load(text))
    print(f"| {label:<38} | {len(text):>8,} | {'yes' if is_simple(text) else 'no':>6} | {lib:9.2f} | "
          f"{new:9.2f} | {new / lib:5.2f}x | {simple:7.2f} | {model:9.2f} |")


def timed(cmds: list[list[str]], runs: int) -> list[list[float]]:
    times: list[list[float]] = [[] for _ in cmds]
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            start = time.perf_counter()
            proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
            times[i].append(time.perf_counter() - start)
            if proc.returncode not in (0, 1):
                raise SystemExit(f"{cmd} failed ({proc.returncode}): {proc.stderr.decode()[:500]}")
    return times


def row(label: str, times: list[float], base: float) -> str:
    ms = [t * 1000 for t in times]
    med = statistics.median(ms)
    return f"| {label:<52} | {med:9.1f} | {min(ms):8.1f} | {max(ms):8.1f} | {med / base:5.2f}x |"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--baseline", help="another checkout's evalfmt executable, run side by side")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-agentv-yaml-")
    try:
        big = os.path.join(tmp, "big", "EVAL.yaml")
        os.makedirs(os.path.dirname(big))
        big_eval_yaml(big)
        with open(FIXTURE, encoding="utf-8") as fh:
            fixture = fh.read()
        with open(big, encoding="utf-8") as fh:
            big_text = fh.read()
        anchored_small = os.path.join(tmp, "anchored", "EVAL.yaml")
        os.makedirs(os.path.dirname(anchored_small))
        with open(anchored_small, "w", encoding="utf-8") as fh:
            fh.write(ANCHORED + fixture)

        print("in-process, medians of", max(args.runs, 21), "loads (ms)\n")
        print("| input | chars | simple | libyaml loader | agentv loader | ratio | subset test | model |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        runs = max(args.runs, 21)
        in_process("fixtures/agentv/EVAL.yaml", fixture, runs)
        in_process("fixture + an anchor (not simple)", ANCHORED + fixture, runs)
        in_process("generated, 1,000 tests", big_text, max(args.runs, 5))
        in_process("generated + an anchor (not simple)", ANCHORED + big_text, max(args.runs, 5))

        evalfmt = os.path.join(BIN, "evalfmt")
        cjs = [os.path.join(BIN, "check-jsonschema"), "--schemafile", SCHEMA]
        print(f"\ncold processes, {args.runs} runs each, interleaved\n")
        print("| command | median ms | min ms | max ms | vs check-jsonschema |")
        print("|---|---:|---:|---:|---:|")
        for title, path in (("fixtures/agentv/EVAL.yaml", FIXTURE), ("the fixture + an anchor", anchored_small)):
            cmds = [cjs + [path], [evalfmt, "validate", path]]
            labels = ["check-jsonschema (agentv schema)", "evalfmt validate (this checkout)"]
            if args.baseline:
                cmds.append([args.baseline, "validate", path])
                labels.append("evalfmt validate (baseline)")
            times = timed(cmds, args.runs)
            base = statistics.median(times[0]) * 1000
            print(f"| **{title}** | | | | |")
            for label, t in zip(labels, times):
                print(row(label, t, base))
            sys.stdout.flush()
        if args.baseline:
            print(f"\n| command (1,000-test EVAL.yaml) | median ms | min ms | max ms | vs baseline |")
            print("|---|---:|---:|---:|---:|")
            out = os.path.join(tmp, "out")
            cmds = [[args.baseline, "transpile", "--layout", "agentv", big, "-d", out],
                    [evalfmt, "transpile", "--layout", "agentv", big, "-d", out]]
            times = timed(cmds, args.runs)
            base = statistics.median(times[0]) * 1000
            print(row("evalfmt transpile --layout agentv (baseline)", times[0], base))
            print(row("evalfmt transpile --layout agentv (this checkout)", times[1], base))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
