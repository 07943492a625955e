"""YAML as agentv 4.42.4 reads it: the ``yaml`` npm package (YAML 1.2 core schema, ``merge: true``).

:func:`load_file` / :func:`load_text` load an agentv file (EVAL.yaml, and the YAML files of tests it
points to) so that evalfmt refuses exactly what agentv's parser refuses, where it refuses it:

- text in the plain subset where libyaml and the package agree (:mod:`evalfmt.npmyaml.simple`: what
  nearly every EVAL.yaml is) is read by evalfmt's fast libyaml loader;
- any other text, and any text libyaml refuses, is read by the model of the package
  (:mod:`evalfmt.npmyaml`): its first error becomes the EV100 (line and column as agentv reports
  them), and the data is what agentv gets (merge keys applied, aliases resolved);
- duplicate keys are compared as the package compares them (by value: ``1`` and ``1.0`` are the same
  key, ``1`` and ``"1"`` are not) and stay EV114 findings when they are the only problem, so that a
  reader still reports everything else.

The data :func:`load_file` gives is final (merge keys applied). Two helpers remain: :func:`resolve_merges`
applies merge keys to a tree loaded by evalfmt's plain loader (keys already present win; with a list of
sources the first wins; a later explicit key overrides a merged one in place), and
:func:`duplicate_key_error` gives the first duplicate key on one line, at the position agentv
reports (evalfmt's errors are one line; :attr:`AgentvYamlError.agentv_message` keeps agentv's own
text with its source excerpt).

Kept free of pydantic: the agentv transpile layout imports it on its fast path.
"""

from __future__ import annotations

import bisect
from typing import Any

from ...errors import LoadError, Pos
from ...fsview import DISK, View
from ...load import (Duplicate, Loaded, YMap, YSeq, check_expanded_size, load_text as _libyaml_load_text,
                     max_bytes_default, plain, read_text)
from ...npmyaml import YamlError, load
from ...npmyaml.simple import is_simple

MERGE_KEY = "<<"


def resolve_merges(node: Any) -> Any:
    """Apply YAML merge keys in place throughout a loaded tree; returns the tree."""
    seen: set[int] = set()
    stack = [node]
    while stack:
        cur = stack.pop()
        if id(cur) in seen:
            continue
        seen.add(id(cur))
        if isinstance(cur, dict):
            if MERGE_KEY in cur:
                _merge_one(cur)
            stack.extend(v for v in cur.values() if isinstance(v, (dict, list)))
        elif isinstance(cur, list):
            stack.extend(v for v in cur if isinstance(v, (dict, list)))
    return node


def _merge_one(mapping: dict[str, Any]) -> None:
    items = list(mapping.items())
    kpos = dict(getattr(mapping, "kpos", {}))
    vpos = dict(getattr(mapping, "vpos", {}))
    new_items: dict[str, Any] = {}
    new_kpos: dict[str, Any] = {}
    new_vpos: dict[str, Any] = {}
    for key, value in items:
        if key == MERGE_KEY and isinstance(value, (dict, list)):
            sources = value if isinstance(value, list) else [value]
            for src in sources:
                if not isinstance(src, dict):
                    continue
                for skey, sval in src.items():
                    if skey not in new_items:
                        new_items[skey] = sval
                        new_kpos[skey] = getattr(src, "kpos", {}).get(skey, kpos.get(key, (1, 1)))
                        new_vpos[skey] = getattr(src, "vpos", {}).get(skey, vpos.get(key, (1, 1)))
        else:
            new_items[key] = value
            new_kpos[key] = kpos.get(key, (1, 1))
            new_vpos[key] = vpos.get(key, (1, 1))
    mapping.clear()
    mapping.update(new_items)
    if isinstance(mapping, YMap):
        mapping.kpos = new_kpos
        mapping.vpos = new_vpos


class AgentvYamlError(LoadError):
    """A text agentv's parser refuses. ``str()`` is evalfmt's one line; ``agentv_message`` is what
    agentv prints (the package's message, position and source excerpt); ``js_column`` the column as
    agentv counts it (UTF-16 units: one more than ``column`` per character beyond U+FFFF before it)."""

    def __init__(self, message: str, path: str, line: int, column: int, agentv_message: str,
                 js_column: int | None = None):
        super().__init__(message, path, line, column)
        self.agentv_message = agentv_message
        self.js_column = js_column


def load_file(path: str, *, fs: View = DISK) -> Loaded:
    """Load an agentv YAML file (read through ``fs``) as agentv's parser reads it (see the module docstring)."""
    return load_text(read_text(path, fs=fs), path)


def load_text(text: str, path: str = "<string>") -> Loaded:
    if is_simple(text):
        try:
            loaded = _libyaml_load_text(text, path, "yaml")
        except LoadError:
            pass  # the model says where agentv's parser stops (or that it reads the text after all)
        else:
            if not loaded.duplicates:
                return loaded
            # a duplicate key: the package reports it where the key's properties end, which after a key
            # with an empty value is that value's position, not the key's; the model says where
    return _load_npm(text, path)


def _load_npm(text: str, path: str) -> Loaded:
    try:
        data, dups = load(text)
    except YamlError as err:
        raise _refusal(err, text, path) from None
    if "*" in text:  # aliases: the expanded document must fit the size limit too
        check_expanded_size(data, path, max_bytes_default())
    duplicates = [Duplicate((), _key_text(d.key), Pos(*d.first_pos), Pos(d.line, d.column)) for d in dups]
    return Loaded(path, "yaml", text, data, _located=data, _duplicates=duplicates)


def _key_text(key: Any) -> str:
    from ...npmyaml.tojs import _js_key  # 3.6 ms to import (python -X importtime): load() loads it, plain text never

    return str(_js_key(key, None))


def _refusal(err: YamlError, text: str, path: str) -> AgentvYamlError:
    if err.line is None or err.column is None or err.offset is None:  # (the package sets all three, or none)
        return AgentvYamlError(_message(err), path, 1, 1, _agentv_message(err, text))
    return AgentvYamlError(_message(err), path, err.line, err.column, _agentv_message(err, text),
                           js_column(text, err.starts, err.offset))


_AGAIN = "a {} that goes on over several lines needs them indented more than the line it starts on"
#: What to do about the package's errors that need more than its message to be understood.
_HINTS = {
    "Missing closing \"quote": _AGAIN.format("quoted string"),
    "Missing closing 'quote": _AGAIN.format("quoted string"),
    "Comments must be separated from other tokens by white space characters": "put a space before '#'",
    "Tabs are not allowed as indentation": "indent with spaces",
    "Excessive alias count indicates a resource exhaustion attack":
        "agentv's parser allows about 100 uses of one anchor, fewer when aliases are nested in it",
    "Merge sources must be maps or map aliases": "'<<' must name a mapping or a list of mappings",
    "Implicit keys need to be on a single line": "write the key on one line",
    "Source contains multiple documents; please use YAML.parseAllDocuments()":
        "agentv reads one document: remove the second '---' (or what follows it)",
}
_HINT_PREFIXES = (
    ("Flow sequence in block collection", _AGAIN.format("flow list") + " (its closing ']' may line up with it)"),
    ("Flow map in block collection", _AGAIN.format("flow mapping") + " (its closing '}' may line up with it)"),
    ("Unresolved alias", "define the anchor (&name) before the alias"),
    ("The : indicator must be at most 1024 chars", "shorten the key, or write it after '? ' as an explicit key"),
)


def _message(err: YamlError) -> str:
    """evalfmt's one-line message: the package's words, then what to do when that is not obvious."""
    from ...npmyaml.tojs import CIRCULAR  # 3.6 ms to import (python -X importtime): load() loads it, plain text never

    msg = err.message
    if err.code == "DEPTH":
        return msg
    if err.code == CIRCULAR:
        return f"invalid YAML: {msg[0].lower()}{msg[1:]}: agentv cannot use it"
    if err.code == "DUPLICATE_KEY" and err.key is not None:
        return (f"invalid YAML: duplicate key '{_key_text(err.key)}' (agentv's YAML parser compares keys by "
                "value): remove one")
    hint = _HINTS.get(msg)
    for prefix, text in _HINT_PREFIXES:
        if hint is None and msg.startswith(prefix):
            hint = text
    return f"invalid YAML: {msg[0].lower()}{msg[1:]} (agentv's YAML parser)" + (f": {hint}" if hint else "")


def _agentv_message(err: YamlError, text: str) -> str:
    """The message agentv prints: the package's, with its position and excerpt."""
    if err.line is None or err.offset is None or err.code is None or err.code in ("CIRCULAR_ALIAS", "DEPTH"):
        return err.message  # the package gives no position for errors found while building the data
    return _prettify(text, err.message, err.offset, err.end, err.starts)


def duplicate_key_error(loaded: Loaded) -> str | None:
    """The first duplicate key as one line, ``path:line:col: Map keys must be unique (...)``, at the
    position the ``yaml`` package reports (agentv adds a code frame below it; evalfmt's errors are one
    line); None when there is none."""
    dups = [d for d in loaded.duplicates if d.key != MERGE_KEY]
    if not dups:
        return None
    first = min(dups, key=lambda d: (d.second.line, d.second.column))
    return (f"{loaded.path}:{first.second.line}:{first.second.column}: Map keys must be unique "
            f"(duplicate key '{first.key}', first at line {first.first.line})")


def _units(text: str) -> str:
    """``text`` as JavaScript strings are: a character beyond U+FFFF is two UTF-16 surrogates."""
    if text.isascii() or all(ord(ch) <= 0xFFFF for ch in text):
        return text
    out = []
    for ch in text:
        code = ord(ch)
        if code > 0xFFFF:
            code -= 0x10000
            out.append(chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF)))
        else:
            out.append(ch)
    return "".join(out)


def js_column(text: str, starts: list[int], offset: int) -> int:
    """The column of ``offset`` as agentv reports it (UTF-16 units from the start of its line)."""
    line = bisect.bisect_right(starts, offset)
    return len(_units(text[starts[line - 1]:offset])) + 1


def _prettify(src: str, message: str, offset: int, end: int | None, starts: list[int]) -> str:
    """The ``yaml`` package's error text: message, line and column (lines as ``starts`` count them,
    columns in UTF-16 units), the source line (cut to 80 units around the column; the line before it
    too when the error is at the start of its line) and a caret under each unit of the error."""
    line = bisect.bisect_right(starts, offset)
    col = js_column(src, starts, offset)
    message += f" at line {line}, column {col}"

    def line_text(n: int) -> str:
        return _units(src[starts[n - 1]:starts[n] if n < len(starts) else len(src)])

    ci = col - 1
    line_str = line_text(line).rstrip("\r\n")
    if ci >= 60 and len(line_str) > 80:
        trim_start = min(ci - 39, len(line_str) - 79)
        line_str = "\u2026" + line_str[trim_start:]
        ci -= trim_start - 1
    if len(line_str) > 80:
        line_str = line_str[:79] + "\u2026"
    if line > 1 and line_str[:ci].strip(" ") == "":
        prev = line_text(line - 1)
        if len(prev) > 80:
            prev = prev[:79] + "\u2026\n"
        line_str = prev + line_str
    if line_str.strip(" "):
        count = 1
        if end is not None and bisect.bisect_right(starts, end) == line:
            end_col = js_column(src, starts, end)
            if end_col > col:
                count = max(1, min(end_col - col, 80 - ci))
        shown = line_str.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
        message += f":\n\n{shown}\n{' ' * ci}{'^' * count}\n"
    return message


__all__ = ["load_file", "load_text", "AgentvYamlError", "resolve_merges", "duplicate_key_error", "plain", "YMap",
           "YSeq"]
