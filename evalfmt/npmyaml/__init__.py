"""YAML as the ``yaml`` npm package (2.x) reads it with the options agentv 4.42.4 passes
(``parse(text, {merge: true})``): which texts it refuses, where, and the data it gives.

evalfmt reads YAML with libyaml (fast), which accepts texts this package refuses (a quoted string whose
next line is not indented past its key, a flow list whose lines fall back left of its key, a comment
glued to a closing quote, two keys with the same value such as ``1`` and ``1.0``, merge sources that are
not mappings, more than 100 uses of one alias, ...) and refuses a few it accepts (a tab after ``-``,
control characters, ``{a:b}``, ...). For agentv files evalfmt asks this module instead, so that the
gate refuses exactly what agentv refuses, at the position agentv reports.

The module follows the package stage by stage: :mod:`.lexer` (lexemes), :mod:`.cst` (the concrete
syntax tree), :mod:`.compose` (nodes, with the errors raised while composing) and :mod:`.tojs`
(aliases, merge keys and the data). ``parse`` raises :class:`YamlError` for the first error the
package would throw; line and column are counted as it counts them (lines by its own line starts,
columns in code points where the package counts UTF-16 units).
"""

from __future__ import annotations

import bisect
import sys

from .error import YamlError

__all__ = ["YamlError", "load", "parse", "check", "line_col"]

_RECURSION = 8_000


def line_col(starts: list[int], offset: int) -> tuple[int, int]:
    low = bisect.bisect_left(starts, offset)
    if low < len(starts) and starts[low] == offset:
        return low + 1, 1
    if low == 0:  # pragma: no cover - the first line starts at 0
        return 0, offset
    return low, offset - starts[low - 1] + 1


def _located(err: YamlError, starts: list[int]) -> YamlError:
    err.starts = starts
    err.line, err.column = line_col(starts, err.offset) if err.offset is not None else (None, None)
    if err.first is not None:
        err.first_pos = line_col(starts, err.first)
    return err


class _Recursion:
    """The composer recurses once per nesting level (at most ``MAX_DEPTH``): room for that."""

    def __enter__(self):
        self.limit = sys.getrecursionlimit()
        if self.limit < _RECURSION:
            sys.setrecursionlimit(_RECURSION)

    def __exit__(self, *exc):
        if self.limit < _RECURSION:
            sys.setrecursionlimit(self.limit)


def load(text: str):
    """(data, duplicate keys) for ``text`` as agentv gets it: mappings as :class:`~evalfmt.load.YMap`
    with positions, sequences as ``YSeq``. Raises :class:`YamlError` (with ``line`` and ``column``)
    for the first error the package throws, except when every error is a duplicate key: those are
    returned (``YamlError`` objects with ``key`` and ``first``; the later value wins in the data) so
    that a reader can report each of them and still read the rest."""
    # lazy facade: the model of the package, 3.7 ms to import (python -X importtime), only for a text outside the
    # plain subset (formats/agentv/loader.py, formats/promptfoo/loader.py)
    from .compose import compose
    from .tojs import ToJS

    with _Recursion():
        doc, starts = compose(text)
        errors = doc.errors
        if errors and any(e.code != "DUPLICATE_KEY" for e in errors):
            raise _located(errors[0], starts)
        try:
            data = ToJS(doc.contents, lambda off: line_col(starts, off)).run()
        except YamlError as err:
            raise _located(errors[0] if errors else err, starts) from None
        return data, [_located(e, starts) for e in errors]


def parse(text: str):
    """The data agentv gets for ``text``; :class:`YamlError` for the first error the package throws
    (a duplicate key included)."""
    data, dups = load(text)
    if dups:
        raise dups[0]
    return data


def check(text: str) -> YamlError | None:
    """The first error the package throws for ``text``, or None when it accepts it."""
    try:
        parse(text)
    except YamlError as err:
        return err
    return None
