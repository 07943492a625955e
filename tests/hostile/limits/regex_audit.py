"""A structural audit of Python regexes: which shapes can make ``re`` take more than linear time.

Python's ``re`` is a backtracking engine. On a text of length n a pattern stays linear when none of
these shapes occurs (each is reported with a reason):

- ``nested``: an unbounded repeat inside an unbounded repeat, where one iteration of the outer repeat
  can end at more than one place (``(\\w+\\s?)+``): exponential. A body that must begin with a
  character its inner repeats cannot take (``(?:-[a-z0-9]+)*``) has exactly one split, and passes.
- ``adjacent``: an unbounded repeat followed, in the same sequence, by another unbounded repeat that
  can start inside the first one's run and scan over places where the first one can end, with
  nothing in between that the first cannot take (``\\s*\\r?\\n[\\s\\S]*?``): every split point is
  tried, and each rescans, so polynomial.
- ``restart`` (only for patterns used with ``search``/``finditer``/``sub``/...): an unbounded repeat
  that can take a character a match can start with, and after which the match can still fail
  (``[a-z0-9.]+@``: a long run without ``@`` is scanned again from each of its characters:
  quadratic). Safe: a repeat at the very end of the pattern (once it runs, the match succeeds), a
  pattern anchored at the start of the text, and a possessive leading repeat behind a negative
  lookbehind of its own characters (an attempt can only start where a run starts).

Repeats with a finite upper bound (``{0,100}``) cost a constant factor and are not "unbounded".
The checks are conservative: a pattern they pass is linear; one they flag may still be (say why in
the allow list of the test).
"""

from __future__ import annotations

import ast
import collections
import functools
import importlib
import pathlib
import pkgutil
import re
from dataclasses import dataclass
from re import _constants as C  # noqa: N812
from re import _parser as P  # noqa: N812

#: Characters tried when deciding whether two character sets intersect (besides every literal and
#: range end the two sets name): ASCII and a sample of what \s, \w, \d and . cover beyond it.
_SAMPLE = [chr(c) for c in range(128)] + [chr(c) for c in (
    0x85, 0xA0, 0xAA, 0xB5, 0xE9, 0x130, 0x17F, 0x430, 0x660, 0x1680, 0x2000, 0x200A, 0x200B, 0x2028,
    0x2029, 0x202F, 0x205F, 0x212A, 0x3000, 0x4E00, 0xD7FF, 0xE000, 0xFEFF, 0xFFFD, 0xFFFF, 0x10000,
    0x1F600, 0x10FFFF)]

_CATEGORY_RE = {
    C.CATEGORY_DIGIT: r"\d", C.CATEGORY_NOT_DIGIT: r"\D", C.CATEGORY_SPACE: r"\s",
    C.CATEGORY_NOT_SPACE: r"\S", C.CATEGORY_WORD: r"\w", C.CATEGORY_NOT_WORD: r"\W",
}
_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT)
_UNBOUNDED_AT = 10_000  # a repeat allowing more than this many iterations counts as unbounded


@dataclass(frozen=True)
class Finding:
    kind: str  # nested / adjacent / restart
    detail: str


class _Set:
    """A set of characters, as a membership test plus the characters it names (for sampling)."""

    def __init__(self, test, named=()):
        self.test = test
        self.named = set(named)

    def __or__(self, other: _Set) -> _Set:
        return _Set(lambda ch: self.test(ch) or other.test(ch), self.named | other.named)

    def overlaps(self, other: _Set) -> bool:
        return any(self.test(ch) and other.test(ch) for ch in set(_SAMPLE) | self.named | other.named)

    def within(self, other: _Set) -> bool:
        return all(other.test(ch) for ch in set(_SAMPLE) | self.named | other.named if self.test(ch))


_EMPTY = _Set(lambda ch: False)


class _Analyser:
    def __init__(self, flags: int):
        self.flags = flags
        self.fold = bool(flags & re.IGNORECASE)
        self.cat = {k: re.compile(v, flags & re.ASCII) for k, v in _CATEGORY_RE.items()}

    # ---- single-character sets
    def _case(self, test):
        if not self.fold:
            return test
        def folded(ch: str) -> bool:
            return test(ch) or any(len(v) == 1 and test(v) for v in (ch.lower(), ch.upper()))
        return folded

    def char_set(self, op, av) -> _Set | None:
        """The set of a one-character item, None for anything else."""
        if op == C.LITERAL:
            c = chr(av)
            return _Set(self._case(lambda ch: ch == c), [v for v in (c, c.lower(), c.upper()) if len(v) == 1])
        if op == C.NOT_LITERAL:
            c = chr(av)
            return _Set(lambda ch: ch != c and (not self.fold or ch.lower() != c.lower()), [c])
        if op == C.ANY:
            dotall = bool(self.flags & re.DOTALL)
            return _Set(lambda ch: dotall or ch != "\n", ["\n"])
        if op == C.IN:
            negate = bool(av) and av[0][0] == C.NEGATE
            parts, named = [], []
            for iop, iav in av[1:] if negate else av:
                if iop == C.LITERAL:
                    c = chr(iav)
                    parts.append(lambda ch, c=c: ch == c)
                    named += [v for v in (c, c.lower(), c.upper()) if len(v) == 1]
                elif iop == C.RANGE:
                    lo, hi = iav
                    parts.append(lambda ch, lo=lo, hi=hi: lo <= ord(ch) <= hi)
                    named += [chr(lo), chr(hi), chr(min(hi, lo + 1)), chr(max(lo, hi - 1))]
                elif iop == C.CATEGORY:
                    rx = self.cat[iav]
                    parts.append(lambda ch, rx=rx: rx.fullmatch(ch) is not None)
                else:  # pragma: no cover - CHARSET/BIGCHARSET only appear after compilation
                    raise ValueError(f"unexpected class item {iop}")
            inner = self._case(lambda ch: any(p(ch) for p in parts))
            return _Set((lambda ch: not inner(ch)) if negate else inner, named)
        return None

    # ---- properties of items and sequences
    def nullable(self, seq) -> bool:
        return all(self.item_nullable(op, av) for op, av in seq)

    def item_nullable(self, op, av) -> bool:
        if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
            return True
        if op in _REPEATS:
            return av[0] == 0 or self.nullable(av[2])
        if op == C.SUBPATTERN:
            return self.nullable(av[3])
        if op == C.ATOMIC_GROUP:
            return self.nullable(av)
        if op == C.BRANCH:
            return any(self.nullable(alt) for alt in av[1])
        if op == C.GROUPREF_EXISTS:
            return self.nullable(av[1]) or av[2] is None or self.nullable(av[2])
        return op == C.GROUPREF

    def consumes(self, seq) -> _Set:
        """Every character the sequence can consume (lookarounds excluded)."""
        out = _EMPTY
        for op, av in seq:
            cs = self.char_set(op, av)
            if cs is not None:
                out = out | cs
            elif op in _REPEATS:
                out = out | self.consumes(av[2])
            elif op == C.SUBPATTERN:
                out = out | self.consumes(av[3])
            elif op == C.ATOMIC_GROUP:
                out = out | self.consumes(av)
            elif op == C.BRANCH:
                for alt in av[1]:
                    out = out | self.consumes(alt)
            elif op == C.GROUPREF_EXISTS:
                out = out | self.consumes(av[1]) | (self.consumes(av[2]) if av[2] else _EMPTY)
            elif op == C.GROUPREF:
                out = out | _Set(lambda ch: True)
        return out

    def first(self, seq) -> _Set:
        """The characters a match of the sequence can begin with."""
        return self.edge(seq, False)

    def last(self, seq) -> _Set:
        """The characters a match of the sequence can end with."""
        return self.edge(seq, True)

    def edge(self, seq, end: bool) -> _Set:
        out = _EMPTY
        for op, av in (reversed(list(seq)) if end else seq):
            out = out | self.item_edge(op, av, end)
            if not self.item_nullable(op, av):
                break
        return out

    def item_first(self, op, av) -> _Set:
        return self.item_edge(op, av, False)

    def item_edge(self, op, av, end: bool) -> _Set:
        cs = self.char_set(op, av)
        if cs is not None:
            return cs
        if op in _REPEATS:
            return self.edge(av[2], end) if av[1] else _EMPTY
        if op == C.SUBPATTERN:
            return self.edge(av[3], end)
        if op == C.ATOMIC_GROUP:
            return self.edge(av, end)
        if op == C.BRANCH:
            out = _EMPTY
            for alt in av[1]:
                out = out | self.edge(alt, end)
            return out
        if op == C.GROUPREF_EXISTS:
            return self.edge(av[1], end) | (self.edge(av[2], end) if av[2] else _EMPTY)
        if op == C.GROUPREF:
            return _Set(lambda ch: True)
        return _EMPTY

    def unbounded_repeats(self, seq, inside_look=False):
        """(repeat item, its path of enclosing items) for every unbounded repeat outside lookarounds."""
        for op, av in seq:
            if op in _REPEATS:
                if av[1] > _UNBOUNDED_AT and not inside_look:
                    yield op, av
                yield from self.unbounded_repeats(av[2], inside_look)
            elif op == C.SUBPATTERN:
                yield from self.unbounded_repeats(av[3], inside_look)
            elif op == C.ATOMIC_GROUP:
                yield from self.unbounded_repeats(av, inside_look)
            elif op == C.BRANCH:
                for alt in av[1]:
                    yield from self.unbounded_repeats(alt, inside_look)
            elif op in (C.ASSERT, C.ASSERT_NOT):
                yield from self.unbounded_repeats(av[1], True)
            elif op == C.GROUPREF_EXISTS:
                yield from self.unbounded_repeats(av[1], inside_look)
                if av[2]:
                    yield from self.unbounded_repeats(av[2], inside_look)


def _flat(a: _Analyser, seq) -> list:
    """The sequence with groups opened (their items in line), lookarounds dropped."""
    out = []
    for op, av in seq:
        if op == C.SUBPATTERN:
            out.extend(_flat(a, av[3]))
        elif op in (C.ASSERT, C.ASSERT_NOT):
            continue
        else:
            out.append((op, av))
    return out


def _sequences(a: _Analyser, seq):
    """Every sequence of the pattern (the top one, repeat bodies, alternatives), groups opened."""
    flat = _flat(a, seq)
    yield flat
    for op, av in flat:
        if op in _REPEATS:
            yield from _sequences(a, av[2])
        elif op == C.ATOMIC_GROUP:
            yield from _sequences(a, av)
        elif op == C.BRANCH:
            for alt in av[1]:
                yield from _sequences(a, alt)
        elif op == C.GROUPREF_EXISTS:
            yield from _sequences(a, av[1])
            if av[2]:
                yield from _sequences(a, av[2])


def _branches(a: _Analyser, seq):
    """The alternatives of every alternation in ``seq`` (outside lookarounds)."""
    for op, av in seq:
        if op == C.BRANCH:
            yield av[1]
            for alt in av[1]:
                yield from _branches(a, alt)
        elif op in _REPEATS:
            yield from _branches(a, av[2])
        elif op == C.SUBPATTERN:
            yield from _branches(a, av[3])
        elif op == C.ATOMIC_GROUP:
            yield from _branches(a, av)


def _unbounded(op, av) -> bool:
    return op in _REPEATS and av[1] > _UNBOUNDED_AT


def audit(pattern: re.Pattern, search: bool) -> list[Finding]:
    """The risky shapes of ``pattern`` (``search``: it is used to scan, not only at one position)."""
    tree = P.parse(pattern.pattern, pattern.flags)
    a = _Analyser(tree.state.flags)
    seq = list(tree)
    found: list[Finding] = []
    for sub in _sequences(a, seq):
        for i, (op, av) in enumerate(sub):
            if not _unbounded(op, av):
                continue
            body = list(av[2])
            # nested: an unbounded repeat inside this one, and an iteration that can end in two places
            inner = list(a.unbounded_repeats(body))
            if inner and (a.nullable(body) or a.first(body).overlaps(a.last(body))):
                found.append(Finding("nested", f"repeat {_show(pattern, av)} holds a repeat, and the end of one "
                                               "iteration can take what starts the next"))
            # alternatives inside the repeat that can match the same text: each iteration doubles
            for alts in _branches(a, body):
                for x in range(len(alts)):
                    for y in range(x + 1, len(alts)):
                        if a.first(alts[x]).overlaps(a.first(alts[y])) or \
                                (a.nullable(alts[x]) and a.nullable(alts[y])):
                            found.append(Finding("nested", f"repeat {_show(pattern, av)} holds alternatives "
                                                           "that can match the same text"))
            # adjacent: a later repeat in this sequence that can take what this one takes
            if op == C.POSSESSIVE_REPEAT:
                continue
            # a later repeat that can start inside this one's run, and scan over a place where this
            # one can end: every way to end is tried, and each rescans (for a repeat of one class,
            # it can end anywhere; for a group, only after what an iteration ends with)
            mine, starts, ends = a.consumes(body), a.first(body), a.last(body)
            for op2, av2 in sub[i + 1:]:
                if _unbounded(op2, av2) and a.first(av2[2]).overlaps(mine) and a.consumes(av2[2]).overlaps(ends):
                    found.append(Finding("adjacent", f"repeats {_show(pattern, av)} and {_show(pattern, av2)} "
                                                     "can split the same run in many places"))
                    break
                if not a.item_nullable(op2, av2) and not a.item_first(op2, av2).overlaps(starts):
                    break  # a separator no iteration of the repeat can begin with: its end is fixed
                if a.char_set(op2, av2) is None and not _unbounded(op2, av2) and \
                        a.item_first(op2, av2).overlaps(mine) and \
                        any(a.consumes(r[1][2]).overlaps(ends) for r in a.unbounded_repeats([(op2, av2)])):
                    found.append(Finding("adjacent", f"repeat {_show(pattern, av)} is followed by a group "
                                                     "holding a repeat over the same characters"))
                    break
    if search:
        found.extend(_restart(a, seq, pattern))
    return found


def _restart(a: _Analyser, seq, pattern: re.Pattern) -> list[Finding]:
    """Repeats a scan can restart inside: for each, every alternative of the pattern must refuse to
    start an attempt inside the repeat's run within a bounded number of characters."""
    flat = _flat(a, seq)
    alts = [list(alt) for alt in flat[0][1][1]] if len(flat) == 1 and flat[0][0] == C.BRANCH else [list(seq)]
    multiline = bool(pattern.flags & re.MULTILINE)
    out = []
    for alt in alts:
        for _op, av in a.unbounded_repeats(alt):
            run = a.consumes(av[2])
            if _trailing(a, alt, av) or all(_refuses_inside(a, other, run, multiline) for other in alts):
                continue
            out.append(Finding("restart", f"repeat {_show(pattern, av)} can run over where the next attempt "
                                          "starts and still fail: each start rescans the run"))
    return out


def _refuses_inside(a: _Analyser, alt: list, run: _Set, multiline: bool) -> bool:
    """True when an attempt of this alternative cannot get far from a start inside ``run``."""
    flat = _flat(a, alt)
    if flat and flat[0][0] == C.AT and (flat[0][1] == C.AT_BEGINNING_STRING
                                        or flat[0][1] == C.AT_BEGINNING and not multiline):
        return True  # one attempt only, at the start of the text
    line_starts = bool(flat) and flat[0] == (C.AT, C.AT_BEGINNING) and multiline
    if line_starts and not run.test("\n"):
        return True  # attempts start after a line break, which the run does not hold
    if not line_starts and not a.first(alt).overlaps(run):
        return True
    behind = _leading_lookbehind(a, alt)
    if behind is not None and run.within(behind):
        return True  # inside the run, the look-behind fails at once
    return _prefix_leaves(a, alt, run, line_starts)


def _leading_lookbehind(a: _Analyser, seq) -> _Set | None:
    """The characters a one-character negative look-behind at the start of the pattern refuses."""
    items = list(seq)
    if items and items[0][0] == C.AT:
        items = items[1:]
    if items and items[0][0] == C.ASSERT_NOT and items[0][1][0] == -1:
        inner = list(items[0][1][1])
        if len(inner) == 1 and a.char_set(*inner[0]) is not None:
            return a.char_set(*inner[0])
    return None


def _prefix_leaves(a: _Analyser, seq, run: _Set, line_starts: bool) -> bool:
    """True when every match must begin, within a bounded number of characters, with a character
    outside ``run``: an attempt started inside the run then fails within those few characters.
    (Blanks that stop at a line break count as bounded when attempts start at line starts only.)"""
    for op, av in _flat(a, seq):
        if op == C.AT:
            continue
        cs = a.char_set(op, av)
        if cs is not None:
            if not cs.overlaps(run):
                return True
            continue
        if op in _REPEATS and len(av[2]) == 1 and a.char_set(*av[2][0]) is not None:
            one = a.char_set(*av[2][0])
            if av[0] >= 1:
                if not one.overlaps(run):
                    return True
                if av[1] > _UNBOUNDED_AT:
                    return False
                continue
            if av[1] <= _UNBOUNDED_AT or (line_starts and not one.test("\n")):
                continue  # optional, and bounded (or held to one line)
        return False
    return False


def _trailing(a: _Analyser, seq, target) -> bool:
    """True when nothing that can fail follows ``target`` (a repeat's args) up to the end of the pattern."""
    def walk(items, after_ok: bool) -> bool | None:
        # returns True/False once the target is found in ``items``, None when it is not there
        items = list(items)
        for i, (op, av) in enumerate(items):
            rest_ok = after_ok and all(_harmless(a, o, v) for o, v in items[i + 1:])
            if av is target:
                return rest_ok
            if op in _REPEATS:
                r = walk(av[2], rest_ok and av[0] <= 1)
            elif op == C.SUBPATTERN:
                r = walk(av[3], rest_ok)
            elif op == C.ATOMIC_GROUP:
                r = walk(av, rest_ok)
            elif op == C.BRANCH:
                r = None
                for alt in av[1]:
                    r = walk(alt, rest_ok)
                    if r is not None:
                        break
            else:
                r = None
            if r is not None:
                return r
        return None

    return bool(walk(seq, True))


def _harmless(a: _Analyser, op, av) -> bool:
    """Can always match (the empty string) without an assertion that could fail."""
    if op in (C.AT, C.ASSERT, C.ASSERT_NOT, C.GROUPREF, C.GROUPREF_EXISTS):
        return False
    if op in _REPEATS:
        return av[0] == 0
    if op == C.SUBPATTERN:
        return all(_harmless(a, o, v) for o, v in av[3])
    if op == C.BRANCH:
        return any(all(_harmless(a, o, v) for o, v in alt) for alt in av[1])
    return False


def _show(pattern: re.Pattern, av) -> str:
    lo, hi = av[0], av[1]
    return f"{{{lo},{'' if hi > _UNBOUNDED_AT else hi}}}"


# ------------------------------------------------------------------------------ finding the patterns

_SCAN_METHODS = {"search", "finditer", "findall", "sub", "subn", "split"}


@dataclass(frozen=True)
class Builtin:
    where: str  # module:NAME or module:line
    pattern: re.Pattern
    search: bool


def _module_names(pkg, package: str) -> list[str]:
    names = [package] + [i.name for i in pkgutil.walk_packages(pkg.__path__, package + ".")]
    return [n for n in names if not n.endswith(".__main__")]


@functools.cache
def module_patterns(package: str = "evalfmt") -> list[Builtin]:
    """Every compiled pattern held at module level (also inside tuples, lists and dict values), and
    how it is used: ``search`` unless every use of its name anywhere in the package is a call of
    ``.match`` or ``.fullmatch`` (a pattern passed around or kept in a container counts as search)."""
    pkg = importlib.import_module(package)
    modules = [importlib.import_module(name) for name in _module_names(pkg, package)]
    sources = "\n".join(pathlib.Path(m.__file__).read_text(encoding="utf-8") for m in modules)
    # uses of each name (not its assignments), and those that call .match/.fullmatch on it
    refs = collections.Counter(re.findall(r"(?<!\w)([A-Za-z_]\w*)(?!\w)(?!\s*[:=][^=])", sources))
    anchored = collections.Counter(re.findall(r"(?<!\w)([A-Za-z_]\w*)\.(?:match|fullmatch)\(", sources))
    out: list[Builtin] = []
    seen: set[int] = set()
    for mod in modules:  # a pattern imported into other modules is listed under the module that assigns it
        source = pathlib.Path(mod.__file__).read_text(encoding="utf-8")
        for name, value in sorted(vars(mod).items()):
            if not re.search(rf"^{re.escape(name)}\s*(?::[^=\n]*)?=", source, re.M):
                continue  # not assigned here (imported)
            in_container = isinstance(value, (tuple, list, dict))
            items = list(value.values()) if isinstance(value, dict) else list(value) if in_container else [value]
            for i, item in enumerate(items):
                if not isinstance(item, re.Pattern) or id(item) in seen:
                    continue
                seen.add(id(item))
                label = f"{mod.__name__}:{name}" + (f"[{i}]" if in_container else "")
                out.append(Builtin(label, item, in_container or refs[name] > anchored[name]))
    return out


@functools.cache
def inline_patterns(package: str = "evalfmt") -> list[Builtin]:
    """Patterns written as a literal in a call ``re.<fn>("...", ...)`` inside functions."""
    pkg = importlib.import_module(package)
    out: list[Builtin] = []
    for name in _module_names(pkg, package):
        path = pathlib.Path(importlib.import_module(name).__file__)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                continue
            fn = node.func.attr
            if fn == "compile" or fn == "escape":
                continue  # module-level ones are found by module_patterns; escape is not a pattern
            flags = 0
            for arg in list(node.args[2 if fn in ("search", "match", "fullmatch", "finditer", "findall") else 3:]) + \
                    [k.value for k in node.keywords if k.arg == "flags"]:
                try:
                    flags |= int(eval(compile(ast.Expression(arg), "<flags>", "eval"), {"re": re}))  # noqa: S307
                except Exception:  # noqa: BLE001 - not a constant flag
                    pass
            out.append(Builtin(f"{name}:{node.lineno}", re.compile(node.args[0].value, flags),
                               fn in _SCAN_METHODS))
    return out
