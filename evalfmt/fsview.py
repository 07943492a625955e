"""The one way the reading code (discovery, the readers, the configuration, the lint engine and its
rules) looks at the file system: a :class:`View` passed in, never the built-ins.

Every answer a view gives comes from an *observation* of one path, of one kind:

====  ==========================================================  ========================================
kind  what is observed                                           its state
====  ==========================================================  ========================================
``f``  a file's content (read whole, or its head)                ``[size, mtime_ns, ctime_ns]`` (plus the
                                                                  SHA-256 of the content when the file
                                                                  changed within :data:`RACY_NS`); ``"d"`` a
                                                                  folder; ``"o"`` something else; an
                                                                  ``int`` errno when it cannot be read
``t``  the type of a path, symlinks followed (``isfile``...)     ``"f"``, ``"d"``, ``"o"`` or ``"-"``
``l``  the type of a path itself (``lexists``, a folder entry)   ``"f"``, ``"d"``, ``"l"``, ``"o"``, ``"-"``
``s``  a path's own mode and size (hygiene: executable, size)    ``[mode, size]`` or ``None``
``d``  the names in a folder                                     a sorted list, or an ``int`` errno
``r``  ``os.path.realpath`` of a path                            the resolved path
``g``  the paths a recursive glob pattern matches                a sorted list
====  ==========================================================  ========================================

A view made with ``record=True`` keeps each observation's state (``inputs``, the first one of each
path and kind). :func:`observe` makes the same observation again: when every recorded one gives the
state recorded, every answer the code got would be the same, so its result is too (what the result
cache relies on, :mod:`evalfmt.cache`). A view also holds *virtual* files: texts that stand in for
files (``lint -`` reads one from stdin, the language server's open documents), keyed by absolute
path; a view holding any is never recorded for the cache.

Standard library only, and cheap: it is on every command's reading path.
"""

from __future__ import annotations

import glob as globmod
import hashlib
import os
import stat as statmod
import time
from typing import Any
from collections.abc import Iterator, Mapping

#: files changed this recently (ns) are recorded with a hash of their content as well: a later change
#: in the same clock tick could keep their size and times
RACY_NS = 2_000_000_000

#: the kinds of observation (the table of the module docstring)
_KINDS = frozenset("ftlsdrg")
#: a limit from which a file is read whole without a size argument
_WHOLE = 1 << 30

#: an observation's state (see the table of the module docstring)
State = str | int | None | list[Any]


class TooLarge(Exception):
    """A file is larger than the limit it was read with (``size``: its size in bytes when known)."""

    def __init__(self, size: int | None) -> None:
        super().__init__(size)
        self.size = size


_KIND_OF = {statmod.S_IFREG: "f", statmod.S_IFDIR: "d", statmod.S_IFLNK: "l"}


def _kind(mode: int) -> str:
    return _KIND_OF.get(statmod.S_IFMT(mode), "o")


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _content_state(st: os.stat_result, data: bytes | None, path: str) -> State:
    """The ``f`` state of a regular file whose stat is ``st`` and whose content is ``data`` (None: not
    read whole; it is read again for the hash when one is needed)."""
    times = [st.st_size, st.st_mtime_ns, st.st_ctime_ns]
    if max(st.st_mtime_ns, st.st_ctime_ns) < time.time_ns() - RACY_NS:
        return times
    if data is None:
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            return exc.errno or -1
    return [*times, _digest(data)]


def observe(kind: str, path: str) -> State:
    """The state of ``path`` for an observation of ``kind``, made now (see the module docstring)."""
    try:
        if kind == "f":
            st = os.stat(path)
            k = _kind(st.st_mode)
            return _content_state(st, None, path) if k == "f" else k
        if kind == "t" or kind == "l":
            return _kind((os.stat if kind == "t" else os.lstat)(path).st_mode)
        if kind == "s":
            st = os.lstat(path)
            return [st.st_mode, st.st_size]
        if kind == "d":
            return sorted(os.listdir(path))
        if kind == "r":
            return os.path.realpath(path)
        if kind == "g":
            return sorted(globmod.glob(path, recursive=True))
    except OSError as exc:
        return _failed(kind, exc)
    except ValueError:  # an embedded NUL: no such path
        return _failed(kind, OSError(2, "no such file"))
    raise ValueError(f"unknown observation kind {kind!r}")


def _failed(kind: str, exc: OSError) -> State:
    if kind in ("t", "l"):
        return "-"
    if kind == "s":
        return None
    return exc.errno or -1


def unchanged(inputs: list[list[object]]) -> bool:
    """True when every ``[kind, path, state]`` of ``inputs`` is observed with the same state now (two
    states recorded for one observation: it changed while it was recorded, so not). One ``lstat`` of
    a path that is no symlink answers its ``l``, ``s``, ``t`` and ``f`` observations at once."""
    by_path: dict[str, dict[str, object]] = {}
    for item in inputs:
        if type(item) is not list or len(item) != 3:
            return False
        kind, path, state = item
        if type(kind) is not str or type(path) is not str or "\0" in path:
            return False
        seen = by_path.setdefault(path, {})
        if seen.setdefault(kind, state) != state:
            return False
    return all(_path_unchanged(path, kinds) for path, kinds in by_path.items())


def _path_unchanged(path: str, kinds: dict[str, object]) -> bool:
    st: os.stat_result | None = None
    if len(kinds) > 1 or "d" not in kinds:
        try:
            st = os.lstat(path)
        except (OSError, ValueError):
            st = None
    plain = st is not None and not statmod.S_ISLNK(st.st_mode)  # (then stat says what lstat says)
    for kind, state in kinds.items():
        if kind not in _KINDS:
            return False
        if plain and st is not None and kind in ("l", "s", "t"):
            now: object = [st.st_mode, st.st_size] if kind == "s" else _kind(st.st_mode)
            if now != state:
                return False
        elif kind == "f" and isinstance(state, list):
            if not _same_content(path, state, st if plain else None):
                return False
        elif observe(kind, path) != state:
            return False
    return True


def _same_content(path: str, state: list[object], st: os.stat_result | None = None) -> bool:
    """A file read before is the same: same size and times, and the same content when its hash was
    recorded (it had changed just before it was read). ``st``: its stat, when known."""
    if st is None:
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            return False
    if not statmod.S_ISREG(st.st_mode) or state[:3] != [st.st_size, st.st_mtime_ns, st.st_ctime_ns]:
        return False
    if len(state) == 3:
        return True
    if len(state) != 4:
        return False
    try:
        with open(path, "rb") as fh:
            return _digest(fh.read()) == state[3]
    except OSError:
        return False


class Entry:
    """One name in a folder listed by :meth:`View.scandir`, as ``os.DirEntry`` gives it."""

    __slots__ = ("name", "path", "kind", "_view")

    def __init__(self, name: str, path: str, kind: str, view: View) -> None:
        self.name = name
        self.path = path
        self.kind = kind  # the entry itself: "f", "d", "l" or "o"
        self._view = view

    def is_dir(self, follow_symlinks: bool = True) -> bool:
        if self.kind == "l" and follow_symlinks:
            return self._view.isdir(self.path)
        return self.kind == "d"

    def is_file(self, follow_symlinks: bool = True) -> bool:
        if self.kind == "l" and follow_symlinks:
            return self._view.isfile(self.path)
        return self.kind == "f"

    def is_symlink(self) -> bool:
        return self.kind == "l"


class View:
    """The file system as the reading code sees it (see the module docstring). ``virtual``: absolute
    path -> bytes standing in for that file; ``record``: keep every observation in :attr:`inputs`."""

    def __init__(self, virtual: Mapping[str, bytes] | None = None, record: bool = False) -> None:
        self.virtual: dict[str, bytes] = {os.path.abspath(k): v for k, v in (virtual or {}).items()}
        #: (kind, path) -> state of every observation made, when recording
        self.inputs: dict[tuple[str, str], State] | None = {} if record else None

    def _note(self, kind: str, path: str, state: State) -> State:
        if self.inputs is not None:
            self.inputs.setdefault((kind, path), state)
        return state

    def recorded(self) -> list[list[object]]:
        """The observations made, as ``[kind, path, state]`` (what :func:`unchanged` takes)."""
        return [[k, p, s] for (k, p), s in (self.inputs or {}).items()]

    # ------------------------------------------------------------------------------ virtual files

    def virtual_bytes(self, path: str) -> bytes | None:
        """The text standing in for ``path`` (stdin, an editor's buffer), or None."""
        return self.virtual.get(os.path.abspath(path)) if self.virtual else None

    def is_virtual(self, path: str) -> bool:
        return bool(self.virtual) and os.path.abspath(path) in self.virtual

    # ------------------------------------------------------------------------------------ types

    def kind(self, path: str) -> str:
        """``f`` a regular file (or a virtual one), ``d`` a folder, ``o`` something else, ``-`` nothing
        there (or not reachable); symlinks followed."""
        if self.virtual and self.is_virtual(path):
            return "f"
        try:  # (observe("t", path), written out: the reading path asks this thousands of times)
            k = _KIND_OF.get(statmod.S_IFMT(os.stat(path).st_mode), "o")
        except (OSError, ValueError):
            k = "-"
        if self.inputs is not None:
            self.inputs.setdefault(("t", path), k)
        return k

    def lkind(self, path: str) -> str:
        """As :meth:`kind` for the path itself (``l``: a symlink); virtual files are not looked at."""
        state = observe("l", path)
        self._note("l", path, state)
        return state  # type: ignore[return-value]

    def isfile(self, path: str) -> bool:
        return self.kind(path) == "f"

    def isdir(self, path: str) -> bool:
        return self.kind(path) == "d"

    def exists(self, path: str) -> bool:
        return self.kind(path) != "-"

    def lexists(self, path: str) -> bool:
        return self.lkind(path) != "-"

    def lstat(self, path: str) -> tuple[int, int] | None:
        """A path's own mode and size (symlinks not followed), or None when there is nothing."""
        state = observe("s", path)
        self._note("s", path, state)
        return None if state is None else (state[0], state[1])  # type: ignore[index, return-value]

    def realpath(self, path: str) -> str:
        state = observe("r", path)
        self._note("r", path, state)
        return state if isinstance(state, str) else os.path.realpath(path)

    # ---------------------------------------------------------------------------------- folders

    def listdir(self, path: str) -> list[str]:
        """The names in a folder, sorted; OSError as ``os.listdir`` raises it."""
        try:
            names = sorted(os.listdir(path))
        except OSError as exc:
            self._note("d", path, exc.errno or -1)
            raise
        self._note("d", path, names)
        return names

    def scandir(self, path: str) -> list[Entry]:
        """The entries of a folder, sorted by name, each knowing its own type (``Entry.kind``);
        OSError as ``os.scandir`` raises it."""
        try:
            with os.scandir(path) as it:
                found = [(e.name, e.path, _entry_kind(e)) for e in it]
        except OSError as exc:
            self._note("d", path, exc.errno or -1)
            raise
        found.sort()
        if self.inputs is not None:
            self._note("d", path, [name for name, _p, _k in found])
            for _name, full, k in found:
                self._note("l", full, k)
        return [Entry(name, full, k, self) for name, full, k in found]

    def walk(self, top: str) -> Iterator[tuple[str, list[str], list[str]]]:
        """``os.walk(top)`` (top-down; the caller may prune the folder names it is given; an unlistable
        folder is skipped; a symlink to a folder is named among the folders but not entered)."""
        try:
            entries = self.scandir(top)
        except OSError:
            return
        dirs = [e.name for e in entries if e.is_dir()]
        files = [e.name for e in entries if not e.is_dir()]
        yield top, dirs, files
        links = {e.name for e in entries if e.kind == "l"}
        for name in dirs:
            if name not in links:
                yield from self.walk(os.path.join(top, name))

    def glob(self, pattern: str) -> list[str]:
        """The paths a pattern matches (``**`` recursive), sorted."""
        state = observe("g", pattern)
        self._note("g", pattern, state)
        return list(state) if isinstance(state, list) else []

    # -------------------------------------------------------------------------------- contents

    def read_bytes(self, path: str, limit: int) -> bytes:
        """The content of a file (a virtual one's text first). :class:`TooLarge` past ``limit``
        bytes; OSError as ``open`` raises it (IsADirectoryError for a folder)."""
        raw = self.virtual_bytes(path) if self.virtual else None
        if raw is not None:
            if len(raw) > limit:
                raise TooLarge(None)
            return raw
        try:
            with open(path, "rb") as fh:
                st = os.fstat(fh.fileno())
                if st.st_size > limit:
                    self._note("f", path, [st.st_size, st.st_mtime_ns, st.st_ctime_ns])
                    raise TooLarge(st.st_size)
                data = fh.read(limit + 1) if limit < _WHOLE else fh.read()  # (read(n) allocates n bytes first)
        except OSError as exc:
            self._note("f", path, "d" if isinstance(exc, IsADirectoryError) else exc.errno or -1)
            raise
        if self.inputs is not None:
            self._note("f", path, _content_state(st, data, path) if statmod.S_ISREG(st.st_mode) else "o")
        if len(data) > limit:
            raise TooLarge(None)
        return data

    def read_head(self, path: str, size: int) -> bytes:
        """The first ``size`` bytes of a file (a virtual one's text first); OSError as ``open``."""
        raw = self.virtual_bytes(path) if self.virtual else None
        if raw is not None:
            return raw[:size]
        try:
            with open(path, "rb") as fh:
                data = fh.read(size)
                if self.inputs is not None:
                    st = os.fstat(fh.fileno())
                    whole = data if len(data) < size else None
                    self._note("f", path, _content_state(st, whole, path) if statmod.S_ISREG(st.st_mode) else "o")
        except OSError as exc:
            self._note("f", path, "d" if isinstance(exc, IsADirectoryError) else exc.errno or -1)
            raise
        return data


def _entry_kind(entry: os.DirEntry[str]) -> str:
    """The type of a folder entry itself, from the listing when the file system gives it."""
    try:
        if entry.is_symlink():
            return "l"
        if entry.is_dir(follow_symlinks=False):
            return "d"
        if entry.is_file(follow_symlinks=False):
            return "f"
    except OSError:
        return "-"
    return "o"


#: A view of the disk that records nothing and holds no virtual file: for the commands that do not
#: cache what they read (convert, inspect, transpile, run...). It has no state to share.
DISK = View()
