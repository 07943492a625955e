"""Cases whose content their own tool computes when it runs (a skillgym ``prompt: buildPrompt({...})``).

evalfmt reads suites statically, so such a case's prompt is not known: its reader keeps the code as written
(the case writes back into its own format unchanged) and marks the case ``hints["computed"]`` with where
and why (``{"why", "line", "column"}``).
Another format cannot be given that case: :func:`leave_out` takes it out of a conversion or a transpile,
with one line naming it.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ..errors import one_line

if TYPE_CHECKING:  # pragma: no cover
    from .. import ir


def leave_out(evalset: ir.EvalSet) -> tuple[ir.EvalSet, list[str]]:
    """``evalset`` without its computed cases, and one ``file:line:col: case 'name': why`` line per case
    left out (the set itself when it has none)."""
    kept = [c for c in evalset.cases if "computed" not in c.hints]
    if len(kept) == len(evalset.cases):
        return evalset, []
    lines = [_line(c, evalset) for c in evalset.cases if "computed" in c.hints]
    return dataclasses.replace(evalset, cases=kept), lines


def _line(case: ir.Case, evalset: ir.EvalSet) -> str:
    mark = case.hints["computed"]
    where = case.span.file if case.span is not None else (evalset.source or "?")
    if isinstance(mark, dict):
        where += f":{mark.get('line')}:{mark.get('column')}"
        why = mark.get("why")
    else:
        why = mark
    return one_line(f"{where}: case '{case.name}': {why}; evalfmt reads suites statically")
