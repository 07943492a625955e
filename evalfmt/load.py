"""Safe loading of YAML and JSON with source positions and hard limits.

Every value keeps where it came from: YAML mappings load as :class:`YMap` (a ``dict`` that also
knows the line and column of each key and value) and sequences as :class:`YSeq` (a ``list`` that
knows the position of each item). JSON loads with orjson (fast) and gets the same position tree
lazily, only when a caller asks for a position.

YAML is read event by event from the libyaml parser of ruamel.yaml (``ruamel.yaml.clib``), and the
tree is built here, iteratively, so that hostile input has a bounded cost:

- nesting deeper than ``MAX_DEPTH`` (100) mappings and sequences stops the parse at the offending
  line (JSON too): every command (the IR, its JSON output, the writers) works below that depth;
- aliases that expand to more than ``MAX_ALIAS_NODES`` nodes ("billion laughs") stop it too, and so
  do aliases whose expansion makes the document larger than ``max_bytes`` (one long string aliased
  thousands of times);
- files larger than ``max_bytes`` (default 10 MB, ``EVALFMT_MAX_BYTES``) are refused unread;
- integers beyond 64 bits become floats, as JSON numbers do (orjson, JavaScript); a number too large
  for a float is an error with its position;
- NUL bytes, invalid UTF-8 and tabs used for indentation get their own message and position;
- duplicate keys are recorded (the later value wins, as in most loaders) for EV114;
- scalars resolve by the YAML 1.2 core schema (what the JavaScript engines use): ``yes`` stays a
  string, and dates stay strings.

Every failure raises :class:`~evalfmt.errors.LoadError` with path, line and column.
"""

from __future__ import annotations

import bisect
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import orjson

from .errors import EvalfmtError, LoadError, Pos
from .fsview import DISK, TooLarge, View

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
#: Deeper documents are refused. Python's recursion and orjson's serialization (254 levels) need the
#: IR, which wraps the data in a few levels more, to stay well below both; no eval file nests this deep.
MAX_DEPTH = 100
MAX_ALIAS_NODES = 100_000
#: The range of integers kept as ``int`` (orjson's); others become floats like JSON numbers.
_INT_MIN, _INT_END = -(2 ** 63), 2 ** 64

YAML_SUFFIXES = (".yaml", ".yml")
JSON_SUFFIXES = (".json",)


class YMap(dict):
    """A mapping that remembers positions: ``pos`` (of the mapping), ``kpos[key]`` and ``vpos[key]``."""

    __slots__ = ("pos", "kpos", "vpos")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.pos = (1, 1)
        self.kpos: dict[str, tuple[int, int]] = {}
        self.vpos: dict[str, tuple[int, int]] = {}


class YSeq(list):
    """A sequence that remembers positions: ``pos`` (of the sequence) and ``ipos[i]``."""

    __slots__ = ("pos", "ipos")

    def __init__(self, *args):
        super().__init__(*args)
        self.pos = (1, 1)
        self.ipos: list[tuple[int, int]] = []


@dataclass(frozen=True)
class Duplicate:
    """A key given twice in one mapping."""

    path: tuple
    key: str
    first: Pos
    second: Pos


@dataclass
class Loaded:
    """A loaded file: its data and a way to ask where any part of it was written."""

    path: str
    kind: str  # "yaml" or "json"
    text: str
    data: Any
    _located: Any = field(default=None, repr=False)
    _duplicates: list | None = field(default=None, repr=False)

    @property
    def located(self) -> Any:
        """The data as :class:`YMap` / :class:`YSeq` (built on first use for JSON)."""
        if self._located is None:
            if self.kind == "yaml":
                self._located = self.data
            else:
                self._located, self._duplicates = _index_json(self.text)
        return self._located

    @property
    def duplicates(self) -> list[Duplicate]:
        if self._duplicates is None:
            self.located  # noqa: B018 - builds the index, which fills _duplicates
        return self._duplicates or []

    def _walk(self, path: tuple) -> tuple[Any, tuple[int, int], tuple[int, int] | None]:
        """Follow ``path`` as far as it exists: (node, value position, key position of the last step)."""
        node = self.located
        pos = getattr(node, "pos", (1, 1))
        kpos = None
        for step in path:
            if isinstance(node, YMap) and isinstance(step, str) and step in node:
                kpos = node.kpos.get(step, pos)
                pos = node.vpos.get(step, pos)
                node = node[step]
            elif isinstance(node, YSeq) and isinstance(step, int) and -len(node) <= step < len(node):
                kpos = None
                pos = node.ipos[step]
                node = node[step]
            else:
                break
        return node, pos, kpos

    def pos(self, *path: str | int) -> Pos:
        """Position of the value at ``path``; of the deepest existing ancestor when it is missing."""
        return Pos(*self._walk(path)[1])

    def key_pos(self, *path: str | int) -> Pos:
        """Position of the key that names the value at ``path`` (the value's own position for items)."""
        _, pos, kpos = self._walk(path)
        return Pos(*(kpos or pos))

    def has(self, *path: str | int) -> bool:
        node = self.data
        for step in path:
            if isinstance(node, dict) and step in node:  # noqa: SIM114 - two branches: mypy narrows step in each
                node = node[step]
            elif isinstance(node, list) and isinstance(step, int) and -len(node) <= step < len(node):
                node = node[step]
            else:
                return False
        return True


# ---------------------------------------------------------------------------------------- reading


def max_bytes_default() -> int:
    """The size limit: ``EVALFMT_MAX_BYTES`` (a number of bytes) when set, else 10 MB."""
    return bytes_setting("EVALFMT_MAX_BYTES", DEFAULT_MAX_BYTES)


def bytes_setting(name: str, default: int) -> int:
    """A size limit from the environment variable ``name`` (a number of bytes), else ``default``;
    anything else is a one-line error."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit():
        raise EvalfmtError(f"{name} must be a number of bytes (like 20000000), not '{raw}'")
    return int(raw)


def _fmt_size(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB" if n >= 1024 * 1024 else f"{n} bytes"


def read_text(path: str, *, fs: View = DISK, max_bytes: int | None = None) -> str:
    """Read a file through ``fs`` (a virtual file's text first: stdin, an editor's buffer) as strict
    UTF-8 text, refusing oversized files, NUL bytes and invalid UTF-8."""
    limit = max_bytes_default() if max_bytes is None else max_bytes
    try:
        raw = fs.read_bytes(path, limit)
    except TooLarge as exc:
        if exc.size is None:  # stdin is read up to the limit and a byte, so its size is unknown
            raise LoadError(f"file is larger than the limit of {_fmt_size(limit)} (set EVALFMT_MAX_BYTES to raise "
                            "it)", path, 1, 1) from None
        raise LoadError(f"file is {_fmt_size(exc.size)}, larger than the limit of {_fmt_size(limit)} "
                        "(set EVALFMT_MAX_BYTES to raise it)", path, 1, 1) from None
    except IsADirectoryError:
        raise LoadError("is a directory, not a file", path) from None
    except OSError as exc:
        raise LoadError(f"cannot read: {exc.strerror or exc}", path) from None
    return decode(raw, path)


def decode(raw: bytes, path: str) -> str:
    """Strict UTF-8 (a leading BOM is dropped); NUL bytes and bad sequences are errors with a position."""
    nul = raw.find(b"\x00")
    if nul >= 0:
        line, col = _byte_pos(raw, nul)
        raise LoadError("NUL byte in file (binary data is not an eval file)", path, line, col)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _byte_pos(raw, exc.start)
        raise LoadError(f"invalid UTF-8 (byte 0x{raw[exc.start]:02x})", path, line, col) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def _byte_pos(raw: bytes, offset: int) -> tuple[int, int]:
    line = raw.count(b"\n", 0, offset) + 1
    start = raw.rfind(b"\n", 0, offset) + 1
    col = len(raw[start:offset].decode("utf-8", errors="replace")) + 1
    return line, col


def _text_pos(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def kind_of(path: str) -> str:
    return "json" if path.lower().endswith(JSON_SUFFIXES) else "yaml"


def load_file(path: str, *, fs: View = DISK, kind: str | None = None, max_bytes: int | None = None) -> Loaded:
    """Load a YAML or JSON file through ``fs`` (by extension unless ``kind`` is given)."""
    text = read_text(path, fs=fs, max_bytes=max_bytes)
    return load_text(text, path, kind or kind_of(path), max_bytes)


def load_text(text: str, path: str = "<string>", kind: str = "yaml", max_bytes: int | None = None) -> Loaded:
    if kind == "json":
        data = _load_json(text, path)
        return Loaded(path, "json", text, data)
    data, dups = _load_yaml(text, path, max_bytes_default() if max_bytes is None else max_bytes)
    return Loaded(path, "yaml", text, data, _located=data, _duplicates=dups)


def load_bytes(raw: bytes, path: str = "<bytes>", kind: str = "yaml", max_bytes: int | None = None) -> Loaded:
    limit = max_bytes_default() if max_bytes is None else max_bytes
    if len(raw) > limit:
        raise LoadError(f"file is {_fmt_size(len(raw))}, larger than the limit of {_fmt_size(limit)}", path, 1, 1)
    return load_text(decode(raw, path), path, kind, limit)


# ------------------------------------------------------------------------------------------ JSON


def _load_json(text: str, path: str) -> Any:
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        msg = exc.msg
        if "depth" in msg or "recursion" in msg:
            raise _too_deep(text, path) from None
        line, col = _text_pos(text, min(exc.pos, len(text)))
        raise LoadError(f"invalid JSON: {msg}", path, line, col) from None
    if isinstance(data, (dict, list)) and text.count("[") + text.count("{") > MAX_DEPTH and not _shallow(data):
        raise _too_deep(text, path)
    return data


def _shallow(data: Any) -> bool:
    """True when no container of ``data`` is nested deeper than ``MAX_DEPTH``."""
    stack = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return False
        items = node.values() if isinstance(node, dict) else node
        stack.extend((v, depth + 1) for v in items if isinstance(v, (dict, list)))
    return True


#: A JSON string (group 1 its text, group 2 the colon after a key) or a bracket. Each attempt at a
#: quote consumes a whole string, or the rest of the text when it is not closed, so a scan of any
#: text (valid JSON or not) reads each character once.
JSON_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)(?:"(\s*:)?|\\?\Z)|[\[\]{}]', re.S)


def _too_deep(text: str, path: str) -> LoadError:
    """The error for a JSON text nested deeper than ``MAX_DEPTH``, at the first bracket too deep."""
    depth, at = 0, 0
    for m in JSON_TOKEN.finditer(text):
        c = text[m.start()]
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                at = m.start()
                break
        elif c in "]}":
            depth -= 1
    line, col = _text_pos(text, at)
    return LoadError(f"nesting is deeper than {MAX_DEPTH} levels", path, line, col)


class _MatchesEverywhere(Protocol):
    """A compiled pattern that can match the empty string: ``match`` never gives None."""

    def match(self, string: str, pos: int = 0) -> re.Match[str]: ...


_WS = cast(_MatchesEverywhere, re.compile(r"[ \t\n\r]*"))
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def _index_json(text: str) -> tuple[Any, list[Duplicate]]:
    """Re-read valid JSON into YMap/YSeq with positions (iterative; only called when positions are needed)."""
    dups: list[Duplicate] = []
    # Precompute line starts for offset -> (line, col).
    starts = [0]
    for nl in re.finditer("\n", text):
        starts.append(nl.end())

    def at(off: int) -> tuple[int, int]:
        i = bisect.bisect_right(starts, off) - 1
        return i + 1, off - starts[i] + 1

    i = _WS.match(text, 0).end()
    # Stack frames: [container, path, pending_key, key_pos]
    stack: list[list] = []
    root = None

    def attach(value: Any, vp: tuple[int, int]) -> None:
        nonlocal root
        if not stack:
            root = value
            return
        frame = stack[-1]
        cont = frame[0]
        if isinstance(cont, YMap):
            key, kp = frame[2], frame[3]
            if key in cont:
                dups.append(Duplicate(tuple(frame[1]), key, Pos(*cont.kpos[key]), Pos(*kp)))
            cont[key] = value
            cont.kpos[key] = kp
            cont.vpos[key] = vp
            frame[2] = None
        else:
            cont.append(value)
            cont.ipos.append(vp)

    n = len(text)
    while i < n:
        c = text[i]
        if stack and isinstance(stack[-1][0], YMap) and stack[-1][2] is None and c == '"':
            m = _STRING.match(text, i)
            assert m is not None  # the text is valid JSON: a '"' starts a string
            stack[-1][2] = json.loads(m.group(0))
            stack[-1][3] = at(i)
            i = _WS.match(text, m.end()).end() + 1  # skip ':'
            i = _WS.match(text, i).end()
            continue
        vp = at(i)
        if c == "{" or c == "[":
            cont = YMap() if c == "{" else YSeq()
            cont.pos = vp
            path = []
            if stack:
                parent = stack[-1]
                path = parent[1] + [parent[2] if isinstance(parent[0], YMap) else len(parent[0])]
            attach(cont, vp)
            stack.append([cont, path, None, None])
            i += 1
        elif c == "}" or c == "]":
            stack.pop()
            i += 1
        elif c == ",":
            i += 1
        elif c == '"':
            m = _STRING.match(text, i)
            assert m is not None  # the text is valid JSON: a '"' starts a string
            attach(json.loads(m.group(0)), vp)
            i = m.end()
        elif text.startswith("true", i):
            attach(True, vp)
            i += 4
        elif text.startswith("false", i):
            attach(False, vp)
            i += 5
        elif text.startswith("null", i):
            attach(None, vp)
            i += 4
        else:
            m = _NUMBER.match(text, i)
            if not m:  # pragma: no cover - the text was valid JSON for orjson
                break
            tok = m.group(0)
            attach(int(tok) if re.fullmatch(r"-?\d+", tok) else float(tok), vp)
            i = m.end()
        i = _WS.match(text, i).end()
    return root, dups


# ------------------------------------------------------------------------------------------ YAML

_NULL = {"", "~", "null", "Null", "NULL"}
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}
_INT10 = re.compile(r"[-+]?[0-9]+\Z")
_INT8 = re.compile(r"0o[0-7]+\Z")
_INT16 = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_INF = re.compile(r"[-+]?\.(?:inf|Inf|INF)\Z")
_NAN = re.compile(r"\.(?:nan|NaN|NAN)\Z")

_TAG = "tag:yaml.org,2002:"


def resolve_plain(value: str) -> Any:
    """Resolve a plain (unquoted) scalar by the YAML 1.2 core schema."""
    if value in _NULL:
        return None
    first = value[0]
    if first in "tTfF":
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        return value
    if first in "0123456789+-.":
        if _INT10.match(value):
            return int(value)
        if _INT16.match(value):
            return int(value[2:], 16)
        if _INT8.match(value):
            return int(value[2:], 8)
        if _FLOAT.match(value):
            return float(value)
        if _INF.match(value):
            return float("-inf") if value.startswith("-") else float("inf")
        if _NAN.match(value):
            return float("nan")
    return value


def _tagged(value: str, tag: str, path: str, mark) -> Any:
    short = tag[len(_TAG):] if tag.startswith(_TAG) else None
    try:
        if tag == "!" or short == "str":
            return value
        if short == "int":
            return int(value, 0) if not _INT10.match(value) else int(value)
        if short == "float":
            return float(value)
        if short == "bool":
            if value in _TRUE:
                return True
            if value in _FALSE:
                return False
            raise ValueError
        if short == "null":
            return None
    except ValueError:
        raise LoadError(f"invalid YAML: {value!r} is not a valid !!{short}", path, mark.line + 1,
                        mark.column + 1) from None
    raise LoadError(f"invalid YAML: unknown tag {tag!r}", path, mark.line + 1, mark.column + 1)


def _load_yaml(text: str, path: str, max_bytes: int) -> tuple[Any, list[Duplicate]]:
    # ruamel's parser: 10 ms to import (python -X importtime), only for a YAML file (a cached run reads none)
    from _ruamel_yaml import CParser
    from ruamel.yaml.error import MarkedYAMLError, YAMLError
    from ruamel.yaml import events as ev

    Scalar, Alias = ev.ScalarEvent, ev.AliasEvent
    MapStart, MapEnd = ev.MappingStartEvent, ev.MappingEndEvent
    SeqStart, SeqEnd = ev.SequenceStartEvent, ev.SequenceEndEvent
    DocStart, StreamEnd = ev.DocumentStartEvent, ev.StreamEndEvent

    parser = CParser(text)
    dups: list[Duplicate] = []
    anchors: dict[str, tuple[Any, int, int]] = {}  # name -> (value, nodes, characters)
    # frame: [container, anchor, start_count, is_map, pending_key, key_pos, path, start_chars]
    stack: list[list] = []
    root: Any = None
    docs = 0
    count = 0
    expanded = 0
    # characters of scalar text read so far, aliases counted at their full size: what the document
    # weighs once its aliases are expanded (the file's own size plus what aliases add)
    chars = 0
    budget = max_bytes - len(text)
    _no_key = _NoKey

    def attach(value: Any, vp: tuple[int, int], mark, is_scalar_key: bool, raw_key: str | None) -> None:
        nonlocal root
        if not stack:
            root = value
            return
        frame = stack[-1]
        cont = frame[0]
        if frame[3]:
            if frame[4] is _no_key:
                if not is_scalar_key:
                    raise LoadError("invalid YAML: a mapping or sequence used as a key is not supported",
                                    path, vp[0], vp[1])
                frame[4] = raw_key
                frame[5] = vp
                return
            key = frame[4]
            if key in cont:
                dups.append(Duplicate(tuple(frame[6]), key, Pos(*cont.kpos[key]), Pos(*frame[5])))
            cont[key] = value
            cont.kpos[key] = frame[5]
            cont.vpos[key] = vp
            frame[4] = _no_key
        else:
            cont.append(value)
            cont.ipos.append(vp)

    def child_path() -> list:
        if not stack:
            return []
        f = stack[-1]
        return f[6] + [f[4] if f[3] else len(f[0])]

    try:
        while True:
            event = parser.get_event()
            et = type(event)
            if et is Scalar:
                count += 1
                mark = event.start_mark
                vp = (mark.line + 1, mark.column + 1)
                raw = event.value
                chars += len(raw)
                if event.tag is not None and event.tag != "!":
                    value = _tagged(raw, event.tag, path, mark)
                elif event.implicit[0]:
                    try:
                        value = resolve_plain(raw)
                    except ValueError:  # an integer of more digits than Python converts (4,300)
                        value = _big_int(10 ** 400, raw, path, mark)
                else:
                    value = raw
                if type(value) is int and not _INT_MIN <= value < _INT_END:
                    value = _big_int(value, raw, path, mark)
                if event.anchor is not None:
                    anchors[event.anchor] = (value, 1, len(raw))
                attach(value, vp, mark, True, raw)
            elif et is MapStart or et is SeqStart:
                count += 1
                if len(stack) >= MAX_DEPTH:
                    m = event.start_mark
                    raise LoadError(f"nesting is deeper than {MAX_DEPTH} levels", path, m.line + 1, m.column + 1)
                mark = event.start_mark
                vp = (mark.line + 1, mark.column + 1)
                cont = YMap() if et is MapStart else YSeq()
                cont.pos = vp
                cpath = child_path()
                attach(cont, vp, mark, False, None)
                stack.append([cont, event.anchor, count, et is MapStart, _no_key, None, cpath, chars])
            elif et is MapEnd or et is SeqEnd:
                frame = stack.pop()
                if frame[1] is not None:
                    anchors[frame[1]] = (frame[0], count - frame[2] + 1, chars - frame[7])
            elif et is Alias:
                mark = event.start_mark
                if event.anchor not in anchors:
                    raise LoadError(f"invalid YAML: unknown alias *{event.anchor}", path, mark.line + 1,
                                    mark.column + 1)
                value, size, weight = anchors[event.anchor]
                expanded += size
                count += size
                chars += weight
                budget -= weight
                if expanded > MAX_ALIAS_NODES:
                    raise LoadError(
                        f"aliases expand to more than {MAX_ALIAS_NODES} nodes (an alias bomb?)",
                        path, mark.line + 1, mark.column + 1,
                    )
                if budget < 0:
                    raise LoadError(
                        f"aliases expand the document to more than {_fmt_size(max_bytes)} (an alias bomb?); "
                        "set EVALFMT_MAX_BYTES to raise the limit", path, mark.line + 1, mark.column + 1)
                is_scalar = not isinstance(value, (dict, list))
                attach(value, (mark.line + 1, mark.column + 1), mark, is_scalar,
                       (value if isinstance(value, str) else _key_text(value)) if is_scalar else None)
            elif et is DocStart:
                docs += 1
                if docs > 1:
                    m = event.start_mark
                    raise LoadError("a file must hold one YAML document, this one holds several", path,
                                    m.line + 1, m.column + 1)
            elif et is StreamEnd:
                break
    except LoadError:
        raise
    except MarkedYAMLError as exc:
        raise _yaml_error(exc, text, path) from None
    except YAMLError as exc:  # ReaderError and friends
        pos = getattr(exc, "position", None)
        line, col = _text_pos(text, pos) if isinstance(pos, int) else (1, 1)
        raise LoadError(f"invalid YAML: {_one_line(str(exc))}", path, line, col) from None
    except (ValueError, TypeError, AttributeError, RecursionError) as exc:  # pragma: no cover - defensive
        raise LoadError(f"invalid YAML: {_one_line(str(exc))}", path, 1, 1) from None
    finally:
        try:
            parser.dispose()
        except Exception:  # pragma: no cover
            pass
    return root, dups


def check_expanded_size(data: Any, path: str, max_bytes: int) -> None:
    """For data whose aliases share nodes (a parser other than :func:`_load_yaml`, which counts as it
    reads): raise the alias-bomb :class:`LoadError` when the text of its keys and strings, each
    shared node counted every time it appears, passes ``max_bytes``; at the value where it does."""
    sizes: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(data, False)]
    while stack:  # the size of every container, each computed once (post-order)
        node, done = stack.pop()
        if id(node) in sizes:
            continue
        children = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) \
            if isinstance(node, list) else None
        if children is None:
            continue
        if not done:
            stack.append((node, True))
            stack.extend((v, False) for _, v in children if isinstance(v, (dict, list)) and id(v) not in sizes)
            continue
        sizes[id(node)] = sum((len(k) if isinstance(k, str) else 0) + _weight(v, sizes) for k, v in children)
    if _weight(data, sizes) <= max_bytes:
        return
    left, node, seen, pos = max_bytes, data, set(), getattr(data, "pos", (1, 1))
    while True:  # down to the value that passes the limit: a shared node (an alias) or a long string
        seen.add(id(node))
        items = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        for key, value in items:
            w = (len(key) if isinstance(key, str) else 0) + _weight(value, sizes)
            if w <= left:
                left -= w
                continue
            if isinstance(value, (dict, list)) and id(value) not in seen and value is not node:
                left -= len(key) if isinstance(key, str) else 0
                pos = _child_pos(node, key)
                node = value
                break
            line, col = _child_pos(node, key)
            raise LoadError(f"aliases expand the document to more than {_fmt_size(max_bytes)} (an alias bomb?); "
                            "set EVALFMT_MAX_BYTES to raise the limit", path, line, col)
        else:  # pragma: no cover - the sizes add up to more than the limit
            line, col = pos
            raise LoadError(f"aliases expand the document to more than {_fmt_size(max_bytes)} (an alias bomb?); "
                            "set EVALFMT_MAX_BYTES to raise the limit", path, line, col)


def _weight(value: Any, sizes: dict[int, int]) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, (dict, list)):
        return sizes.get(id(value), 0)
    return 1


def _child_pos(node: Any, key: Any) -> tuple[int, int]:
    if isinstance(node, YMap):
        return node.vpos.get(key, node.pos)
    if isinstance(node, YSeq) and isinstance(key, int) and key < len(node.ipos):
        return node.ipos[key]
    return getattr(node, "pos", (1, 1))


def _big_int(value: int, raw: str, path: str, mark) -> float:
    """An integer beyond 64 bits as the float JSON.parse and orjson make of it."""
    try:
        return float(value)
    except OverflowError:
        shown = raw if len(raw) <= 20 else raw[:17] + "..."
        raise LoadError(f"invalid YAML: the number {shown} is too large (beyond the range of a float)",
                        path, mark.line + 1, mark.column + 1) from None


def _key_text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class _NoKeyType:
    __slots__ = ()

    def __repr__(self) -> str:  # pragma: no cover
        return "<no key>"


_NoKey = _NoKeyType()


def _one_line(s: str) -> str:
    s = re.sub(r'(?<!\s)\s*in "<[^>]{0,200}>", (?:line \d+, column \d+|position \d+)', "", s)
    return " ".join(s.split())


def _yaml_error(exc, text: str, path: str) -> LoadError:
    mark = exc.problem_mark or exc.context_mark
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    problem = _one_line(exc.problem or "")
    context = _one_line(exc.context or "")
    # A tab where indentation is expected: say so plainly.
    lines = text.split("\n")
    if 1 <= line <= len(lines):
        here = lines[line - 1]
        if col - 1 < len(here) and here[col - 1] == "\t" \
                or ("\t" in here[: col] and here[: col - 1].strip(" \t") == ""):
            tab_col = here.index("\t") + 1
            return LoadError("invalid YAML: tab character used for indentation (YAML allows only spaces)",
                             path, line, tab_col)
    msg = problem or context or "syntax error"
    if context and problem and context not in problem:
        msg = f"{problem} ({context})"
    return LoadError(f"invalid YAML: {msg}", path, line, col)


def plain(value: Any) -> Any:
    """Loaded data (:class:`YMap` / :class:`YSeq`) as plain dicts and lists, without positions."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def type_name(value: Any) -> str:
    """The YAML/JSON name of a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        return "list"
    return type(value).__name__
