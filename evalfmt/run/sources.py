"""What a session reader is made of: the :class:`SessionSource` shape, the :class:`Probe` a detector
looks at, and :func:`json_lines`, the streaming JSON-lines reader every source uses.

Readers stream: they read one line at a time (:func:`json_lines`), so memory follows what the
session keeps, not the size of the file. Lines that are not JSON objects are counted and skipped.
The registry of sources (built-ins and plugins) and content detection are in ``transcripts.py``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from collections.abc import Callable, Iterator

import orjson

from ..errors import EvalfmtError
from ..load import bytes_setting
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


@dataclass
class LineCounter:
    skipped: int = 0
    records: int = 0
    #: lines longer than the line limit (skipped without being read into memory; also in ``skipped``)
    long: int = 0


#: the longest line read (``EVALFMT_TRANSCRIPT_MAX_LINE``, bytes); a longer one is skipped unread
DEFAULT_MAX_LINE = 8 << 20


def json_lines(path: str, counter: LineCounter) -> Iterator[dict]:
    """The JSON objects of a JSON-lines file, one at a time. Blank lines are ignored; any other line
    that is not a JSON object is counted in ``counter.skipped``; a line longer than
    ``EVALFMT_TRANSCRIPT_MAX_LINE`` bytes (default 8 MiB) is skipped without being held in memory
    and counted in ``counter.long`` too."""
    limit = bytes_setting("EVALFMT_TRANSCRIPT_MAX_LINE", DEFAULT_MAX_LINE)
    fast = orjson.loads
    records = skipped = long = 0
    try:
        with open(path, "rb", buffering=1 << 20) as fh:
            read = fh.readline
            # lines of at most limit + 1 bytes (the line break included); a longer one arrives cut,
            # is not JSON, and is recognised (and the rest of it skipped) where JSON fails
            for line in iter(functools.partial(read, limit + 1), b""):
                try:
                    obj = fast(line)
                except orjson.JSONDecodeError:
                    if len(line) > limit and not line.endswith(b"\n"):
                        while line and not line.endswith(b"\n"):  # the rest of the line, a piece at a time
                            line = read(1 << 20)
                        long += 1
                        skipped += 1
                        continue
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
        counter.records, counter.skipped, counter.long = records, skipped, long
