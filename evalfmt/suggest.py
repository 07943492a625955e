"""'Did you mean ...?': the one place that picks the known word a mistyped one most likely meant."""

from __future__ import annotations

from typing import Iterable, Mapping


def near(word: str, known: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The known word closest to ``word`` (difflib's ratio at least ``cutoff``), or None."""
    import difflib  # lazily: most runs never suggest anything

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
