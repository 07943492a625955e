"""Benchmark: peak memory of scoring a transcript made almost only of what a session keeps (agent
text and tool inputs), the worst case for memory (issue 11.10). Each measurement is its own process
(peak RSS of the whole process, from getrusage).

    .venv/bin/python benchmarks/transcript_memory.py [--mb 300] [--runs 3] [--keep FILE] [--baseline DIR]

Per turn: an assistant text block of ~10 KB and a Write tool call whose content is another ~10 KB,
then a short tool result. Scoring runs a transcript_mentions check (which reads all of that text) and
a command regex. ``--baseline DIR`` also measures the evalfmt of another source tree (e.g.
``git archive main | tar -x -C DIR``), side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORDS = "release notes changelog commit tag version breaking change fix feature refactor cache".split()


def generate(path: str, megabytes: float, seed: int = 7) -> int:
    rng = random.Random(seed)

    def sentence(n: int) -> str:
        out, size = [], 0
        while size < n:
            w = rng.choice(WORDS)
            out.append(w)
            size += len(w) + 1
        return " ".join(out)

    texts = [sentence(10_000) for _ in range(16)]
    target = int(megabytes * 1024 * 1024)
    size = turn = 0
    with open(path, "w", encoding="utf-8") as fh:
        def put(obj) -> None:
            nonlocal size
            line = json.dumps(obj, separators=(",", ":")) + "\n"
            fh.write(line)
            size += len(line)

        put({"type": "system", "subtype": "init", "session_id": "bench", "model": "m", "skills": []})
        while size < target:
            turn += 1
            put({"type": "assistant", "message": {"id": f"m{turn}", "content": [
                {"type": "text", "text": texts[turn % 16]},
                {"type": "tool_use", "id": f"t{turn}", "name": "Write",
                 "input": {"file_path": f"/repo/docs/{turn}.md", "content": texts[(turn + 7) % 16]}}]}})
            put({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": f"t{turn}",
                                                           "content": "File written"}]}})
        put({"type": "result", "subtype": "success", "is_error": False, "result": "done", "num_turns": turn})
    return size


def worker(path: str, src: str) -> float:
    sys.path.insert(0, src)
    from evalfmt import ir
    from evalfmt.run.checks import score_case
    from evalfmt.run.transcripts import read_session

    start = time.perf_counter()
    session = read_session(path)
    case = ir.Case(name="bench", checks=[ir.TranscriptMentions(text="zz-not-there-zz"),
                                         ir.CommandMatching(pattern=r"git\s+log")])
    res = score_case(case, session)
    assert res.checks
    return time.perf_counter() - start


def measure(path: str, src: str) -> tuple[float, float, float]:
    start = time.perf_counter()
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", path, src],
                         capture_output=True, text=True, check=True).stdout
    elapsed = time.perf_counter() - start
    work, rss = out.split()
    return elapsed, float(work), float(rss)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=300.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", help="write the transcript here (and reuse it when it exists)")
    ap.add_argument("--baseline", metavar="DIR", help="also measure the evalfmt of this source tree")
    ap.add_argument("--worker", nargs=2, metavar=("FILE", "SRC"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        work = worker(*args.worker)
        print(work, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)  # KiB -> MiB on Linux
        return
    tmpdir = None
    if args.keep:
        path = args.keep
    else:
        tmpdir = tempfile.mkdtemp(prefix="evalfmt-bench-")
        path = os.path.join(tmpdir, "transcript.jsonl")
    if not os.path.exists(path):
        generate(path, args.mb)
    trees = {"this tree": ROOT}
    if args.baseline:
        trees = {"baseline": os.path.abspath(args.baseline), **trees}
    results: dict[str, list] = {k: [] for k in trees}
    for _ in range(args.runs):
        for label, src in trees.items():
            results[label].append(measure(path, src))
    print(f"transcript: {os.path.getsize(path) / 1024 / 1024:.1f} MiB, {args.runs} runs each, medians")
    print("| evalfmt | work time, after imports (s) | process wall time (s) | peak RSS (MiB) |")
    print("|---|---:|---:|---:|")
    for label, rs in results.items():
        wall, work, rss = (statistics.median(r[i] for r in rs) for i in range(3))
        print(f"| {label} | {work:.2f} | {wall:.2f} | {rss:.0f} |")
    if tmpdir:
        os.remove(path)
        os.rmdir(tmpdir)


if __name__ == "__main__":
    main()
