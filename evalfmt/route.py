"""Routing skill-trigger tests into per-skill eval files (the seed layout), on the IR.

Every test that carries a ``skill-trigger`` check goes into the file of each skill it names, with that
check's ``should_trigger`` (true when absent). Because this works on the IR and not on AgentV YAML, any
format routes: an agentv EVAL.yaml, a terum skill's ``triggers.yaml`` (the skill is the folder's name;
``should_trigger`` prompts route true, ``should_not_trigger`` prompts false), a skill-creator trigger
set. A test's own skill-trigger checks come first, then the set's (agentv's suite-level assertions
apply to every test).

The rules of the seed layout (errors stop everything: nothing is written):

- a skill name is one path segment: empty, ``.``, ``..``, anything holding ``/``, ``\\`` (so any
  absolute path) is refused (EV106), naming the test and its line; ``plugin:name`` is fine; a name
  holding a control character (NUL, a line break, ...) is EV116, as the readers report it;
- a skill-trigger without ``skill`` is EV103; one test asking one skill for both ``should_trigger``
  true and false is EV503; two tests with one id in one skill's file is EV115;
- a test named twice for the same skill with the same ``should_trigger`` is listed once;
- a test with no skill-trigger is not routed: :attr:`Routed.unrouted` names it.

The router reads :class:`~evalfmt.ir.EvalSet` objects as the readers build them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

from . import ir
from .ir.build import canonical_input
from .errors import CONTROL, Diagnostic
from .formats.names import message as control_message
from .paths import SEED_FILE  # noqa: F401 - the seed layout's file name, read from here too
from .skill_triggers import conflict_message, missing_skill_message, skill_name_problem

from .js import stringify


@dataclass
class Entry:
    """One test in one skill's evals.json."""

    id: str
    input: Any
    should_trigger: bool
    span: ir.Span | None = None

    def to_json(self) -> dict:
        return {"id": self.id, "input": self.input, "should_trigger": self.should_trigger}


@dataclass
class Routed:
    skills: dict[str, list[Entry]] = field(default_factory=dict)
    #: (``file:line``, test id) of each test without a skill-trigger, in source order
    unrouted: list[tuple[str, str]] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    def files(self) -> dict[str, str]:
        """``<skill>/evals.json`` -> text (two-space indent, keys id/input/should_trigger, newline)."""
        return {f"{skill}/{SEED_FILE}": self.text(skill) for skill in self.skills}

    def text(self, skill: str) -> str:
        """The text of one skill's ``evals.json`` (see :meth:`files`)."""
        return stringify({"tests": [e.to_json() for e in self.skills[skill]]}, 2) + "\n"


def _at(span: ir.Span | None, fallback: str) -> tuple[str, int, int]:
    if not span:
        return fallback, 1, 1
    return span.file, span.line, span.column


def _where(span: ir.Span | None, fallback: str) -> str:
    return f"{span.file}:{span.line}" if span else fallback


# ---------------------------------------------------------------------------------------- route


def route(evalsets: list[ir.EvalSet], skill: str | None = None) -> Routed:
    """Route the tests of ``evalsets`` (in order) into per-skill entries. ``skill`` names the skill of
    a trigger set that names none (a skill-creator trigger file outside a skill folder)."""
    out = Routed()
    seen_ids: dict[str, dict[str, Entry]] = {}

    def add(skill_name: str, entry: Entry) -> None:
        taken = seen_ids.setdefault(skill_name, {})
        first = taken.get(entry.id)
        if first is not None:
            f, line, col = _at(entry.span, entry.id)
            out.diagnostics.append(Diagnostic(
                f, line, col, "EV115",
                f"test id '{entry.id}' is already routed to skill '{skill_name}' from "
                f"{_where(first.span, 'another input')}; ids must be unique within a skill's evals.json: rename one"))
            return
        taken[entry.id] = entry
        out.skills.setdefault(skill_name, []).append(entry)

    for es in evalsets:
        suite_level = _valid_triggers(es.checks, None, es, out)
        for case in es.cases:
            _route_case(case, es, suite_level, out, add)
        if es.suite:
            _route_case(es.suite, es, suite_level, out, add)
        if es.triggers:
            _route_triggers(es, es.triggers, skill, out, add)
    return out


def _valid_triggers(checks: list[ir.Check], case: ir.Case | None, es: ir.EvalSet,
                    out: Routed) -> list[ir.SkillTrigger] | None:
    """The skill-trigger checks of a list whose skill name is usable; None when any is not (reported)."""
    valid = []
    ok = True
    test = case.name if case is not None else None
    source = es.source or "-"
    for check in checks:
        if not isinstance(check, ir.SkillTrigger):
            continue
        f, line, col = _at(check.span or (case.span if case else None), source)
        name = check.skill
        if not isinstance(name, str):
            out.diagnostics.append(Diagnostic(f, line, col, "EV103", missing_skill_message(test)))
            ok = False
            continue
        if CONTROL.search(name):  # the reader reports it too, with the same words: listed once
            out.diagnostics.append(Diagnostic(f, line, col, "EV116", control_message("skill name", name)))
            ok = False
            continue
        problem = skill_name_problem(name)
        if problem is not None:
            where = f"in test '{test}'" if test is not None else "at the suite level"
            out.diagnostics.append(Diagnostic(
                f, line, col, "EV106",
                f"skill name {_quote(name)} {where} {problem}: a skill name must be one folder name "
                "(the seed layout writes <out-dir>/<skill>/evals.json)"))
            ok = False
            continue
        valid.append(check)
    return valid if ok else None


def _route_case(case: ir.Case, es: ir.EvalSet, suite_level: list[ir.SkillTrigger] | None, out: Routed,
                add: Callable[[str, Entry], None]) -> None:
    own = _valid_triggers(case.checks, case, es, out)
    if own is None or suite_level is None:
        return
    triggers = own + suite_level
    if not triggers:
        out.unrouted.append((_where(case.span, es.source or "-"), case.name))
        return
    wanted: dict[str, bool] = {}
    ok = True
    for check in triggers:
        want = check.should_trigger is not False
        name = check.skill
        assert name is not None  # _valid_triggers keeps only named ones
        if name in wanted and wanted[name] != want:
            f, line, col = _at(check.span or case.span, es.source or "-")
            out.diagnostics.append(Diagnostic(f, line, col, "EV503", conflict_message(case.name, name, want,
                                                                                       wanted[name])))
            ok = False
            continue
        wanted.setdefault(name, want)
    if not ok:
        return
    value = canonical_input(case.input)
    for skill_name, want in wanted.items():
        add(skill_name, Entry(case.name, value, want, case.span))


def _route_triggers(es: ir.EvalSet, ts: ir.TriggerSet, skill: str | None, out: Routed,
                    add: Callable[[str, Entry], None]) -> None:
    name = ts.skill or skill or (es.skill.name if es.skill else None)
    f, line, col = _at(ts.span, es.source or "-")
    if not name:
        out.diagnostics.append(Diagnostic(
            f, line, col, "EV103",
            "this trigger set names no skill (it is not inside a skill folder): give it with --skill NAME"))
        return
    if CONTROL.search(name):
        out.diagnostics.append(Diagnostic(f, line, col, "EV116", control_message("skill name", name)))
        return
    problem = skill_name_problem(name)
    if problem is not None:
        out.diagnostics.append(Diagnostic(
            f, line, col, "EV106", f"skill name {_quote(name)} of this trigger set {problem}: a skill name must be "
                                   "one folder name"))
        return
    counts = {True: 0, False: 0}
    for p in ts.prompts:
        want = bool(p.should_trigger)
        counts[want] += 1
        base = "should-trigger" if want else "should-not-trigger"
        add(name, Entry(f"{base}-{counts[want]}", p.text, want, p.span or ts.span))


def _quote(name: str) -> str:
    return f"'{name}'"
