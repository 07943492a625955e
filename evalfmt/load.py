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
    # Precompute line starts for offset -> (line, col).
    starts = [0]
    for nl in re.finditer("\n", text):
        starts.append(nl.end())

    def at(off: int) -> tuple[int, int]:
        i = bisect.bisect_right(starts, off) - 1
        return i + 1, off - starts[i] + 1

    tree = _JsonTree()
    i = _WS.match(text, 0).end()
    n = len(text)
    while i < n:
        c = text[i]
        if tree.wants_key() and c == '"':
            m = _STRING.match(text, i)
            assert m is not None  # the text is valid JSON: a '"' starts a string
            tree.key(json.loads(m.group(0)), at(i))
            i = _WS.match(text, m.end()).end() + 1  # skip ':'
        elif c in "{[":
            tree.open(YMap() if c == "{" else YSeq(), at(i))
            i += 1
        elif c in "}]":
            tree.stack.pop()
            i += 1
        elif c == ",":
            i += 1
        else:
            vp = at(i)
            value, i = _json_scalar(text, i)
            if i < 0:  # pragma: no cover - the text was valid JSON for orjson
                break
            tree.attach(value, vp)
        i = _WS.match(text, i).end()
    return tree.root, tree.dups


def _json_scalar(text: str, i: int) -> tuple[Any, int]:
    """The string, literal or number at ``i`` of valid JSON, and where it ends (-1: none is there)."""
    if text[i] == '"':
        m = _STRING.match(text, i)
        assert m is not None  # the text is valid JSON: a '"' starts a string
        return json.loads(m.group(0)), m.end()
    for word, value in _JSON_WORDS:
        if text.startswith(word, i):
            return value, i + len(word)
    m = _NUMBER.match(text, i)
    if not m:
        return None, -1
    tok = m.group(0)
    return (int(tok) if re.fullmatch(r"-?\d+", tok) else float(tok)), m.end()


_JSON_WORDS = (("true", True), ("false", False), ("null", None))


class _JsonTree:
    """The containers of a JSON text being indexed: the open ones (frames ``[container, path,
    pending_key, key_pos]``), the root, and the duplicate keys met."""

    def __init__(self) -> None:
        self.stack: list[list] = []
        self.root: Any = None
        self.dups: list[Duplicate] = []

    def wants_key(self) -> bool:
        return bool(self.stack) and isinstance(self.stack[-1][0], YMap) and self.stack[-1][2] is None

    def key(self, key: Any, kp: tuple[int, int]) -> None:
        self.stack[-1][2] = key
        self.stack[-1][3] = kp

    def open(self, cont: YMap | YSeq, vp: tuple[int, int]) -> None:
        cont.pos = vp
        path = []
        if self.stack:
            parent = self.stack[-1]
            path = parent[1] + [parent[2] if isinstance(parent[0], YMap) else len(parent[0])]
        self.attach(cont, vp)
        self.stack.append([cont, path, None, None])

    def attach(self, value: Any, vp: tuple[int, int]) -> None:
        if not self.stack:
            self.root = value
            return
        frame = self.stack[-1]
        cont = frame[0]
        if isinstance(cont, YMap):
            key, kp = frame[2], frame[3]
            if key in cont:
                self.dups.append(Duplicate(tuple(frame[1]), key, Pos(*cont.kpos[key]), Pos(*kp)))
            cont[key] = value
            cont.kpos[key] = kp
            cont.vpos[key] = vp
            frame[2] = None
        else:
            cont.append(value)
            cont.ipos.append(vp)


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

    tree = _YamlTree(path, max_bytes - len(text), max_bytes)
    handlers = {ev.ScalarEvent: tree.scalar, ev.AliasEvent: tree.alias,
                ev.MappingStartEvent: tree.map_start, ev.SequenceStartEvent: tree.seq_start,
                ev.MappingEndEvent: tree.end, ev.SequenceEndEvent: tree.end, ev.DocumentStartEvent: tree.document}
    stream_end = ev.StreamEndEvent
    parser = CParser(text)
    try:
        while True:
            event = parser.get_event()
            et = type(event)
            if et is stream_end:
                break
            handler = handlers.get(et)
            if handler is not None:
                handler(event)
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
    return tree.root, tree.dups


class _YamlTree:
    """The located data of one YAML document, built from the parser's events, with the duplicate keys
    met and the weight of what aliases expand to (an alias bomb stops the reading)."""

    def __init__(self, path: str, budget: int, max_bytes: int) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.dups: list[Duplicate] = []
        self.anchors: dict[str, tuple[Any, int, int]] = {}  # name -> (value, nodes, characters)
        # frame: [container, anchor, start_count, is_map, pending_key, key_pos, path, start_chars]
        self.stack: list[list] = []
        self.root: Any = None
        self.docs = 0
        self.count = 0
        self.expanded = 0
        # characters of scalar text read so far, aliases counted at their full size: what the document
        # weighs once its aliases are expanded (the file's own size plus what aliases add)
        self.chars = 0
        self.budget = budget  # what aliases may add before the document passes max_bytes

    def _error(self, message: str, mark) -> LoadError:
        return LoadError(message, self.path, mark.line + 1, mark.column + 1)

    def attach(self, value: Any, vp: tuple[int, int], is_scalar_key: bool, raw_key: str | None) -> None:
        if not self.stack:
            self.root = value
            return
        frame = self.stack[-1]
        cont = frame[0]
        if not frame[3]:
            cont.append(value)
            cont.ipos.append(vp)
            return
        if frame[4] is _NoKey:
            if not is_scalar_key:
                raise LoadError("invalid YAML: a mapping or sequence used as a key is not supported",
                                self.path, vp[0], vp[1])
            frame[4] = raw_key
            frame[5] = vp
            return
        key = frame[4]
        if key in cont:
            self.dups.append(Duplicate(tuple(frame[6]), key, Pos(*cont.kpos[key]), Pos(*frame[5])))
        cont[key] = value
        cont.kpos[key] = frame[5]
        cont.vpos[key] = vp
        frame[4] = _NoKey

    def child_path(self) -> list:
        if not self.stack:
            return []
        f = self.stack[-1]
        return f[6] + [f[4] if f[3] else len(f[0])]

    def scalar(self, event) -> None:
        self.count += 1
        mark = event.start_mark
        raw = event.value
        self.chars += len(raw)
        value = _scalar_value(event, self.path)
        if event.anchor is not None:
            self.anchors[event.anchor] = (value, 1, len(raw))
        self.attach(value, (mark.line + 1, mark.column + 1), True, raw)

    def map_start(self, event) -> None:
        self._start(event, YMap())

    def seq_start(self, event) -> None:
        self._start(event, YSeq())

    def _start(self, event, cont: YMap | YSeq) -> None:
        self.count += 1
        mark = event.start_mark
        if len(self.stack) >= MAX_DEPTH:
            raise self._error(f"nesting is deeper than {MAX_DEPTH} levels", mark)
        vp = (mark.line + 1, mark.column + 1)
        cont.pos = vp
        cpath = self.child_path()
        self.attach(cont, vp, False, None)
        self.stack.append([cont, event.anchor, self.count, isinstance(cont, YMap), _NoKey, None, cpath, self.chars])

    def end(self, event) -> None:
        frame = self.stack.pop()
        if frame[1] is not None:
            self.anchors[frame[1]] = (frame[0], self.count - frame[2] + 1, self.chars - frame[7])

    def alias(self, event) -> None:
        mark = event.start_mark
        if event.anchor not in self.anchors:
            raise self._error(f"invalid YAML: unknown alias *{event.anchor}", mark)
        value, size, weight = self.anchors[event.anchor]
        self.expanded += size
        self.count += size
        self.chars += weight
        self.budget -= weight
        if self.expanded > MAX_ALIAS_NODES:
            raise self._error(f"aliases expand to more than {MAX_ALIAS_NODES} nodes (an alias bomb?)", mark)
        if self.budget < 0:
            raise self._error(f"aliases expand the document to more than {_fmt_size(self.max_bytes)} (an alias "
                              "bomb?); set EVALFMT_MAX_BYTES to raise the limit", mark)
        is_scalar = not isinstance(value, (dict, list))
        self.attach(value, (mark.line + 1, mark.column + 1), is_scalar,
                    (value if isinstance(value, str) else _key_text(value)) if is_scalar else None)

    def document(self, event) -> None:
        self.docs += 1
        if self.docs > 1:
            raise self._error("a file must hold one YAML document, this one holds several", event.start_mark)


def _scalar_value(event, path: str) -> Any:
    """The value of a scalar event: by its tag, by the core schema when plain, else its text; an integer
    beyond 64 bits as a float."""
    mark = event.start_mark
    raw = event.value
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
    return value


def check_expanded_size(data: Any, path: str, max_bytes: int) -> None:
    """For data whose aliases share nodes (a parser other than :func:`_load_yaml`, which counts as it
    reads): raise the alias-bomb :class:`LoadError` when the text of its keys and strings, each
    shared node counted every time it appears, passes ``max_bytes``; at the value where it does."""
    sizes = _container_sizes(data)
    if _weight(data, sizes) <= max_bytes:
        return
    line, col = _where_it_passes(data, sizes, max_bytes)
    raise LoadError(f"aliases expand the document to more than {_fmt_size(max_bytes)} (an alias bomb?); "
                    "set EVALFMT_MAX_BYTES to raise the limit", path, line, col)


def _children(node: Any) -> list | None:
    """(key, value) of each child of a mapping or sequence; None for anything else."""
    if isinstance(node, dict):
        return list(node.items())
    return list(enumerate(node)) if isinstance(node, list) else None


def _key_weight(key: Any) -> int:
    return len(key) if isinstance(key, str) else 0


def _container_sizes(data: Any) -> dict[int, int]:
    """The expanded size of every container (by id), each computed once (post-order)."""
    sizes: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(data, False)]
    while stack:
        node, done = stack.pop()
        children = None if id(node) in sizes else _children(node)
        if children is None:
            continue
        if not done:
            stack.append((node, True))
            stack.extend((v, False) for _, v in children if isinstance(v, (dict, list)) and id(v) not in sizes)
            continue
        sizes[id(node)] = sum(_key_weight(k) + _weight(v, sizes) for k, v in children)
    return sizes


def _where_it_passes(data: Any, sizes: dict[int, int], max_bytes: int) -> tuple[int, int]:
    """The position of the value at which the expanded text passes ``max_bytes``: down through the
    containers to a shared node (an alias) or a long string."""
    left, node, seen, pos = max_bytes, data, set(), getattr(data, "pos", (1, 1))
    while True:
        seen.add(id(node))
        for key, value in _children(node) or ():
            w = _key_weight(key) + _weight(value, sizes)
            if w <= left:
                left -= w
                continue
            if isinstance(value, (dict, list)) and id(value) not in seen and value is not node:
                left -= _key_weight(key)
                pos = _child_pos(node, key)
                node = value
                break
            return _child_pos(node, key)
        else:  # pragma: no cover - the sizes add up to more than the limit
            return pos


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
