"""Session readers: a registry of sources, each a content detector and a reader.

A source is a :class:`~evalfmt.run.sources.SessionSource` (``name``, ``detect(probe) -> int``,
``read(path) -> Session``). ``detect`` gets a :class:`~evalfmt.run.sources.Probe` (the file's first
64 KiB, or its first line when that is longer, and the JSON objects on its complete lines) and returns
0 when the file is not its kind, higher numbers for more certainty; the highest wins.
Built in (known without an install): ``claude-code-stream-json`` and ``claude-code-session``
(``claude_code.py``), ``skillgym-report`` (``skillgym_report.py``). A new source lives in its own
module and is added by an entry point in the group ``evalfmt.sessions`` whose object is a
``SessionSource``, or at run time with :func:`register`. Nothing here needs editing. A plugin that
fails to load is an error naming it (:mod:`evalfmt.plugins`), never skipped.
"""

from __future__ import annotations

import gc
import os

from ..plugins import Registry
from . import claude_code
from .session import Session
from .sources import (DEFAULT_MAX_LINE, FIRST_LINE_LIMIT, PROBE_BYTES, LineCounter, Probe, SessionError,
                      SessionSource, json_lines, probe)

__all__ = ["DEFAULT_MAX_LINE", "FIRST_LINE_LIMIT", "PROBE_BYTES", "LineCounter", "Probe", "SessionError",
           "SessionSource", "json_lines", "probe", "register", "unregister", "sources", "detect", "read_session",
           "REGISTRY"]

REGISTRY: Registry[SessionSource] = Registry("evalfmt.sessions", {
    "claude-code-stream-json": "evalfmt.run.claude_code:STREAM_SOURCE",
    "claude-code-session": "evalfmt.run.claude_code:SESSION_SOURCE",
    "skillgym-report": "evalfmt.run.skillgym_report:SOURCE",
}, kind="session source", accepts=lambda obj: isinstance(obj, SessionSource))


def register(source: SessionSource) -> None:
    """Add (or replace) a session source at run time."""
    REGISTRY.register(source.name, source)


def unregister(name: str) -> None:
    REGISTRY.unregister(name)


def sources() -> dict[str, SessionSource]:
    """Every known source: the built-ins, entry points of ``evalfmt.sessions``, and registered ones."""
    return REGISTRY.all()


def detect(path: str) -> SessionSource:
    """The source that recognises ``path`` best; :class:`SessionError` when none does."""
    p = probe(path)
    best: tuple[int, str] | None = None
    known = sources()
    for name, src in sorted(known.items()):
        try:
            score = int(src.detect(p))
        except Exception:  # noqa: BLE001
            continue
        if score > 0 and (best is None or score > best[0]):
            best = (score, name)
    if best is None:
        if not p.head.strip():
            raise SessionError(f"{path}: empty transcript")
        raise SessionError(f"{path}: not a transcript evalfmt recognises (known: {', '.join(sorted(known))})")
    return known[best[1]]


def read_session(path: str, source: str | None = None, subagent: bool = False) -> Session:
    """Read one recorded session, detecting its source by content unless ``source`` names one.
    ``subagent``: read a Claude Code session file's subagent (sidechain) entries instead of the main
    agent's."""
    if not os.path.isfile(path):
        raise SessionError(f"{path}: no such transcript")
    if subagent:
        src = detect(path)
        if src.name != claude_code.SESSION:
            raise SessionError(f"{path}: --subagent reads a Claude Code session file; this is {src.name}")
        src = SessionSource(src.name, src.description, src.detect,
                            lambda p: claude_code.read_session_file(p, subagent=True))
    elif source is not None:
        found = sources().get(source)
        if found is None:
            raise SessionError(f"unknown transcript source '{source}' (known: {', '.join(sorted(sources()))})")
        src = found
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


