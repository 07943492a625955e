"""The tokenizer for skillgym suite files (a TypeScript subset), feeding the lark grammar ``skillgym.lark``.

A hand-written lexer because two things in JavaScript cannot be lexed by regular expressions alone:

- ``/`` starts a regular expression literal or is a division, depending on the previous token;
- template literals nest: ``${ ... }`` holds code, which may hold braces, strings and templates.

Every token knows its offsets, line and column (1-based, in characters) and whether a line break
precedes it (``nl``), which the statement splitter uses for automatic semicolon insertion.
Comments and whitespace are skipped; the source text between tokens is always recoverable from the offsets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lark.lexer import Token

#: identifiers that get their own terminal (contextual ones are also accepted as names by the grammar)
KEYWORDS = {
    "import": "IMPORT", "from": "FROM", "export": "EXPORT", "default": "DEFAULT", "const": "CONST",
    "let": "LET", "var": "VAR", "type": "TYPE", "interface": "INTERFACE", "function": "FUNCTION",
    "async": "ASYNC", "satisfies": "SATISFIES", "as": "AS", "true": "TRUE", "false": "FALSE",
    "null": "NULL", "undefined": "UNDEFINED", "new": "NEW", "declare": "DECLARE",
}

PUNCT = [
    ("...", "ELLIPSIS"), ("=>", "ARROW"), ("===", "OP"), ("!==", "OP"), ("**=", "OP"), ("<<=", "OP"),
    (">>=", "OP"), ("&&=", "OP"), ("||=", "OP"), ("??=", "OP"), ("?.", "OP"), ("??", "OP"), ("==", "OP"),
    ("!=", "OP"), ("<=", "OP"), (">=", "OP"), ("&&", "OP"), ("||", "OP"), ("++", "OP"), ("--", "OP"),
    ("+=", "OP"), ("-=", "OP"), ("*=", "OP"), ("/=", "OP"), ("%=", "OP"), ("&=", "OP"), ("|=", "OP"),
    ("^=", "OP"), ("**", "OP"), ("{", "LBRACE"), ("}", "RBRACE"), ("(", "LPAR"), (")", "RPAR"),
    ("[", "LSQB"), ("]", "RSQB"), (";", "SEMI"), (",", "COMMA"), (":", "COLON"), (".", "DOT"),
    ("=", "EQUAL"), ("<", "LT"), (">", "GT"), ("|", "VBAR"), ("&", "AMP"), ("?", "QMARK"), ("+", "PLUS"),
    ("-", "MINUS"), ("*", "STAR"), ("!", "BANG"), ("/", "OP"), ("%", "OP"), ("^", "OP"), ("~", "OP"),
    ("@", "OP"), ("#", "OP"),
]
_PUNCT_BY_FIRST: dict[str, list[tuple[str, str]]] = {}
for _p, _t in PUNCT:
    _PUNCT_BY_FIRST.setdefault(_p[0], []).append((_p, _t))

ALL_TYPES = sorted({t for _, t in PUNCT} | set(KEYWORDS.values()) |
                   {"NAME", "STRING", "TEMPLATE", "NUMBER", "REGEX"})

_IDENT = re.compile(r"[A-Za-z_$\u00aa-\uffff][\w$\u00aa-\uffff]*")
_NUMBER = re.compile(
    r"(?:0[xX][0-9a-fA-F](?:_?[0-9a-fA-F])*|0[oO][0-7](?:_?[0-7])*|0[bB][01](?:_?[01])*"
    r"|(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?)n?")
_WS = re.compile(r"[ \t\r\n\f\v\u00a0\u2028\u2029\ufeff]+")

#: after these token types a ``/`` starts a regular expression (JavaScript's rule, simplified)
_REGEX_AFTER_VALUE = {"NAME", "NUMBER", "STRING", "TEMPLATE", "REGEX", "RPAR", "RSQB", "TRUE", "FALSE", "NULL",
                      "UNDEFINED"}
_REGEX_KEYWORDS = {"return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case",
                   "do", "else", "yield", "await"}


class LexError(Exception):
    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


@dataclass
class Tok:
    type: str
    value: str
    start: int
    end: int
    line: int
    column: int
    nl: bool  # a line break between the previous token and this one


class Tokenizer:
    def __init__(self, text: str, offset: int = 0, line: int = 1, column: int = 1):
        self.text = text
        self.i = offset
        self.line = line
        self.col = column

    def _advance_to(self, j: int) -> None:
        chunk = self.text[self.i:j]
        nl = chunk.count("\n")
        if nl:
            self.line += nl
            self.col = j - self.text.rfind("\n", self.i, j)
        else:
            self.col += j - self.i
        self.i = j

    def error(self, message: str, at: int | None = None) -> LexError:
        if at is not None and at != self.i:
            line = self.text.count("\n", 0, at) + 1
            col = at - self.text.rfind("\n", 0, at)
            return LexError(message, line, col)
        return LexError(message, self.line, self.col)

    def skip_trivia(self) -> bool:
        """Skip whitespace and comments; True when a line break was skipped."""
        text = self.text
        saw_nl = False
        while self.i < len(text):
            m = _WS.match(text, self.i)
            if m:
                saw_nl = saw_nl or "\n" in m.group(0) or "\u2028" in m.group(0) or "\u2029" in m.group(0)
                self._advance_to(m.end())
                continue
            if text.startswith("//", self.i):
                j = text.find("\n", self.i)
                self._advance_to(len(text) if j < 0 else j)
                continue
            if text.startswith("/*", self.i):
                j = text.find("*/", self.i + 2)
                if j < 0:
                    raise self.error("unterminated comment: close it with */")
                saw_nl = saw_nl or "\n" in text[self.i:j]
                self._advance_to(j + 2)
                continue
            break
        return saw_nl

    def tokens(self, stop_at_close: bool = False) -> list[Tok]:
        """All tokens; with ``stop_at_close`` stop before the ``}`` closing a template substitution."""
        out: list[Tok] = []
        depth = 0
        text = self.text
        while True:
            nl = self.skip_trivia()
            if self.i >= len(text):
                if stop_at_close:
                    raise self.error("unterminated template literal: close the ${ ... } and the `")
                return out
            c = text[self.i]
            start, line, col = self.i, self.line, self.col
            if stop_at_close and c == "}" and depth == 0:
                return out
            j, kind = self._scan_token(c, out)
            if kind == "LBRACE":
                depth += 1
            elif kind == "RBRACE":
                depth -= 1
            value = text[start:j]
            self._advance_to(j)
            out.append(Tok(kind, value, start, j, line, col, nl))

    def _scan_token(self, c: str, out: list[Tok]) -> tuple[int, str]:
        """(end, type) of the token starting at ``self.i`` with the character ``c``."""
        text = self.text
        if c in "'\"":
            return self._scan_string(c), "STRING"
        if c == "`":
            return self._scan_template(), "TEMPLATE"
        if c.isdigit() and not c.isascii():  # ('²' is a digit to Python, no character JavaScript reads here)
            raise self.error(f"unexpected character {c!r}")
        if c.isdigit() or (c == "." and self.i + 1 < len(text) and text[self.i + 1].isascii()
                           and text[self.i + 1].isdigit()):
            return self._scan_number(), "NUMBER"
        if c == "/" and self._regex_allowed(out):
            return self._scan_regex(), "REGEX"
        m = _IDENT.match(text, self.i)
        if m is not None:
            return m.end(), KEYWORDS.get(m.group(0), "NAME")
        if c == "\\":
            raise self.error("unicode escapes in identifiers are not supported")
        for p, t in _PUNCT_BY_FIRST.get(c, ()):
            if text.startswith(p, self.i):
                return self.i + len(p), t
        raise self.error(f"unexpected character {c!r}")

    def _scan_number(self) -> int:
        text = self.text
        m = _NUMBER.match(text, self.i)
        assert m is not None  # a digit, or a dot before one, always starts a number
        j = m.end()
        if j < len(text) and (_IDENT.match(text, j) and not text[j].isdigit()):
            raise self.error(f"invalid number '{text[self.i:j + 1]}'")
        return j

    def _regex_allowed(self, out: list[Tok]) -> bool:
        if not out:
            return True
        prev = out[-1]
        if prev.type in _REGEX_AFTER_VALUE:
            return prev.type == "NAME" and prev.value in _REGEX_KEYWORDS
        return True

    def _check_escape(self, j: int) -> None:
        """A ``\\x`` or ``\\u`` escape at ``j`` must be complete (JavaScript refuses the file otherwise)."""
        bad = _bad_escape(self.text, j)
        if bad is not None:
            raise self.error(f"invalid escape '{bad}': write \\xHH, \\uHHHH or \\u{{H...}} with hex digits", at=j)

    def _scan_string(self, quote: str) -> int:
        text = self.text
        j = self.i + 1
        while j < len(text):
            ch = text[j]
            if ch == "\\":
                self._check_escape(j)
                j += 2
                continue
            if ch == quote:
                return j + 1
            if ch == "\n":
                break
            j += 1
        raise self.error("unterminated string: close it with " + quote + " on the same line")

    def _scan_template(self) -> int:
        text = self.text
        j = self.i + 1
        while j < len(text):
            ch = text[j]
            if ch == "\\":
                self._check_escape(j)
                j += 2
                continue
            if ch == "`":
                return j + 1
            if ch == "$" and text.startswith("${", j):
                inner = Tokenizer(text, j + 2)
                inner.line, inner.col = self._pos_of(j + 2)
                inner.tokens(stop_at_close=True)
                j = inner.i + 1
                continue
            j += 1
        raise self.error("unterminated template literal: close it with `")

    def _pos_of(self, off: int) -> tuple[int, int]:
        line = self.text.count("\n", 0, off) + 1
        return line, off - self.text.rfind("\n", 0, off)

    def _scan_regex(self) -> int:
        text = self.text
        j = self.i + 1
        in_class = False
        while j < len(text):
            ch = text[j]
            if ch == "\n":
                break
            if ch == "\\":
                j += 2
                continue
            if in_class:
                if ch == "]":
                    in_class = False
            elif ch == "[":
                in_class = True
            elif ch == "/":
                j += 1
                while j < len(text) and (text[j].isalnum() or text[j] in "_$"):
                    j += 1
                return j
            j += 1
        raise self.error("unterminated regular expression: close it with / on the same line")


def tokenize(text: str) -> list[Tok]:
    return Tokenizer(text).tokens()


def to_lark(tok: Tok) -> Token:
    return Token(tok.type, tok.value, start_pos=tok.start, line=tok.line, column=tok.column,
                 end_pos=tok.end, end_line=None, end_column=None)


# ------------------------------------------------------------------------------ literal values


_HEX = re.compile(r"[0-9A-Fa-f]+")


def _bad_escape(text: str, j: int) -> str | None:
    """The text of an incomplete ``\\x`` / ``\\u`` escape starting at ``text[j]`` (a backslash), else None."""
    kind = text[j + 1:j + 2]
    if kind not in ("x", "u"):
        return None
    if kind == "u" and text.startswith("{", j + 2):
        m = _HEX.match(text, j + 3)
        end = m.end() if m else j + 3
        if m and text.startswith("}", end) and int(m.group(0), 16) <= 0x10FFFF:
            return None
        return text[j:end + 1 if text.startswith("}", end) else end]
    want = 2 if kind == "x" else 4
    m = _HEX.match(text, j + 2)
    digits = m.group(0)[:want] if m else ""
    return None if len(digits) == want else text[j:j + 2] + digits


_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def cook(raw: str) -> str:
    """The value of the characters of a string or template chunk (JavaScript escapes)."""
    out: list[str] = []
    i = 0
    n = len(raw)
    while i < n:
        ch = raw[i]
        if ch != "\\":
            if ch == "\r":  # template literals normalise CRLF / CR to LF
                out.append("\n")
                i += 2 if raw.startswith("\r\n", i) else 1
                continue
            out.append(ch)
            i += 1
            continue
        i += 1
        if i >= n:
            break
        e = raw[i]
        if e in _SIMPLE_ESCAPES and not (e == "0" and i + 1 < n and raw[i + 1].isdigit()):
            out.append(_SIMPLE_ESCAPES[e])
            i += 1
        elif e == "x":
            out.append(chr(int(raw[i + 1:i + 3], 16)))
            i += 3
        elif e == "u":
            if raw.startswith("{", i + 1):
                j = raw.index("}", i)
                out.append(chr(int(raw[i + 2:j], 16)))
                i = j + 1
            else:
                code = int(raw[i + 1:i + 5], 16)
                i += 5
                if 0xD800 <= code < 0xDC00 and raw.startswith("\\u", i):
                    low = int(raw[i + 2:i + 6], 16)
                    if 0xDC00 <= low < 0xE000:
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                out.append(chr(code))
        elif e == "\r":
            i += 2 if raw.startswith("\r\n", i) else 1
        elif e in "\n\u2028\u2029":
            i += 1
        else:
            out.append(e)
            i += 1
    return "".join(out)


def template_parts(raw: str) -> list[str | tuple[int, str]]:
    """A template literal's source split into its text parts (cooked strings) and code parts
    (``(offset, source)`` of each ``${...}``)."""
    parts: list[str | tuple[int, str]] = []
    body_start = 1
    i = 1
    chunk_start = 1
    n = len(raw) - 1  # without the closing backtick
    while i < n:
        ch = raw[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "$" and raw.startswith("${", i):
            parts.append(cook(raw[chunk_start:i]))
            inner = Tokenizer(raw, i + 2)
            inner.tokens(stop_at_close=True)
            parts.append((i + 2, raw[i + 2:inner.i]))
            i = inner.i + 1
            chunk_start = i
            continue
        i += 1
    del body_start
    parts.append(cook(raw[chunk_start:n]))
    return parts


def number_value(raw: str) -> int | float:
    """A numeric literal's value; an integer beyond 64 bits is the float (or infinity) JavaScript
    reads, as evalfmt's JSON and YAML loaders do."""
    value = _literal_value(raw)
    if type(value) is int and not -(2 ** 63) <= value < 2 ** 64:
        try:
            return float(value)
        except OverflowError:
            return float("inf")
    return value


def _literal_value(raw: str) -> int | float:
    s = raw.replace("_", "")
    if s.endswith("n"):
        s = s[:-1]
    low = s.lower()
    if low.startswith("0x"):
        return int(s[2:], 16)
    if low.startswith("0o"):
        return int(s[2:], 8)
    if low.startswith("0b"):
        return int(s[2:], 2)
    if re.fullmatch(r"\d+", s):
        return int(s)
    value = float(s)
    return int(value) if value.is_integer() and abs(value) < 2**53 and "e" not in low and "." not in s else value
