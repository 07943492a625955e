"""The files a promptfoo config names, as the reader may see them: through the reader's view (every file read
is an input of the result cache), only inside the config's repository, and globs as promptfoo's ``glob`` finds
them, within bounds.

- The repository is the nearest folder at or above the config holding ``.git`` (else the config's own
  folder). A path that resolves outside it (``..``, an absolute path, a symlink that leads out) is not read:
  :class:`Outside` (a :class:`~.expand.ConfigError`) says so, and :attr:`Files.refused` keeps each refusal
  for the reader to report once (EV106). promptfoo itself reads any file; an eval file from elsewhere must
  not put a home folder's file into what evalfmt prints or converts.
- Globs (``*``, ``?``, ``[...]``, ``**``, braces ``{a,b}`` and ``{1..3}``) match as node-glob 13 matches them
  for promptfoo: ``*`` and ``?`` never match ``/`` nor a leading ``.``; ``**`` is any number of folders, not
  entering a symlinked folder or a dot folder; matches come sorted (node-glob gives the file system's order).
- Bounds: at most :data:`MAX_MATCHES` paths per glob, :data:`MAX_FOLDERS` folders listed and
  :data:`MAX_BRACES` brace expansions; past them the glob is a :class:`GlobTooLarge` error.
"""

from __future__ import annotations

import fnmatch
import os
import re
from typing import Any

from ...fsview import Entry, View
from ...guard import contains
from ...load import read_text
from ...paths import repository
from .loader import load_file

MAX_MATCHES = 10_000
MAX_FOLDERS = 10_000
MAX_BRACES = 1_000
_MAGIC = re.compile(r"[*?\[]|[@!+]\(")


class FilesError(Exception):
    """A file the config names that the reader does not read (``str()`` says why, in one line)."""


class Outside(FilesError):
    """A path that resolves outside the config's repository."""


class GlobTooLarge(FilesError):
    """A glob past the bounds of the module docstring."""


class Files:
    """How the expansion looks at the disk (see the module docstring)."""

    def __init__(self, fs: View, config: str):
        self.fs = fs
        folder = os.path.dirname(os.path.abspath(config))
        self.root = fs.realpath(repository(folder, fs=fs) or folder)
        self.shown_from = folder
        #: the message of each refusal (a path outside the repository), in order, once each
        self.refused: dict[str, str] = {}

    # ------------------------------------------------------------------------------------ checks

    def inside(self, path: str) -> bool:
        return contains(self.root, self.fs.realpath(path))

    def check(self, path: str) -> str:
        """``path`` when it resolves inside the repository; :class:`Outside` (recorded) otherwise."""
        if self.inside(path):
            return path
        shown = os.path.relpath(os.path.abspath(path), self.shown_from)
        message = (f"'{shown}' is outside the repository {self.root} (through '..', an absolute path or a "
                   "symlink): not read")
        self.refused.setdefault(message, message)
        raise Outside(message)

    # --------------------------------------------------------------------------------- contents

    def load(self, path: str) -> Any:
        """A YAML or JSON file's data, read as promptfoo's parser reads it."""
        return load_file(self.check(path), fs=self.fs).data

    def text(self, path: str) -> str:
        return read_text(self.check(path), fs=self.fs)

    def isdir(self, path: str) -> bool:
        return self.fs.isdir(path)

    def isfile(self, path: str) -> bool:
        return self.fs.isfile(path)

    # ------------------------------------------------------------------------------------- globs

    def glob(self, pattern: str) -> list[str]:
        """The paths ``pattern`` matches (see the module docstring), sorted; those outside the repository are
        left out (and recorded); :class:`GlobTooLarge` past the bounds; :class:`Outside` when the folder the
        pattern starts from is outside the repository."""
        found: set[str] = set()
        budget = [MAX_FOLDERS]
        for one in expand_braces(pattern):
            start, parts = _split(one)
            if not self.fs.exists(start):
                continue
            self.check(start)
            self._walk(start, parts, found, budget)
        out = []
        for path in sorted({os.path.normpath(p) for p in found}):
            try:
                out.append(self.check(path))
            except Outside:
                continue
        return out

    def _walk(self, folder: str, parts: list[str], found: set[str], budget: list[int]) -> None:
        if not parts:
            found.add(folder)
            if len(found) > MAX_MATCHES:
                raise GlobTooLarge(f"a glob that names more than {MAX_MATCHES} files")
            return
        head, rest = parts[0], parts[1:]
        if head == "**":
            self._globstar(folder, rest, found, budget)
        elif not _MAGIC.search(head):
            path = os.path.join(folder, head)
            if self.fs.exists(path):
                self._walk(path, rest, found, budget)
        else:
            for entry in self._entries(folder, budget):
                if _match(head, entry.name) and (not rest or entry.is_dir()):
                    self._walk(entry.path, rest, found, budget)

    def _globstar(self, folder: str, rest: list[str], found: set[str], budget: list[int]) -> None:
        """``**``: ``rest`` from ``folder`` and from every folder below it (not symlinked, not dot folders)."""
        stack = [folder]
        while stack:
            current = stack.pop()
            if rest:
                self._walk(current, rest, found, budget)
            else:
                found.add(current)
            for entry in self._entries(current, budget):
                if entry.kind == "d" and not entry.name.startswith("."):
                    stack.append(entry.path)
                elif not rest and not entry.name.startswith(".") and entry.kind != "d":
                    found.add(entry.path)  # ('dir/**' names the files below too)
            if len(found) > MAX_MATCHES:
                raise GlobTooLarge(f"a glob that names more than {MAX_MATCHES} files")

    def _entries(self, folder: str, budget: list[int]) -> list[Entry]:
        budget[0] -= 1
        if budget[0] < 0:
            raise GlobTooLarge(f"a glob that lists more than {MAX_FOLDERS} folders")
        try:
            return self.fs.scandir(folder)
        except OSError:
            return []


def _split(pattern: str) -> tuple[str, list[str]]:
    """The folder a pattern starts from (its segments before the first magic one) and the segments after."""
    parts = pattern.split(os.sep)
    lead: list[str] = []
    while parts and not _MAGIC.search(parts[0]):
        lead.append(parts.pop(0))
    if not parts:  # (no magic at all: the path itself)
        return os.sep.join(lead) or os.sep, []
    start = os.sep.join(lead) if lead else "."
    return (start or os.sep), parts


def _match(segment: str, name: str) -> bool:
    """Whether a folder entry's name matches one glob segment (no leading '.' unless the segment has one)."""
    if name.startswith(".") and not segment.startswith("."):
        return False
    return fnmatch.fnmatchcase(name, segment.replace("[^", "[!"))


def expand_braces(pattern: str) -> list[str]:
    """minimatch's brace expansion: ``a{b,c}d`` is ``abd``, ``acd``; ``{1..3}`` is ``1``, ``2``, ``3``; a brace
    pair with neither stays as it is. :class:`GlobTooLarge` past :data:`MAX_BRACES` patterns."""
    out: list[str] = []
    todo = [pattern]
    while todo:
        p = todo.pop()
        found = _first_braces(p)
        if found is None:
            out.append(p)
        else:
            start, end, options = found
            todo.extend(reversed([p[:start] + o + p[end + 1:] for o in options]))
        if len(out) + len(todo) > MAX_BRACES:
            raise GlobTooLarge(f"a glob whose braces make more than {MAX_BRACES} patterns")
    return out


def _first_braces(p: str) -> tuple[int, int, list[str]] | None:
    """The first brace pair of ``p`` that expands: (where it opens, where it closes, its options)."""
    i = p.find("{")
    while i >= 0:
        depth, j, cuts = 0, i, []
        while j < len(p):
            if p[j] == "{":
                depth += 1
            elif p[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            elif p[j] == "," and depth == 1:
                cuts.append(j)
            j += 1
        if j >= len(p):
            return None
        body = p[i + 1:j]
        if cuts:
            bounds = [i, *cuts, j]
            return i, j, [p[a + 1:b] for a, b in zip(bounds, bounds[1:])]
        m = re.fullmatch(r"(-?\d+)\.\.(-?\d+)", body)
        if m:
            a, b = int(m.group(1)), int(m.group(2))
            if abs(b - a) >= MAX_BRACES:
                raise GlobTooLarge(f"a glob whose braces make more than {MAX_BRACES} patterns")
            step = 1 if b >= a else -1
            return i, j, [str(n) for n in range(a, b + step, step)]
        i = p.find("{", i + 1)
    return None
