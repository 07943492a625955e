"""Glob patterns as ruff and pre-commit users write them, for ``per-file-ignores`` and ``exclude``."""

from __future__ import annotations

import os
import re


def glob_regex(pattern: str):
    """A glob with ``**`` (any folders), ``*`` and ``?`` (within one segment) as a regex. A pattern
    without a slash matches the file name in any folder."""
    pat = pattern.replace(os.sep, "/")
    while pat.startswith("./"):
        pat = pat[2:]
    if "/" not in pat:
        pat = "**/" + pat
    out = []
    i = 0
    while i < len(pat):
        c = pat[i]
        if pat.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pat.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(c))
        i += 1
    # A folder pattern also covers everything below it.
    return re.compile("".join(out) + r"(?:/.*)?\Z")


def relative(path: str, root: str) -> str:
    """``path`` relative to ``root`` with forward slashes (as given when on another drive)."""
    try:
        rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    except ValueError:  # another drive on Windows
        rel = path
    return rel.replace(os.sep, "/")


class Exclude:
    """Files and folders not to read: glob patterns, each relative to its own folder (the config
    file's, or the working folder for ``--exclude``). A pattern without a slash matches a name in any
    folder; a folder pattern covers everything below it. Never true for a path outside its folder."""

    def __init__(self, patterns: list[tuple[str, str]] | None = None):
        self.patterns: list[tuple[str, str, re.Pattern]] = []
        for root, pattern in patterns or ():
            self.patterns.append((os.path.abspath(root), pattern, glob_regex(pattern.rstrip("/") or pattern)))

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def __call__(self, path: str) -> bool:
        if not self.patterns:
            return False
        full = os.path.abspath(path)
        for root, _pattern, regex in self.patterns:
            rel = relative(full, root)
            if rel != ".." and not rel.startswith("../") and regex.match(rel):
                return True
        return False
