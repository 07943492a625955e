"""The text of a comparison and its exit code: shared by ``compare`` and ``run`` (commands never import
each other; what two of them print alike lives here)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..run.compare import Comparison
    from ..run.triggers import TriggerScore


def text_lines(cmp: Comparison, trig: TriggerScore | None = None) -> list[str]:
    """The text report: one line per row (with the failed checks, or why a row was not scored),
    then terum's report lines and the trigger lines."""
    out = []
    for row in cmp.rows:
        rep = f" #{row.repetition}" if cmp.k > 1 else ""
        line = f"{row.case}{rep} vs {row.opponent}: {row.outcome} ({row.reason})"
        if not row.scored:  # a dead arm: its error says why, not the live arm's failed checks
            if row.detail:
                line += f" — {row.detail}"
            out.append(line)
            continue
        failed = []
        for arm, res in (("candidate", row.candidate), (row.opponent, row.opponent_result)):
            if res is not None and res.failed:
                failed.append(f"{arm} failed {', '.join(res.failed)}")
        if failed:
            line += " — " + "; ".join(failed)
        out.append(line)
    out.extend(cmp.report_lines())
    if trig is not None:
        out.extend(trig.lines())
    return out


def exit_code(cmp: Comparison, require_pass: bool = False) -> int:
    """1 for FAIL or when no row could be scored (with ``require_pass`` also for NEUTRAL), else 0."""
    if cmp.verdict == "FAIL" or cmp.status == "failed":
        return 1
    if require_pass and cmp.verdict != "PASS":
        return 1
    return 0
