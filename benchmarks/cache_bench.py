"""Benchmark: the result cache of `evalfmt lint` (issue 23 item 2) on the generated corpus (200 skills,
2,600 files), whole processes of an installed evalfmt.

    .venv/bin/python benchmarks/cache_bench.py [--runs 7] [--skills 200] [--evalfmt EXE] [--baseline EXE]

`--evalfmt` and `--baseline` name the `evalfmt` programs to measure (default: this venv's; for the
figures of benchmarks/RESULTS.md, two venvs each holding a wheel built from a checkout: `pip install
CHECKOUT` into a fresh venv). Interleaved run by run (so machine noise spreads over all of them), wall
and CPU (user + system) times, medians:

- `python -c pass`: the interpreter's bare start-up;
- lint --no-cache: the cold run without a cache;
- lint, first run: an empty cache folder (the run is recorded: its inputs and its result written);
- lint, second run: the same command, nothing changed (the goal: <= 0.35x the first run);
- lint, third run: once more (as the second for this evalfmt; an earlier one answered only the third);
- lint, one case file changed: one case file of one skill touched (its skill is linted again, the rest
  is read back);
- the same rows for `--baseline`.

The goals: second / first <= 0.35 and first / --no-cache <= 1.05. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.dirname(sys.executable)


def run(cmd: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--skills", type=int, default=200)
    ap.add_argument("--evalfmt", default=os.path.join(BIN, "evalfmt"), help="the evalfmt program measured")
    ap.add_argument("--baseline", help="another evalfmt program, measured the same way")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-cache-")
    try:
        corpus = os.path.join(tmp, "corpus")
        subprocess.run([sys.executable, os.path.join(HERE, "corpus.py"), corpus, "--skills", str(args.skills)],
                       check=True, stdout=subprocess.DEVNULL)
        changed = os.path.join(corpus, sorted(os.listdir(corpus))[0], "evals", "cases")
        changed = os.path.join(changed, sorted(os.listdir(changed))[0])
        time.sleep(2.5)  # older than the racy window (a file changed this recently is recorded with a hash)
        programs = [("", args.evalfmt)] + ([("baseline ", args.baseline)] if args.baseline else [])
        rows: dict[str, list[tuple[float, float]]] = {}

        def add(name: str, cmd: list[str]) -> None:
            rows.setdefault(name, []).append(run(cmd))

        def touch() -> None:
            with open(changed, "a", encoding="utf-8") as fh:
                fh.write("# edited\n")
            past = time.time() - 10
            os.utime(changed, (past, past))

        for _, exe in programs:  # warm the page cache and the byte-compiled modules
            run([exe, "lint", "--isolated", corpus, "--no-cache"])
        for _ in range(args.runs):
            add("python -c pass", [sys.executable, "-c", "pass"])
            for label, exe in programs:
                cache = os.path.join(tmp, f"cache-{label.strip() or 'new'}")
                lint = [exe, "lint", "--isolated", corpus, "--cache-dir", cache]
                add(f"{label}lint --no-cache", lint + ["--no-cache"])
                shutil.rmtree(cache, ignore_errors=True)
                add(f"{label}lint, first run (empty cache)", lint)
                add(f"{label}lint, second run (nothing changed)", lint)
                add(f"{label}lint, third run (nothing changed)", lint)
                touch()
                add(f"{label}lint, one case file changed", lint)
        print(f"corpus: {args.skills} skills, {sum(len(f) for _, _, f in os.walk(corpus))} files; "
              f"{args.runs} runs each, interleaved\n")
        print("| command | median wall ms | min | max | median CPU ms |")
        print("|---|---:|---:|---:|---:|")
        med = {}
        for name, values in rows.items():
            walls = [w for w, _ in values]
            cpus = [c for _, c in values]
            med[name] = (statistics.median(walls), statistics.median(cpus))
            print(f"| {name} | {med[name][0] * 1000:.0f} | {min(walls) * 1000:.0f} | {max(walls) * 1000:.0f} | "
                  f"{med[name][1] * 1000:.0f} |")
        print()
        for label, _ in programs:
            first, nocache = med[f"{label}lint, first run (empty cache)"], med[f"{label}lint --no-cache"]
            second, third = med[f"{label}lint, second run (nothing changed)"], med[f"{label}lint, third run (nothing changed)"]
            print(f"{label or 'evalfmt '}second / first: wall {second[0] / first[0]:.2f}x, CPU {second[1] / first[1]:.2f}x "
                  f"(goal <= 0.35x); third / first: wall {third[0] / first[0]:.2f}x, CPU {third[1] / first[1]:.2f}x; "
                  f"first / --no-cache: wall {first[0] / nocache[0]:.2f}x, CPU {first[1] / nocache[1]:.2f}x "
                  f"(goal <= 1.05x)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
