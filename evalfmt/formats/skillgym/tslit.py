"""TypeScript text for what the skillgym writer emits: string literals, JSON-like values, regex literals,
and ECMAScript patterns for literal text (both directions). Pure functions of their arguments."""

from __future__ import annotations

import re
from typing import Any

from ...js import number_string
from .lex import LexError, Tokenizer

_REGEX_SPECIALS = set("\\^$.*+?()[]{}|")


def escape_regex(text: str) -> str:
    """An ECMAScript pattern matching ``text`` literally."""
    out = []
    for ch in text:
        if ch in _REGEX_SPECIALS:
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\u2028":
            out.append("\\u2028")
        elif ch == "\u2029":
            out.append("\\u2029")
        else:
            out.append(ch)
    return "".join(out)


def literal_of(pattern: str) -> str | None:
    """The text a pattern matches literally, when it is only literal characters (else None)."""
    out = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            if i + 1 >= len(pattern):
                return None
            nxt = pattern[i + 1]
            if nxt in _REGEX_SPECIALS:
                out.append(nxt)
            elif nxt == "n":
                out.append("\n")
            elif nxt == "r":
                out.append("\r")
            elif pattern.startswith("u2028", i + 1) or pattern.startswith("u2029", i + 1):
                out.append(chr(int(pattern[i + 2:i + 6], 16)))
                i += 6
                continue
            else:
                return None
            i += 2
            continue
        if ch in _REGEX_SPECIALS or ch in "\n\r\u2028\u2029":
            return None
        out.append(ch)
        i += 1
    text = "".join(out)
    return text if escape_regex(text) == pattern else None


def js_str(text: str) -> str:
    """A double-quoted JavaScript string literal."""
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\b":
            out.append("\\b")
        elif ch == "\f":
            out.append("\\f")
        elif ch == "\v":
            out.append("\\v")
        elif ord(ch) < 0x20 or ch in "\u2028\u2029\x7f" or 0xD800 <= ord(ch) < 0xE000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def js_value(value: Any, indent: str = "") -> str:
    """A JSON-like value as a TypeScript literal (double quotes, trailing commas as prettier writes)."""
    if isinstance(value, dict) and set(value) == {"$regex", "$flags"}:
        return regex_literal(value["$regex"], value["$flags"])
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return js_str(value)
    if isinstance(value, (int, float)):
        return str(value) if isinstance(value, int) else number_string(value)
    inner = indent + "  "
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[\n" + "".join(f"{inner}{js_value(v, inner)},\n" for v in value) + indent + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "{\n" + "".join(f"{inner}{js_key(k)}: {js_value(v, inner)},\n" for k, v in value.items()) + indent + "}"
    return js_str(str(value))


def js_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z_$][\w$]*", key) else js_str(key)


def regex_literal(pattern: str, flags: str | None = None) -> str:
    """``/pattern/flags``, or ``new RegExp("pattern", "flags")`` when a literal cannot hold the pattern."""
    flags = flags or ""
    body = _slash_escape(pattern)
    text = f"/{body}/{flags}"
    try:
        toks = Tokenizer("(" + text).tokens()
    except LexError:
        toks = []
    # the reader gets the pattern back as it was (an escaped '/' too)
    if pattern and len(toks) == 2 and toks[1].type == "REGEX" and toks[1].value == text and "\n" not in pattern \
            and normalize_regex_source(body) == pattern:
        return text
    args = js_str(pattern) + (", " + js_str(flags) if flags else "")
    return f"new RegExp({args})"


def _slash_escape(pattern: str) -> str:
    out = []
    i = 0
    in_class = False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        elif ch == "/" and not in_class:
            out.append("\\/")
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def normalize_regex_source(src: str) -> str:
    """``\\/`` -> ``/`` outside character classes (the same pattern: ``/`` needs no escape in a pattern)."""
    if "\\/" not in src:
        return src
    out = []
    i = 0
    in_class = False
    while i < len(src):
        ch = src[i]
        if ch == "\\" and i + 1 < len(src):
            if src[i + 1] == "/" and not in_class:
                out.append("/")
            else:
                out.append(src[i:i + 2])
            i += 2
            continue
        if ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        out.append(ch)
        i += 1
    return "".join(out)

