"""Reading an ``evals.json`` (skill-creator's shape, or the seed layout of ``evalfmt transpile``) into IR."""

from __future__ import annotations

import os
from typing import Any, TypeGuard

from ... import ir
from ...fsview import DISK, View
from ...ir import build
from ...load import type_name
from .. import ReadResult, Reporter, open_document, span_at
from . import EVAL_KEYS, NAME, SEED_KEYS, TOP_KEYS, _default_order, _is_seed_name



def read(path: str, *, fs: View = DISK) -> ReadResult:
    result = ReadResult()
    rep = open_document(path, result, kind="json", fs=fs)
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


def _read_seed(rep: Reporter, data: dict[str, Any], evalset: ir.EvalSet) -> None:
    """``{"tests": [{"id", "input", "should_trigger"}]}`` in ``<skill>/evals.json`` (transpile's seed layout)."""
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
        for key, _want in (("id", "a string"), ("should_trigger", "a boolean")):
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


def _messages(value: Any) -> TypeGuard[list[dict[str, Any]]]:
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


def _read_id_and_name(rep: Reporter, item: dict[str, Any], at: tuple[Any, ...], case: ir.Case) -> None:
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


def _read_expectations(rep: Reporter, item: dict[str, Any], at: tuple[Any, ...], case: ir.Case) -> None:
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
