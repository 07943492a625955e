"""Session readers: a small registry of sources, each a content detector and a reader.

A source is a :class:`SessionSource` (``name``, ``detect(probe) -> int``, ``read(path) -> Session``).
``detect`` gets a :class:`Probe` (the file's first 64 KiB, or its first line when that is longer, and
the JSON objects on its complete lines) and returns 0 when the file is not its kind, higher numbers
for more certainty; the highest wins.
Built in: ``claude-code-stream-json`` and ``claude-code-session`` (``claude_code.py``). A new source
lives in its own module and is added by an entry point in the group ``evalfmt.sessions`` whose object
is a ``SessionSource``, or at run time with :func:`register`. Nothing here needs editing.

Readers stream: they read one line at a time (:func:`json_lines`), so memory follows what the
session keeps, not the size of the file. Lines that are not JSON objects are counted and skipped.
"""

from __future__ import annotations

import gc
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import orjson

from ..errors import EvalfmtError
from .. import js
from .session import Session

PROBE_BYTES = 65536
#: how far a first line longer than PROBE_BYTES is read to find its end
FIRST_LINE_LIMIT = 64 << 20


class SessionError(EvalfmtError):
    """A transcript that cannot be read (missing, unreadable, or no source recognises it)."""


@dataclass
class Probe:
    """What a detector may look at: the path, the first bytes, and the JSON objects parsed from the
    complete lines among them (non-JSON lines left out)."""

    path: str
    head: bytes
    records: list[dict] = field(default_factory=list)


@dataclass(frozen=True)
class SessionSource:
    name: str
    description: str
    detect: Callable[[Probe], int]
    read: Callable[[str], Session]


_registry: dict[str, SessionSource] = {}
_loaded = False


def register(source: SessionSource) -> None:
    """Add (or replace) a session source."""
    _registry[source.name] = source


def sources() -> dict[str, SessionSource]:
    """Every known source: the built-ins, entry points of ``evalfmt.sessions``, and registered ones."""
    global _loaded
    if not _loaded:
        _loaded = True
        from . import claude_code

        for src in claude_code.SOURCES:
            _registry.setdefault(src.name, src)
        for obj in _entry_points("evalfmt.sessions"):
            if isinstance(obj, SessionSource):
                _registry.setdefault(obj.name, obj)
    return dict(_registry)


def _entry_points(group: str) -> list[Any]:
    from importlib.metadata import entry_points

    out = []
    for ep in sorted(entry_points(group=group), key=lambda e: e.name):
        try:
            out.append(ep.load())
        except Exception:  # noqa: BLE001 - a broken plugin must not break scoring
            continue
    return out


def probe(path: str) -> Probe:
    try:
        with open(path, "rb") as fh:
            head = fh.read(PROBE_BYTES)
            whole = len(head) < PROBE_BYTES  # the head is the whole file
            if not whole and b"\n" not in head:
                # a first line longer than the head (a session opening with a big pasted prompt):
                # read it to its end, so that the detectors see at least one record
                rest = fh.readline(FIRST_LINE_LIMIT)
                head += rest
                whole = not rest.endswith(b"\n") and len(rest) < FIRST_LINE_LIMIT
    except OSError as exc:
        raise SessionError(f"{path}: cannot read transcript: {exc.strerror or exc}") from None
    records = []
    lines = head.split(b"\n")
    if not whole:
        lines = lines[:-1]  # the last one may be cut
    for line in lines:
        line = line.strip()
        if line.startswith(b"{"):
            try:
                obj = js.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict):
                records.append(obj)
    return Probe(path, head, records)


def detect(path: str) -> SessionSource:
    """The source that recognises ``path`` best; :class:`SessionError` when none does."""
    p = probe(path)
    best: tuple[int, str] | None = None
    for name, src in sorted(sources().items()):
        try:
            score = int(src.detect(p))
        except Exception:  # noqa: BLE001
            continue
        if score > 0 and (best is None or score > best[0]):
            best = (score, name)
    if best is None:
        if not p.head.strip():
            raise SessionError(f"{path}: empty transcript")
        raise SessionError(f"{path}: not a transcript evalfmt recognises (known: {', '.join(sorted(sources()))})")
    return _registry[best[1]]


def read_session(path: str, source: str | None = None, subagent: bool = False) -> Session:
    """Read one recorded session, detecting its source by content unless ``source`` names one.
    ``subagent``: read a Claude Code session file's subagent (sidechain) entries instead of the main
    agent's."""
    if not os.path.isfile(path):
        raise SessionError(f"{path}: no such transcript")
    if subagent:
        from . import claude_code

        src = detect(path)
        if src.name != claude_code.SESSION:
            raise SessionError(f"{path}: --subagent reads a Claude Code session file; this is {src.name}")
        src = SessionSource(src.name, src.description, src.detect,
                            lambda p: claude_code.read_session_file(p, subagent=True))
    elif source is not None:
        src = sources().get(source)
        if src is None:
            raise SessionError(f"unknown transcript source '{source}' (known: {', '.join(sorted(sources()))})")
    else:
        src = detect(path)
    # Reading builds tens of thousands of long-lived objects and frees no cycles: the cyclic
    # collector would only traverse them (and every object already in the process) again and
    # again, a tenth of the reading time for a large transcript. It is paused while a source reads.
    collecting = gc.isenabled()
    gc.disable()
    try:
        session = src.read(path)
    except OSError as exc:
        raise SessionError(f"{path}: cannot read transcript: {exc.strerror or exc}") from None
    finally:
        if collecting:
            gc.enable()
    if session.records == 0:
        raise SessionError(f"{path}: no JSON records in transcript")
    return session


@dataclass
class LineCounter:
    skipped: int = 0
    records: int = 0


def json_lines(path: str, counter: LineCounter) -> Iterator[dict]:
    """The JSON objects of a JSON-lines file, one at a time. Blank lines are ignored; any other line
    that is not a JSON object is counted in ``counter.skipped``."""
    fast = orjson.loads
    records = skipped = 0
    try:
        with open(path, "rb", buffering=1 << 20) as fh:
            for line in fh:
                try:
                    obj = fast(line)
                except orjson.JSONDecodeError:
                    try:
                        obj = js.loads(line)  # what orjson refuses but JSON.parse accepts
                    except ValueError:
                        if line.strip():
                            skipped += 1
                        continue
                if type(obj) is dict:
                    records += 1
                    yield obj
                else:
                    skipped += 1
    finally:
        counter.records, counter.skipped = records, skipped
