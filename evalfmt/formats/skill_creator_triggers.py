"""Format ``skill-creator-triggers``: skill-creator's trigger eval set.

A bare JSON array ``[{"query": "...", "should_trigger": true}, ...]``. The file name varies in real
skills (``trigger-eval.json``, ``trigger-evals.json``, ``trigger_evals.json``, ``eval_set.json``,
``<skill>_trigger-eval.json`` ...), so the format is detected by structure: a ``.json`` file holding an
array whose objects have ``query`` and ``should_trigger``.

IR: one :class:`ir.TriggerSet`, prompts in file order. Extra keys of an item are kept in the prompt's
``extra`` (EV101 warning). The skill is the folder holding ``SKILL.md`` next to (or above) the file,
else the prefix of a ``<skill>_trigger-eval.json`` style name. The writer keeps the source's file name and its
layout (one object per line, or indented), so a file reads and writes back byte for byte.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from .. import ir
from ..fsview import DISK, View
from ..load import type_name
from . import (Format, Loss, ReadResult, Reporter, WriteResult, basename, first_char, hinted_name, open_document,
               peek_keys, span_at)
from .losses import FEATURES, Rule, Table
from .restore import ROOT, VALUE, Restore

NAME = "skill-creator-triggers"
ITEM_KEYS = ("query", "should_trigger")
DEFAULT_NAME = "trigger-evals.json"
#: a trigger eval set holds queries only: every other feature is lost
TABLE = Table(NAME, {
    **{f: Rule("lost: a trigger eval set holds only queries") for f in FEATURES
       if f.startswith("set.") and f != "set.tests_file"},
    "set.tests_file": Rule("lost with the tests", covered_by="case.name"),
    "case.name": Rule("lost, with the whole test: a trigger eval set holds only queries"),
    **{f: Rule("lost with the whole test", covered_by="case.name") for f in FEATURES
       if f.startswith(("case.", "check.")) and f != "case.name"},
    "check.skill_trigger": Rule("a test that checks the trigger set's skill on a plain-text prompt becomes a "
                                "query; a skill-trigger for another skill is lost",
                                when="it names another skill than the set's, or the input is messages"),
    "suite": Rule("lost: a trigger eval set holds only queries"),
    "triggers.extra": Rule("lost"),
})


def detect(path: str, *, fs: View = DISK) -> bool:
    if not path.lower().endswith(".json") or first_char(path, fs=fs) != "[":
        return False
    keys = peek_keys(path, fs=fs)
    return "query" in keys and "should_trigger" in keys


def _skill_folder(path: str, fs: View) -> str | None:
    folder = os.path.dirname(os.path.abspath(path))
    for cand in (folder, os.path.dirname(folder)):
        if fs.isfile(os.path.join(cand, "SKILL.md")):
            return os.path.basename(cand)
    return None


_PREFIXED = re.compile(r"(.+?)[_-](?:trigger[-_]evals?|eval_set)\.json", re.I)


def _skill_from_name(path: str) -> str | None:
    """``<skill>_trigger-eval.json`` (and the other spellings) name their skill."""
    m = _PREFIXED.fullmatch(basename(path))
    return m.group(1) if m else None


def read(path: str, *, fs: View = DISK) -> ReadResult:
    """The trigger set: one :class:`~evalfmt.ir.TriggerSet`, prompts in file order."""
    result = ReadResult()
    rep = open_document(path, result, kind="json", fs=fs)
    if rep is None:
        return result
    span = span_at(path)
    skill = _skill_folder(path, fs)
    triggers = ir.TriggerSet(skill=skill or _skill_from_name(path), span=span, hints={"file_name": basename(path)})
    result.sets.append(ir.EvalSet(
        format=NAME, source=path, span=span, triggers=triggers,
        skill=ir.SkillInfo(name=skill, path=os.path.dirname(os.path.abspath(path))) if skill else None))
    data = rep.loaded.data
    if not isinstance(data, list):
        rep.add("EV102", f"a trigger eval set must be a list of {{query, should_trigger}} items, not a "
                         f"{type_name(data)}")
        triggers.extra["$root"] = data
        return result
    for i, item in enumerate(data):
        triggers.prompts.append(_read_item(rep, item, i))
    style = _style_of(rep.loaded.text, data)
    if style != "indent":
        triggers.hints["style"] = style
    return result


def _read_item(rep: Reporter, item: Any, i: int) -> ir.TriggerPrompt:
    if not isinstance(item, dict):
        rep.add("EV102", f"a trigger item must be a mapping with 'query' and 'should_trigger', not a "
                         f"{type_name(item)}", i)
        return ir.TriggerPrompt(text="", should_trigger=False, span=rep.span(i), extra={"$value": item})
    prompt = ir.TriggerPrompt(text="", should_trigger=True, span=rep.span(i))
    extra = prompt.extra
    if "query" not in item:
        rep.add("EV103", "missing required key 'query' (the user request)", i)
    elif isinstance(item["query"], str):
        prompt.text = item["query"]
    else:
        rep.wrong_type("query", "a string", item["query"], i, "query")
        extra["query"] = item["query"]
    if "should_trigger" not in item:
        rep.add("EV103", "missing required key 'should_trigger' (true or false)", i)
    elif isinstance(item["should_trigger"], bool):
        prompt.should_trigger = item["should_trigger"]
    else:
        rep.wrong_type("should_trigger", "a boolean", item["should_trigger"], i, "should_trigger")
        extra["should_trigger"] = item["should_trigger"]
    for key in item:
        if key not in ITEM_KEYS:
            rep.unknown_key(key, ITEM_KEYS, i, key)
            extra[key] = item[key]
    return prompt


# ------------------------------------------------------------------------------------ writing


def _item(r: Restore, prompt: ir.TriggerPrompt) -> Any:
    if r.has(prompt, VALUE):
        return r.value(prompt, VALUE)
    out: dict[str, Any] = {"query": r.value(prompt, "query", prompt.text),
                           "should_trigger": r.value(prompt, "should_trigger", prompt.should_trigger)}
    return r.back(out, prompt, ITEM_KEYS, order_hint=None)


def _render(items: list[Any], style: str) -> str:
    if style == "lines" and items:
        body = ",\n".join("  " + json.dumps(it, ensure_ascii=False) for it in items)
        return "[\n" + body + "\n]\n"
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"


def _style_of(text: str, data: list[Any]) -> str:
    """'lines' when the file is one compact object per line (as several real sets are), else 'indent'."""
    if _render(data, "indent") == text:
        return "indent"
    if _render(data, "lines") == text:
        return "lines"
    return "indent"


def _skill_of(evalset: ir.EvalSet) -> str | None:
    """The skill the set's queries are for: its own, its trigger set's, or the one skill its tests'
    skill-trigger checks name."""
    if evalset.triggers is not None and evalset.triggers.skill:
        return evalset.triggers.skill
    if evalset.skill is not None:
        return evalset.skill.name
    named = {c.skill for case in evalset.cases for c in case.checks if isinstance(c, ir.SkillTrigger) and c.skill}
    return named.pop() if len(named) == 1 else None


def _case_queries(evalset: ir.EvalSet, skill: str | None, losses: list[Loss]) -> list[dict[str, Any]]:
    """A test's skill-trigger checks for ``skill`` on a plain-text input are queries of the trigger set
    (an agentv skill-trigger test is exactly that); what else a test holds is lost, and so is a test
    without such a check."""
    items: list[dict[str, Any]] = []
    for i, case in enumerate(evalset.cases):
        where = f"cases[{i}]"
        triggers = [c for c in case.checks if isinstance(c, ir.SkillTrigger)]
        mine = [c for c in triggers if skill is not None and c.skill == skill]
        if not mine or not isinstance(case.input, str):
            why = "its input is not a plain prompt" if mine else "a trigger eval set holds only queries"
            TABLE.add(losses, "case.name", case.span, where, f"case '{case.name}' ({why}; write cases with --to "
                                                             f"agent-skills)")
            continue
        items.extend({"query": case.input, "should_trigger": c.expects_trigger} for c in mine)
        for c in triggers:
            if c not in mine:
                TABLE.add(losses, "check.skill_trigger", c.span or case.span, where,
                          f"skill-trigger for '{c.skill}' in test '{case.name}' (the trigger set is for '{skill}')")
        TABLE.add(losses, "case.name", case.span, where, f"{_held(case, len(triggers))} (it became a query)")
    return items


def _held(case: ir.Case, triggers: int) -> str:
    """What a test that became a query held besides (``test id 'x', its criteria and its 2 other checks``)."""
    rest = len(case.checks) - triggers
    parts = [f"test id '{case.name}'"] + [name for name, there in (
        ("its criteria", case.judge is not None), ("its expected output", case.expected_output is not None),
        (f"its {rest} other check{'s' if rest != 1 else ''}", rest > 0)) if there]
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]


def write(evalset: ir.EvalSet, existing: dict[str, str] | None = None) -> WriteResult:
    r = Restore(evalset.format, NAME)
    losses: list[Loss] = []
    where = f"{evalset.span.file}:{evalset.span.line}" if evalset.span else "set"
    trig = evalset.triggers
    items: list[Any] = []
    name = DEFAULT_NAME
    style = "indent"
    if trig is not None:
        name = hinted_name(r.hints(trig).get("file_name"), DEFAULT_NAME, where, losses)
        if r.has(trig, ROOT):
            text = json.dumps(r.value(trig, ROOT), indent=2, ensure_ascii=False) + "\n"
            return WriteResult(files={name: text}, losses=losses)
        style = r.hints(trig).get("style", "indent")
        for prompt in trig.prompts:
            items.append(_item(r, prompt))
            if dropped := r.dropped(prompt):
                TABLE.add(losses, "triggers.extra", prompt.span, where,
                                         f"keys {', '.join(sorted(dropped))} of a trigger prompt")
        for key in r.dropped(trig):
            TABLE.add(losses, "triggers.extra", trig.span, where, f"trigger set key '{key}'")
    items.extend(_case_queries(evalset, _skill_of(evalset), losses))
    if evalset.suite is not None:
        TABLE.add(losses, "suite", evalset.suite.span, "suite", "suite (a trigger eval set holds only queries)")
    for c in evalset.checks:
        TABLE.add(losses, "set.checks", c.span, where, f"suite-level check '{c.label()}'")
    for field in ("name", "description", "tags", "input"):
        if getattr(evalset, field):
            TABLE.add(losses, f"set.{field}", evalset.span, where, f"eval set {field}")
    for key in r.dropped(evalset):
        TABLE.add(losses, "set.extra", evalset.span, where, f"{evalset.format} key '{key}'")
    skill = evalset.skill
    if skill is not None and skill.span is not None and (trig is None or trig.skill != skill.name):
        TABLE.add(losses, "set.skill", skill.span, where, f"skill name '{skill.name}'")
    if not items:
        return WriteResult(losses=losses, nothing="no trigger prompts to write (a skill-creator trigger set "
                                                  "holding none would be an empty list)")
    return WriteResult(files={name: _render(items, style)}, losses=losses)


FORMAT = Format(
    name=NAME,
    module=__name__,
    description="skill-creator trigger eval set: a JSON array of {query, should_trigger}",
    detect=detect,
    read=read,
    write=write,
    single_file=True,
    default_name=DEFAULT_NAME,
    one_skill=True,
)
