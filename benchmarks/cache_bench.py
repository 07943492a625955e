"""Benchmark: the result cache of `evalfmt lint` (issue 17 item 2) on the generated corpus (200 skills,
2,600 files).

    .venv/bin/python benchmarks/cache_bench.py [--runs 9] [--skills 200] [--baseline OTHER/.venv/bin/evalfmt]

Interleaved run by run (so machine noise spreads over all of them), whole processes, wall and CPU
(user + system) times, medians:

- `python -c pass`: the interpreter's bare start-up;
- metadata: a walk of the corpus reading every file's metadata (`os.walk` + `os.lstat`), in one
  process (start-up included);
- lint --no-cache: the cold run as before the cache;
- lint, cold: an empty cache folder (first sight of the run: it computes everything and leaves a
  note);
- lint, second run: the run seen again, nothing changed (it computes everything, recording its inputs,
  and writes the cache);
- lint, warm: the third run, nothing changed (the goal: within 2x of bare start-up plus metadata);
- lint, one skill changed: one case file of one skill touched (its skill is linted again, the rest
  is read back);
- with --baseline: that checkout's `lint --isolated --no-cache` and its warm run (a cache folder of its
  own, third run), for the A/B.

Nothing is asserted.
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

WALK = ("import os,sys\n"
        "n=0\n"
        "for d,ds,fs in os.walk(sys.argv[1]):\n"
        "    for f in fs: os.lstat(os.path.join(d,f)); n+=1\n")


def run(cmd: list[str], env: dict | None = None) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--skills", type=int, default=200)
    ap.add_argument("--baseline", help="another checkout's evalfmt executable")
    args = ap.parse_args()
    evalfmt = os.path.join(BIN, "evalfmt")
    tmp = tempfile.mkdtemp(prefix="bench-cache-")
    try:
        corpus = os.path.join(tmp, "corpus")
        subprocess.run([sys.executable, os.path.join(HERE, "corpus.py"), corpus, "--skills", str(args.skills)],
                       check=True, stdout=subprocess.DEVNULL)
        time.sleep(2.5)  # older than the cache's racy window (files written this recently are not trusted)
        cache = os.path.join(tmp, "cache")
        lint = [evalfmt, "lint", "--isolated", corpus]
        changed = os.path.join(corpus, sorted(os.listdir(corpus))[0], "evals", "cases")
        changed = os.path.join(changed, sorted(os.listdir(changed))[0])
        rows: dict[str, list[tuple[float, float]]] = {}

        def add(name: str, cmd: list[str], before=None) -> None:
            if before:
                before()
            rows.setdefault(name, []).append(run(cmd))

        def touch() -> None:
            with open(changed, "a", encoding="utf-8") as fh:
                fh.write("# edited\n")
            past = time.time() - 10
            os.utime(changed, (past, past))

        run(lint + ["--no-cache"])  # warm the page cache and the byte-compiled modules
        for _ in range(args.runs):
            add("python -c pass", [sys.executable, "-c", "pass"])
            add("metadata (os.walk + lstat of every file)", [sys.executable, "-c", WALK, corpus])
            add("lint --no-cache", lint + ["--no-cache"])
            if args.baseline:
                base = [args.baseline, "lint", "--isolated", corpus, "--cache-dir", os.path.join(tmp, "base-cache")]
                add("baseline lint --no-cache", base + ["--no-cache"])
                shutil.rmtree(os.path.join(tmp, "base-cache"), ignore_errors=True)
                run(base)  # first sight
                run(base)  # records
                add("baseline lint, warm (nothing changed)", base)
            shutil.rmtree(cache, ignore_errors=True)
            add("lint, cold (empty cache, first sight)", lint + ["--cache-dir", cache])
            add("lint, second run (records, writes the cache)", lint + ["--cache-dir", cache])
            add("lint, warm (nothing changed)", lint + ["--cache-dir", cache])
            add("lint, one case file changed", lint + ["--cache-dir", cache], before=touch)
            time.sleep(2.1)  # the edited file leaves the racy window before the next cold run records it
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
        bare = med["python -c pass"]
        meta = med["metadata (os.walk + lstat of every file)"]
        warm = med["lint, warm (nothing changed)"]
        print(f"\nwarm / (bare start-up + metadata walk): wall {warm[0] / meta[0]:.2f}x, CPU {warm[1] / meta[1]:.2f}x "
              f"(the metadata process includes its own start-up); warm / bare start-up: wall {warm[0] / bare[0]:.2f}x")
        cold, nocache = med["lint, cold (empty cache, first sight)"], med["lint --no-cache"]
        second = med["lint, second run (records, writes the cache)"]
        print(f"cold (first sight) / --no-cache: wall {cold[0] / nocache[0]:.2f}x, CPU {cold[1] / nocache[1]:.2f}x; "
              f"second run (recording) / --no-cache: wall {second[0] / nocache[0]:.2f}x, "
              f"CPU {second[1] / nocache[1]:.2f}x")
        if args.baseline:
            base = med["baseline lint --no-cache"]
            print(f"cold (first sight) / baseline --no-cache: wall {cold[0] / base[0]:.2f}x, CPU {cold[1] / base[1]:.2f}x")
            bwarm = med["baseline lint, warm (nothing changed)"]
            print(f"warm / baseline warm: wall {warm[0] / bwarm[0]:.2f}x, CPU {warm[1] / bwarm[1]:.2f}x; baseline warm / "
                  f"metadata walk: wall {bwarm[0] / meta[0]:.2f}x, CPU {bwarm[1] / meta[1]:.2f}x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
