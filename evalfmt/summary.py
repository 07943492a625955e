"""A readable summary of eval sets, for ``evalfmt inspect``."""

from __future__ import annotations

from . import ir
from .errors import one_line


def _short(text: str | None, width: int = 72) -> str:
    if text is None:
        return "(no task)"
    one = " ".join(text.split())
    return one if len(one) <= width else one[: width - 1] + "…"


def _checks(checks: list) -> str:
    if not checks:
        return "no checks"
    return ", ".join(_label(c) for c in checks)


def _label(check) -> str:
    label = check.label()
    if getattr(check, "negate", None):
        label = "not " + label
    if isinstance(check, ir.SkillTrigger) and not check.expects_trigger:
        label += " (should not trigger)"
    return _short(label, 60)


def describe(sets: list[ir.EvalSet]) -> str:
    lines: list[str] = []
    for s in sets:
        title = f"{s.format}  {s.source or ''}".rstrip()
        if s.skill:
            title += f"  (skill {s.skill.name})"
        elif s.name:
            title += f"  ({s.name})"
        lines.append(title)
        if s.input is not None:
            lines.append(f"  shared input: {_short(ir.input_text(s.input))}")
        if s.checks:
            lines.append(f"  shared checks: {_checks(s.checks)}")
        width = max((len(one_line(c.name)) for c in s.cases), default=0)
        for case in s.cases:
            tag = f"  [{case.bucket}]" if case.bucket else ""
            lines.append(f"  case {one_line(case.name).ljust(width)}  {_short(case.task)}{tag}")
            lines.append(f"       {' ' * width}  {_checks(case.checks)}")
        if s.suite is not None:
            lines.append(f"  suite: {_short(s.suite.task)}  ({len(s.suite.entries)} entries)")
            ew = max((len(one_line(e.name)) for e in s.suite.entries), default=0)
            for entry in s.suite.entries:
                lines.append(f"    {one_line(entry.name).ljust(ew)}  {_checks(entry.checks)}")
        if s.triggers is not None:
            t = s.triggers
            lines.append(f"  triggers{' for ' + t.skill if t.skill else ''}: "
                         f"{len(t.should)} should trigger, {len(t.should_not)} should not")
        if not (s.cases or s.suite or s.triggers):
            lines.append("  (no cases, suite or triggers)")
        lines.append("")
    return "\n".join(one_line(line) for line in lines)
