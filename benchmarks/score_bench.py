"""Benchmark: scoring a generated ~100 MB Claude Code stream-json transcript, against a bare loop that
only parses each line with orjson. Each measurement runs in its own process (peak RSS of the whole
process, from getrusage), repeated; medians are reported side by side.

    .venv/bin/python benchmarks/score_bench.py [--mb 100] [--runs 5] [--keep FILE] [--baseline DIR]

``--baseline DIR`` also runs the scorer of another source tree (e.g. ``git archive main | tar -x -C
DIR``), interleaved with the others, for a before/after comparison.

``--shape text`` generates instead the worst case for memory (issue 11.10): a transcript made almost
only of what a session keeps, per turn an assistant text block of ~10 KB and a Write tool call whose
content is another ~10 KB, then a short tool result (use it with ``--mb 300``).

"work time" is the time inside the process after its imports (the bare loop imports only orjson;
the scorer imports evalfmt's IR, i.e. pydantic, a fixed ~0.1 s whatever the transcript's size);
"process wall time" includes interpreter start-up and imports.

The transcript is deterministic (seeded). Per turn: an assistant text block (~400 chars), a tool call
(Bash ~80 chars, Read, or Write/Edit with ~2 KB of content), its tool result (~2-16 KB of file or
command output), every 50 turns a partial-message burst (stream_event records) and every 200 turns a
non-JSON line. About a quarter of the bytes are text the scorer must keep (text blocks and tool
inputs); the rest is tool output, envelopes and usage. Scoring runs nine checks: transcript mentions
and omits, command regexes and a skill-trigger in each detection mode.
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
WORDS = ("release notes changelog commit tag version breaking change fix feature refactor cache pool "
         "session login layout cursor pagination migration index schema deploy rollback config loader").split()


def sentence(rng: random.Random, n: int) -> str:
    out, size = [], 0
    while size < n:
        w = rng.choice(WORDS)
        out.append(w)
        size += len(w) + 1
    return " ".join(out)


class _Lines:
    """Writes JSON lines (and raw text) into a file, counting the characters written."""

    def __init__(self, fh) -> None:
        self.fh = fh
        self.size = 0

    def raw(self, text: str) -> None:
        self.fh.write(text)
        self.size += len(text)

    def put(self, obj) -> None:
        self.raw(json.dumps(obj, separators=(",", ":")) + "\n")


def generate(path: str, megabytes: float, seed: int = 7) -> int:
    rng = random.Random(seed)
    target = int(megabytes * 1024 * 1024)
    turn = 0
    with open(path, "w", encoding="utf-8") as fh:
        lines = _Lines(fh)
        put = lines.put

        put({"type": "system", "subtype": "init", "session_id": "bench", "model": "claude-sonnet-4-5",
             "tools": ["Bash", "Read", "Write", "Edit", "Skill"], "skills": ["release-notes"]})
        put({"type": "assistant", "session_id": "bench", "message": {"id": "m0", "content": [
            {"type": "tool_use", "id": "t0", "name": "Skill", "input": {"skill": "release-notes"}}]}})
        put({"type": "user", "session_id": "bench", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t0", "content": "Launching skill: release-notes"}]}})
        usage = {"input_tokens": 1200, "output_tokens": 300, "cache_read_input_tokens": 40000}
        while lines.size < target:
            turn += 1
            mid, tid = f"m{turn}", f"t{turn}"
            put({"type": "assistant", "session_id": "bench", "message": {"id": mid, "model": "claude-sonnet-4-5", "usage": usage,
                 "content": [{"type": "text", "text": sentence(rng, 400)}]}})
            kind = rng.random()
            if kind < 0.45:
                name, inp = "Bash", {"command": f"git log --oneline v{turn % 9}.0.0..HEAD -- {rng.choice(WORDS)}",
                                     "description": sentence(rng, 40)}
            elif kind < 0.8:
                name, inp = "Read", {"file_path": f"/repo/src/{rng.choice(WORDS)}/{rng.choice(WORDS)}.py"}
            else:
                name, inp = rng.choice(["Write", "Edit"]), {"file_path": f"/repo/docs/{rng.choice(WORDS)}.md",
                                                             "content": sentence(rng, 2000)}
            if turn % 50 == 0:
                put({"type": "stream_event", "event": {"type": "message_start", "message": {"id": mid + "s"}}})
                put({"type": "stream_event", "event": {"type": "content_block_start", "index": 0,
                     "content_block": {"type": "text", "text": ""}}})
                for _ in range(20):
                    put({"type": "stream_event", "event": {"type": "content_block_delta",
                         "delta": {"type": "text_delta", "text": sentence(rng, 30)}}})
            put({"type": "assistant", "session_id": "bench", "message": {"id": mid + "t", "usage": usage,
                 "content": [{"type": "tool_use", "id": tid, "name": name, "input": inp}]}})
            out = sentence(rng, rng.choice([2000, 6000, 16000]))
            content = out if rng.random() < 0.5 else [{"type": "text", "text": out}]
            put({"type": "user", "session_id": "bench", "message": {"content": [
                {"type": "tool_result", "tool_use_id": tid, "content": content, "is_error": rng.random() < 0.05}]}})
            if turn % 200 == 0:
                lines.raw("npm WARN a line that is not JSON\n")
        put({"type": "result", "subtype": "success", "is_error": False, "result": "Release notes drafted: " + sentence(rng, 300),
             "num_turns": turn, "duration_ms": 123456, "total_cost_usd": 1.23})
    return lines.size


def generate_text(path: str, megabytes: float, seed: int = 7) -> int:
    """The ``--shape text`` transcript (see the module docstring)."""
    rng = random.Random(seed)
    texts = [sentence(rng, 10_000) for _ in range(16)]
    target = int(megabytes * 1024 * 1024)
    turn = 0
    with open(path, "w", encoding="utf-8") as fh:
        lines = _Lines(fh)
        put = lines.put
        put({"type": "system", "subtype": "init", "session_id": "bench", "model": "m", "skills": ["release-notes"]})
        while lines.size < target:
            turn += 1
            put({"type": "assistant", "message": {"id": f"m{turn}", "content": [
                {"type": "text", "text": texts[turn % 16]},
                {"type": "tool_use", "id": f"t{turn}", "name": "Write",
                 "input": {"file_path": f"/repo/docs/{turn}.md", "content": texts[(turn + 7) % 16]}}]}})
            put({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": f"t{turn}",
                                                           "content": "File written"}]}})
        put({"type": "result", "subtype": "success", "is_error": False, "result": "done", "num_turns": turn})
    return lines.size


def worker_bare(path: str) -> float:
    import orjson

    start = time.perf_counter()
    n = 0
    with open(path, "rb") as fh:
        for line in fh:
            try:
                orjson.loads(line)
            except orjson.JSONDecodeError:
                pass
            n += 1
    return time.perf_counter() - start


def worker_score(path: str, src: str = ROOT) -> float:
    sys.path.insert(0, src)
    from evalfmt import ir
    from evalfmt.run.checks import score_case
    from evalfmt.run.transcripts import read_session

    start = time.perf_counter()
    session = read_session(path)
    case = ir.Case(name="bench", checks=[
        ir.TranscriptMentions(text="BREAKING CHANGE"), ir.TranscriptMentions(text="release notes drafted"),
        ir.TranscriptOmits(text="zz-not-there-zz"), ir.CommandMatching(pattern=r"git\s+(log|describe)"),
        ir.NoCommandMatching(pattern=r"git\s+(tag|push)"), ir.CommandMatching(pattern=r"^git log --oneline v\d\.0\.0\.\.HEAD"),
        ir.SkillTrigger(skill="release-notes")])
    for mode in ("first-call", "any-call", "skill-used"):
        res = score_case(case, session, detection=mode)
    assert res.checks and session.records > 0
    return time.perf_counter() - start


def measure(mode: str, path: str, src: str = ROOT) -> tuple[float, float, float]:
    """(process wall seconds, work seconds after imports, peak RSS in MiB) of one worker process."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", mode, path, src],
                         capture_output=True, text=True, check=True).stdout
    elapsed = time.perf_counter() - start
    work, rss = out.split()
    return elapsed, float(work), float(rss)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=100.0)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep", help="write the transcript here (and reuse it when it exists)")
    ap.add_argument("--baseline", metavar="DIR", help="also run the scorer of this source tree")
    ap.add_argument("--shape", choices=["mixed", "text"], default="mixed",
                    help="mixed: the default transcript; text: almost only agent text and tool inputs")
    ap.add_argument("--worker", nargs=3, metavar=("MODE", "FILE", "SRC"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        mode, path, src = args.worker
        work = worker_bare(path) if mode == "bare" else worker_score(path, src)
        print(work, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)  # KiB -> MiB on Linux
        return
    tmpdir = None
    if args.keep:
        path = args.keep
    else:
        tmpdir = tempfile.mkdtemp(prefix="evalfmt-bench-")
        path = os.path.join(tmpdir, "transcript.jsonl")
    if not os.path.exists(path):
        (generate_text if args.shape == "text" else generate)(path, args.mb)
    size_mb = os.path.getsize(path) / 1024 / 1024
    results: dict[str, list[tuple[float, float, float]]] = {"bare": [], "score": []}
    if args.baseline:
        results["baseline"] = []
    for _ in range(args.runs):
        for mode in results:  # interleaved, so drift hits all alike
            src = os.path.abspath(args.baseline) if mode == "baseline" else ROOT
            results[mode].append(measure("bare" if mode == "bare" else "score", path, src))
    med = {m: [statistics.median(x[i] for x in r) for i in range(3)] for m, r in results.items()}
    b, c = med["bare"], med["score"]
    print(f"transcript: {size_mb:.1f} MiB, {args.runs} runs each, medians")
    print("| | bare orjson loop | evalfmt score | ratio |")
    print("|---|---|---|---|")
    print(f"| work time, after imports (s) | {b[1]:.3f} | {c[1]:.3f} | {c[1] / b[1]:.2f}x |")
    print(f"| process wall time (s) | {b[0]:.3f} | {c[0]:.3f} | {c[0] / b[0]:.2f}x |")
    print(f"| peak RSS, whole process (MiB) | {b[2]:.0f} | {c[2]:.0f} | {c[2] / b[2]:.2f}x |")
    if args.baseline:
        a = med["baseline"]
        print(f"baseline ({args.baseline}): work {a[1]:.3f} s ({a[1] / b[1]:.2f}x the bare loop), process "
              f"{a[0]:.3f} s, peak RSS {a[2]:.0f} MiB")
    if tmpdir:
        os.remove(path)
        os.rmdir(tmpdir)


if __name__ == "__main__":
    main()
