"""Benchmark: this working tree's evalfmt against another revision's, side by side, on the commands
whose speed has a goal: lint of the corpus folder, one-file lint and validate (the pre-commit case),
and one-file transpile in both layouts; with ``--formats``, reading and writing skillgym and promptfoo
files too (validate of the fixtures and of a generated 400-case suite, convert of that suite to itself).

    .venv/bin/python benchmarks/ab_bench.py --baseline main [--runs 9] [--skills 200] [--formats]

The baseline is `git archive REV evalfmt` unpacked into a temporary folder; both trees are byte-compiled
and run as `python -c 'from evalfmt.cli import main; main()' ARGS` with their own folder first on
sys.path (same interpreter, same dependencies), interleaved run by run so machine noise spreads over
both. Prints medians (min/max) of wall time and the median CPU time (user + system of the process,
steadier than wall time on a shared machine), with ratios to the baseline; nothing is asserted.
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
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from corpus import generate  # noqa: E402

# cold runs, as they were measured before the result cache (lint and validate keep one by default)
os.environ["EVALFMT_NO_CACHE"] = "1"

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
RUN = ("import sys\nsys.path.insert(0, sys.argv.pop(1))\nimport evalfmt\n"
       "assert evalfmt.__file__.startswith(sys.path[0]), evalfmt.__file__\n"
       "from evalfmt.cli import main\nmain(sys.argv[1:])\n")


def tree(rev: str, into: str) -> str:
    os.makedirs(into)
    archive = subprocess.run(["git", "archive", rev, "evalfmt"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)
    return into


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_once(src: str, args: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run."""
    start, start_cpu = time.perf_counter(), cpu()
    proc = subprocess.run([sys.executable, "-c", RUN, src, *args], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, env=ENV)
    elapsed, used = time.perf_counter() - start, cpu() - start_cpu
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{src} {args[:3]} failed ({proc.returncode}): {proc.stderr.decode()[:500]}")
    return elapsed, used


def format_commands(tmp: str) -> dict[str, list[str]]:
    """One-file validate of the skillgym and promptfoo fixtures, and of a large skillgym suite (the
    fixture's cases repeated under new ids), read and written back by convert."""
    fixture = os.path.join(ROOT, "fixtures", "skillgym", "array-suite.ts")
    with open(fixture, encoding="utf-8") as fh:
        text = fh.read()
    start, end = text.index("= [") + 3, text.rindex("];")
    cases = text[start:end]
    big = os.path.join(tmp, "big-suite.ts")
    with open(big, "w", encoding="utf-8") as fh:
        fh.write(text[:start] + "".join(cases.replace('id: "', f'id: "n{i}-') for i in range(130)) + text[end:])
    promptfoo = os.path.join(ROOT, "tests", "convert", "samples", "promptfoo", "promptfooconfig.yaml")
    return {
        "validate (skillgym fixture)": ["validate", fixture],
        "validate (skillgym, 390 cases)": ["validate", "--from", "skillgym", big],
        "convert skillgym -> skillgym (390 cases)": ["convert", "--from", "skillgym", "--to", "skillgym", big],
        "validate (promptfoo sample)": ["validate", promptfoo],
        "convert promptfoo -> promptfoo": ["convert", "--to", "promptfoo", promptfoo, "-o", os.path.join(tmp, "pf-out")],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", default="main", help="git revision to compare with (default: main)")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--skills", type=int, default=200)
    ap.add_argument("--formats", action="store_true", help="also skillgym and promptfoo reading and writing")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = tree(args.baseline, os.path.join(tmp, "baseline"))
        trees = {args.baseline: base, "this tree": ROOT}
        for src in trees.values():
            subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(src, "evalfmt")], check=True, env=ENV)
        corpus = os.path.join(tmp, "corpus")
        files = generate(corpus, args.skills)
        one = next(f for f in files if "/evals/cases/" in f)
        agentv = os.path.join(tmp, "agentv")
        shutil.copytree(os.path.join(ROOT, "fixtures", "agentv"), agentv)
        eval_yaml = os.path.join(agentv, "EVAL.yaml")
        commands = {
            f"lint --isolated (corpus, {len(files)} files)": ["lint", "--isolated", corpus],
            "lint --isolated (one case file)": ["lint", "--isolated", one],
            "validate (one case file)": ["validate", one],
            "transpile --check, seed (one EVAL.yaml)": ["transpile", "--check", eval_yaml],
            "transpile --check, agentv (one EVAL.yaml)": ["transpile", "--check", "--layout", "agentv", eval_yaml],
        }
        if args.formats:
            commands.update(format_commands(tmp))
        times: dict[tuple[str, str], list[tuple[float, float]]] = {(c, t): [] for c in commands for t in trees}
        for _ in range(args.runs):
            for label, cmd in commands.items():
                for name, src in trees.items():
                    times[(label, name)].append(run_once(src, cmd))
    print(f"{args.runs} runs each, interleaved; baseline = {args.baseline}\n")
    print(f"| command | tree | median ms | min ms | max ms | vs {args.baseline} | median CPU ms | CPU vs "
          f"{args.baseline} |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for label in commands:
        b = statistics.median(w for w, _c in times[(label, args.baseline)])
        bc = statistics.median(c for _w, c in times[(label, args.baseline)])
        for name in trees:
            walls = [w for w, _c in times[(label, name)]]
            cpus = [c for _w, c in times[(label, name)]]
            med, medc = statistics.median(walls), statistics.median(cpus)
            print(f"| {label} | {name} | {med * 1000:.0f} | {min(walls) * 1000:.0f} | {max(walls) * 1000:.0f} | "
                  f"{med / b:.2f}x | {medc * 1000:.0f} | {medc / bc:.2f}x |")


if __name__ == "__main__":
    main()
