"""ECMAScript regular expressions, run on Python's ``re``.

terum tests a ``command_matching`` pattern with ``new RegExp(arg).test(cmd)`` and agentv its ``regex``
assertion with ``new RegExp(value, flags)``: the pattern is ECMAScript syntax (with the web-compatibility
grammar of Annex B when the ``u`` flag is absent, as Node.js parses it). This module parses that
syntax itself and writes an equivalent Python pattern, so every construct means what it means in
JavaScript:

=========================  ======================================  ==================================
construct                  ECMAScript                              Python ``re`` (what we emit)
=========================  ======================================  ==================================
``\\d \\w \\s \\b``          ASCII digits / word chars, JS spaces    explicit classes and lookarounds
``.``                      not ``\\n \\r \\u2028 \\u2029``            an explicit class (``s`` flag: any)
``$`` (no ``m``)           only at the very end                    ``\\Z`` (Python's ``$`` also before a final newline)
``^ $`` with ``m``         after/before any line terminator        lookarounds on ``\\n\\r\\u2028\\u2029``
``(?<name>...)``           named group (``$`` allowed in names)    ``(?P<gN>...)``
``\\k<name>``, ``\\N``        empty when the group did not take part   ``(?(gN)(?P=gN))``; empty for forward refs
``\\1`` without groups      a legacy octal escape (``\\x01``)         the character
``\\8 \\A \\Z \\z \\e ...``    the letter itself (identity escape)     the literal character
``\\cX``                    control character                       the character
``\\u{41}`` without ``u``    ``u`` repeated 41 times                 ``u{41}``
``a{,3}``                  literal text                            escaped braces
``[^]`` / ``[]``           any character / nothing                 ``[\\x00-\\U0010ffff]`` / ``(?!)``
``(?<=a|bc)``              variable-length lookbehind              one fixed-width lookbehind per alternative
``(?i)`` ``(?P<n>)``        SyntaxError                             refused (:class:`EcmaRegexError`)
no ``u`` flag              UTF-16 code units                       subject and pattern split into surrogates
``y`` (sticky)             anchored at index 0 (a fresh RegExp)    ``match`` instead of ``search``
``i``                      upper case; ``u``: simple case folding  explicit classes where Python differs
=========================  ======================================  ==================================

Known remaining differences (documented in docs/scoring.md): a lookbehind whose alternatives are not
each of fixed width, or that holds a backreference, is refused (``unsupported``); captures inside a
repeated group are not reset on each iteration; a backreference inside a lookbehind to a group on its
right is empty; a backreference under ``i`` compares as Python folds case (``(ß)\\1`` matches ``ßẞ``);
group names must be identifiers without escapes. Unicode property escapes support
General_Category values, ``Any`` and ``ASCII``.

:func:`problems` reports, for the linter (EV105), what does not compile (``invalid``), what Python
reads differently and is likely a mistake (``differs``), what evalfmt cannot run (``unsupported``) and
the subtler differences the translation takes care of (``subtle``).
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from dataclasses import dataclass, field
from functools import lru_cache, cache

__all__ = ["EcmaRegexError", "Problem", "EcmaRegex", "compile", "test", "problems", "translate"]

INF = float("inf")
LINE_TERMINATORS = "\n\r\u2028\u2029"
_WORD = [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
_DIGIT = [(0x30, 0x39)]
_SPACE = [(0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A), (0x2028, 0x2029),
          (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF)]
_MAX = 0x10FFFF
_SYNTAX = set("^$\\.*+?()[]{}|/")
_VALID_FLAGS = set("dgimsuy")
_PY_MAX_REPEAT = 4294967294


class EcmaRegexError(ValueError):
    """The pattern is not a valid ECMAScript regex (or uses what evalfmt cannot translate)."""

    def __init__(self, message: str, offset: int = 0, unsupported: bool = False):
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.unsupported = unsupported


@dataclass(frozen=True)
class Problem:
    """One finding about a pattern. ``kind``: ``invalid`` (not ECMAScript), ``unsupported`` (valid,
    but evalfmt cannot run it), ``differs`` (Python reads it differently; likely a mistake) or
    ``subtle`` (means something slightly different in Python; evalfmt runs it as ECMAScript)."""

    kind: str
    message: str
    offset: int = 0


# ------------------------------------------------------------------------------------ char sets


def _norm(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def _complement(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out = []
    prev = 0
    for lo, hi in _norm(ranges):
        if lo > prev:
            out.append((prev, lo - 1))
        prev = hi + 1
    if prev <= _MAX:
        out.append((prev, _MAX))
    return out


def _esc(cp: int) -> str:
    if cp < 0x80 and (chr(cp).isalnum() or chr(cp) == "_"):
        return chr(cp)
    if cp <= 0xFF:
        return f"\\x{cp:02x}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def _class(ranges: list[tuple[int, int]], negate: bool = False) -> str:
    ranges = _norm(ranges)
    if not ranges:
        return "[\\x00-\\U0010ffff]" if negate else "(?!)"
    body = "".join(_esc(lo) if lo == hi else f"{_esc(lo)}-{_esc(hi)}" for lo, hi in ranges)
    return f"[{'^' if negate else ''}{body}]"


_WORD_CLASS = _class(_WORD)
_ANY = "[\\x00-\\U0010ffff]"
_DOT = _class([(ord(c), ord(c)) for c in LINE_TERMINATORS], True)


def _property_ranges(name: str, value: str | None) -> list[tuple[int, int]] | None:
    """Ranges of a Unicode General_Category (``\\p{L}``, ``\\p{gc=Lu}``, ``\\p{Letter}``) or of
    ``Any``/``ASCII``; None for anything else (scripts and binary properties are not supported)."""
    if value is not None:
        if name not in ("General_Category", "gc"):
            return None
        name = value
    if name == "Any":
        return [(0, _MAX)]
    if name == "ASCII":
        return [(0, 0x7F)]
    cats = _GC_ALIASES.get(name)
    if cats is None:
        return None
    return _category_ranges(cats)


_GC_LONG = {
    "Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll", "Titlecase_Letter": "Lt",
    "Modifier_Letter": "Lm", "Other_Letter": "Lo", "Mark": "M", "Combining_Mark": "M", "Nonspacing_Mark": "Mn",
    "Spacing_Mark": "Mc", "Enclosing_Mark": "Me", "Number": "N", "Decimal_Number": "Nd", "digit": "Nd",
    "Letter_Number": "Nl", "Other_Number": "No", "Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc",
    "Dash_Punctuation": "Pd", "Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
    "Final_Punctuation": "Pf", "Other_Punctuation": "Po", "Symbol": "S", "Math_Symbol": "Sm",
    "Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So", "Separator": "Z",
    "Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp", "Other": "C", "Control": "Cc",
    "cntrl": "Cc", "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co", "Unassigned": "Cn",
}
_GC_SHORT = ["Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf",
             "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"]
_GC_ALIASES: dict[str, tuple[str, ...]] = {c: (c,) for c in _GC_SHORT}
for _g in "LMNPSZC":
    _GC_ALIASES[_g] = tuple(c for c in _GC_SHORT if c[0] == _g)
_GC_ALIASES["LC"] = ("Lu", "Ll", "Lt")
for _long, _short in _GC_LONG.items():
    _GC_ALIASES[_long] = _GC_ALIASES[_short]


@cache
def _category_table() -> dict[str, list[tuple[int, int]]]:
    table: dict[str, list[tuple[int, int]]] = {}
    start, cur = 0, unicodedata.category(chr(0))
    for cp in range(1, _MAX + 1):
        cat = unicodedata.category(chr(cp))
        if cat != cur:
            table.setdefault(cur, []).append((start, cp - 1))
            start, cur = cp, cat
    table.setdefault(cur, []).append((start, _MAX))
    return table


def _category_ranges(cats: tuple[str, ...]) -> list[tuple[int, int]]:
    table = _category_table()
    out: list[tuple[int, int]] = []
    for c in cats:
        out.extend(table.get(c, []))
    return _norm(out)


# ------------------------------------------------------------------------------------- parsing


@dataclass
class _Node:
    """A translated piece: Python text, whether it is one atom, width bounds, and (for a lookbehind
    body) the top-level alternatives."""

    text: str
    atom: bool
    lo: float
    hi: float
    quantifiable: bool = True
    alts: list[_Node] | None = None
    has_backref: bool = False


@dataclass
class Translation:
    """An ECMAScript pattern turned into Python: ``python`` with ``pyflags``; ``unicode`` (the ``u``
    flag: match code points, not UTF-16 code units); ``sticky`` (the ``y`` flag: anchored at 0)."""

    source: str
    flags: str
    python: str
    pyflags: int
    unicode: bool
    sticky: bool
    groups: int
    names: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


class _Parser:
    def __init__(self, pattern: str, flags: str):
        seen = set()
        for f in flags:
            if f not in _VALID_FLAGS:
                if f == "v":
                    raise EcmaRegexError("the 'v' flag (unicodeSets) is not supported", 0, unsupported=True)
                raise EcmaRegexError(f"invalid flags '{flags}'")
            if f in seen:
                raise EcmaRegexError(f"invalid flags '{flags}' (duplicate '{f}')")
            seen.add(f)
        self.flags = flags
        self.u = "u" in flags
        self.i = "i" in flags
        self.m = "m" in flags
        self.s = "s" in flags
        # Without u the pattern is a sequence of UTF-16 code units.
        self.src = pattern if self.u else _to_code_units(pattern)
        self.offsets = _offset_map(pattern) if not self.u else None
        self.pos = 0
        self.problems: list[Problem] = []
        self.total_groups, self.group_names, self.group_starts = self._prescan()
        self.has_named = bool(self.group_names)
        self.group_count = 0  # groups opened so far
        self.open_groups: list[int] = []

    # -- helpers
    def err(self, message: str, at: int | None = None, unsupported: bool = False) -> EcmaRegexError:
        return EcmaRegexError(message, self._orig(self.pos if at is None else at), unsupported)

    def note(self, kind: str, message: str, at: int | None = None) -> None:
        p = Problem(kind, message, self._orig(self.pos if at is None else at))
        if p not in self.problems:
            self.problems.append(p)

    def _orig(self, i: int) -> int:
        if self.offsets is None:
            return i
        return self.offsets[min(i, len(self.offsets) - 1)] if self.offsets else 0

    def peek(self, k: int = 0) -> str:
        j = self.pos + k
        return self.src[j] if j < len(self.src) else ""

    def eat(self, s: str) -> bool:
        if self.src.startswith(s, self.pos):
            self.pos += len(s)
            return True
        return False

    def _prescan(self) -> tuple[int, dict[str, int], dict[int, int]]:
        """Count capturing groups and collect group names (a backreference may point forward)."""
        src, i, n, count = self.src, 0, len(self.src), 0
        names: dict[str, int] = {}
        starts: dict[int, int] = {}
        in_class = False
        while i < n:
            c = src[i]
            if c == "\\":
                i += 2
                continue
            if in_class:
                if c == "]":
                    in_class = False
            elif c == "[":
                in_class = True
            elif c == "(":
                if src.startswith("(?", i):
                    if src.startswith("(?<", i) and not src.startswith("(?<=", i) and not src.startswith("(?<!", i):
                        count += 1
                        starts[count] = i
                        m = re.match(r"\(\?<([^>]*)>", src[i:])
                        if m and m.group(1) not in names:
                            names[m.group(1)] = count
                else:
                    count += 1
                    starts[count] = i
            i += 1
        return count, names, starts

    # -- grammar
    def parse(self) -> _Node:
        node = self.disjunction()
        if self.pos < len(self.src):
            if self.peek() == ")":
                raise self.err("unmatched ')'")
            raise self.err(f"unexpected '{self.peek()}'")  # pragma: no cover - disjunction consumes all else
        return node

    def disjunction(self) -> _Node:
        alts = [self.alternative()]
        while self.eat("|"):
            alts.append(self.alternative())
        if len(alts) == 1:
            return alts[0]
        return _Node("|".join(a.text for a in alts), False, min(a.lo for a in alts), max(a.hi for a in alts),
                     alts=alts, has_backref=any(a.has_backref for a in alts))

    def alternative(self) -> _Node:
        parts: list[_Node] = []
        while self.pos < len(self.src) and self.peek() not in "|)":
            parts.append(self.term())
        if not parts:
            return _Node("", True, 0, 0)
        if len(parts) == 1:
            return parts[0]
        return _Node("".join(p.text for p in parts), False, sum(p.lo for p in parts), sum(p.hi for p in parts),
                     has_backref=any(p.has_backref for p in parts))

    def term(self) -> _Node:
        start = self.pos
        atom = self.atom()
        q = self.quantifier()
        if q is None:
            return atom
        lo, hi, lazy, qtext = q
        if not atom.quantifiable:
            raise self.err("nothing to repeat", start)
        if self._quantifier_ahead():
            raise self.err("nothing to repeat")
        text = atom.text if atom.atom else f"(?:{atom.text})"
        lo_w = atom.lo * lo
        hi_w = 0 if atom.hi == 0 else (INF if hi == INF or atom.hi == INF else atom.hi * hi)
        return _Node(text + qtext + ("?" if lazy else ""), False, lo_w, hi_w, has_backref=atom.has_backref)

    def _quantifier_ahead(self) -> bool:
        c = self.peek()
        if c in ("*", "+", "?"):
            return True
        if c == "{":
            return self._braced(self.pos) is not None
        return False

    def _braced(self, at: int) -> tuple[int, int | float, int] | None:
        m = re.compile(r"\{(\d+)(,(\d*))?\}").match(self.src, at)
        if not m:
            return None
        lo = int(m.group(1))
        hi: int | float = lo if m.group(2) is None else (INF if m.group(3) == "" else int(m.group(3)))
        return lo, hi, m.end()

    def quantifier(self) -> tuple[int, float, bool, str] | None:
        c = self.peek()
        if c in ("*", "+", "?"):
            self.pos += 1
            lo, hi = {"*": (0, INF), "+": (1, INF), "?": (0, 1)}[c]
            text = c
        elif c == "{":
            b = self._braced(self.pos)
            if b is None:
                return None
            lo, hi, end = b
            if hi != INF and hi < lo:
                raise self.err("numbers out of order in {} quantifier")
            if lo > _PY_MAX_REPEAT or (hi != INF and hi > _PY_MAX_REPEAT):
                raise self.err("repetition count too large for evalfmt", unsupported=True)
            self.pos = end
            text = f"{{{lo}}}" if hi == lo else (f"{{{lo},}}" if hi == INF else f"{{{lo},{hi}}}")
        else:
            return None
        lazy = self.eat("?")
        return lo, hi, lazy, text

    def atom(self) -> _Node:
        c = self.peek()
        special = _ATOMS.get(c)
        if special is not None:
            return special(self)
        start = self.pos
        self._refuse_syntax_char(c, start)
        self.pos += 1
        if not self.u and _is_surrogate(ord(c)):
            self.note("subtle", "without the 'u' flag ECMAScript matches UTF-16 code units: a character outside the "
                                "BMP is two units", start)
        return self.char(ord(c))

    def _caret(self) -> _Node:
        self.pos += 1
        text = f"(?<![^{_lt()}])" if self.m else "\\A"
        return _Node(text, True, 0, 0, quantifiable=False)

    def _dollar(self) -> _Node:
        start = self.pos
        self.pos += 1
        if self.m:
            return _Node(f"(?![^{_lt()}])", True, 0, 0, quantifiable=False)
        self.note("subtle", "'$' matches only at the very end in ECMAScript; Python's '$' also matches before a "
                            "final newline", start)
        return _Node("\\Z", True, 0, 0, quantifiable=False)

    def _dot(self) -> _Node:
        start = self.pos
        self.pos += 1
        if not self.s:
            self.note("subtle", "'.' does not match '\\r', U+2028 or U+2029 in ECMAScript (Python's '.' does)",
                      start)
        return _Node(_ANY if self.s else _DOT, True, 1, 1)

    def _refuse_syntax_char(self, c: str, start: int) -> None:
        """Refuse a quantifier with nothing to repeat, and (with u) a lone bracket; note ``{,n}``."""
        if c in ("*", "+", "?"):
            raise self.err("nothing to repeat")
        if c == "{":
            if self._braced(self.pos) is not None:
                raise self.err("nothing to repeat")
            if self.u:
                raise self.err("lone quantifier brackets")
            if re.compile(r"\{,\d+\}").match(self.src, self.pos):
                self.note("differs", "'{,n}' is literal text in ECMAScript; Python reads it as a quantifier", start)
        if c in ("}", "]") and self.u:
            raise self.err("lone quantifier brackets" if c == "}" else "lone ']'")
        if c == ")":
            raise self.err("unmatched ')'")  # pragma: no cover - handled by parse()

    def char(self, cp: int) -> _Node:
        if self.i and cp in _FOLD_SPECIAL[self.u]:
            return _Node(_FOLD_SPECIAL[self.u][cp], True, 1, 1)
        return _Node(_esc(cp), True, 1, 1)

    def class_node(self, ranges: list[tuple[int, int]], negate: bool) -> _Node:
        text = _class(ranges, negate)
        if self.i and ranges:
            text = _fold_class(text, ranges, negate, self.u)
        return _Node(text, True, 1, 1)

    def group(self) -> _Node:
        start = self.pos
        self.pos += 1
        kind, name = self._group_kind(start) if self.eat("?") else ("capture", None)
        gnum = 0
        if kind == "capture":
            self.group_count += 1
            gnum = self.group_count
            self.open_groups.append(gnum)
            if name is not None:
                self.note("subtle", "'(?<name>...)' is ECMAScript's named group; Python writes '(?P<name>...)'", start)
        inner = self.disjunction()
        if not self.eat(")"):
            raise self.err("unterminated group", start)
        if kind == "capture":
            self.open_groups.pop()
            return _Node(f"(?P<g{gnum}>{inner.text})", True, inner.lo, inner.hi, has_backref=inner.has_backref)
        if kind == "group":
            return _Node(f"(?:{inner.text})", True, inner.lo, inner.hi, has_backref=inner.has_backref)
        if kind in ("ahead", "nahead"):
            op = "=" if kind == "ahead" else "!"
            # Annex B: a lookahead may carry a quantifier without the u flag.
            return _Node(f"(?:(?{op}{inner.text}))", True, 0, 0, quantifiable=not self.u)
        return self.lookbehind(inner, kind == "behind", start)

    def _group_kind(self, start: int) -> tuple[str, str | None]:
        """After ``(?``: the kind of group (and a capture's name); refuses what is not ECMAScript."""
        for prefix, kind in _GROUP_PREFIXES:
            if self.eat(prefix):
                return kind, None
        if not self.eat("<"):
            raise self.err(_invalid_group(self.src[self.pos:self.pos + 2]), start)
        m = re.compile(_GROUP_NAME).match(self.src, self.pos)  # compiled on first use (re caches it)
        if not m or not _code_points(m.group(1)).replace("$", "_").isidentifier():
            raise self.err("invalid capture group name", start)
        name = m.group(1)
        self.pos = m.end()
        if self.group_names.get(name) != self.group_count + 1:
            raise self.err(f"duplicate capture group name '{name}'", start)
        return "capture", name

    def lookbehind(self, inner: _Node, positive: bool, start: int) -> _Node:
        op = "<=" if positive else "<!"
        if inner.has_backref:
            raise self.err("a backreference inside a lookbehind is not supported by evalfmt", start, unsupported=True)
        if inner.lo == inner.hi:
            return _Node(f"(?{op}{inner.text})", True, 0, 0, quantifiable=False)
        alts = inner.alts or [inner]
        if any(a.lo != a.hi for a in alts):
            raise self.err("a lookbehind whose alternatives are not each of fixed length is not supported by evalfmt "
                           "(Python's lookbehind is fixed-width)", start, unsupported=True)
        self.note("subtle", "variable-length lookbehind: Python needs fixed width (evalfmt splits it by alternative)",
                  start)
        if positive:
            text = "(?:" + "|".join(f"(?<={a.text})" for a in alts) + ")"
        else:
            text = "(?:" + "".join(f"(?<!{a.text})" for a in alts) + ")"
        return _Node(text, True, 0, 0, quantifiable=False)

    # -- escapes outside classes
    def atom_escape(self) -> _Node:
        start = self.pos
        self.pos += 1
        if self.pos >= len(self.src):
            raise self.err("\\ at end of pattern", start)
        c = self.peek()
        if c == "b" or c == "B":
            self.pos += 1
            self.note("subtle", f"'\\{c}' uses ECMAScript's ASCII word characters (Python's are Unicode)", start)
            w = nw = self.word_atom()
            if c == "b":
                text = f"(?:(?<={w})(?!{nw})|(?<!{w})(?={nw}))"
            else:
                text = f"(?:(?<={w})(?={nw})|(?<!{w})(?!{nw}))"
            return _Node(text, True, 0, 0, quantifiable=False)
        if c.isdigit() and c != "0":
            return self.decimal_escape(start)
        if c == "k" and (self.u or self.has_named):
            m = re.compile(r"k<([^>]*)>").match(self.src, self.pos)
            if not m or m.group(1) not in self.group_names:
                raise self.err("invalid named reference", start)
            self.pos = m.end()
            return self.backref(self.group_names[m.group(1)], start)
        cls = self.class_escape_set(start)
        if cls is not None:
            ranges, negate = cls
            return self.class_node(ranges, negate)
        cp = self.character_escape(start, in_class=False)
        if cp is None:  # "\c" not followed by a letter (Annex B): a literal backslash, then "c" as text
            return self.char(0x5C)
        return self.char(cp)

    def word_ranges(self) -> list[tuple[int, int]]:
        """ECMAScript's word characters: ASCII, plus U+017F and U+212A under i with u (they fold to s, k)."""
        return _WORD + [(0x17F, 0x17F), (0x212A, 0x212A)] if self.i and self.u else _WORD

    def word_atom(self) -> str:
        return self.class_node(self.word_ranges(), False).text if self.i else _WORD_CLASS

    def decimal_escape(self, start: int) -> _Node:
        m = re.compile(r"\d+").match(self.src, self.pos)
        assert m is not None
        n = int(m.group(0))
        if n <= self.total_groups:
            self.pos = m.end()
            return self.backref(n, start)
        if self.u:
            raise self.err("invalid escape (no such group)", start)
        c = self.peek()
        if c in "89":
            self.pos += 1
            self.note("differs", f"'\\{c}' is a literal '{c}' in ECMAScript (there is no group {n})", start)
            return self.char(ord(c))
        cp = self.legacy_octal()
        self.note("differs", f"'\\{m.group(0)}' is an octal escape in ECMAScript, not a backreference (the pattern has "
                  f"{self.total_groups} group(s))", start)
        return self.char(cp)

    def legacy_octal(self) -> int:
        m = re.compile(r"[0-3][0-7]{0,2}|[4-7][0-7]?").match(self.src, self.pos)
        assert m is not None
        self.pos = m.end()
        return int(m.group(0), 8)

    def backref(self, n: int, start: int) -> _Node:
        gstart = self.group_starts.get(n, 0)
        if n in self.open_groups or gstart > start:
            self.note("subtle", f"backreference to group {n} before it closes: always empty in ECMAScript (an error in "
                                f"Python)", start)
            return _Node("(?:)", True, 0, 0, has_backref=True)
        self.note("subtle", f"backreference to group {n}: empty in ECMAScript when the group did not take part "
                  "(Python fails the match)", start)
        return _Node(f"(?(g{n})(?P=g{n}))", True, 0, INF, has_backref=True)

    def class_escape_set(self, start: int) -> tuple[list[tuple[int, int]], bool] | None:
        """``\\d \\D \\s \\S \\w \\W`` (and ``\\p{..}`` with u) as ranges; None for other escapes."""
        c = self.peek()
        if c in "dDsSwW":
            self.pos += 1
            base = {"d": _DIGIT, "s": _SPACE, "w": self.word_ranges()}[c.lower()]
            what = {"d": "ASCII digits", "s": "ECMAScript whitespace", "w": "ASCII word characters"}[c.lower()]
            self.note("subtle", f"'\\{c}' means {what} in ECMAScript (Python's is Unicode)", start)
            return list(base), c.isupper()
        if c in "pP":
            if not self.u:
                if self.peek(1) == "{":
                    self.note("differs", f"'\\{c}{{...}}' without the 'u' flag is the literal text '{c}{{...}}' in "
                                         f"ECMAScript", start)
                return None
            m = re.compile(r"[pP]\{([A-Za-z_]+)(?:=([A-Za-z_]+))?\}").match(self.src, self.pos)
            if not m:
                raise self.err("invalid property name", start)
            ranges = _property_ranges(m.group(1), m.group(2))
            if ranges is None:
                raise self.err(f"unicode property '{m.group(0)[2:-1]}' is not supported by evalfmt "
                               "(General_Category values, Any and ASCII are)", start, unsupported=True)
            self.pos = m.end()
            return (_complement(ranges) if c == "P" else ranges), False
        return None

    def character_escape(self, start: int, in_class: bool) -> int | None:
        """The code point of a character escape after the backslash; None for Annex B's lone ``\\c``."""
        c = self.peek()
        if c in _SIMPLE_ESCAPES:
            self.pos += 1
            return _SIMPLE_ESCAPES[c]
        if c == "c":
            return self._control_escape(start, in_class)
        if c == "0" and not self.peek(1).isdigit():
            self.pos += 1
            return 0
        if c.isdigit():  # in a class: legacy octal, \8 \9 identity
            return self._digit_escape(c, start, in_class)
        if c == "x":
            return self._hex_escape(start)
        if c == "u":
            return self.unicode_escape(start)
        return self._identity_escape(c, start, in_class)

    def _control_escape(self, start: int, in_class: bool) -> int | None:
        """``\\cX``: a control character; None when no letter follows (Annex B: a literal backslash)."""
        nxt = self.peek(1)
        if (nxt.isascii() and nxt.isalpha()) or (in_class and not self.u and (nxt.isdigit() or nxt == "_")):
            self.pos += 2
            return ord(nxt) % 32
        if self.u:
            raise self.err("invalid unicode escape '\\c'", start)
        return None  # the backslash is literal; 'c' is read next as ordinary text

    def _digit_escape(self, c: str, start: int, in_class: bool) -> int:
        """A digit after the backslash where it is no backreference: \\8 and \\9 literal, else legacy octal."""
        if self.u:
            raise self.err("invalid class escape" if in_class else "invalid decimal escape", start)
        if c in "89":
            self.pos += 1
            self.note("differs", f"'\\{c}' is a literal '{c}' in ECMAScript", start)
            return ord(c)
        self.note("differs", "an octal escape in ECMAScript", start)
        return self.legacy_octal()

    def _hex_escape(self, start: int) -> int:
        """``\\xHH``; without u a ``\\x`` not followed by two hex digits is the letter x."""
        m = re.compile(r"x([0-9A-Fa-f]{2})").match(self.src, self.pos)
        if m:
            self.pos = m.end()
            return int(m.group(1), 16)
        if self.u:
            raise self.err("invalid escape '\\x'", start)
        if self.peek(1) == "{":
            self.note("differs", "'\\x{...}' is not a code point escape in ECMAScript: it reads as 'x' and a "
                                 "quantifier", start)
        self.pos += 1
        return ord("x")

    def _identity_escape(self, c: str, start: int, in_class: bool) -> int:
        """A backslash before a character that stands for itself (with u: only a syntax character)."""
        if self.u:
            if c in _SYNTAX or (in_class and c == "-"):
                self.pos += 1
                return ord(c)
            raise self.err(f"invalid escape '\\{c}'", start)
        if c == "k" and self.has_named:
            raise self.err("invalid named reference", start)
        self.pos += 1
        if c.isascii() and c.isalpha():
            py = _OTHER_ESCAPES.get(c)
            extra = f" (perhaps meant as {py})" if py else ""
            self.note("differs", f"'\\{c}' is a literal '{c}' in ECMAScript{extra}", start)
        return ord(c)

    def unicode_escape(self, start: int) -> int:
        m = re.compile(r"u([0-9A-Fa-f]{4})").match(self.src, self.pos)
        if m:
            self.pos = m.end()
            cp = int(m.group(1), 16)
            if self.u and 0xD800 <= cp <= 0xDBFF:
                m2 = re.compile(r"\\u([dD][c-fC-F][0-9A-Fa-f]{2})").match(self.src, self.pos)
                if m2:
                    self.pos = m2.end()
                    lo = int(m2.group(1), 16)
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
            return cp
        if self.u:
            m = re.compile(r"u\{([0-9A-Fa-f]+)\}").match(self.src, self.pos)
            if m and int(m.group(1), 16) <= _MAX:
                self.pos = m.end()
                return int(m.group(1), 16)
            raise self.err("invalid unicode escape", start)
        if self.peek(1) == "{":
            self.note("differs", "'\\u{...}' is a code point escape only with the 'u' flag; without it, it reads as "
                                 "'u' "
                      "repeated", start)
        self.pos += 1
        return ord("u")

    # -- classes
    def char_class(self) -> _Node:
        start = self.pos
        self.pos += 1
        negate = self.eat("^")
        ranges: list[tuple[int, int]] = []
        if self.peek() == "]":
            self.pos += 1
            self.note("differs", "'[]' matches nothing and '[^]' any character in ECMAScript; Python reads ']' as a "
                      "class member there", start)
            return _Node(_ANY if negate else "(?!)", True, 1, 1)
        while True:
            if self.pos >= len(self.src):
                raise self.err("unterminated character class", start)
            if self.peek() == "]":
                self.pos += 1
                break
            a_start = self.pos
            a = self.class_atom()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.pos += 1
                b_start = self.pos
                b = self.class_atom()
                if isinstance(a, list) or isinstance(b, list):
                    if self.u:
                        raise self.err("invalid character class", a_start)
                    for x in (a, [(0x2D, 0x2D)], b):
                        ranges.extend(x if isinstance(x, list) else [(x, x)])
                    continue
                if a > b:
                    raise self.err("range out of order in character class", b_start)
                ranges.append((a, b))
            else:
                ranges.extend(a if isinstance(a, list) else [(a, a)])
        if not self.u and any(_is_surrogate(lo) or _is_surrogate(hi) for lo, hi in ranges):
            self.note("subtle", "without the 'u' flag a class holds UTF-16 code units", start)
        return self.class_node(ranges, negate)

    def class_atom(self) -> int | list[tuple[int, int]]:
        c = self.peek()
        if c != "\\":
            self.pos += 1
            return ord(c)
        start = self.pos
        self.pos += 1
        if self.pos >= len(self.src):
            raise self.err("\\ at end of pattern", start)
        c = self.peek()
        if c == "b":
            self.pos += 1
            return 0x08
        if c == "-" and self.u:
            self.pos += 1
            return 0x2D
        cls = self.class_escape_set(start)
        if cls is not None:
            return _complement(cls[0]) if cls[1] else cls[0]
        if c == "k" and not self.u:
            if self.has_named:
                raise self.err("invalid escape '\\k' in a class", start)
            self.pos += 1
            return ord("k")
        cp = self.character_escape(start, in_class=True)
        if cp is None:  # lone "\c" in a class: the backslash is a member; "c" is read next
            return 0x5C
        return cp


_SIMPLE_ESCAPES = {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}
#: What a letter escape means in other regex dialects (ECMAScript reads it as the letter).
_OTHER_ESCAPES = {"A": "start of string", "Z": "end of string", "z": "end of string", "G": "a match anchor",
                  "a": "a bell character", "e": "an escape character", "N": "a named character",
                  "U": "a code point escape", "h": "a horizontal space", "K": "a match reset", "R": "a line break",
                  "Q": "a quote"}
#: After ``(?``: the prefix of each kind of group but a named capture, in the order they are tried.
_GROUP_PREFIXES = ((":", "group"), ("=", "ahead"), ("!", "nahead"), ("<=", "behind"), ("<!", "nbehind"))
#: a group name and its ">" (a pattern, not compiled here: its ranges up to U+10FFFF take 10 ms to compile, paid by
#: every process that imports this module, for the few regexes with a named group)
_GROUP_NAME = r"([A-Za-z_$\u0080-\U0010ffff][A-Za-z0-9_$\u0080-\U0010ffff\u200c\u200d]*)>"
#: What a group of another regex dialect is, by what follows ``(?`` (its first character).
_OTHER_GROUPS = {"P": "invalid group '(?P': Python's named-group syntax is not ECMAScript (use '(?<name>...)')",
                 **dict.fromkeys(("i", "m", "s", "x", "-", "a", "u", "L"),
                                 "invalid group: inline flags like '(?i)' are not ECMAScript (use the flags argument)"),
                 "#": "invalid group: '(?#...)' comments are not ECMAScript",
                 ">": "invalid group: atomic groups '(?>...)' are not ECMAScript"}


def _invalid_group(nxt: str) -> str:
    """Why ``(?`` followed by ``nxt`` is no group of ECMAScript's."""
    return _OTHER_GROUPS.get(nxt[:1], "invalid group")


#: The atoms that start with a character of their own (anything else is that character, or refused).
_ATOMS = {"^": _Parser._caret, "$": _Parser._dollar, ".": _Parser._dot, "(": _Parser.group, "[": _Parser.char_class,
          "\\": _Parser.atom_escape}

#: Under the i flag, keyed by the u flag: each group of characters Python's IGNORECASE folds together
#: where ECMAScript keeps some apart, as ECMAScript's classes of its characters. Without u, ECMAScript
#: upper-cases to compare (toUpperCase, kept only when it gives one code unit and does not turn a non-ASCII
#: character into an ASCII one): U+017F stays apart from "s", U+0131 and U+0130 from "i", U+1E9E from
#: U+00DF, U+03F4 from U+03B8, U+212B from U+00E5, and a Greek letter with ypogegrammeni from its capital,
#: all of which Python folds together. With u it compares simple case foldings, which Python follows but
#: for the Turkish i's. tests/run/test_run_ecmaregex.py derives both tables again from Python's Unicode
#: data and checks every case pair against Node.js.
_FOLD_GROUPS: dict[bool, tuple[tuple[str, ...], ...]] = {
    False: (("Ii", "\u0130", "\u0131"), ("Kk", "\u212a"), ("Ss", "\u017f"), ("\u00c5\u00e5", "\u212b"),
            ("\u0398\u03b8\u03d1", "\u03f4"), ("\u03a9\u03c9", "\u2126"), ("\u00df", "\u1e9e"),
            ("\u0390", "\u1fd3"), ("\u03b0", "\u1fe3"), ("\u1fb3", "\u1fbc"), ("\u1fc3", "\u1fcc"),
            ("\u1ff3", "\u1ffc"), ("\ufb05", "\ufb06"),
            *((chr(cp), chr(cp + 8)) for block in (0x1F80, 0x1F90, 0x1FA0) for cp in range(block, block + 8))),
    True: (("Ii", "\u0130", "\u0131"),),
}
#: For each of those characters, its ECMAScript class (code points) and that class as Python text.
_FOLD_PARTNERS = {u: {ord(c): tuple(sorted(map(ord, cls))) for group in groups for cls in group for c in cls}
                  for u, groups in _FOLD_GROUPS.items()}
_FOLD_SPECIAL = {u: {cp: "(?-i:[" + "".join(_esc(m) for m in p) + "])" for cp, p in partners.items()}
                 for u, partners in _FOLD_PARTNERS.items()}


def _fold_class(text: str, ranges: list[tuple[int, int]], negate: bool, u: bool) -> str:
    """``text``, a class Python runs under IGNORECASE, with ECMAScript's answer for the characters Python
    folds otherwise (:data:`_FOLD_GROUPS`): a character is in the class when a member of its ECMAScript
    class is in ``ranges`` (not, for a negated class). Only the groups that touch ``ranges`` matter."""
    def has(cp: int) -> bool:
        return any(lo <= cp <= hi for lo, hi in ranges)

    python = re.compile(text, re.IGNORECASE).fullmatch
    add: list[int] = []
    remove: list[int] = []
    for group in _FOLD_GROUPS[u]:
        if not any(has(ord(c)) for cls in group for c in cls):
            continue
        for cls in group:
            ecma = any(has(ord(c)) for c in cls) != negate
            for c in cls:
                if ecma != (python(c) is not None):
                    (add if ecma else remove).append(ord(c))
    if remove:
        text = f"(?!(?-i:[{''.join(map(_esc, remove))}])){text}"
    if add:
        text = f"(?-i:[{''.join(map(_esc, add))}])|{text}"
    return f"(?:{text})" if add or remove else text


def _lt() -> str:
    return "".join(_esc(ord(c)) for c in LINE_TERMINATORS)


def _is_surrogate(cp: int) -> bool:
    return 0xD800 <= cp <= 0xDFFF


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _split_astral(m: re.Match) -> str:
    cp = ord(m.group(0)) - 0x10000
    return chr(0xD800 + (cp >> 10)) + chr(0xDC00 + (cp & 0x3FF))


def _to_code_units(s: str) -> str:
    """The string as UTF-16 code units (astral characters become surrogate pairs)."""
    if s.isascii():
        return s
    return _ASTRAL.sub(_split_astral, s)


def _code_points(s: str) -> str:
    """UTF-16 code units back as characters (a surrogate pair joined); a lone surrogate stays."""
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace") if not s.isascii() else s


def _offset_map(s: str) -> list[int]:
    out: list[int] = []
    for i, ch in enumerate(s):
        out.append(i)
        if ord(ch) > 0xFFFF:
            out.append(i)
    out.append(len(s))
    return out


# ------------------------------------------------------------------------------------- the API


@lru_cache(maxsize=512)
def translate(pattern: str, flags: str = "") -> Translation:
    """The Python equivalent of ``new RegExp(pattern, flags)``; raises :class:`EcmaRegexError`."""
    p = _Parser(pattern, flags)
    try:
        node = p.parse()
    except RecursionError:
        raise EcmaRegexError("the pattern nests too deeply for evalfmt", 0, unsupported=True) from None
    py = node.text
    pyflags = re.IGNORECASE if p.i else 0
    return Translation(pattern, flags, py, pyflags, p.u, "y" in flags, p.total_groups,
                       dict(p.group_names), list(p.problems))


class EcmaRegex:
    """A compiled ECMAScript regex. :meth:`test` is ``RegExp.prototype.test`` on a fresh object."""

    def __init__(self, tr: Translation):
        self.translation = tr
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                self._re = re.compile(tr.python, tr.pyflags)
            except RecursionError:  # Python's own parser nests less deeply than ours
                raise EcmaRegexError("the pattern nests too deeply for evalfmt", unsupported=True) from None
            except (re.error, OverflowError) as exc:  # pragma: no cover - a translation bug, reported clearly
                raise EcmaRegexError(f"evalfmt could not translate this pattern ({exc})", unsupported=True) from None

    @property
    def source(self) -> str:
        return self.translation.source

    def test(self, subject: str) -> bool:
        s = subject if self.translation.unicode else _to_code_units(subject)
        if self.translation.sticky:
            return self._re.match(s) is not None
        return self._re.search(s) is not None


@lru_cache(maxsize=512)
def compile(pattern: str, flags: str = "") -> EcmaRegex:  # noqa: A001 - mirrors re.compile
    """Compile an ECMAScript pattern; raises :class:`EcmaRegexError` with JavaScript's reasons."""
    return EcmaRegex(translate(pattern, flags))


def test(pattern: str, subject: str, flags: str = "") -> bool:
    """``new RegExp(pattern, flags).test(subject)``."""
    return compile(pattern, flags).test(subject)


def problems(pattern: str, flags: str = "") -> list[Problem]:
    """Everything worth saying about a pattern: an ``invalid``/``unsupported`` problem when it does
    not compile (alone), otherwise the ``differs`` and ``subtle`` notes, in pattern order."""
    try:
        tr = translate(pattern, flags)
    except EcmaRegexError as exc:
        return [Problem("unsupported" if exc.unsupported else "invalid", exc.message, exc.offset)]
    try:
        compile(pattern, flags)
    except EcmaRegexError as exc:  # pragma: no cover
        return [Problem("unsupported", exc.message, exc.offset)]
    return sorted(tr.problems, key=lambda p: p.offset)
