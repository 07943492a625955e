"""Benchmark: `evalfmt lint` on a generated corpus (200 skills, 2,600 files) against yamllint and a
bare libyaml parse of the same files, and one-file lint/validate (the pre-commit case) against
check-jsonschema with evalfmt's own terum case schema.

    .venv/bin/python benchmarks/lint_bench.py [--runs 9] [--skills 200]

Every figure is the median (and min/max) of whole-process wall times, each command run in turn
(interleaved, so machine noise spreads over all of them); nothing is asserted. The corpus is
benchmarks/corpus.py's (the validate benchmark's), so the figures compare across sections.

- yamllint: `yamllint -d relaxed` over the corpus folder (it reads the 2,400 YAML files);
- bare libyaml parse: PyYAML's CSafeLoader over the same 2,400 YAML files and the 200 SKILL.md
  frontmatter blocks, in one process;
- evalfmt lint: every rule, no configuration (`--isolated`): the readers (EV1xx), EV2xx-EV5xx and
  terum hygiene over all 2,600 files (every file of every skill is scanned by HYG2-HYG4);
- one file: a case file, cold process, as a pre-commit hook runs it.

evalfmt's modules are byte-compiled first and every command runs without PYTHONDONTWRITEBYTECODE, as
installed tools do.
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
ROOT = os.path.dirname(HERE)
SCHEMA = os.path.join(ROOT, "schemas", "terum-case.schema.json")
BARE_PARSE = (
    "import re, sys, yaml\n"
    "fm = re.compile(r'^---\\s*\\r?\\n([\\s\\S]*?)\\r?\\n---(?:\\r?\\n|$)')\n"
    "for p in sys.argv[1:]:\n"
    "    with open(p, 'rb') as fh: data = fh.read()\n"
    "    if p.endswith('.md'):\n"
    "        m = fm.match(data.decode('utf-8'))\n"
    "        data = m.group(1) if m else ''\n"
    "    yaml.load(data, Loader=yaml.CSafeLoader)\n"
)


#: Installed tools run from compiled bytecode (pip writes it); so does evalfmt here: the environment's
#: PYTHONDONTWRITEBYTECODE (set on the development machines) would make every run compile evalfmt
#: from source, which is not what a user or a pre-commit environment pays.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_once(cmd: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{cmd[:4]} failed ({proc.returncode}): {proc.stderr.decode()[:500]}")
    return elapsed


def measure(commands: dict[str, list[str]], runs: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {k: [] for k in commands}
    for _ in range(runs):
        for label, cmd in commands.items():
            times[label].append(run_once(cmd))
    return times


def table(times: dict[str, list[float]], base: str, goal: dict[str, str]) -> None:
    b = statistics.median(times[base])
    print(f"| command | median ms | min ms | max ms | vs {base} | goal |")
    print("|---|---:|---:|---:|---:|---|")
    for label, ts in times.items():
        med = statistics.median(ts)
        print(f"| {label} | {med * 1000:.0f} | {min(ts) * 1000:.0f} | {max(ts) * 1000:.0f} | {med / b:.2f}x | "
              f"{goal.get(label, '')} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--skills", type=int, default=200)
    ap.add_argument("--large", type=int, default=1000, help="skills in the --jobs comparison (0: skip it)")
    ap.add_argument("--baseline", metavar="DIR", help="also run the evalfmt of this source tree (e.g. `git archive "
                    "main | tar -x -C DIR`), interleaved with the others, for a before/after comparison")
    args = ap.parse_args()
    evalfmt = os.path.join(BIN, "evalfmt")
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(ROOT, "evalfmt")], check=True, env=ENV)
    baseline = []
    if args.baseline:
        src = os.path.abspath(args.baseline)
        subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(src, "evalfmt")], check=True, env=ENV)
        baseline = [sys.executable, "-c", f"import sys; sys.path.insert(0, {src!r}); from evalfmt.cli import main; "
                                          "sys.exit(main())"]
    with tempfile.TemporaryDirectory() as tmp:
        files = generate(tmp, args.skills)
        yamls = [f for f in files if f.endswith(".yaml")]
        mds = [f for f in files if f.endswith(".md")]
        one = next(f for f in files if "/evals/cases/" in f)
        print(f"corpus: {len(files)} files ({len(yamls)} YAML, {len(mds)} SKILL.md) in {args.skills} skills; "
              f"{args.runs} runs each, interleaved\n")
        corpus = {
            "yamllint -d relaxed (the folder)": [os.path.join(BIN, "yamllint"), "-d", "relaxed", tmp],
            "bare libyaml parse (2,400 YAML + 200 frontmatters)": [sys.executable, "-c", BARE_PARSE, *yamls, *mds],
            "evalfmt lint --isolated (the folder)": [evalfmt, "lint", "--isolated", tmp],
            "evalfmt lint --isolated --jobs 2 (the folder)": [evalfmt, "lint", "--isolated", "--jobs", "2", tmp],
            "evalfmt validate (the folder)": [evalfmt, "validate", tmp],
        }
        if baseline:
            corpus["baseline: evalfmt lint --isolated (the folder)"] = [*baseline, "lint", "--isolated", tmp]
        times = measure(corpus, args.runs)
        print("whole corpus:")
        table(times, "yamllint -d relaxed (the folder)",
              {"evalfmt lint --isolated (the folder)": "<= 0.25x yamllint, <= 4x bare parse"})
        bare = statistics.median(times["bare libyaml parse (2,400 YAML + 200 frontmatters)"])
        for label in ("evalfmt lint --isolated (the folder)", "evalfmt lint --isolated --jobs 2 (the folder)"):
            print(f"{label}: {statistics.median(times[label]) / bare:.2f}x the bare parse")
        print()
        single = {
            "check-jsonschema (one case file)": [os.path.join(BIN, "check-jsonschema"), "--schemafile", SCHEMA, one],
            "evalfmt lint (one case file)": [evalfmt, "lint", "--isolated", one],
            "evalfmt validate (one case file)": [evalfmt, "validate", one],
            "bare libyaml parse (one case file)": [sys.executable, "-c", BARE_PARSE, one],
        }
        if baseline:
            single["baseline: evalfmt lint (one case file)"] = [*baseline, "lint", "--isolated", one]
        times = measure(single, args.runs)
        print("one case file, cold process (the pre-commit case):")
        table(times, "check-jsonschema (one case file)",
              {"evalfmt lint (one case file)": "<= 0.5x check-jsonschema",
               "evalfmt validate (one case file)": "<= 0.5x check-jsonschema"})
    if args.large:
        with tempfile.TemporaryDirectory() as tmp:
            generate(tmp, args.large)
            jobs = {f"evalfmt lint --jobs 1 ({args.large} skills)": [evalfmt, "lint", "--isolated", tmp],
                    f"evalfmt lint --jobs 2 ({args.large} skills)": [evalfmt, "lint", "--isolated", "--jobs", "2", tmp]}
            times = measure(jobs, max(3, args.runs // 2))
            print(f"\n--jobs on a larger tree ({args.large * 13:,} files), os.cpu_count() = {os.cpu_count()}:")
            table(times, f"evalfmt lint --jobs 1 ({args.large} skills)", {})


if __name__ == "__main__":
    main()
