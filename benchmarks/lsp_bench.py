"""Benchmark: `evalfmt lsp`, diagnostics after a change of a 200-case EVAL.yaml, through the protocol
(issue 17's goal: within 50 ms of the change at the median).

    .venv/bin/python benchmarks/lsp_bench.py [--runs 41] [--cases 200] [--debounce-ms 10] [--pause-ms 0]

A pygls client starts `python -m evalfmt lsp` (this checkout), opens a generated agentv EVAL.yaml
of N tests (benchmarks/transpile_bench.py's generator) and then sends full-text changes, one at a
time, alternating between a text with one finding (a test without assertions: EV502) and the clean
text. Each figure is the wall time from sending `didChange` to receiving the `publishDiagnostics` of
that version, so it is what an editor waits for. With ``--pause-ms 0`` each change follows the previous
publication at once (a burst: the debounce applies); with a pause longer than the debounce each change
comes after a quiet spell, as an edit after a pause in typing does, and is linted at once. Also shown:
the same lint in-process (no protocol, no debounce), for scale. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from lsprotocol import types as lsp  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

from transpile_bench import big_eval_yaml  # noqa: E402


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f} (min {min(values) * 1000:.1f}, max {max(values) * 1000:.1f})"


def _cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def through_protocol(path: str, runs: int, debounce_ms: float,
                           pause_ms: float) -> tuple[float, list[float], int, float]:
    with open(path, encoding="utf-8") as fh:
        clean = fh.read()
    broken = clean.replace("    assertions:\n", "    x-note: none\n    assertions-off:\n", 1)
    client = LanguageClient("lsp-bench", "1")
    got: dict[int, float] = {}
    counts: dict[int, int] = {}
    waiting: dict[int, asyncio.Future] = {}

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
        if params.version is not None and params.version not in got:
            got[params.version] = time.perf_counter()
            counts[params.version] = len(params.diagnostics)
            fut = waiting.pop(params.version, None)
            if fut is not None and not fut.done():
                fut.set_result(None)

    await client.start_io(sys.executable, "-m", "evalfmt", "lsp")
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(),
                                                       initialization_options={"debounceMs": debounce_ms}))
    client.initialized(lsp.InitializedParams())
    uri = "file://" + path
    loop = asyncio.get_running_loop()

    async def send(version: int, text: str, opening: bool = False) -> float:
        waiting[version] = loop.create_future()
        start = time.perf_counter()
        if opening:
            item = lsp.TextDocumentItem(uri, "yaml", version, text)
            client.text_document_did_open(lsp.DidOpenTextDocumentParams(item))
        else:
            client.text_document_did_change(lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(version, uri), [lsp.TextDocumentContentChangeWholeDocument(text)]))
        await asyncio.wait_for(waiting[version], 60)
        return got[version] - start

    first = await send(1, clean, opening=True)
    times = []
    pid = client._server.pid if client._server is not None else None  # (pygls keeps the process there)
    cpu = _cpu(pid) if pid is not None else 0.0
    for version in range(2, runs + 2):
        await asyncio.sleep(pause_ms / 1000)
        times.append(await send(version, broken if version % 2 == 0 else clean))
    cpu = (_cpu(pid) - cpu) / runs if pid is not None else float("nan")
    findings = counts[2]
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return first, times, findings, cpu


def in_process(path: str, runs: int) -> list[float]:
    from evalfmt.lint import lint

    lint([path])
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        lint([path])
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=41)
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--debounce-ms", type=float, default=10)
    ap.add_argument("--pause-ms", type=float, default=0, help="wait between one publication and the next change")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-lsp-") as tmp:
        path = os.path.join(tmp, "suite", "EVAL.yaml")
        os.makedirs(os.path.dirname(path))
        big_eval_yaml(path, args.cases)
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().count("\n")
        first, times, findings, cpu = asyncio.run(through_protocol(path, args.runs, args.debounce_ms, args.pause_ms))
        local = in_process(path, max(args.runs // 2, 5))
    print(f"EVAL.yaml of {args.cases} tests ({lines} lines); debounce {args.debounce_ms:g} ms; {args.runs} changes, "
          f"{args.pause_ms:g} ms apart")
    print(f"findings in the changed text: {findings}, 0 in the clean one\n")
    print("| measure | ms, median (min, max) |")
    print("|---|---:|")
    print(f"| didOpen -> publishDiagnostics (first lint, modules loading) | {first * 1000:.1f} |")
    print(f"| didChange -> publishDiagnostics of that version | {_ms(times)} |")
    print(f"| the same lint in-process (no protocol, no debounce) | {_ms(local)} |")
    print(f"| the server's CPU time per change (user + system, mean) | {cpu * 1000:.1f} |")


if __name__ == "__main__":
    main()
