"""Writing IR as a terum skill's ``evals/`` files the engine loads.

Output paths are relative to the skill folder: ``evals/cases/<name>.yaml``, ``evals/suite.yaml``,
``evals/triggers.yaml``. What terum cannot hold is reported as a loss:

- a case's input given as messages is flattened to its text (loss);
- agentv output assertions (contains, regex, rubrics, ...) have no terum kind (loss); ``negate`` on a
  terum kind flips it to its opposite (mentions <-> omits, ...), which is exact;
- ``skill-trigger`` checks become prompts in ``triggers.yaml`` (for the skill the folder is for); a
  test that only checks the trigger becomes just that prompt (its id is lost);
- agentv metadata, expected output, input files, tags, skillgym timeouts: loss.
"""

from __future__ import annotations

import re
from typing import Any
from collections.abc import Callable

from ... import ir, yamlrt
from ...errors import CONTROL
from ...ir.kinds import TERUM_NO_OUTPUT, Absent, Terum, Verbatim, spec_of
from .. import Loss, WriteResult, loss_at
from ..agentv.reader import TEST_KEYS
from ..losses import Rule, Table
from ..restore import Restore

TABLE = Table("terum", {
    "set.name": Rule("lost: terum has no place for it"),
    "set.description": Rule("lost: terum has no place for it"),
    "set.tags": Rule("lost: terum has no place for it"),
    "set.input": Rule("lost: terum has no shared input"),
    "set.extra": Rule("lost"),
    "case.messages": Rule("flattened to the text of the user messages"),
    "case.name": Rule("written as a safe file stem, or lost for a trigger-only test (it becomes a prompt)",
                      when="the name is not a safe file stem, or the test only checks a trigger"),
    **{f"case.{f}": Rule("lost") for f in ("expected_output", "input_files", "metadata", "tags", "timeout_ms",
                                           "expected_fail")},
    "case.extra": Rule("lost: another format's test keys mean nothing to terum",
                       sources=("agentv", "agent-skills", "skill-creator-triggers", "skillgym", "promptfoo")),
    "check.skill_trigger": Rule("lost unless it names the skill the folder is for and the input is plain text",
                                when="it names another skill, or the input is messages"),
    "check.output": Rule("lost: terum checks the transcript, commands and files, not the final answer"),
    "check.rubric": Rule("written as the case's judge, which terum grades only when the checks tie",
                         when="the criteria are text and the case has no judge of its own"),
    "check.rubric/lost": Rule("lost", when="the case already has a judge, or a criterion is not text"),
    **{f"check.{k}": Rule("lost: terum has no such check kind")
       for k in ("code_grader", "trajectory", "budget", "opaque")},
    "check.fields": Rule("lost (negate flips a terum kind to its opposite, which is exact)",
                         when="the check itself is kept"),
    "triggers.extra": Rule("lost"),
})
CASE_ORDER = ("task", "bucket", "requires", "fixture", "files", "setup", "timeout_minutes", "max_turns",
              "checks", "judge")


def write(evalset: ir.EvalSet, existing: dict[str, str] | None = None) -> WriteResult:
    existing = existing or {}
    out = WriteResult()
    skill = _target_skill(evalset)
    prompts: list[ir.TriggerPrompt] = list(evalset.triggers.prompts) if evalset.triggers else []
    r = Restore(evalset.format, "terum", CARRIES)
    _set_level_losses(evalset, out.losses)
    _write_cases(evalset, r, skill, prompts, existing, out)
    if evalset.suite is not None:
        _write_suite(evalset.suite, r, existing, out)
    if prompts or evalset.triggers is not None:
        rel = "evals/triggers.yaml"
        ts = evalset.triggers or ir.TriggerSet(skill=skill)
        out.files[rel] = _dump(_triggers_data(ts, prompts, out.losses), existing.get(rel), ts.hints.get("generated"))
    if not out.files:
        out.nothing = "no cases, suite or trigger prompts to write (a terum skill's evals/ would be empty)"
    return out


def _write_cases(evalset: ir.EvalSet, r: Restore, skill: str | None, prompts: list[ir.TriggerPrompt],
                 existing: dict[str, str], out: WriteResult) -> None:
    """One case file per case; a case's skill-trigger checks become prompts (``prompts``, for triggers.yaml)."""
    used: set[str] = set()
    for i, case in enumerate(evalset.cases):
        where = f"cases[{i}]"
        triggers = [c for c in case.checks if isinstance(c, ir.SkillTrigger)]
        for trig in triggers:
            if trig.skill is not None and trig.skill == skill and isinstance(case.input, str):
                prompts.append(ir.TriggerPrompt(text=case.input, should_trigger=trig.expects_trigger, span=case.span))
            else:
                why = "its input is not a plain prompt" if not isinstance(case.input, str) else \
                    f"triggers.yaml holds prompts for '{skill}' only"
                TABLE.add(out.losses, "check.skill_trigger", trig.span or case.span, where,
                                          f"skill-trigger for '{trig.skill}' in test '{case.name}' ({why})")
        if triggers and len(triggers) == len(case.checks) and _only_prompt(case):
            TABLE.add(out.losses, "case.name", case.span, where,
                                      f"test id '{case.name}' (a trigger-only test becomes a prompt in triggers.yaml)")
            continue
        stem = _stem(case.name, used, i)
        if stem != case.name:
            TABLE.add(out.losses, "case.name", case.span, where,
                      f"case name '{case.name}' written as file stem '{stem}'")
        data = _case_data(case, r, where, out.losses, extra_checks=evalset.checks)
        rel = f"evals/cases/{stem}.{_ext(case, where, out.losses)}"
        out.files[rel] = _dump(data, existing.get(rel), case.hints.get("generated"))


def _write_suite(suite: ir.Suite, r: Restore, existing: dict[str, str], out: WriteResult) -> None:
    data = _case_data(suite, r, "suite", out.losses)
    entries = []
    for j, entry in enumerate(suite.entries):
        if "_raw" in entry.extra:
            entries.append(entry.extra["_raw"])
            continue
        e: dict[str, Any] = {"name": entry.name} if entry.name else {}
        e["checks"] = _checks(entry.checks, f"suite.entries[{j}]", out.losses)
        for k, v in entry.extra.items():
            e[k] = v
        entries.append(e)
    if entries or "cases" not in suite.extra:
        data["cases"] = entries
    rel = "evals/suite.yaml"
    out.files[rel] = _dump(data, existing.get(rel), suite.hints.get("generated"))


def _only_prompt(case: ir.Case) -> bool:
    """True when a case carries nothing but a prompt (and trigger checks): nothing to run."""
    return (isinstance(case.input, str) and case.judge is None and case.expected_output is None
            and not case.files and case.fixture is None and case.setup is None and not case.extra)


def _target_skill(evalset: ir.EvalSet) -> str | None:
    if evalset.skill is not None:
        return evalset.skill.name
    if evalset.triggers is not None and evalset.triggers.skill:
        return evalset.triggers.skill
    counts: dict[str, int] = {}
    for case in evalset.cases:
        for c in case.checks:
            if isinstance(c, ir.SkillTrigger) and c.skill:
                counts[c.skill] = counts.get(c.skill, 0) + 1
    if not counts:
        return None
    return max(counts, key=lambda k: (counts[k], -list(counts).index(k)))


#: what a case file stem never holds: a path separator or a control character
_UNSAFE = re.compile(r"[/\\]|" + CONTROL.pattern)


def _ext(case: ir.Case, where: str, losses: list[Loss]) -> str:
    """``yml`` when the case was read from a ``.yml`` file, else ``yaml``; any other hint (an IR file
    can hold ``yaml/../../x``) is refused with a Loss."""
    ext = case.hints.get("ext", "yaml")
    if not isinstance(ext, str) or ext not in ("yaml", "yml"):
        losses.append(loss_at(case.span, where, f"case file extension '{ext}' (only yaml or yml; written as .yaml)"))
        return "yaml"
    return ext


def _stem(name: str, used: set[str], index: int) -> str:
    stem = _UNSAFE.sub("-", name).strip().lstrip(".") or f"case-{index + 1}"
    base, n = stem, 2
    while stem in used:
        stem = f"{base}-{n}"
        n += 1
    used.add(stem)
    return stem


def _set_level_losses(evalset: ir.EvalSet, losses: list[Loss]) -> None:
    for field in ("name", "description", "tags"):
        value = getattr(evalset, field)
        if value:
            TABLE.add(losses, f"set.{field}", evalset.span, field, f"eval set '{field}' (terum has no place for it)")
    if evalset.input is not None:
        TABLE.add(losses, "set.input", evalset.span, "input", "shared input prepended to every test")
    for key in evalset.extra:
        TABLE.add(losses, "set.extra", evalset.span, f"extra.{key}", f"top-level '{key}'")


def _agentv_unknown(key: str) -> bool:
    return key not in TEST_KEYS


#: Which unknown keys of another format's case are written back (a terum case's all are): of an agentv
#: test those agentv does not know either (a terum case's own keys ride through an EVAL.yaml that way);
#: none of another format's (promptfoo's vars, skillgym's classifyFailure mean nothing to terum).
CARRIES: dict[str, Callable[[str], bool]] = {"agentv": _agentv_unknown}


def _case_data(case: ir.Case, r: Restore, where: str, losses: list[Loss],
               extra_checks: list[Any] | None = None) -> dict[str, Any]:
    """A case file's data; the shared restoration pass ``r`` puts back the unknown keys terum holds
    (see :data:`CARRIES`) and words the others as losses."""
    d: dict[str, Any] = {}
    if isinstance(case.input, str):
        d["task"] = case.input
    elif case.input is not None:
        d["task"] = case.task or ""
        TABLE.add(losses, "case.messages", case.span, f"{where}.input",
                  "message input flattened to the text of its user messages")
    for field in _CASE_FIELDS:
        value = getattr(case, field)
        if value is not None:
            d[field] = _engine_value(field, value)
    checks, judge = _judge(case, list(case.checks) + list(extra_checks or []), where, losses)
    rendered = _checks(checks, f"{where}.checks", losses)
    if rendered and "checks" not in case.extra:
        d["checks"] = rendered
    if judge is not None:
        d["judge"] = _coerced(judge)
    d = r.back(d, case, order_hint=None,  # (CASE_ORDER sorts the keys below)
               lose=lambda key: TABLE.add(losses, "case.extra", case.span, f"{where}.{key}",
                                                         f"'{key}' of '{case.name}' (terum has no such key)"))
    _foreign_fields(case, where, losses)
    order = {k: i for i, k in enumerate(CASE_ORDER)}
    return dict(sorted(d.items(), key=lambda kv: order.get(kv[0], len(order))))


#: the case fields terum holds as they are (in CASE_ORDER)
_CASE_FIELDS = ("bucket", "requires", "fixture", "files", "setup", "timeout_minutes", "max_turns")
#: the fields (and the items or values of the fields) the engine reads with String(value)
_STRING_FIELDS = ("bucket", "requires", "fixture", "files", "setup")


def _coerced(value: Any) -> Any:
    """A string the engine also reads from a bare number or boolean (``transcript_omits: 25600``), marked
    so that writing over a file keeps such a scalar as it was written (yamlrt.Coerced)."""
    return yamlrt.Coerced(value) if isinstance(value, str) else value


def _engine_value(field: str, value: Any) -> Any:
    if field not in _STRING_FIELDS:
        return value
    if isinstance(value, list):
        return [_coerced(v) for v in value]
    if isinstance(value, dict):
        return {k: _coerced(v) for k, v in value.items()}
    return _coerced(value)


def _judge_criteria(check: ir.CheckBase) -> list[str]:
    """The criteria a check whose kind terum holds as the case's judge gives it, when all are text (else none)."""
    entry = spec_of(check).terum
    if not (isinstance(entry, Terum) and entry.form == "judge"):
        return []
    criteria = getattr(check, entry.field)
    return criteria if criteria and all(isinstance(x, str) for x in criteria) else []


def _judge(case: ir.Case, checks: list[ir.Check], where: str, losses: list[Loss]) -> tuple[list[ir.Check], str | None]:
    """The case's judge and the checks left to write: without a judge of its own, prose expectations
    (an evals.json, agentv rubrics) become the judge rubric."""
    judge = case.judge
    if judge is None:
        rubrics = [c for c in checks if _judge_criteria(c)]
        if rubrics:
            judge = "\n".join(x for c in rubrics for x in _judge_criteria(c))
            checks = [c for c in checks if not any(c is r for r in rubrics)]
            for c in rubrics:
                TABLE.add(losses, "check.rubric", c.span or case.span, f"{where}.checks",
                                         f"rubric '{c.arg}' of '{case.name}' written as its judge (terum grades "
                                         "the judge only when the checks tie)")
    return checks, judge


def _foreign_fields(case: ir.Case, where: str, losses: list[Loss]) -> None:
    for field, what in (("expected_output", "expected output"), ("input_files", "input files"),
                        ("metadata", "metadata"), ("tags", "tags"), ("timeout_ms", "timeoutMs"),
                        ("expected_fail", "expectedFail")):
        if getattr(case, field) is not None:
            TABLE.add(losses, f"case.{field}", case.span, f"{where}.{field}", f"{what} of '{case.name}'")


def _checks(checks: list[Any], where: str, losses: list[Loss]) -> list[Any]:
    out = []
    for i, check in enumerate(checks):
        rendered = _check(check, f"{where}[{i}]", losses)
        if rendered is not None:
            out.append(rendered)
    return out


def _terum_kind(check: ir.CheckBase, entry: Terum, where: str, losses: list[Loss]) -> Any:
    kind = check.kind
    arg = getattr(check, entry.field)
    if check.negate:
        if entry.negated is not None:
            kind = entry.negated
        else:
            TABLE.add(losses, "check.fields", check.span, where, f"negate on '{kind}' (no opposite kind)")
    for field in ("name", "weight", "required", "min_score"):
        if getattr(check, field) is not None:
            TABLE.add(losses, "check.fields", check.span, where, f"'{field}' of check '{check.label()}'")
    keys = [*check.extra, *(["flags"] if getattr(check, "flags", None) else [])]  # terum's regexes take no flags
    if keys:
        TABLE.add(losses, "check.fields", check.span, where, f"fields {sorted(keys)} of check '{check.label()}'")
    return {kind: _coerced(arg)}


def _verbatim(check: ir.Opaque, entry: Verbatim, where: str, losses: list[Loss]) -> Any:
    if check.origin == "terum":
        return check.raw
    TABLE.add(losses, "check.opaque", check.span, where, f"{check.origin or 'opaque'} check '{check.label()}' "
                                                         f"({entry.why})")
    return None


def _absent(check: ir.CheckBase, entry: Absent, where: str, losses: list[Loss]) -> Any:
    feature = spec_of(check).feature
    key = f"{feature}/lost" if f"{feature}/lost" in TABLE.rules else feature
    TABLE.add(losses, key, check.span, where, f"'{check.kind}' check '{check.arg}' ({entry.why})")
    return None


def _check(check: ir.CheckBase, where: str, losses: list[Loss]) -> Any:
    """A terum check (or None: routed to triggers.yaml, or lost), by its kind's terum entry."""
    entry = spec_of(check).terum
    if isinstance(entry, Verbatim):
        return _verbatim(check, entry, where, losses)  # type: ignore[arg-type]  # (the opaque kind's entry)
    if isinstance(entry, Absent):
        return _absent(check, entry, where, losses)
    if entry.form == "trigger":
        return None  # a skill-trigger: routed to triggers.yaml by write()
    if entry.form == "judge":  # the case had a judge of its own, or a criterion is no text
        return _absent(check, Absent(TERUM_NO_OUTPUT), where, losses)
    return _terum_kind(check, entry, where, losses)


def _triggers_data(ts: ir.TriggerSet, prompts: list[ir.TriggerPrompt], losses: list[Loss]) -> Any:
    if "_raw" in ts.extra:
        return ts.extra["_raw"]
    d: dict[str, Any] = {}
    should = [_coerced(p.text) for p in prompts if p.should_trigger]
    should_not = [_coerced(p.text) for p in prompts if not p.should_trigger]
    for key, values in (("should_trigger", should), ("should_not_trigger", should_not)):
        if values or ts.hints.get(f"{key}_empty"):
            d[key] = values
        elif ts.hints.get(f"{key}_null"):
            d[key] = None
        elif key in ts.extra:
            d[key] = ts.extra[key]
    for key, value in ts.extra.items():
        if key not in d:
            d[key] = value
    for p in prompts:
        if p.extra:
            TABLE.add(losses, "triggers.extra", p.span, "triggers",
                      f"fields {sorted(p.extra)} of trigger prompt {p.text!r}")
    return d


def _dump(data: Any, existing: str | None, header: str | None) -> str:
    text = yamlrt.dump(data, existing=existing)
    if header and not text.startswith(header):
        text = header + "\n" + text
    return text
