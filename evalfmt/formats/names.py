"""EV116: names and ids that hold a control character, checked once for every format.

A skill name, a test id, a case or suite-entry name and an eval set's name are printed on one line
(diagnostics, ``lost:`` lines, ``inspect``, CI annotations) and some become file or folder names
(``transpile``, ``convert --to terum``, ``run``). One holding a line break, a tab, an escape, NUL, a
Unicode line separator or a bidi override (:data:`evalfmt.errors.CONTROL`) could forge an output line
or hide where it is, so it is refused as a structural error, whatever the format.

:func:`check` runs on the IR every reader built, before any command sees it.
"""

from __future__ import annotations

from typing import Any, TYPE_CHECKING

from ..errors import CONTROL, Diagnostic, control_char
from ..ir import Span

if TYPE_CHECKING:  # pragma: no cover
    from ..ir import Check, EvalSet, Span
    from ..load import Loaded

CODE = "EV116"
#: what a case's name is called in each format
CASE_NOUN = {"agentv": "test id", "agent-skills": "eval id", "skillgym": "case id", "promptfoo": "test name"}


def _at(span: Span | None, fallback: str) -> tuple[str, int, int]:
    if not span:
        return fallback, 1, 1
    return span.file or fallback, span.line or 1, span.column or 1


def check(items: list[EvalSet], diagnostics: list[Diagnostic], documents: dict[str, Loaded] | None = None) -> None:
    """Append an EV116 error for every name or id in ``items`` (eval sets) holding a control character.
    The position is the span of the node holding the name; for an eval set's ``name``, the key in its
    document (``documents``: path -> Loaded) when there is one."""
    for es in items:
        if not _may_hold(es):
            continue
        source = es.source or "-"
        set_span = es.span

        def report(noun: str, value: Any, span: Span | None, fallback: Span | None = set_span,
                   source: str = source) -> None:
            if not isinstance(value, str) or not CONTROL.search(value):
                return
            path, line, column = _at(span or fallback, source)
            diagnostics.append(Diagnostic(path, line, column, CODE, message(noun, value)))

        def checks(items: list[Check], span: Span | None) -> None:
            for c in items:
                if c.kind == "skill-trigger":
                    report("skill name", c.skill, c.span or span)

        report("eval set name", es.name, _name_key(documents, set_span, es.name) or set_span)
        skill, triggers = es.skill, es.triggers
        if skill and not (triggers and triggers.skill == skill.name):  # else reported below
            report("skill name", skill.name, skill.span)
        checks(es.checks, set_span)
        noun = CASE_NOUN.get(es.format, "case name")
        for case in es.cases:
            report(noun, case.name, case.span)
            checks(case.checks, case.span)
        suite = es.suite
        if suite:
            checks(suite.checks, suite.span)
            for entry in suite.entries:
                report("suite entry name", entry.name, entry.span or suite.span)
                checks(entry.checks, entry.span)
        if triggers:  # where the router reports it too (the same diagnostic, so it is listed once)
            report("skill name", triggers.skill, triggers.span, fallback=None)


def _may_hold(es: EvalSet) -> bool:
    """A quick look: could any name in the set hold a control character? (Lint and validate read
    thousands of sets; almost none do.)"""
    names = [es.name, es.skill.name if es.skill else None, es.triggers.skill if es.triggers else None]
    add = names.append
    groups = [es.checks]
    for case in es.cases:
        add(case.name)
        groups.append(case.checks)
    suite = es.suite
    if suite:
        groups.append(suite.checks)
        for entry in suite.entries:
            add(entry.name)
            groups.append(entry.checks)
    for group in groups:
        for c in group:
            if c.kind == "skill-trigger":
                add(c.skill)
    return CONTROL.search("\ue000".join([n for n in names if n.__class__ is str])) is not None


def message(noun: str, value: str) -> str:
    """The EV116 message (the router gives the same one for a skill name, so the two dedupe)."""
    return f"{noun} '{value}' holds a control character ({control_char(value)}): names and ids must print on one " \
           "line; remove it"


def _name_key(documents: dict[str, Loaded] | None, span: Span | None, name: str | None) -> Span | None:
    """The span of a top-level ``name:`` key holding ``name`` in the document ``span`` points into."""
    loaded = (documents or {}).get(span.file) if span else None
    if loaded is None or not isinstance(loaded.data, dict) or loaded.data.get("name") != name:
        return None
    pos = loaded.key_pos("name")
    return Span(loaded.path, pos.line, pos.column)
