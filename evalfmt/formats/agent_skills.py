"""Format ``agent-skills``: the ``evals.json`` of Anthropic's skill-creator (and of ``agentv transpile``).

Shape (skill-creator's ``references/schemas.md``)::

    {"skill_name": "...", "evals": [{"id": 1, "prompt": "...", "expected_output": "...",
                                     "files": ["evals/files/x.csv"], "expectations": ["..."]}]}

Real files also spell ``expectations`` as ``assertions`` and add ``name``; ``agentv transpile`` adds
``should_trigger``. All of these are read. Any other key is kept (in ``extra``) with an EV101 warning.

IR mapping, chosen so that a file reads back exactly and converts well:

- each eval -> :class:`ir.Case`: ``name`` is the eval's ``name``, else ``str(id)``; the id itself is kept
  in ``hints["id"]``; ``prompt`` -> ``input``; ``expected_output`` -> ``expected_output``;
  ``files`` -> ``input_files``;
- the expectations -> one :class:`ir.Rubrics` check whose ``criteria`` are the sentences, in order
  (one rubric of several criteria is what agentv's ``rubrics`` and terum's graders mean too); the
  spelling ``assertions`` and an empty list are remembered in the case's ``hints``;
- ``should_trigger`` -> an :class:`ir.SkillTrigger` check on ``skill_name``.

The seed layout ``evalfmt transpile`` writes (``<skill>/evals.json`` holding ``{"tests": [{"id", "input",
"should_trigger"}]}``) is read too, so that evalfmt reads every file it writes: each test is a case
with a ``skill-trigger`` check for the skill its folder names (``hints["shape"] == "seed"``), written
back in the same shape.

The writer uses the documented ``expectations`` spelling unless the IR was read from a file that used
``assertions``. Checks that are not rubric sentences are written as sentences (the way ``agentv
transpile`` does) and each is reported as a loss: a model grades a sentence, nothing checks it mechanically.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from .. import ir
from ..ir import build
from ..load import type_name
from . import Format, Loss, ReadResult, Reporter, WriteResult, first_char, open_document, peek_keys, span_at
from .losses import Rule, Table, check_feature

NAME = "agent-skills"
TOP_KEYS = ("skill_name", "evals")
EVAL_KEYS = ("id", "name", "prompt", "expected_output", "files", "should_trigger", "expectations", "assertions")
SEED_KEYS = ("id", "input", "should_trigger")

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


def _lose(losses: list, key: str, where: str, what: str) -> None:
    losses.append(TABLE.loss(key, None, where, what))


# ------------------------------------------------------------------------------------ detection


def detect(path: str) -> bool:
    if not path.lower().endswith(".json") or first_char(path) != "{":
        return False
    keys = peek_keys(path)
    if "evals" in keys and ("skill_name" in keys or "prompt" in keys):
        return True
    return _is_seed_name(path) and "tests" in keys


def _is_seed_name(path: str) -> bool:
    """``evals.json``: the name the seed layout of ``evalfmt transpile`` writes."""
    import os

    return os.path.basename(path) == "evals.json"


# ------------------------------------------------------------------------------------ reading
# The reader builds the IR's dataclasses directly.


def read(path: str) -> ReadResult:
    result = ReadResult()
    rep = open_document(path, result, kind="json")
    if rep is None:
        return result
    data = rep.loaded.data
    evalset = ir.EvalSet(format=NAME, source=path, span=span_at(path))
    result.sets.append(evalset)
    if not isinstance(data, dict):
        rep.add("EV102", f"an evals.json must hold a mapping with 'skill_name' and 'evals', not a {type_name(data)}")
        evalset.extra["$root"] = data
        return result

    if "tests" in data and "evals" not in data and "skill_name" not in data and _is_seed_name(path):
        _read_seed(rep, data, evalset)
        return result

    order = list(data)
    if order != [k for k in TOP_KEYS if k in data] + [k for k in order if k not in TOP_KEYS]:
        evalset.hints["key_order"] = order

    skill = data.get("skill_name")
    if "skill_name" not in data:
        rep.add("EV103", "missing required key 'skill_name' (the name in the skill's frontmatter)")
    elif isinstance(skill, str):
        evalset.skill = ir.SkillInfo(name=skill, span=rep.span("skill_name"))
    else:
        rep.wrong_type("skill_name", "a string", skill, "skill_name")
        evalset.extra["skill_name"] = skill
    skill_name = skill if isinstance(skill, str) else None

    for key in order:
        if key not in TOP_KEYS:
            rep.unknown_key(key, TOP_KEYS, key)
            evalset.extra[key] = data[key]

    evals = data.get("evals")
    if "evals" not in data:
        rep.add("EV103", "missing required key 'evals' (a list of evals)")
    elif not isinstance(evals, list):
        rep.wrong_type("evals", "a list", evals, "evals")
        evalset.extra["evals"] = evals
    else:
        for i, item in enumerate(evals):
            evalset.cases.append(_read_eval(rep, item, i, skill_name))
        _check_ids(rep, evalset.cases)
    return result


def _read_seed(rep: Reporter, data: dict, evalset: ir.EvalSet) -> None:
    """``{"tests": [{"id", "input", "should_trigger"}]}`` in ``<skill>/evals.json`` (transpile's seed layout)."""
    import os

    path = rep.loaded.path
    skill = os.path.basename(os.path.dirname(os.path.abspath(path)))
    evalset.hints["shape"] = "seed"
    evalset.skill = ir.SkillInfo(name=skill)
    for key in data:
        if key != "tests":
            rep.unknown_key(key, ("tests",), key, otherwise=" (it is kept)")
            evalset.extra[key] = data[key]
    tests = data["tests"]
    if not isinstance(tests, list):
        rep.wrong_type("tests", "a list", tests, "tests")
        evalset.extra["tests"] = tests
        return
    for i, item in enumerate(tests):
        at = ("tests", i)
        case = ir.Case(name=f"test-{i + 1}", span=rep.span(*at))
        evalset.cases.append(case)
        if not isinstance(item, dict):
            rep.add("EV102", f"a test must be a mapping with 'id', 'input' and 'should_trigger', not a "
                             f"{type_name(item)}", *at)
            case.extra["$value"] = item
            continue
        for key, want in (("id", "a string"), ("should_trigger", "a boolean")):
            if key not in item:
                rep.add("EV103", f"missing required key '{key}'", *at)
        if isinstance(item.get("id"), str) and item["id"].strip():
            case.name = item["id"]
        elif "id" in item:
            rep.wrong_type("id", "a non-blank string", item["id"], *at, "id")
            case.extra["id"] = item["id"]
        value = item.get("input")
        if isinstance(value, str) or _messages(value):
            case.input = value if isinstance(value, str) else [build.message(m) for m in value]
        elif "input" in item:
            rep.wrong_type("input", "a string or a list of {role, content} messages", value, *at, "input")
            case.extra["input"] = value
        trig = item.get("should_trigger")
        if isinstance(trig, bool):
            case.checks.append(ir.SkillTrigger(skill=skill, should_trigger=trig, span=rep.span(*at, "should_trigger")))
        elif "should_trigger" in item:
            rep.wrong_type("should_trigger", "a boolean", trig, *at, "should_trigger")
            case.extra["should_trigger"] = trig
        for key in item:
            if key not in SEED_KEYS:
                rep.unknown_key(key, SEED_KEYS, *at, key, otherwise=" (it is kept)")
                case.extra[key] = item[key]


def _messages(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in value)


def _read_eval(rep: Reporter, item: Any, i: int, skill_name: str | None) -> ir.Case:
    at = ("evals", i)
    case = ir.Case(name=str(i + 1), span=rep.span(*at))
    if not isinstance(item, dict):
        rep.add("EV102", f"an eval must be a mapping with 'id' and 'prompt', not a {type_name(item)}", *at)
        case.extra["$value"] = item
        return case
    extra, hints, checks = case.extra, case.hints, case.checks
    order = list(item)

    _read_id_and_name(rep, item, at, case)

    # prompt
    if "prompt" not in item:
        rep.add("EV103", "missing required key 'prompt' (the task to run)", *at)
    elif isinstance(item["prompt"], str):
        case.input = item["prompt"]
        if not item["prompt"].strip():
            rep.add("EV103", "'prompt' is blank: write the task to run", *at, "prompt")
    else:
        rep.wrong_type("prompt", "a string", item["prompt"], *at, "prompt")
        extra["prompt"] = item["prompt"]

    if "expected_output" in item:
        value = item["expected_output"]
        if isinstance(value, str):
            case.expected_output = value
        else:
            rep.wrong_type("expected_output", "a string", value, *at, "expected_output")
            extra["expected_output"] = value

    if "files" in item:
        files = item["files"]
        if isinstance(files, list) and all(isinstance(f, str) for f in files):
            case.input_files = list(files)
        elif isinstance(files, list):
            bad = next(j for j, f in enumerate(files) if not isinstance(f, str))
            rep.wrong_type("files", "a list of paths (strings)", files[bad], *at, "files", bad)
            extra["files"] = files
        else:
            rep.wrong_type("files", "a list of paths", files, *at, "files")
            extra["files"] = files

    if "should_trigger" in item:
        value = item["should_trigger"]
        if isinstance(value, bool):
            checks.append(ir.SkillTrigger(skill=skill_name, should_trigger=value, span=rep.span(*at, "should_trigger")))
        else:
            rep.wrong_type("should_trigger", "a boolean", value, *at, "should_trigger")
            extra["should_trigger"] = value

    _read_expectations(rep, item, at, case)

    for key in order:
        if key not in EVAL_KEYS:
            rep.unknown_key(key, EVAL_KEYS, *at, key)
            extra[key] = item[key]

    if order != _default_order(item):
        hints["key_order"] = order
    return case


def _read_id_and_name(rep: Reporter, item: dict, at: tuple, case: ir.Case) -> None:
    extra, hints = case.extra, case.hints
    if "id" not in item:
        rep.add("EV103", "missing required key 'id' (a unique integer)", *at)
        hints["id"] = None
    else:
        ident = item["id"]
        if isinstance(ident, int) and not isinstance(ident, bool):
            hints["id"] = ident
            case.name = str(ident)
        else:
            rep.wrong_type("id", "an integer", ident, *at, "id")
            extra["id"] = ident
            if isinstance(ident, str) and ident:
                case.name = ident
    if "name" in item:
        name = item["name"]
        if isinstance(name, str) and name.strip():
            case.name = name
            if "id" in item and name == str(item["id"]):
                hints["name_key"] = True
        else:
            if isinstance(name, str):
                rep.add("EV102", "'name' is blank: give the eval a name, or remove the key", *at, "name")
            else:
                rep.wrong_type("name", "a string", name, *at, "name")
            extra["name"] = name


def _read_expectations(rep: Reporter, item: dict, at: tuple, case: ir.Case) -> None:
    """``expectations`` (or its other spelling ``assertions``): one rubrics check of sentences."""
    extra, hints = case.extra, case.hints
    spellings = [k for k in ("expectations", "assertions") if k in item]
    if len(spellings) == 2:
        rep.add("EV101", "both 'expectations' and 'assertions' given: merge them into 'expectations'",
                *at, "assertions", key=True)
    for key in spellings:
        value = item[key]
        if key == "assertions" and len(spellings) == 2:
            extra[key] = value
            continue
        if key == "assertions":
            hints["expectations_key"] = "assertions"
        if isinstance(value, list) and all(isinstance(s, str) for s in value):
            if value:
                case.checks.append(ir.Rubrics(criteria=list(value), span=rep.span(*at, key)))
            else:
                hints["empty_expectations"] = True
        else:
            if isinstance(value, list):
                bad = next(j for j, s in enumerate(value) if not isinstance(s, str))
                rep.wrong_type(key, "a list of sentences (strings)", value[bad], *at, key, bad)
            else:
                rep.wrong_type(key, "a list of sentences", value, *at, key)
            extra[key] = value
            hints.pop("expectations_key", None)


def _default_order(item: dict) -> list[str]:
    return [k for k in EVAL_KEYS if k in item] + [k for k in item if k not in EVAL_KEYS]


def _check_ids(rep: Reporter, cases: list[ir.Case]) -> None:
    seen: dict[Any, int] = {}
    for i, case in enumerate(cases):
        ident = case.hints.get("id")
        if ident is None:
            continue
        if ident in seen:
            rep.add("EV115", f"duplicate eval id {ident} (eval number {seen[ident] + 1} of the list has it too): "
                    "give each eval its own id",
                    "evals", i, "id")
        else:
            seen[ident] = i


# ------------------------------------------------------------------------------------ writing


def _any_all(check: ir.CheckBase) -> str:
    k = check.kind
    which = "any" if k.endswith("any") else "all"
    case = " (case-insensitive)" if k.startswith("i") else ""
    return f"Output contains {which} of{case}: " + ", ".join(f"'{v}'" for v in check.values)  # type: ignore[attr-defined]


#: One expectation sentence per IR check class (what the writer puts in ``expectations``).
SENTENCES: dict[type[ir.CheckBase], Callable[[Any], str]] = {
    ir.Rubrics: lambda c: "; ".join(x if isinstance(x, str) else str(x.get("outcome") or x.get("description") or x)
                                    for x in c.criteria),
    ir.TranscriptMentions: lambda c: f"The transcript mentions '{c.text}'",
    ir.TranscriptOmits: lambda c: f"The transcript does not mention '{c.text}'",
    ir.CommandMatching: lambda c: f"A command matching /{c.pattern}/ is run",
    ir.NoCommandMatching: lambda c: f"No command matching /{c.pattern}/ is run",
    ir.FileExists: lambda c: f"The file '{c.path}' exists after the session",
    ir.FileAbsent: lambda c: f"The file '{c.path}' does not exist after the session",
    ir.CommandSucceeds: lambda c: f"The command '{c.command}' succeeds after the session",
    ir.SkillTrigger: lambda c: f"The agent {'uses' if c.expects_trigger else 'does not use'} the skill '{c.skill or ''}'",
    ir.Contains: lambda c: f"Output contains '{c.value}'",
    ir.Icontains: lambda c: f"Output contains (case-insensitive) '{c.value}'",
    ir.ContainsAny: _any_all,
    ir.ContainsAll: _any_all,
    ir.IcontainsAny: _any_all,
    ir.IcontainsAll: _any_all,
    ir.StartsWith: lambda c: f"Output starts with '{c.value}'",
    ir.EndsWith: lambda c: f"Output ends with '{c.value}'",
    ir.Regex: lambda c: f"Output matches /{c.value}/{c.flags or ''}",
    ir.Equals: lambda c: f"Output equals '{c.arg}'",
    ir.IsJson: lambda c: "Output is valid JSON",
    ir.LlmGrader: lambda c: c.prompt or "An LLM grader accepts the output",
    ir.Opaque: lambda c: f"Passes the {c.origin + ' ' if c.origin else ''}check '{c.label()}'",
}


def sentence(check: ir.CheckBase) -> str:
    """A check as one natural-language expectation a grader can judge."""
    write = SENTENCES.get(type(check))
    return write(check) if write is not None else f"Passes the check '{check.label()}'"


def _where(node: Any, fallback: str) -> str:
    span = getattr(node, "span", None)
    return f"{span.file}:{span.line}" if span is not None else fallback


def skill_name_of(evalset: ir.EvalSet) -> str:
    if evalset.skill is not None:
        return evalset.skill.name
    names = []
    for case in evalset.cases:
        for c in case.checks:
            if c.kind == "skill-trigger" and c.skill and c.skill not in names:
                names.append(c.skill)
    if len(names) == 1:
        return names[0]
    return evalset.name or ""


def write(evalset: ir.EvalSet, existing: dict[str, str] | None = None) -> WriteResult:
    own = evalset.format == NAME
    if own and evalset.hints.get("shape") == "seed":
        return _write_seed(evalset)
    losses: list[Loss] = []
    skill = skill_name_of(evalset)
    out: dict[str, Any] = {}
    if own and "skill_name" in evalset.extra:
        out["skill_name"] = evalset.extra["skill_name"]
    elif own and evalset.skill is None:
        pass  # the source had no skill_name: keep it that way
    else:
        out["skill_name"] = skill
    if own and "evals" in evalset.extra:
        out["evals"] = evalset.extra["evals"]
    else:
        out["evals"] = _write_evals(evalset, skill, own, losses)
    for key, value in (evalset.extra.items() if own else ()):
        if key not in TOP_KEYS and key != "$root":
            out[key] = value
    if own and "$root" in evalset.extra:
        out = evalset.extra["$root"]
    if own and isinstance(out, dict) and evalset.hints.get("key_order"):
        out = _reorder(out, evalset.hints["key_order"])
    _set_losses(evalset, own, losses)
    text = json.dumps(out, indent=2, ensure_ascii=False) + "\n"
    return WriteResult(files={"evals.json": text}, losses=losses)


def _write_evals(evalset: ir.EvalSet, skill: str, own: bool, losses: list[Loss]) -> list[Any]:
    """The ``evals`` list: each case (its id kept when it has one, else the next free integer), then the suite."""
    evals: list[Any] = []
    used_ids: set[int] = {c.hints["id"] for c in evalset.cases if own and isinstance(c.hints.get("id"), int)}
    next_id = 1
    for i, case in enumerate(evalset.cases):
        if own and "$value" in case.extra:
            evals.append(case.extra["$value"])
            continue
        ident = case.hints.get("id") if own else None
        if ident is None and not (own and ("id" in case.extra or "id" in case.hints)):
            while next_id in used_ids:
                next_id += 1
            ident = next_id
            used_ids.add(ident)
        evals.append(_write_case(case, ident, skill, own, losses, f"cases[{i}]", i))
    if evalset.suite is not None:
        while next_id in used_ids:
            next_id += 1
        evals.append(_write_suite(evalset.suite, next_id, skill, losses))
    return evals


def _write_seed(evalset: ir.EvalSet) -> WriteResult:
    """The seed shape back as ``evalfmt transpile`` writes it (see :mod:`evalfmt.route`)."""
    from ..js import stringify
    from ..route import canonical_input

    tests: list[Any] = []
    skill = evalset.skill.name if evalset.skill else None
    for case in evalset.cases:
        if "$value" in case.extra:
            tests.append(case.extra["$value"])
            continue
        item: dict[str, Any] = {"id": case.extra.get("id", case.name)}
        if case.input is not None or "input" in case.extra:
            item["input"] = case.extra.get("input", canonical_input(case.input))
        trig = next((c for c in case.checks if c.kind == "skill-trigger" and c.skill in (skill, None)), None)
        if "should_trigger" in case.extra:
            item["should_trigger"] = case.extra["should_trigger"]
        elif trig is not None:
            item["should_trigger"] = trig.expects_trigger
        item.update({k: v for k, v in case.extra.items() if k not in SEED_KEYS and k != "$value"})
        tests.append(item)
    out: dict[str, Any] = {"tests": evalset.extra.get("tests", tests)}
    out.update({k: v for k, v in evalset.extra.items() if k != "tests"})
    return WriteResult(files={"evals.json": stringify(out, 2) + "\n"})


def _reorder(d: dict, order: list[str]) -> dict:
    out = {k: d[k] for k in order if k in d}
    out.update({k: v for k, v in d.items() if k not in out})
    return out


def _set_losses(evalset: ir.EvalSet, own: bool, losses: list[Loss]) -> None:
    where = _where(evalset, "set")
    if evalset.triggers is not None and evalset.triggers.prompts:
        _lose(losses, "triggers", _where(evalset.triggers, where),
                           f"{len(evalset.triggers.prompts)} trigger prompts (write them with --to skill-creator-triggers)")
    if evalset.input is not None:
        _lose(losses, "set.input", where, "suite-level input prepended to every test")
    for c in evalset.checks:
        _lose(losses, "set.checks", _where(c, where), f"suite-level check '{c.label()}' applied to every test")
    if evalset.description:
        _lose(losses, "set.description", where, "description")
    if evalset.tags:
        _lose(losses, "set.tags", where, "tags")
    if not own:
        for key in evalset.extra:
            _lose(losses, "set.extra", where, f"{evalset.format} key '{key}'")
        if evalset.name and evalset.skill is not None and evalset.name != evalset.skill.name:
            _lose(losses, "set.name", where, f"name '{evalset.name}'")


CASE_FIELDS_LOST = ("judge", "files", "fixture", "setup", "bucket", "requires", "timeout_minutes", "max_turns",
                    "metadata", "tags", "timeout_ms", "expected_fail")


def _write_case(case: ir.Case, ident: Any, skill: str, own: bool, losses: list[Loss], path: str,
                index: int = 0) -> dict:
    where = _where(case, path)
    item: dict[str, Any] = {}
    _write_head(item, case, ident, own, index, losses, where)
    trigger_checks = [c for c in case.checks if c.kind == "skill-trigger" and (c.skill in (skill, None))]
    trigger = trigger_checks[0] if len(trigger_checks) >= 1 else None
    if own and "should_trigger" in case.extra:
        item["should_trigger"] = case.extra["should_trigger"]
    elif trigger is not None:
        item["should_trigger"] = trigger.expects_trigger  # type: ignore[union-attr]
    _write_expectations(item, case, _sentences(case, trigger, own, losses, where), own, losses, where)
    for field in CASE_FIELDS_LOST:
        if field == "judge":
            continue
        if getattr(case, field) is not None:
            _lose(losses, f"case.{field}", where, field if field != "files" else "inline files (contents)")
    if own:
        for k, v in case.extra.items():
            if k not in EVAL_KEYS and k != "$value":
                item[k] = v
    else:
        for k in case.extra:
            _lose(losses, "case.extra", where, f"key '{k}'")
    order = case.hints.get("key_order") if own else None
    return _reorder(item, order or _default_order(item))


def _write_head(item: dict[str, Any], case: ir.Case, ident: Any, own: bool, index: int, losses: list[Loss],
                where: str) -> None:
    """id, name, prompt, expected_output and files of an eval."""
    if own and "id" in case.extra:
        item["id"] = case.extra["id"]
    elif ident is not None:
        item["id"] = ident
    implied = str(item["id"]) if "id" in item and not isinstance(item["id"], str) else str(index + 1)
    if own and "name" in case.extra:
        item["name"] = case.extra["name"]
    elif case.name != (item["id"] if isinstance(item.get("id"), str) else implied) or case.hints.get("name_key"):
        item["name"] = case.name
    if own and "prompt" in case.extra:
        item["prompt"] = case.extra["prompt"]
    elif case.input is not None:
        item["prompt"] = ir.input_text(case.input) or ""
        if not isinstance(case.input, str):
            _lose(losses, "case.messages", where, "input messages flattened to one prompt text")
    else:
        item["prompt"] = ""
    if own and "expected_output" in case.extra:
        item["expected_output"] = case.extra["expected_output"]
    elif case.expected_output is not None:
        if isinstance(case.expected_output, str):
            item["expected_output"] = case.expected_output
        else:
            item["expected_output"] = json.dumps(case.expected_output, ensure_ascii=False)
            _lose(losses, "case.expected_output", where, "structured expected_output written as JSON text")
    if own and "files" in case.extra:
        item["files"] = case.extra["files"]
    elif case.input_files is not None:
        item["files"] = list(case.input_files)


def _sentences(case: ir.Case, trigger: ir.CheckBase | None, own: bool, losses: list[Loss], where: str) -> list[str]:
    """The expectation sentences of an eval's checks (the skill-trigger it writes as should_trigger aside)."""
    sentences: list[str] = []
    for check in case.checks:
        if check is trigger:
            for f in ("name", "weight", "required", "min_score", "negate"):
                if getattr(check, f) is not None:
                    _lose(losses, "check.fields", _where(check, where), f"'{f}' of the skill-trigger check")
            continue
        if isinstance(check, ir.Rubrics) and (own or all(isinstance(c, str) for c in check.criteria)):
            for crit in check.criteria:
                if isinstance(crit, str):
                    sentences.append(crit)
                else:
                    sentences.append(sentence(ir.Rubrics(criteria=[crit])))
                    _lose(losses, "check.rubric/objects", _where(check, where), "rubric criterion fields other than its text")
            if not own:
                for f in ("name", "weight", "required", "min_score", "negate"):
                    if getattr(check, f) is not None:
                        _lose(losses, "check.fields", _where(check, where), f"'{f}' of the rubrics check")
            continue
        sentences.append(sentence(check))
        _lose(losses, check_feature(check.kind), _where(check, where),
              f"check '{check.label()}' became the expectation sentence {sentences[-1]!r} (a model grades it; "
              "nothing checks it mechanically)")
    return sentences


def _write_expectations(item: dict[str, Any], case: ir.Case, sentences: list[str], own: bool, losses: list[Loss],
                        where: str) -> None:
    key = case.hints.get("expectations_key", "expectations") if own else "expectations"
    if own and "expectations" in case.extra:
        item["expectations"] = case.extra["expectations"]
    if own and "assertions" in case.extra:
        item["assertions"] = case.extra["assertions"]
    if sentences or (own and case.hints.get("empty_expectations")):
        item[key] = sentences
    elif not own:
        item[key] = []
    if case.judge:
        if not own:
            _lose(losses, "case.judge", where, "judge rubric (kept as the last expectation)")
        item.setdefault(key, [])
        if isinstance(item[key], list):
            item[key].append(case.judge)


def _write_suite(suite: ir.Suite, ident: int, skill: str, losses: list[Loss]) -> dict:

    where = _where(suite, "suite")
    _lose(losses, "suite", where, f"suite entries ({len(suite.entries)}) merged into one eval: their rows are not scored apart")
    merged = ir.Case(name=suite.name, input=suite.input, span=suite.span,
                     checks=list(suite.checks) + [c for e in suite.entries for c in e.checks])
    for field in ("judge", "files", "fixture", "setup", "bucket", "requires", "timeout_minutes", "max_turns"):
        setattr(merged, field, getattr(suite, field))
    return _write_case(merged, ident, skill, False, losses, "suite")


FORMAT = Format(
    name=NAME,
    module=__name__,
    description="Anthropic skill-creator evals.json (also what agentv transpile writes)",
    detect=detect,
    read=read,
    write=write,
    single_file=True,
    default_name="evals.json",
)

__all__ = ["FORMAT", "detect", "read", "write", "sentence"]
