"""Benchmark: the built-in patterns on their worst cases, at sizes n, 2n, 4n and 8n (issue 11.8).

For each pattern evalfmt rewrote, the worst input of the old regex is generated at four sizes and
timed with the code evalfmt runs now, and (at smaller sizes, since it is quadratic or worse) with
the old regex. Linear growth shows as a time ratio 8n/n near 8; quadratic near 64.

    .venv/bin/python benchmarks/pattern_sweep.py [--n 100000] [--old-n 2000] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from evalfmt import frontmatter  # noqa: E402
from evalfmt.formats import peek_keys, skillgym  # noqa: E402
from evalfmt.formats.skillgym import writer as skillgym_write  # noqa: E402
from evalfmt.lint import suppress  # noqa: E402
from evalfmt.lint.rules import hygiene  # noqa: E402

# cold runs, as they were measured before the result cache (lint and validate keep one by default)
os.environ["EVALFMT_NO_CACHE"] = "1"

OLD = {
    "email": re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"),
    "dep-token": re.compile(r"[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+"),
    "js-trim": re.compile(f"^[{hygiene._JS_SPACE}]+|[{hygiene._JS_SPACE}]+$"),
    "pem": re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----"),
    "frontmatter": re.compile(r"^---\s*\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)"),
    "noqa": re.compile(r"(?:#|<!--)[ \t]*evalfmt:[ \t]*noqa(?P<file>-file)?(?P<rest>[^\n]*?)[ \t]*(?:-->)?[ \t]*\r?$"),
    "json-keys": re.compile(r'"((?:[^"\\]|\\.)*)"\s*:'),
    "export-default": re.compile(r"^\s*export\s+default\b", re.M),
    "ts-preamble": re.compile(r"(?:\s|//[^\n]*|import\b[^;]*;?)*", re.S),
}


def _keys(text: str) -> set[str]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as fh:
        fh.write(text)
    try:
        return peek_keys(fh.name)
    finally:
        os.unlink(fh.name)


# name: (worst input of size ~n, what evalfmt runs now, what it ran before)
CASES = {
    "email": (lambda n: "a" * n + "@", lambda t: list(hygiene.emails(t)), lambda t: list(OLD["email"].finditer(t))),
    "dep-token": (lambda n: "a" * n, lambda t: list(hygiene.DEP_TOKEN.finditer(t)),
                  lambda t: list(OLD["dep-token"].finditer(t))),
    "js-trim": (lambda n: "x" + " " * n + "x", hygiene.js_trim, lambda t: OLD["js-trim"].sub("", t)),
    "pem": (lambda n: "-----BEGIN RSA PRIVATE KEY-----" * (n // 31), hygiene.credential_offset,
            lambda t: OLD["pem"].search(t)),
    "frontmatter": (lambda n: "---" + "\n" * n + "x", frontmatter.find, lambda t: OLD["frontmatter"].match(t)),
    "noqa": (lambda n: "# evalfmt: noqa" + " " * n + "x", lambda t: suppress.scan("a.yaml", t),
             lambda t: list(OLD["noqa"].finditer(t))),
    "json-keys": (lambda n: "{" + '"' + '\\"' * (n // 2), _keys, lambda t: list(OLD["json-keys"].finditer(t))),
    "export-default": (lambda n: "\n" * n + "x", lambda t: skillgym._DEFAULT.search(t),
                       lambda t: OLD["export-default"].search(t)),
    "ts-preamble": (lambda n: "import " * (n // 7) + ";x", lambda t: skillgym_write._preamble_ends(t, len(t)),
                    lambda t: OLD["ts-preamble"].fullmatch(t)),
}
#: exponential (ts-preamble) or cubic (noqa), not quadratic: the old regex is timed at small sizes
OLD_SIZES = {"ts-preamble": [56, 70, 84, 98], "noqa": None}


def timed(fn, text: str, runs: int) -> float:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn(text)
        out.append(time.perf_counter() - start)
    return min(out)  # best of: the machine is shared, the minimum is the least disturbed run


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--old-n", type=int, default=2_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    sizes = [args.n * k for k in (1, 2, 4, 8)]
    print(f"now: n = {args.n:,}; old regex: n = {args.old_n:,} (best of {args.runs} runs, ms)")
    print("| pattern | now n | 2n | 4n | 8n | 8n/n | old n | 2n | 4n | 8n | 8n/n |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, (make, now, old) in CASES.items():
        now(make(sizes[0]))  # warm up (imports, caches)
        t_now = [timed(now, make(n), args.runs) for n in sizes]
        old_sizes = OLD_SIZES.get(name, [args.old_n * k for k in (1, 2, 4, 8)])
        if old_sizes is None:  # cubic: a sixteenth of the size
            old_sizes = [args.old_n // 16 * k for k in (1, 2, 4, 8)]
        t_old = [timed(old, make(n), 1) for n in old_sizes]
        cells = [f"{t * 1000:.2f}" for t in t_now] + [f"{t_now[3] / t_now[0]:.1f}"]
        cells += [f"{t * 1000:.1f}" for t in t_old] + [f"{t_old[3] / max(t_old[0], 1e-9):.0f}"]
        note = f" (n = {old_sizes[0]})" if old_sizes[0] != args.old_n else ""
        print(f"| {name}{note} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
