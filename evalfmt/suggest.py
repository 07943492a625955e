"""'Did you mean ...?': the one place that picks the known word a mistyped one most likely meant.

Two answers to two questions:

- :func:`near` and :func:`key`: the closest known word, for a hint in a message where the word is an
  error anyway (terum ignores every unknown key, so any hint helps);
- :func:`typo`: whether a word *is* a typo of a known one (a near miss), where that decides the severity
  (an AgentV key agentv passes through is fine; a misspelt one loses what the author meant). The rule,
  written out in docs/agentv.md: compare the two words in lower case without ``_`` and ``-``; a near miss
  is at most 1 edit away from a known word of up to 5 such characters, at most 2 from a longer one, where
  an edit inserts, deletes or replaces one character or swaps two adjacent ones (optimal string
  alignment distance). The nearest known word wins; on a tie, the first in ``known``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def near(word: str, known: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The known word closest to ``word`` (difflib's ratio at least ``cutoff``), or None."""
    import difflib  # 1 ms to import (python -X importtime): most runs never suggest anything

    match = difflib.get_close_matches(word, list(known), n=1, cutoff=cutoff)
    return match[0] if match else None


def key(word: str, known: tuple[str, ...], synonyms: Mapping[str, str] | None = None) -> str | None:
    """The known key a mistyped one most likely meant: a synonym people write by habit from another
    format (when it is known), the same key in lower case with ``_`` for ``-``, else the closest one."""
    if synonyms and word in synonyms and synonyms[word] in known:
        return synonyms[word]
    lowered = word.lower().replace("-", "_")
    if lowered in known and lowered != word:
        return lowered
    return near(word, known)


def typo(word: str, known: Iterable[str]) -> str | None:
    """The known word that ``word`` is a typo of (the module's rule), or None when it is none's."""
    folded = _fold(word)
    best: tuple[int, str] | None = None
    for candidate in known:
        target = _fold(candidate)
        limit = 1 if len(target) <= 5 else 2
        if abs(len(folded) - len(target)) > limit:
            continue
        d = edits(folded, target)
        if d <= limit and (best is None or d < best[0]):
            best = (d, candidate)
    return best[1] if best else None


def _fold(word: str) -> str:
    return word.lower().replace("_", "").replace("-", "")


def edits(a: str, b: str) -> int:
    """The optimal string alignment distance: insertions, deletions, replacements and swaps of two
    adjacent characters, each substring edited once."""
    before: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], before[j - 2] + 1)
        before, prev = prev, row
    return prev[-1]
