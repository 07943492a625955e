"""A fast test for YAML written in the plain subset where libyaml and the ``yaml`` npm package agree.

The model of the package (:mod:`evalfmt.npmyaml`) is pure Python and several times slower than
libyaml, so evalfmt runs it only on agentv files that leave this subset. The subset is what
EVAL.yaml files are made of: block mappings and sequences whose keys are words, plain integers or
quoted strings (never ``true``/``null``-like words or quoted numbers: the package compares keys by
value, libyaml by text), values that are
one-line plain or quoted scalars (common escapes only), one-line flow sequences and mappings, and
literal/folded block scalars without an indentation indicator, a single ``---`` at the top, comments.

Anything else makes the text "not simple": tabs, CR, control and line-separator characters, anchors,
aliases, tags, merge keys, explicit keys, directives, document end markers, quoted or flow values
that continue on the next line, plain values followed by a more indented line (continuations),
comments glued to a token, block scalar headers with an indentation indicator or leading blank lines
wider than their text, lines of spaces wider than its text at the end of a block scalar (the two
parsers keep different amounts of them), a block scalar that ends the file without a line break, very long keys,
integers too large for a JavaScript number. The test is
conservative: a "not simple" text may well be fine, it is only read the slow way.

For a simple text that libyaml accepts, the package accepts it too and gives the same data; a
property test checks this (tests/agentv_yaml).
"""

from __future__ import annotations

import re

from ..load import resolve_plain

_RISKY_CHARS = re.compile("[\t\r\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")
_KEY = r"(?:[A-Za-z_$][A-Za-z0-9_$.\-/]*(?: +[A-Za-z0-9_$.\-/]+)*|0|[1-9][0-9]{0,14}|\"[^\"\\]*\"|'[^']*')"
_LINE = re.compile(r"(?P<ind> *)(?P<dash>- +|-$)?(?:(?P<key>" + _KEY + r") *:(?= |$) *)?(?P<val>.*)")
_WORD_KEYS = frozenset(("true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL"))
_COMMENT = r"(?: +#.*)?"
_ESC = r"\\(?:[0abtnvfre \"/\\N_LP]|x[0-9a-fA-F]{2}|u(?![dD][89abAB])[0-9a-fA-F]{4})"
_DQ = r"\"(?:[^\"\\]|" + _ESC + r")*\""
_SQ = r"'(?:[^']|'')*'"
_QUOTED = re.compile(r"(?:" + _DQ + "|" + _SQ + r")" + _COMMENT)
_BLOCK_HEADER = re.compile(r"[|>][-+]?" + _COMMENT)
_PLAIN_START = re.compile(r"[^-?:,\[\]{}#&*!|>'\"%@`\s]|-(?=\S)")
_BIG_INT = re.compile(r"[-+]?(?:0x|0o)?[0-9a-fA-F]{16,}")
_FLOW_TOKEN = re.compile(
    r" *(?:(?P<open>[\[{])|(?P<close>[\]}])|(?P<comma>,)|(?P<colon>:(?= ))|" + _DQ + "|" + _SQ
    + r"|(?P<plain>(?:[A-Za-z0-9_$./+=~^()<>;]|-(?=[0-9A-Za-z.]))[^,\[\]{}:#\"']*?)(?= *[,\]}:]))")


def is_simple(text: str) -> bool:
    """True when ``text`` stays in the subset (see the module docstring)."""
    if _RISKY_CHARS.search(text):
        return False
    lines = text.split("\n")
    block_owner = -1  # column of the key or dash owning the block scalar being read, or -1
    block_indent = -1  # indentation of its text once known
    block_blank = 0  # widest blank line before its text
    block_spaces = False  # a line of spaces only after its last line of text
    owner = -1  # column of the key or dash whose one-line scalar value was just read, or -1
    started = False
    for line in lines:
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if block_owner >= 0:
            if not stripped:
                if block_indent < 0:
                    block_blank = max(block_blank, indent)
                elif indent > block_indent:
                    block_spaces = True
                continue
            if block_indent < 0 and indent > block_owner:
                if block_blank > indent:
                    return False
                block_indent = indent
                continue
            if block_indent >= 0 and indent >= block_indent:
                block_spaces = False
                continue
            if indent > block_owner or block_spaces:
                return False
            block_owner = -1
        if not stripped:
            continue
        if owner >= 0:
            if indent > owner:
                return False  # a continuation line, or a comment inside a value
            owner = -1
        if stripped[0] == "#":
            continue
        if not started:
            started = True
            if stripped.startswith("---"):
                if stripped == "---":
                    continue
                return False
        shape = _SHAPES.get(line)
        if shape is None:
            shape = _line_shape(line, indent)
            if len(line) <= _SHAPES_LINE:
                if len(_SHAPES) >= _SHAPES_MAX:
                    _SHAPES.clear()
                _SHAPES[line] = shape
        kind, column = shape
        if kind is None:
            return False
        if kind == "block":
            block_owner, block_indent, block_blank, block_spaces = column, -1, 0, False
        elif kind == "scalar":
            owner = column
    # a block scalar that ends the file without a final line break: libyaml then drops the break
    # that clip/keep chomping adds, the package keeps it
    return block_owner < 0 or (text.endswith("\n") and not block_spaces)


#: the shape of each line seen (a line's shape depends on nothing else): an editor's texts change a
#: line at a time, so the language server's next lint finds nearly every line here
_SHAPES: dict[str, tuple[str | None, int]] = {}
_SHAPES_MAX = 1 << 16
_SHAPES_LINE = 256  # (longer lines are looked at each time: the memory stays small)


def _line_shape(line: str, indent: int) -> tuple[str | None, int]:
    """A line of content (not blank, no comment, not the first ``---``) as the test sees it: its kind
    (``scalar``: a one-line value, ``block``: a block scalar header, ``empty``: no value on the line,
    None: outside the subset) and the column of the key or dash that owns the value."""
    m = _LINE.fullmatch(line)
    assert m is not None  # every group is optional but val, which takes the rest of the line
    dash, key, val = m.group("dash"), m.group("key"), m.group("val")
    if key is None and dash is None:
        return None, 0
    if key is not None and (key in _WORD_KEYS or len(key) > 1000
                            or (key[0] in "\"'" and (key[1:-1] == "<<"
                                                     or not isinstance(resolve_plain(key[1:-1]), str)))):
        return None, 0
    column = indent + (len(dash) if dash and key is not None else 0)
    if not val or val[0] == "#":
        return "empty", column
    return _value_kind(val), column


def _value_kind(val: str) -> str | None:
    """``scalar``, ``block`` (a block scalar header) or None (outside the subset)."""
    ch = val[0]
    if ch == '"' or ch == "'":
        return "scalar" if _QUOTED.fullmatch(val) else None
    if ch == "|" or ch == ">":
        return "block" if _BLOCK_HEADER.fullmatch(val) else None
    if ch == "[" or ch == "{":
        return "scalar" if _flow_ok(val) else None
    if not _PLAIN_START.match(val):
        return None
    text, _, _comment = val.partition(" #")
    text = text.rstrip(" ")
    if ": " in text or text.endswith(":") or _BIG_INT.fullmatch(text):
        return None
    return "scalar"


def _flow_ok(val: str) -> bool:
    """A flow collection that opens and closes on this line, made of plain words and quoted strings
    (in a mapping, no key that the package would compare by value)."""
    depth = 0
    pos = 0
    in_map = []
    n = len(val)
    while pos < n:
        m = _FLOW_TOKEN.match(val, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
        if m.group("open"):
            depth += 1
            in_map.append(m.group("open") == "{")
        elif m.group("close"):
            if not in_map or in_map.pop() != (m.group("close") == "}"):
                return False
            depth -= 1
            if depth == 0:
                break
        elif m.group("plain") is not None:
            word = m.group("plain").rstrip(" ")
            if _BIG_INT.fullmatch(word) or (any(in_map) and not isinstance(resolve_plain(word), str)):
                return False
        elif m.group("colon") and in_map[-1:] != [True]:
            return False
    if depth != 0:
        return False
    rest = val[pos:]
    return rest == "" or re.fullmatch(_COMMENT, rest) is not None
