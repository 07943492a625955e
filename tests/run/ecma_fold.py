"""Case folding, ECMAScript's and Python's: the pairs of characters either may relate under the ``i`` flag.

Python relates characters by its case mappings (``lower``, ``upper``, ``title``, ``casefold`` of one
character, ``re``'s simple lower-casing) and by ``re``'s extra cases; ECMAScript without ``u`` by
``toUpperCase`` (Canonicalize: one code unit, never non-ASCII to ASCII), with ``u`` by simple case folding,
which every case mapping links too. So the groups linked by any of those mappings hold every pair either
engine may fold together: :func:`fold_cases` asks about each ordered pair in each group."""

from __future__ import annotations

import itertools
import random
import re

import _sre
from re import _casefix  # type: ignore[attr-defined]

_SYNTAX = set("\\^$.*+?()[]{}|/")


def case_groups() -> list[list[str]]:
    """The characters linked by any case mapping, in groups of two or more (sorted)."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF or not _sre.unicode_iscased(cp):
            continue
        c = chr(cp)
        for d in {c.lower(), c.upper(), c.title(), c.casefold(), chr(_sre.unicode_tolower(cp))} - {c}:
            if len(d) == 1:
                parent[root(c)] = root(d)
    for k, vs in _casefix._EXTRA_CASES.items():
        for v in vs:
            parent[root(chr(k))] = root(chr(v))
    groups: dict[str, list[str]] = {}
    for c in parent:
        groups.setdefault(root(c), []).append(c)
    return sorted(sorted(g) for g in groups.values() if len(g) > 1)


def fold_cases() -> list[list[str]]:
    """``[pattern, flags, subject]`` for every ordered pair (x, y) of a group: ``x`` and ``[x]`` against
    ``y``, with ``i`` and with ``iu``."""
    cases = []
    for group in case_groups():
        for x, y in itertools.permutations(group, 2):
            atom = "\\" + x if x in _SYNTAX else x
            cases += [[atom, f, y] for f in ("i", "iu")] + [[f"[{x}]", f, y] for f in ("i", "iu")]
    return cases


def python_matches(x: str, y: str) -> bool:
    """Python's ``re`` with IGNORECASE: does ``x`` match ``y``."""
    return re.fullmatch(re.escape(x), y, re.IGNORECASE) is not None


def ecma_key(c: str, u: bool) -> str:
    """What ECMAScript compares under ``i``: without ``u``, Canonicalize (``toUpperCase`` when it gives
    one code unit and does not turn a non-ASCII character into an ASCII one); with ``u``, the case folding
    (Python's ``casefold``, which gives ECMAScript's simple folding's classes)."""
    if u:
        return c.casefold()
    upper = c.upper()
    return c if len(upper) != 1 or (ord(c) >= 128 and ord(upper) < 128) else upper


def differing_groups(u: bool) -> set[frozenset[frozenset[str]]]:
    """The case groups where Python's IGNORECASE and ECMAScript's ``i`` (with or without ``u``) relate
    some character differently, each as the set of ECMAScript classes of those characters (without
    ``u``, code units only: an astral character is two surrogates, which have no case)."""
    out = set()
    for group in case_groups():
        chars = [c for c in group if u or ord(c) <= 0xFFFF]
        classes = set()
        for c in chars:
            ecma = frozenset(d for d in chars if ecma_key(d, u) == ecma_key(c, u))
            if frozenset(d for d in chars if python_matches(c, d)) != ecma:
                classes.add(ecma)
        if classes:
            out.add(frozenset(classes))
    return out


def class_cases(seed: int, n: int = 600) -> list[list[str]]:
    """``[pattern, flags, subject]``: classes of characters Python folds otherwise, ranges, ``\\w \\W \\s``
    and property escapes, negated or not, and word boundaries, each against characters of the same case
    groups, with ``i`` and with ``iu`` (a seeded random sample)."""
    tricky = {c for u in (False, True) for group in differing_groups(u) for cls in group for c in cls}
    chars = sorted({c for g in case_groups() if set(g) & tricky for c in g} | set("azAZ09_-"))
    rng = random.Random(seed)

    def esc(c: str) -> str:
        return "\\" + c if c in _SYNTAX | {"-"} else c

    def item() -> str:
        a, b = rng.choice(chars), rng.choice(chars)
        if rng.random() < 0.4 and a <= b:
            return f"{esc(a)}-{esc(b)}"
        return rng.choice([esc(a), esc(a), r"\w", r"\W", r"\s"])

    patterns = [r"\w", r"\W", r"[\w]", r"[^\w]", r"[\W]", r"[^\W]", r"\b", r"\B", r"\p{Lu}", r"\P{Lu}",
                r"[^\p{Lu}]", r"[\p{Ll}\d]", r"[^\W\d]", r"^\w+$", r"\bk", r"s\B"]
    patterns += ["[" + "^" * (rng.random() < 0.4) + "".join(item() for _ in range(rng.randint(1, 3))) + "]"
                 for _ in range(n)]
    cases = [[p, f, s] for p in patterns for f in ("i", "iu") for s in rng.sample(chars, 6)]
    cases += [[p, f, a + b] for p in (r"\b", r"\B", r"^\w\b", r"\w\B\w") for f in ("i", "iu") for a in chars[:40]
              for b in ("\u017f", "\u212a", "\u0131", "k", " ")]
    return cases
