"""Scalar values as the ``yaml`` npm package computes them: folding of quoted and plain scalars,
escapes, block scalars, and the resolution of plain scalars by the YAML 1.2 core schema (or 1.1
under a ``%YAML 1.1`` directive). Each function reports problems through ``on_error(offset, code,
message)`` with offsets relative to the token, as the package does.

Values are Python values standing for JavaScript ones: ``None`` (null), ``bool``, ``int`` / ``float``
(numbers: JavaScript has only doubles, so integers beyond 2**53 become floats), ``str``.
"""

from __future__ import annotations

import re
from typing import Any
from collections.abc import Callable

PLAIN, QUOTE_SINGLE, QUOTE_DOUBLE, BLOCK_LITERAL, BLOCK_FOLDED = "PLAIN", "QUOTE_SINGLE", "QUOTE_DOUBLE", \
    "BLOCK_LITERAL", "BLOCK_FOLDED"

# -- flow scalars --------------------------------------------------------------------------------

_BAD_PLAIN_START = {"\t": "a tab character", ",": "flow indicator character ,",
                    "%": "directive indicator character %", "|": "block scalar indicator |",
                    ">": "block scalar indicator >", "@": "reserved character @", "`": "reserved character `"}


def plain_value(source: str, on_error) -> str:
    bad = _BAD_PLAIN_START.get(source[:1])
    if bad:
        on_error(0, "BAD_SCALAR_START", f"Plain value cannot start with {bad}")
    return _unfold(source)


def single_quoted_value(source: str, on_error) -> str:
    if source[-1:] != "'" or len(source) == 1:
        on_error(len(source), "MISSING_CHAR", "Missing closing 'quote")
    return _unfold(source[1:-1]).replace("''", "'")


_LINE = re.compile(r"(.*?)\r?\n", re.S)
_TRIM_END = re.compile(r"(?<![ \t])[ \t]+\Z")
_TRIM_BOTH = re.compile(r"\A[ \t]+|(?<![ \t])[ \t]+\Z")
_LAST = re.compile(r"[ \t]*+(.*)", re.S)


def _unfold(source: str) -> str:
    """Line folding of plain and single-quoted scalars: one break is a space, n breaks n-1 newlines,
    spaces around breaks dropped."""
    m = _LINE.match(source)
    if not m:
        return source
    res = _TRIM_END.sub("", m.group(1))
    sep = " "
    pos = m.end()
    while True:
        m = _LINE.match(source, pos)
        if not m:
            break
        line = _TRIM_BOTH.sub("", m.group(1))
        if line == "":
            if sep == "\n":
                res += sep
            else:
                sep = "\n"
        else:
            res += sep + line
            sep = " "
        pos = m.end()
    m = _LAST.match(source, pos)
    return res + sep + (m.group(1) if m else "")


_ESCAPES = {"0": "\0", "a": "\x07", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
            "v": "\v", "N": "\u0085", "_": "\u00a0", "L": "\u2028", "P": "\u2029", " ": " ", '"': '"',
            "/": "/", "\\": "\\", "\t": "\t"}
_HEX_RE = re.compile(r"[0-9a-fA-F]+\Z")


def double_quoted_value(source: str, on_error) -> str:
    res = []
    n = len(source)
    i = 1
    while i < n - 1:
        ch = source[i]
        if ch == "\r" and source[i + 1] == "\n":
            i += 1
            continue
        if ch == "\n":
            fold, i = _fold_newline(source, i)
            res.append(fold)
        elif ch == "\\":
            i += 1
            nxt = source[i] if i < n else None
            esc = _ESCAPES.get(nxt) if nxt is not None else None
            if esc:
                res.append(esc)
            elif nxt == "\n":
                nxt = source[i + 1] if i + 1 < n else None
                while nxt == " " or nxt == "\t":
                    i += 1
                    nxt = source[i + 1] if i + 1 < n else None
            elif nxt == "\r" and i + 1 < n and source[i + 1] == "\n":
                i += 1
                nxt = source[i + 1] if i + 1 < n else None
                while nxt == " " or nxt == "\t":
                    i += 1
                    nxt = source[i + 1] if i + 1 < n else None
            elif nxt in ("x", "u", "U"):
                length = 2 if nxt == "x" else 4 if nxt == "u" else 8
                res.append(_char_code(source, i + 1, length, on_error))
                i += length
            else:
                raw = source[i - 1:i + 1]
                on_error(i - 1, "BAD_DQ_ESCAPE", f"Invalid escape sequence {raw}")
                res.append(raw)
        elif ch == " " or ch == "\t":
            ws_start = i
            nxt = source[i + 1] if i + 1 < n else None
            while nxt == " " or nxt == "\t":
                i += 1
                nxt = source[i + 1] if i + 1 < n else None
            if nxt != "\n" and not (nxt == "\r" and i + 2 < n and source[i + 2] == "\n"):
                res.append(source[ws_start:i + 1] if i > ws_start else ch)
        else:
            res.append(ch)
        i += 1
    if source[-1:] != '"' or n == 1:
        on_error(n, "MISSING_CHAR", 'Missing closing "quote')
    return "".join(res)


def _fold_newline(source: str, offset: int) -> tuple[str, int]:
    fold = ""
    n = len(source)
    ch = source[offset + 1] if offset + 1 < n else None
    while ch in (" ", "\t", "\n", "\r"):
        if ch == "\r" and (source[offset + 2] if offset + 2 < n else None) != "\n":
            break
        if ch == "\n":
            fold += "\n"
        offset += 1
        ch = source[offset + 1] if offset + 1 < n else None
    return fold or " ", offset


def _char_code(source: str, offset: int, length: int, on_error) -> str:
    cc = source[offset:offset + length]
    if len(cc) == length and _HEX_RE.match(cc):
        code = int(cc, 16)
        if code <= 0x10FFFF:
            return chr(code)
    raw = source[offset - 2:offset + length]
    on_error(offset - 2, "BAD_DQ_ESCAPE", f"Invalid escape sequence {raw}")
    return raw


# -- block scalars ---------------------------------------------------------------------------------


def block_header(token: dict, strict: bool, on_error):
    """(mode, indent, chomp, length of the header and its line) of a block scalar token, or None."""
    props = token["props"]
    if props[0]["type"] != "block-scalar-header":  # pragma: no cover - the package's "impossible"
        on_error(props[0], "IMPOSSIBLE", "Block scalar header not found")
        return None
    source = props[0]["source"]
    mode = source[0]
    indent = 0
    chomp = ""
    error = -1
    for i in range(1, len(source)):
        ch = source[i]
        if not chomp and ch in ("-", "+"):
            chomp = ch
        else:
            digit = int(ch) if ch in "0123456789" and ch.isascii() else 0
            if not indent and digit:
                indent = digit
            elif error == -1:
                error = token["offset"] + i
    if error != -1:
        on_error(error, "UNEXPECTED_TOKEN", f"Block scalar header includes extra characters: {source}")
    has_space = False
    length = len(source)
    for tok in props[1:]:
        kind = tok["type"]
        if kind == "space":
            has_space = True
            length += len(tok["source"])
        elif kind == "newline":
            length += len(tok["source"])
        elif kind == "comment":
            if strict and not has_space:
                on_error(tok, "MISSING_CHAR", "Comments must be separated from other tokens by white space characters")
            length += len(tok["source"])
        elif kind == "error":
            on_error(tok, "UNEXPECTED_TOKEN", tok["message"])
            length += len(tok["source"])
        else:
            on_error(tok, "UNEXPECTED_TOKEN", f"Unexpected token in block scalar header: {kind}")
            ts = tok.get("source")
            if isinstance(ts, str) and ts:
                length += len(ts)
    return mode, indent, chomp, length


_SPLIT = re.compile(r"\n( *)")


def block_value(token: dict, header, at_root: bool, on_error) -> tuple[str, int]:
    """The value of a block scalar and the offset where it ends."""
    mode, hindent, chomp, hlength = header
    start = token["offset"]
    source = token["source"]
    if source:
        parts = _SPLIT.split(source)
        first = parts[0]
        lead = len(first) - len(first.lstrip(" "))
        lines = [(first[:lead], first[lead:])] + [(parts[i], parts[i + 1]) for i in range(1, len(parts), 2)]
    else:
        lines = []
    chomp_start = len(lines)
    for i in range(len(lines) - 1, -1, -1):
        content = lines[i][1]
        if content == "" or content == "\r":
            chomp_start = i
        else:
            break
    end = start + hlength + len(source)
    if chomp_start == 0:
        value = "\n" * max(1, len(lines) - 1) if chomp == "+" and lines else ""
        return value, end
    trim = token["indent"] + hindent
    offset = token["offset"] + hlength
    content_start = 0
    for i in range(chomp_start):
        indent, content = lines[i]
        if content == "" or content == "\r":
            if hindent == 0 and len(indent) > trim:
                trim = len(indent)
        else:
            if len(indent) < trim:
                on_error(offset + len(indent), "MISSING_CHAR",
                         "Block scalars with more-indented leading empty lines must use an explicit indentation "
                         "indicator")
            if hindent == 0:
                trim = len(indent)
            content_start = i
            if trim == 0 and not at_root:
                on_error(offset, "BAD_INDENT", "Block scalar values in collections must be indented")
            break
        offset += len(indent) + len(content) + 1
    i = len(lines) - 1
    while i >= chomp_start:  # trailing lines of spaces wider than the text are kept (the bound moves)
        if len(lines[i][0]) > trim:
            chomp_start = i + 1
        i -= 1
    out = []
    sep = ""
    prev_more = False
    for i in range(content_start):
        out.append(lines[i][0][trim:] + "\n")
    for i in range(content_start, chomp_start):
        indent, content = lines[i]
        offset += len(indent) + len(content) + 1
        crlf = content[-1:] == "\r"
        if crlf:
            content = content[:-1]
        if content and len(indent) < trim:
            src = "explicit indentation indicator" if hindent else "first line"
            on_error(offset - len(content) - (2 if crlf else 1), "BAD_INDENT",
                     f"Block scalar lines must not be less indented than their {src}")
            indent = ""
        if mode == "|":
            out.append(sep + indent[trim:] + content)
            sep = "\n"
        elif len(indent) > trim or content[:1] == "\t":
            if sep == " ":
                sep = "\n"
            elif not prev_more and sep == "\n":
                sep = "\n\n"
            out.append(sep + indent[trim:] + content)
            sep = "\n"
            prev_more = True
        elif content == "":
            if sep == "\n":
                out.append("\n")
            else:
                sep = "\n"
        else:
            out.append(sep + content)
            sep = " "
            prev_more = False
    value = "".join(out)
    if chomp == "+":
        for i in range(chomp_start, len(lines)):
            value += "\n" + lines[i][0][trim:]
        if value[-1:] != "\n":
            value += "\n"
    elif chomp != "-":
        value += "\n"
    return value, end


# -- resolution of plain scalars -------------------------------------------------------------------

MERGE = object()  # the value of a '<<' merge key (a JavaScript symbol in the package)


def _js_int(text: str, base: int):
    try:
        n = int(text, base)
    except ValueError:  # more digits than Python converts (4,300): parseInt gives Infinity
        return float("-inf") if text.startswith("-") else float("inf")
    if -(2 ** 53) <= n <= 2 ** 53:
        return n
    try:
        return float(n)
    except OverflowError:  # beyond a double: parseInt gives Infinity
        return float("-inf") if n < 0 else float("inf")


def _js_float(text: str) -> float:
    return float(text)


def _nan_inf(s: str) -> float:
    if s[-3:].lower() == "nan":
        return float("nan")
    return float("-inf") if s[0] == "-" else float("inf")


#: (tag, pattern, resolver): a plain scalar that matches the pattern resolves to resolver(text)
Schema = tuple[tuple[str, re.Pattern[str], Callable[[str], Any]], ...]


def _merge(s: str) -> object:
    return MERGE


#: (tag, pattern, resolver) in the order the package tries them: the 1.2 core schema.
CORE: Schema = (
    ("null", re.compile(r"(?:~|[Nn]ull|NULL)?\Z"), lambda s: None),
    ("bool", re.compile(r"(?:[Tt]rue|TRUE|[Ff]alse|FALSE)\Z"), lambda s: s[0] in "tT"),
    ("int", re.compile(r"0o[0-7]+\Z"), lambda s: _js_int(s[2:], 8)),
    ("int", re.compile(r"[-+]?[0-9]+\Z"), lambda s: _js_int(s, 10)),
    ("int", re.compile(r"0x[0-9a-fA-F]+\Z"), lambda s: _js_int(s[2:], 16)),
    ("float", re.compile(r"(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)\Z"), _nan_inf),
    ("float", re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+\Z"), _js_float),
    ("float", re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)\Z"), _js_float),
    ("merge", re.compile(r"<<\Z"), _merge),
)


def _int11(s: str, skip: int, base: int):
    sign = s[0]
    if sign in "-+":
        skip += 1
    digits = s[skip:].replace("_", "")
    # JavaScript's parseInt stops at the first character that is not a digit of the base
    m = re.match({2: "[01]*", 8: "[0-7]*", 10: "[0-9]*", 16: "[0-9a-fA-F]*"}[base], digits)
    assert m is not None  # a '*' pattern matches, at least the empty string
    n = _js_int(m.group(0), base) if m.group(0) else float("nan")
    return -n if sign == "-" else n


def _sexagesimal(s: str):
    sign = s[0]
    parts = s[1:] if sign in "-+" else s
    res = 0.0
    for p in parts.replace("_", "").split(":"):
        res = res * 60 + float(p)
    res = -res if sign == "-" else res
    return int(res) if res.is_integer() and abs(res) <= 2 ** 53 else res


#: The YAML 1.1 schema (``%YAML 1.1``): more booleans, numbers with '_', base 60, and timestamps. The
#: package's list also has !!binary (before merge), !!omap, !!pairs and !!set (after it): no plain scalar
#: resolves to those, only an explicit tag selects them (compose.py).
YAML11: Schema = (
    ("null", re.compile(r"(?:~|[Nn]ull|NULL)?\Z"), lambda s: None),
    ("bool", re.compile(r"(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)\Z"), lambda s: True),
    ("bool", re.compile(r"(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)\Z"), lambda s: False),
    ("int", re.compile(r"[-+]?0b[0-1_]+\Z"), lambda s: _int11(s, 2, 2)),
    ("int", re.compile(r"[-+]?0[0-7_]+\Z"), lambda s: _int11(s, 1, 8)),
    ("int", re.compile(r"[-+]?[0-9][0-9_]*\Z"), lambda s: _int11(s, 0, 10)),
    ("int", re.compile(r"[-+]?0x[0-9a-fA-F_]+\Z"), lambda s: _int11(s, 2, 16)),
    ("float", re.compile(r"(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)\Z"), _nan_inf),
    ("float", re.compile(r"[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+\Z"),
     lambda s: _js_float(s.replace("_", ""))),
    ("float", re.compile(r"[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*\Z"), lambda s: _parse_float(s.replace("_", ""))),
    ("merge", re.compile(r"<<\Z"), _merge),
    ("int", re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\Z"), _sexagesimal),
    ("float", re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*\Z"), _sexagesimal),
    ("timestamp", re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:t|T|[ \t]+)[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}"
                             r"(?:\.[0-9]+)?(?:[ \t]*(?:Z|[-+][012]?[0-9](?::[0-9]{2})?))?)?\Z"), lambda s: s),
)

TIMESTAMP = YAML11[-1][1]


def _parse_float(s: str) -> float:
    """JavaScript's parseFloat on text already known to look like a number ('.' alone is NaN)."""
    m = re.match(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?", s)
    return float(m.group(0)) if m else float("nan")


def resolve_plain(value: str, at_key: bool, version: str):
    """(tag name, value) of a plain scalar by the document's schema; ``("merge", MERGE)`` for a
    '<<' key (agentv turns merge keys on)."""
    for tag, pattern, fn in (YAML11 if version == "1.1" else CORE):
        if tag == "merge":
            if at_key and pattern.match(value):
                return "merge", MERGE
        elif pattern.match(value):
            return tag, fn(value)
    return "str", value
