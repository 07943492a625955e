"""The YAML frontmatter block of a SKILL.md, found exactly as terum finds it, in linear time.

terum matches ``/^---\\s*\\r?\\n([\\s\\S]*?)\\r?\\n---(?:\\r?\\n|$)/`` (and, for where the body starts,
the same with ``---\\s*`` before the closing line break). Run as written by a backtracking engine, that
pattern is quadratic: after ``---``, ``\\s*`` may give back each line break of a long blank run, and for
each one the lazy block scans the rest of the file for a closing line. :func:`find` gives the same
answer with at most two scans:

- the block starts after the *last* line break of the whitespace run that follows the opening
  ``---`` (where the engine tries first), and ends at the first closing line after that;
- when no closing line follows, the engine backtracks to earlier line breaks of the run; a closing
  line can then only be the run's own last line break, followed by ``---``: the block starts after
  the line break before it (and is empty, or holds only blank lines).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SPACE = re.compile(r"\s*")
_CLOSE = re.compile(r"\r?\n---(?:\r?\n|$)")
_CLOSE_SPACED = re.compile(r"\r?\n---\s*(?:\r?\n|$)")


@dataclass(frozen=True)
class Block:
    """A frontmatter block of ``text``: the YAML is ``text[start:end]``, the body begins at ``after``."""

    text: str
    start: int
    end: int
    after: int

    @property
    def yaml(self) -> str:
        return self.text[self.start:self.end]


def find(text: str, *, bom: bool = False, spaced_close: bool = False) -> Block | None:
    """The frontmatter block at the start of ``text`` (None when there is none). ``bom``: a leading
    U+FEFF may precede the opening ``---``; ``spaced_close``: the closing ``---`` may be followed by
    whitespace (terum's rule for where the body starts)."""
    at = 1 if bom and text.startswith("\ufeff") else 0
    if not text.startswith("---", at):
        return None
    start = at + 3
    close = _CLOSE_SPACED if spaced_close else _CLOSE
    space = _SPACE.match(text, start)
    assert space is not None  # \s* matches, at least the empty string
    run_end = space.end()
    last = text.rfind("\n", start, run_end)
    if last < 0:
        return None
    m = close.search(text, last + 1)
    if m:
        return Block(text, last + 1, m.start(), m.end())
    prev = text.rfind("\n", start, last)
    if prev < 0:
        return None
    for e in (last - 1, last):
        if e > prev:
            m = close.match(text, e)
            if m:
                return Block(text, prev + 1, e, m.end())
    return None
