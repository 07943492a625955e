"""Benchmark: HYG2's script scan (in-process) on non-ASCII text, this checkout against another revision.

    .venv/bin/python benchmarks/hyg2_bench.py [--against main] [--runs 9]

The lint corpus (benchmarks/corpus.py) is ASCII, which HYG2 skips in one call, so lint_bench.py does
not see this code. Two texts, each scanned whole (no finding): words of one script each (Ukrainian,
English, Greek, CJK, Arabic: what the old token rule and the word rule both pass) and the
multilingual prose of tests/lint/test_hyg2_multilingual.py (which the old rule refused at its first
mixed token, so only the new rule's figure means a whole scan). Medians of whole-text scans.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import types

# cold runs, as they were measured before the result cache (lint and validate keep one by default)
os.environ["EVALFMT_NO_CACHE"] = "1"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "lint"))


def scanner_at(rev: str):
    src = subprocess.run(["git", "show", f"{rev}:evalfmt/lint/rules/hygiene.py"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    mod = types.ModuleType("hygiene_at_rev")
    mod.__package__ = "evalfmt.lint.rules"
    exec(compile(src, f"{rev}:hygiene.py", "exec"), mod.__dict__)
    return getattr(mod, "mixed_script_word", None) or mod.mixed_script_offset


def main() -> None:
    from evalfmt.lint.rules.hygiene import mixed_script_word
    from test_hyg2_multilingual import CORPUS

    ap = argparse.ArgumentParser()
    ap.add_argument("--against", default="main")
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    texts = {
        "words of one script each": ("Підготуй звіт про реліз і додай посилання. Release notes for the new API. "
                                     "Ελληνικά κείμενα εδώ. 日本語 한국어 العربية ") * 2000,
        "multilingual prose (test corpus)": "".join(CORPUS.values()) * 300,
    }
    scanners = {args.against: scanner_at(args.against), "this checkout": mixed_script_word}
    print("| text | chars | " + " | ".join(f"{k} median ms" for k in scanners) + " | ratio |")
    print("|---|---:|" + "---:|" * len(scanners) + "---:|")
    for label, text in texts.items():
        meds = []
        for fn in scanners.values():
            fn(text[:200])  # load the tables
            ts = []
            for _ in range(args.runs):
                t = time.perf_counter()
                fn(text)
                ts.append(time.perf_counter() - t)
            meds.append(statistics.median(ts) * 1000)
        ratio = f"{meds[1] / meds[0]:.2f}x" if meds[0] >= 1 else "(old stops early)"
        print(f"| {label} | {len(text):,} | " + " | ".join(f"{m:.1f}" for m in meds) + f" | {ratio} |")


if __name__ == "__main__":
    main()
