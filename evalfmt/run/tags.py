"""Case selection by tag, as skillgym does it (``skillgym run --tag a,b --tag c``).

``--tag`` is repeatable and takes comma-separated values; an empty tag is a usage error; the tags are
OR-matched: a case is selected when it carries at least one of them. With no ``--tag`` every case is
selected; with one, a case (or a terum suite) without tags is not. ``score``, ``compare`` and ``run``
take the option.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from collections.abc import Iterable

from .. import ir
from ..errors import EvalfmtError, UsageError

if TYPE_CHECKING:  # pragma: no cover - kept light: the commands import this module at start
    from .. import ir

def parse(values: Iterable[str]) -> list[str]:
    """The tags of ``--tag`` options, in order, without repeats; an empty one is a usage error."""
    out: list[str] = []
    for value in values:
        for tag in value.split(","):
            tag = tag.strip()
            if not tag:
                raise UsageError("--tag takes non-empty tags (comma-separated or repeated)")
            if tag not in out:
                out.append(tag)
    return out


def selected(case: ir.Case, tags: list[str]) -> bool:
    """True when no tag is asked for, or the case carries one of them."""
    return not tags or any(t in tags for t in (case.tags or []))


def filter_set(evalset: ir.EvalSet, tags: list[str]) -> ir.EvalSet:
    """The eval set with only the selected cases (and its suite only when the suite is selected)."""
    if not tags:
        return evalset
    suite = evalset.suite if evalset.suite is not None and selected(evalset.suite, tags) else None
    return ir.replace(evalset, cases=[c for c in evalset.cases if selected(c, tags)], suite=suite)


def check_names(names: Iterable[str], known: Iterable[str]) -> None:
    """``--case``: every name asked for must be one of ``known`` (the cases left after ``--tag``)."""
    known = set(known)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise EvalfmtError(f"no case named '{unknown[0]}' (cases: {', '.join(sorted(known)) or 'none'})")
