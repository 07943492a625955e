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
- ``assertions`` are sentences: ``criteria`` (trimmed) first, then each assertion's sentence, then
  the suite-level assertions' sentences; ``skill-trigger`` makes no sentence; a rubric's criteria
  list, plain-string assertions and an llm-grader without prompt make none either (dropped);
  unknown types become ``<type> assertion`` (so do icontains-any/all and composite);
- a test with two skill-trigger assertions for the same skill is listed twice; a skill-trigger
  without a string ``skill`` goes to ``_no-skill``; tests without any skill-trigger go to ``_no-skill``
  too, and ``_no-skill`` is then appended to the skill with the most evals (the first such skill when
  several tie), unless there is no other skill;
- one skill: ``evals.json``; several: ``<skill>.evals.json`` with every character outside
  ``[a-zA-Z0-9_-]`` (every UTF-16 code unit) replaced by ``_``. Names that collide after this
  overwrite each other in agentv; here the later wins too (same bytes on disk).

This module never imports the IR: the agentv layout of an agentv file is a cold-start fast path.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from .. import js
from ..formats.agentv.loader import AgentvYamlError, duplicate_key_error, load_file
from ..fsview import View
from ..js import UNDEFINED, get, nullish

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
    skills: dict[str, dict] = field(default_factory=dict)
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


def render(obj: dict) -> str:
    """``JSON.stringify(obj, null, 2)`` and a newline."""
    return js.stringify(obj, 2) + "\n"


# ------------------------------------------------------------------------------------- sentences

_CODE_FILE = re.compile(r"(?<![^/])([^/]+)\.(ts|js|mts|mjs)\Z", re.S)  # a match starts after the last '/'.


def _code_grader_instruction(name: str, description: Any) -> str:
    desc = f" This grader: {description}." if js.truthy(description) else ""
    return (f"Run `agentv eval assert {name} --agent-output <agent_output> --agent-input <original_prompt>` "
            f"and check the result.{desc} The command accepts --agent-output (the agent's full response text) "
            "and --agent-input (the original user prompt). It returns JSON on stdout: "
            '{"score": 0-1, "reasoning": "..."}. A score >= 0.5 means pass (exit 0); below 0.5 means fail (exit 1).')


def _grader_name_from_command(command: Any) -> Any:
    if not isinstance(command, list) or not command:
        return UNDEFINED
    for arg in command:
        if not isinstance(arg, str):
            continue
        m = _CODE_FILE.search(arg)
        if m:
            return m.group(1) or UNDEFINED
    return UNDEFINED


def _coalesce(*values: Any) -> Any:
    for v in values:
        if not nullish(v):
            return v
    return values[-1]


def assertion_sentence(entry: Any) -> str | None:
    """``assertionToNaturalLanguage``: the sentence for one assertion entry, or None."""
    kind = get(entry, "type")
    if kind == "skill-trigger":
        return None
    if kind == "rubrics":
        crit = get(entry, "criteria")
        return crit if isinstance(crit, str) else None
    if kind == "contains":
        return f"Output contains '{js.string(get(entry, 'value'))}'"
    if kind in ("contains-any", "contains_any", "contains-all", "contains_all"):
        value = get(entry, "value")
        values = js.join(value, "', '") if isinstance(value, list) else js.string(value)
        which = "any" if "any" in kind else "all"
        return f"Output contains {which} of: '{values}'"
    if kind == "icontains":
        return f"Output contains (case-insensitive) '{js.string(get(entry, 'value'))}'"
    if kind == "regex":
        return f"Output matches regex: {js.string(get(entry, 'value'))}"
    if kind == "equals":
        return f"Output exactly equals: {js.string(get(entry, 'value'))}"
    if kind in ("is-json", "is_json"):
        return "Output is valid JSON"
    if kind in ("starts-with", "starts_with"):
        return f"Output starts with '{js.string(get(entry, 'value'))}'"
    if kind in ("ends-with", "ends_with"):
        return f"Output ends with '{js.string(get(entry, 'value'))}'"
    if kind in ("llm-grader", "llm_grader"):
        rubrics = get(entry, "rubrics")
        if isinstance(rubrics, list) and rubrics:
            return None
        prompt = get(entry, "prompt")
        return prompt if isinstance(prompt, str) else None
    if kind in ("tool-trajectory", "tool_trajectory"):
        expected = get(entry, "expected")
        steps = expected if isinstance(expected, list) else []
        tools = ", ".join(js.string(t) for t in (get(e, "tool") for e in steps) if js.truthy(t))
        return f"Agent called tools in order: {tools}" if tools else "Agent followed expected tool trajectory"
    if kind in ("code-grader", "code_grader"):
        name = _coalesce(get(entry, "name"), _grader_name_from_command(get(entry, "command")), "code-grader")
        desc = get(entry, "description")
        return _code_grader_instruction(js.string(name), desc if isinstance(desc, str) else UNDEFINED)
    if kind in ("field-accuracy", "field_accuracy"):
        fields = get(entry, "fields")
        paths = ", ".join(js.string(p) for p in (get(f, "path") for f in fields) if js.truthy(p)) \
            if isinstance(fields, list) else ""
        return f"Fields {paths} match expected values" if paths else "Fields match expected values"
    if kind == "latency":
        threshold = get(entry, "threshold")
        if js.is_number(threshold):
            return f"Response time under {js.string(threshold)}ms"
        return "Response time within threshold"
    if kind == "cost":
        budget = get(entry, "budget")
        return f"Cost under ${js.string(budget)}" if js.is_number(budget) else "Cost within budget"
    if kind in ("token-usage", "token_usage"):
        return "Token usage within limits"
    if kind in ("execution-metrics", "execution_metrics"):
        return "Execution within metric bounds"
    command = get(entry, "command")
    if command is not UNDEFINED and js.truthy(kind):
        name = _grader_name_from_command(command)
        return _code_grader_instruction(js.string(kind if nullish(name) else name), UNDEFINED)
    crit = get(entry, "criteria")
    if isinstance(crit, str):
        return crit
    prompt = get(entry, "prompt")
    if isinstance(prompt, str):
        return prompt
    return f"{js.string(kind)} assertion" if js.truthy(kind) else None


def assertion_sentences(entry: Any) -> list[str]:
    """``assertionToNaturalLanguageList``: an llm-grader's rubric outcomes, else the one sentence."""
    kind = get(entry, "type")
    if kind in ("llm-grader", "llm_grader"):
        rubrics = get(entry, "rubrics")
        if isinstance(rubrics, list) and rubrics:
            out = []
            for r in rubrics:
                text = _coalesce(get(r, "outcome"), get(r, "criteria"), get(r, "id"))
                if isinstance(text, str):
                    out.append(text)
            return out
    one = assertion_sentence(entry)
    return [] if one is None else [one]


# ------------------------------------------------------------------------------------------ tests


def _assertions_of(obj: Any) -> list:
    a = get(obj, "assertions")
    if isinstance(a, list):
        return a
    a = get(obj, "assert")
    if isinstance(a, list):
        return a
    return []


def _extract_input(case: Any) -> tuple[str, list]:
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


def _transpile(suite: Any, tests: list, result: AgentvResult) -> AgentvResult:
    if get(suite, "assert") is not UNDEFINED and get(suite, "assertions") is UNDEFINED:
        result.warnings.append("'assert' is deprecated at the suite level. Use 'assertions' instead.")
    suite_nl: list[str] = []
    suite_entries = _assertions_of(suite)
    kept = [a for a in suite_entries if get(a, "type") != "skill-trigger"]
    for entry in kept:
        suite_nl.extend(assertion_sentences(entry))
    skills = result.skills

    def skill_file(name: str) -> dict:
        f = skills.get(name)
        if f is None:
            f = skills[name] = {"skill_name": name, "evals": []}
        return f

    for idx, case in enumerate(tests):
        entries = _assertions_of(case)
        if get(case, "assert") is not UNDEFINED and get(case, "assertions") is UNDEFINED:
            case_id = _coalesce(get(case, "id"), idx + 1)
            result.warnings.append(f"Test '{js.string(case_id)}': 'assert' is deprecated. Use 'assertions' instead.")
        nl: list[str] = []
        criteria = get(case, "criteria")
        if isinstance(criteria, str) and js.trim(criteria):
            nl.append(js.trim(criteria))
        for entry in entries:
            if get(entry, "type") != "skill-trigger":
                nl.extend(assertion_sentences(entry))
        nl.extend(suite_nl)
        triggers = [a for a in entries if get(a, "type") == "skill-trigger"]
        prompt, files = _extract_input(case)
        expected = _extract_expected(get(case, "expected_output"))
        base: dict = {"id": idx + 1, "prompt": prompt}
        if expected is not UNDEFINED:
            base["expected_output"] = expected
        if files:
            base["files"] = files
        base["assertions"] = nl
        if not triggers:
            skill_file(NO_SKILL)["evals"].append(dict(base))
        else:
            for trig in triggers:
                skill = get(trig, "skill")
                name = skill if isinstance(skill, str) else NO_SKILL
                entry = dict(base)
                entry["should_trigger"] = get(trig, "should_trigger") is not False
                skill_file(name)["evals"].append(entry)
    no_skill = skills.get(NO_SKILL)
    if no_skill is not None and no_skill["evals"]:
        dominant = None
        best = 0
        for name, f in skills.items():
            if name != NO_SKILL and len(f["evals"]) > best:
                best = len(f["evals"])
                dominant = name
        if dominant:  # JavaScript truthiness: a skill named '' is never the dominant one
            skills[dominant]["evals"].extend(no_skill["evals"])
            del skills[NO_SKILL]
    return result


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
