"""The agentv layout: what ``agentv transpile`` 4.42.4 writes, byte for byte.

agentv's transpiler reads the EVAL.yaml *as written* (the YAML data, before any of its own loader's
normalisation) and turns each test into an Agent Skills eval. This module reproduces it on the same
data, with JavaScript semantics (:mod:`evalfmt.js`) wherever they show in the output. The
rules, each checked against the real tool (tests/transpile/test_agentv_layout.py names one test per
quirk):

- ``tests`` must be a list (``eval_cases``, a path string, anything else: ``missing 'tests' array``);
  the top level must be a mapping (``expected an object``); no test at all: ``No output produced``;
- one eval per test and per ``skill-trigger`` assertion it carries: ``id`` is the test's 1-based
  position, ``prompt`` the last text of the last user message (or the string input), ``files`` the
  ``input_files`` then the file parts of user messages, ``expected_output`` the last message with
  string content (or the string itself, or ``JSON.stringify`` of any other value);
- ``assertions`` are sentences: ``criteria`` (trimmed) first, then each assertion's sentence (its kind's
  ``agentv.sentence``, :mod:`evalfmt.ir.kinds`), then the suite-level assertions' sentences;
  ``skill-trigger`` makes no sentence; a rubric's criteria list, plain-string assertions and an llm-grader
  without prompt make none either (dropped); unknown types become ``<type> assertion`` (so do
  icontains-any/all and composite);
- a test with two skill-trigger assertions for the same skill is listed twice; a skill-trigger
  without a string ``skill`` goes to ``_no-skill``; tests without any skill-trigger go to ``_no-skill``
  too, and ``_no-skill`` is then appended to the skill with the most evals (the first such skill when
  several tie), unless there is no other skill;
- one skill: ``evals.json``; several: ``<skill>.evals.json`` with every character outside
  ``[a-zA-Z0-9_-]`` (every UTF-16 code unit) replaced by ``_``. Names that collide after this
  overwrite each other in agentv; here the later wins too (same bytes on disk).

The sentences are the kinds' (:mod:`evalfmt.ir.kinds`); the rest reads the YAML data, never the IR.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ... import js
from ...fsview import View
from ...ir.kinds import AGENTV_TYPES, Agentv
from ...ir.kinds.code_grader import grader_instruction, grader_name_from_command
from ...js import UNDEFINED, coalesce, get, nullish
from .loader import AgentvYamlError, duplicate_key_error, load_file

NO_SKILL = "_no-skill"


class AgentvError(Exception):
    """A failure ``agentv transpile`` reports as ``Error: <message>`` with exit code 1, after the
    ``warnings`` it printed before failing."""

    def __init__(self, message: str, warnings: list[str] | None = None):
        super().__init__(message)
        self.message = message
        self.warnings = list(warnings or [])


@dataclass
class AgentvResult:
    #: skill name -> {"skill_name": ..., "evals": [...]} in agentv's (Map insertion) order
    skills: dict[str, dict[str, Any]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def filenames(self) -> dict[str, str]:
        """skill -> output file name, as agentv names them."""
        if len(self.skills) == 1:
            return dict.fromkeys(self.skills, "evals.json")
        return {skill: safe_name(skill) + ".evals.json" for skill in self.skills}

    def files(self) -> dict[str, str]:
        """output file name -> text (the later of two skills with one file name wins, as on disk)."""
        out: dict[str, str] = {}
        for skill, name in self.filenames().items():
            out[name] = render(self.skills[skill])
        return out


def safe_name(skill: str) -> str:
    """``skill.replace(/[^a-zA-Z0-9_-]/g, "_")`` (per UTF-16 code unit)."""
    return "".join(ch if (ch.isascii() and (ch.isalnum() or ch in "_-")) else "_" * js.utf16_len(ch)
                   for ch in skill)


def render(obj: dict[str, Any]) -> str:
    """``JSON.stringify(obj, null, 2)`` and a newline."""
    return js.stringify(obj, 2) + "\n"


# ------------------------------------------------------------------------------------- sentences

#: agentv transpile's sentence per assertion type it knows, and per snake_case spelling it understands: each
#: kind's ``agentv.sentence`` (:mod:`evalfmt.ir.kinds`)
SENTENCES: dict[str, Callable[[Any], str | list[str] | None]] = {
    name: entry.sentence for entry in (s.agentv for s in AGENTV_TYPES.values())
    if isinstance(entry, Agentv) and entry.sentence is not None for name in (entry.type, *entry.spellings)}


def _said(entry: Any) -> str | list[str] | None:
    """What agentv transpile writes for one assertion: its type's sentence (a list: several), else the generic
    fallback: a grader command's instruction, else the criteria text, else the prompt text, else
    ``<type> assertion`` (None for no type)."""
    kind = get(entry, "type")
    said = SENTENCES.get(kind) if isinstance(kind, str) else None
    if said is not None:
        return said(entry)
    command = get(entry, "command")
    if command is not UNDEFINED and js.truthy(kind):
        name = grader_name_from_command(command)
        return grader_instruction(js.string(kind if nullish(name) else name), UNDEFINED)
    crit = get(entry, "criteria")
    if isinstance(crit, str):
        return crit
    prompt = get(entry, "prompt")
    if isinstance(prompt, str):
        return prompt
    return f"{js.string(kind)} assertion" if js.truthy(kind) else None


def assertion_sentences(entry: Any) -> list[str]:
    """``assertionToNaturalLanguageList``: an llm-grader's rubric outcomes, else the one sentence."""
    said = _said(entry)
    return said if isinstance(said, list) else [] if said is None else [said]


# ------------------------------------------------------------------------------------------ tests


def _assertions_of(obj: Any) -> list[Any]:
    a = get(obj, "assertions")
    if isinstance(a, list):
        return a
    a = get(obj, "assert")
    if isinstance(a, list):
        return a
    return []


def _extract_input(case: Any) -> tuple[str, list[str]]:
    raw_files = get(case, "input_files")
    files = [f for f in raw_files if isinstance(f, str)] if isinstance(raw_files, list) else []
    value = get(case, "input")
    if isinstance(value, str):
        return value, files
    if isinstance(value, list):
        prompt = ""
        for msg in value:
            if get(msg, "role") != "user":
                continue
            content = get(msg, "content")
            if isinstance(content, str):
                prompt = content
            elif isinstance(content, list):
                for block in content:
                    btype = get(block, "type")
                    bvalue = get(block, "value")
                    if btype == "text" and isinstance(bvalue, str):
                        prompt = bvalue
                    elif btype == "file" and isinstance(bvalue, str):
                        files.append(bvalue)
        return prompt, files
    return "", files


def _extract_expected(raw: Any) -> Any:
    if nullish(raw):
        return UNDEFINED
    if isinstance(raw, str):
        return raw
    if isinstance(raw, list):
        for msg in reversed(raw):
            content = get(msg, "content")
            if isinstance(content, str):
                return content
        return UNDEFINED
    return js.stringify(raw)


def transpile(suite: Any, source: str = "EVAL.yaml") -> AgentvResult:
    """``transpileEvalYaml``: the evals.json objects per skill, and the warnings agentv prints."""
    result = AgentvResult()
    if not isinstance(suite, (dict, list)):
        raise AgentvError(f"Invalid EVAL.yaml: expected an object in '{source}'")
    tests = get(suite, "tests")
    if not isinstance(tests, list):
        raise AgentvError(f"Invalid EVAL.yaml: missing 'tests' array in '{source}'")
    try:
        return _transpile(suite, tests, result)
    except js.JSTypeError as exc:
        raise AgentvError(str(exc)) from None


def _transpile(suite: Any, tests: list[Any], result: AgentvResult) -> AgentvResult:
    if get(suite, "assert") is not UNDEFINED and get(suite, "assertions") is UNDEFINED:
        result.warnings.append("'assert' is deprecated at the suite level. Use 'assertions' instead.")
    suite_nl: list[str] = []
    for entry in _assertions_of(suite):
        if get(entry, "type") != "skill-trigger":
            suite_nl.extend(assertion_sentences(entry))
    for idx, case in enumerate(tests):
        _test(idx, case, suite_nl, result)
    _fold_no_skill(result.skills)
    return result


def _test(idx: int, case: Any, suite_nl: list[str], result: AgentvResult) -> None:
    """One test: its eval, once per skill-trigger it carries (none: for ``_no-skill``)."""
    entries = _assertions_of(case)
    if get(case, "assert") is not UNDEFINED and get(case, "assertions") is UNDEFINED:
        case_id = coalesce(get(case, "id"), idx + 1)
        result.warnings.append(f"Test '{js.string(case_id)}': 'assert' is deprecated. Use 'assertions' instead.")
    nl: list[str] = []
    criteria = get(case, "criteria")
    if isinstance(criteria, str) and js.trim(criteria):
        nl.append(js.trim(criteria))
    for entry in entries:
        if get(entry, "type") != "skill-trigger":
            nl.extend(assertion_sentences(entry))
    nl.extend(suite_nl)
    prompt, files = _extract_input(case)
    expected = _extract_expected(get(case, "expected_output"))
    base: dict[str, Any] = {"id": idx + 1, "prompt": prompt}
    if expected is not UNDEFINED:
        base["expected_output"] = expected
    if files:
        base["files"] = files
    base["assertions"] = nl
    triggers = [a for a in entries if get(a, "type") == "skill-trigger"]
    if not triggers:
        _skill_file(result.skills, NO_SKILL)["evals"].append(dict(base))
    for trig in triggers:
        skill = get(trig, "skill")
        entry = dict(base)
        entry["should_trigger"] = get(trig, "should_trigger") is not False
        _skill_file(result.skills, skill if isinstance(skill, str) else NO_SKILL)["evals"].append(entry)


def _skill_file(skills: dict[str, dict[str, Any]], name: str) -> dict[str, Any]:
    """The evals.json object of skill ``name``, made on first use (Map insertion order)."""
    f = skills.get(name)
    if f is None:
        f = skills[name] = {"skill_name": name, "evals": []}
    return f


def _fold_no_skill(skills: dict[str, dict[str, Any]]) -> None:
    """``_no-skill``'s evals go to the skill with the most evals (the first of several that tie)."""
    no_skill = skills.get(NO_SKILL)
    if no_skill is None or not no_skill["evals"]:
        return
    dominant = None
    best = 0
    for name, f in skills.items():
        if name != NO_SKILL and len(f["evals"]) > best:
            best = len(f["evals"])
            dominant = name
    if dominant:  # JavaScript truthiness: a skill named '' is never the dominant one
        skills[dominant]["evals"].extend(no_skill["evals"])
        del skills[NO_SKILL]


# ---------------------------------------------------------------------------------- whole files


def load_suite(path: str, *, fs: View) -> Any:
    """The EVAL.yaml data as agentv's ``parseYamlValue`` gives it; AgentvError for what its parser
    refuses, on one line at agentv's position (agentv prints a source excerpt under it; evalfmt's
    errors are one line). Raises :class:`~evalfmt.errors.LoadError` for what evalfmt refuses before
    parsing (size, NUL bytes, invalid UTF-8)."""
    try:
        loaded = load_file(path, fs=fs)
    except AgentvYamlError as exc:
        raise AgentvError(str(exc)) from None
    dup = duplicate_key_error(loaded)
    if dup is not None:
        raise AgentvError(dup)
    return loaded.data


def transpile_file(path: str, *, fs: View) -> AgentvResult:
    suite = load_suite(path, fs=fs)
    result = transpile(suite, os.path.basename(path))
    if not result.skills:
        raise AgentvError("No output produced (no tests found)", result.warnings)
    return result
