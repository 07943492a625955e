"""Writing IR as an ``evals.json``: rubric sentences as expectations, other checks as sentences (each a
loss), a skill-trigger as ``should_trigger``; the seed layout back in its own shape."""

from __future__ import annotations

import json
from typing import Any, TypeGuard

from ... import ir
from ...ir.kinds import AgentSkills, spec_of
from ...ir.build import canonical_input
from ...js import stringify
from .. import Loss, WriteResult
from ..losses import Rule, Table, check_feature
from ..restore import ROOT, Restore, VALUE, reorder
from . import EVAL_KEYS, NAME, SEED_KEYS, TOP_KEYS, _default_order

_PROSE = "written as an expectation sentence: a model grades it, nothing checks it mechanically"
TABLE = Table(NAME, {
    "triggers": Rule("lost: an evals.json holds cases (write trigger prompts with --to skill-creator-triggers)"),
    "triggers.extra": Rule("lost with the trigger prompts", covered_by="triggers"),
    "set.input": Rule("lost"), "set.checks": Rule("lost"), "set.description": Rule("lost"), "set.tags": Rule("lost"),
    "set.extra": Rule("lost"),
    "set.name": Rule("lost", when="it differs from the skill name"),
    "case.messages": Rule("flattened to one prompt text"),
    "case.expected_output": Rule("written as JSON text", when="it is not a string"),
    "case.judge": Rule("kept as the last expectation", kept="the last expectation"),
    **{f"case.{f}": Rule("lost") for f in ("files", "fixture", "setup", "bucket", "requires", "timeout_minutes",
                                           "max_turns", "metadata", "tags", "timeout_ms", "expected_fail",
                                           "extra")},
    **{f"check.{k}": Rule(_PROSE) for k in ("transcript", "command", "workspace", "output", "code_grader",
                                            "trajectory", "budget", "opaque")},
    "check.skill_trigger": Rule(_PROSE, when="it names another skill than skill_name, or a second trigger"),
    "check.rubric": Rule(_PROSE, when="an llm-grader, or criteria that are not text"),
    "check.rubric/objects": Rule("only the text of a criterion object is kept", when="a criterion is an object"),
    "check.fields": Rule("lost", when="the check is a rubric or the trigger (any other check becomes prose)"),
    "suite": Rule("merged into one eval: its rows are not scored apart"),
})


def _lose(losses: list[Any], key: str, where: str, what: str) -> None:
    TABLE.add(losses, key, None, where, what)




def sentence(check: ir.CheckBase) -> str:
    """A check as one natural-language expectation a grader can judge (its kind's spec says it)."""
    return spec_of(check).sentence(check)


def _where(node: Any, fallback: str) -> str:
    span = getattr(node, "span", None)
    return f"{span.file}:{span.line}" if span is not None else fallback


def skill_name_of(evalset: ir.EvalSet) -> str:
    if evalset.skill is not None:
        return evalset.skill.name
    names = []
    for case in evalset.cases:
        for c in case.checks:
            if is_trigger(c) and c.skill and c.skill not in names:
                names.append(c.skill)
    if len(names) == 1:
        return names[0]
    return evalset.name or ""


def write(evalset: ir.EvalSet, existing: dict[str, str] | None = None) -> WriteResult:
    r = Restore(evalset.format, NAME)
    if r.hints(evalset).get("shape") == "seed":
        return _write_seed(evalset)
    losses: list[Loss] = []
    skill = skill_name_of(evalset)
    out: dict[str, Any] = {}
    # meaning, not presentation: a set read from an evals.json without skill_name has no skill, and stays
    # without the key; another format's set without a skill still gets the name the writer infers
    if r.has(evalset, "skill_name") or not (r.own and evalset.skill is None):
        out["skill_name"] = r.value(evalset, "skill_name", skill)
    out["evals"] = r.kept_or(evalset, "evals", lambda: _write_evals(evalset, skill, r, losses))
    doc: Any = r.value(evalset, ROOT, r.back(out, evalset, TOP_KEYS + (ROOT,), order_hint=None))
    if isinstance(doc, dict):
        doc = reorder(doc, r.hints(evalset).get("key_order"))
    _set_losses(evalset, r, losses)
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    return WriteResult(files={"evals.json": text}, losses=losses)


def _write_evals(evalset: ir.EvalSet, skill: str, r: Restore, losses: list[Loss]) -> list[Any]:
    """The ``evals`` list: each case (its id kept when it has one, else the next free integer), then the suite."""
    evals: list[Any] = []
    used_ids: set[int] = {r.hints(c)["id"] for c in evalset.cases if isinstance(r.hints(c).get("id"), int)}
    next_id = 1
    for i, case in enumerate(evalset.cases):
        if r.has(case, VALUE):
            evals.append(r.value(case, VALUE))
            continue
        ident = r.hints(case).get("id")
        if ident is None and not (r.has(case, "id") or "id" in r.hints(case)):
            while next_id in used_ids:
                next_id += 1
            ident = next_id
            used_ids.add(ident)
        evals.append(_write_case(case, ident, skill, r, losses, f"cases[{i}]", i))
    if evalset.suite is not None:
        while next_id in used_ids:
            next_id += 1
        evals.append(_write_suite(evalset.suite, next_id, skill, losses))
    return evals


def _write_seed(evalset: ir.EvalSet) -> WriteResult:
    """The seed shape back as ``evalfmt transpile`` writes it (see :mod:`evalfmt.route`)."""
    tests: list[Any] = []
    skill = evalset.skill.name if evalset.skill else None
    for case in evalset.cases:
        if "$value" in case.extra:
            tests.append(case.extra["$value"])
            continue
        item: dict[str, Any] = {"id": case.extra.get("id", case.name)}
        if case.input is not None or "input" in case.extra:
            item["input"] = case.extra.get("input", canonical_input(case.input))
        trig = next((c for c in case.checks if is_trigger(c) and c.skill in (skill, None)), None)
        if "should_trigger" in case.extra:
            item["should_trigger"] = case.extra["should_trigger"]
        elif trig is not None:
            item["should_trigger"] = trig.expects_trigger
        item.update({k: v for k, v in case.extra.items() if k not in SEED_KEYS and k != "$value"})
        tests.append(item)
    out: dict[str, Any] = {"tests": evalset.extra.get("tests", tests)}
    out.update({k: v for k, v in evalset.extra.items() if k != "tests"})
    return WriteResult(files={"evals.json": stringify(out, 2) + "\n"})


def _set_losses(evalset: ir.EvalSet, r: Restore, losses: list[Loss]) -> None:
    where = _where(evalset, "set")
    if evalset.triggers is not None and evalset.triggers.prompts:
        _lose(losses, "triggers", _where(evalset.triggers, where),
                           f"{len(evalset.triggers.prompts)} trigger prompts (write them with --to "
                           f"skill-creator-triggers)")
    if evalset.input is not None:
        _lose(losses, "set.input", where, "suite-level input prepended to every test")
    for c in evalset.checks:
        _lose(losses, "set.checks", _where(c, where), f"suite-level check '{c.label()}' applied to every test")
    if evalset.description:
        _lose(losses, "set.description", where, "description")
    if evalset.tags:
        _lose(losses, "set.tags", where, "tags")
    for key in r.dropped(evalset):
        _lose(losses, "set.extra", where, f"{evalset.format} key '{key}'")
    # meaning: an evals.json's set name is its skill_name (nothing to lose); another format's may differ
    if not r.own and evalset.name and evalset.skill is not None and evalset.name != evalset.skill.name:
        _lose(losses, "set.name", where, f"name '{evalset.name}'")


CASE_FIELDS_LOST = ("judge", "files", "fixture", "setup", "bucket", "requires", "timeout_minutes", "max_turns",
                    "metadata", "tags", "timeout_ms", "expected_fail")


def _write_case(case: ir.Case, ident: Any, skill: str, r: Restore, losses: list[Loss], path: str,
                index: int = 0) -> dict[str, Any]:
    where = _where(case, path)
    item: dict[str, Any] = {}
    _write_head(item, case, ident, r, index, losses, where)
    trigger_checks = [c for c in case.checks if is_trigger(c) and (c.skill in (skill, None))]
    trigger = trigger_checks[0] if len(trigger_checks) >= 1 else None
    if r.has(case, "should_trigger") or trigger is not None:
        item["should_trigger"] = r.value(case, "should_trigger", getattr(trigger, "expects_trigger", None))
    _write_expectations(item, case, _sentences(case, trigger, r, losses, where), r, losses, where)
    for field in CASE_FIELDS_LOST:
        if field == "judge":
            continue
        if getattr(case, field) is not None:
            _lose(losses, f"case.{field}", where, field if field != "files" else "inline files (contents)")
    return r.back(item, case, EVAL_KEYS + (VALUE,), order=_default_order(item),
                  lose=lambda k: _lose(losses, "case.extra", where, f"key '{k}'"))


def _write_head(item: dict[str, Any], case: ir.Case, ident: Any, r: Restore, index: int, losses: list[Loss],
                where: str) -> None:
    """id, name, prompt, expected_output and files of an eval."""
    if r.has(case, "id") or ident is not None:
        item["id"] = r.value(case, "id", ident)
    implied = str(item["id"]) if "id" in item and not isinstance(item["id"], str) else str(index + 1)
    if r.has(case, "name") or case.name != (item["id"] if isinstance(item.get("id"), str) else implied) \
            or case.hints.get("name_key"):
        item["name"] = r.value(case, "name", case.name)
    item["prompt"] = r.kept_or(case, "prompt", lambda: _prompt(case, losses, where))
    if r.has(case, "expected_output") or case.expected_output is not None:
        item["expected_output"] = r.kept_or(case, "expected_output", lambda: _expected(case, losses, where))
    if r.has(case, "files") or case.input_files is not None:
        item["files"] = r.value(case, "files", list(case.input_files or ()))


def _prompt(case: ir.Case, losses: list[Loss], where: str) -> str:
    if case.input is None:
        return ""
    if not isinstance(case.input, str):
        _lose(losses, "case.messages", where, "input messages flattened to one prompt text")
    return ir.input_text(case.input) or ""


def _expected(case: ir.Case, losses: list[Loss], where: str) -> str:
    if isinstance(case.expected_output, str):
        return case.expected_output
    _lose(losses, "case.expected_output", where, "structured expected_output written as JSON text")
    return json.dumps(case.expected_output, ensure_ascii=False)


def _entry(check: ir.CheckBase) -> AgentSkills:
    return spec_of(check).agent_skills


def _expectations(check: ir.CheckBase) -> list[Any] | None:
    """The criteria of a check an evals.json holds as expectations (its kind's entry says which field), else None."""
    entry = _entry(check)
    return getattr(check, entry.field) if entry.form == "expectations" and entry.field else None


def is_trigger(check: ir.CheckBase) -> TypeGuard[ir.SkillTrigger]:
    """A check an evals.json holds as an eval's ``should_trigger`` (for the file's skill)."""
    return _entry(check).form == "trigger" and isinstance(check, ir.SkillTrigger)


def _sentences(case: ir.Case, trigger: ir.CheckBase | None, r: Restore, losses: list[Loss], where: str) -> list[str]:
    """The expectation sentences of an eval's checks (the skill-trigger it writes as should_trigger aside)."""
    sentences: list[str] = []
    for check in case.checks:
        if check is trigger:
            for f in ("name", "weight", "required", "min_score", "negate"):
                if getattr(check, f) is not None:
                    _lose(losses, "check.fields", _where(check, where), f"'{f}' of the skill-trigger check")
            continue
        # meaning: the rubric of a set read from an evals.json is its expectations list (its criteria are
        # the sentences, its fields are none to lose); another format's rubric is one only with text criteria
        criteria = _expectations(check)
        if criteria is not None and (r.own or all(isinstance(c, str) for c in criteria)):
            for crit in criteria:
                if isinstance(crit, str):
                    sentences.append(crit)
                else:
                    sentences.append(sentence(ir.replace(check, **{_entry(check).field or "": [crit]})))
                    _lose(losses, "check.rubric/objects", _where(check, where),
                          "rubric criterion fields other than its text")
            if not r.own:
                for f in ("name", "weight", "required", "min_score", "negate"):
                    if getattr(check, f) is not None:
                        _lose(losses, "check.fields", _where(check, where), f"'{f}' of the rubrics check")
            continue
        sentences.append(sentence(check))
        _lose(losses, check_feature(check.kind), _where(check, where),
              f"check '{check.label()}' became the expectation sentence {sentences[-1]!r} (a model grades it; "
              "nothing checks it mechanically)")
    return sentences


def _write_expectations(item: dict[str, Any], case: ir.Case, sentences: list[str], r: Restore, losses: list[Loss],
                        where: str) -> None:
    key = r.hints(case).get("expectations_key", "expectations")
    for kept in ("expectations", "assertions"):
        if r.has(case, kept):
            item[kept] = r.value(case, kept)
    # meaning: an eval read from an evals.json without expectations stays without the key (the reader
    # hints only an empty list); another format's case always gets the list an evals.json requires
    if sentences or r.hints(case).get("empty_expectations") or not r.own:
        item[key] = sentences
    if case.judge:
        if not r.own:  # meaning: an evals.json holds a judge only as its last expectation, as written here
            _lose(losses, "case.judge", where, "judge rubric (kept as the last expectation)")
        item.setdefault(key, [])
        if isinstance(item[key], list):
            item[key].append(case.judge)


def _write_suite(suite: ir.Suite, ident: int, skill: str, losses: list[Loss]) -> dict[str, Any]:
    where = _where(suite, "suite")
    _lose(losses, "suite", where, f"suite entries ({len(suite.entries)}) merged into one eval: their rows are not "
                                  f"scored apart")
    merged = ir.Case(name=suite.name, input=suite.input, span=suite.span,
                     checks=list(suite.checks) + [c for e in suite.entries for c in e.checks])
    for field in ("judge", "files", "fixture", "setup", "bucket", "requires", "timeout_minutes", "max_turns"):
        setattr(merged, field, getattr(suite, field))
    # the merged suite is a case of no format: nothing of a source's own to give back
    return _write_case(merged, ident, skill, Restore(None, NAME), losses, "suite")
