"""A/B benchmark: lint of the benchmark corpus by this checkout against another one, in CPU time.

    git archive main evalfmt | tar -x -C /tmp/base      # the other checkout's evalfmt/ package
    .venv/bin/python benchmarks/lint_ab.py /tmp/base [--rounds 7] [--skills 200]

Each round runs, for each tree in turn, a fresh process that lints the corpus in-process five times
(``evalfmt.lint.lint`` and the text reporter) and keeps the least CPU time (``time.process_time``);
the table gives the least and the median of those over the rounds. CPU time rather than wall time,
and rounds interleaved, because the machines here are shared: wall times swing by tens of percent
with the load of other processes; CPU time much less. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from corpus import generate  # noqa: E402

# cold runs, as they were measured before the result cache (lint and validate keep one by default)
os.environ["EVALFMT_NO_CACHE"] = "1"

INNER = (
    "import sys, time\n"
    "from evalfmt.lint import lint\n"
    "from evalfmt.lint.reporters import text\n"
    "best = min(((lambda t: (text(lint([sys.argv[1]], isolated=True)), time.process_time() - t)[1])(time.process_time())"
    " for _ in range(5)))\n"
    "print(best)\n"
)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("base", help="a folder holding the other checkout's evalfmt/ package")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--skills", type=int, default=200)
    args = ap.parse_args()
    trees = {"base": os.path.abspath(args.base), "this checkout": ROOT}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for tree in trees.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(tree, "evalfmt")], check=True, env=env)
    times: dict[str, list[float]] = {k: [] for k in trees}
    with tempfile.TemporaryDirectory() as tmp:
        files = generate(tmp, args.skills)
        for _ in range(args.rounds):
            for label, tree in trees.items():
                out = subprocess.run([sys.executable, "-c", INNER, tmp], cwd=tempfile.gettempdir(), check=True,
                                     env=dict(env, PYTHONPATH=tree), capture_output=True, text=True)
                times[label].append(float(out.stdout))
    print(f"lint --isolated of {len(files)} files ({args.skills} skills), CPU ms, {args.rounds} rounds "
          "(each the least of 5 in-process runs)")
    print("| tree | least | median |")
    print("|---|---:|---:|")
    for label, ts in times.items():
        print(f"| {label} | {min(ts) * 1000:.0f} | {statistics.median(ts) * 1000:.0f} |")


if __name__ == "__main__":
    main()
