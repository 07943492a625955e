"""Format ``promptfoo``: ``promptfooconfig.yaml`` (and promptfoo test files), as a conversion target
and, for what maps back, a source.

Reading. A config's ``tests`` become cases: ``description`` is the name (``test-<n>`` without one),
the prompt is the value of the variable the single prompt template names (``'{{prompt}}'`` ->
``vars.prompt``; a literal prompt is the input of every test); other ``vars`` stay in ``extra``.
``tests`` entries that are ``file://`` references are read from those files (a missing file is an
EV107 warning). ``defaultTest.assert`` becomes the set's ``checks`` (applied to every test, as agentv's
suite-level assertions). Assertions map onto IR checks:

| promptfoo | IR |
|---|---|
| ``contains`` / ``icontains`` / ``regex`` / ``starts-with`` / ``equals`` / ``is-json`` / ``contains-any|all`` / ``icontains-any|all`` (and ``not-`` forms) | the same agentv kinds (``negate`` for ``not-``) |
| ``skill-used`` / ``not-skill-used`` with a name or a list of names | one ``skill-trigger`` per name |
| ``trajectory:step-count`` ``{type: command, pattern: "*text*", min: 1}`` / ``max: 0`` | ``command_matching`` / ``no_command_matching`` on the escaped text |
| ``llm-rubric`` | ``rubrics`` with one criterion |
| ``latency`` / ``cost`` with a threshold | ``latency`` / ``cost`` |
| anything else (``javascript``, ``python``, counts, patterns, ...) | ``opaque`` (origin ``promptfoo``), written back unchanged |

``weight`` is the check's weight; other assertion keys stay in ``extra``.

Writing. ``prompts: ['{{prompt}}']``, one test per case with ``vars.prompt`` and its assertions; every
field promptfoo cannot hold is a loss (see ``docs/promptfoo.md``). A config read from promptfoo is
written back over its existing text with comments and key order kept (ruamel round trip).
"""

from __future__ import annotations

import os
import re
from typing import Any

from typing import TYPE_CHECKING

from ..load import type_name
from ..ir.build import evalset as build_evalset
from . import (Format, Loss, ReadResult, Reporter, WriteResult, basename, head, hinted_name, open_document,
               peek_keys, plain_name, plain_relpath, span_at)
from .losses import Rule, Table, check_feature

if TYPE_CHECKING:  # pragma: no cover
    from .. import ir

NAME = "promptfoo"
DEFAULT_NAME = "promptfooconfig.yaml"
DEFAULT_PROVIDER = "anthropic:claude-agent-sdk"

#: IR kind <-> promptfoo assertion type (same meaning; ``negate`` <-> ``not-``)
SAME = {
    "contains": "contains", "icontains": "icontains", "regex": "regex", "starts-with": "starts-with",
    "equals": "equals", "is-json": "is-json", "contains-any": "contains-any", "contains-all": "contains-all",
    "icontains-any": "icontains-any", "icontains-all": "icontains-all",
}
TO_KIND = {v: k for k, v in SAME.items()}
VALUE_KEYS = ("type", "value", "weight")
TABLE = Table(NAME, {
    "check.opaque": Rule("lost: another format's code means nothing to promptfoo"),
    "check.output": Rule("lost", when="ends-with, or a check promptfoo has no type for"),
    "check.output/flags": Rule("regex flags lost (promptfoo's regex takes none)", when="a regex has flags"),
    "check.skill_trigger": Rule("lost", when="it names no skill"),
    "check.command": Rule("lost", when="the regex has no faithful case-insensitive glob"),
    "check.transcript": Rule("lost: promptfoo's contains checks only the final output"),
    "check.workspace": Rule("lost: promptfoo does not inspect the workspace"),
    "check.rubric": Rule("lost", when="an llm-grader"),
    "check.rubric/objects": Rule("only the text of a criterion object is kept", when="a criterion is an object"),
    **{f"check.{k}": Rule("lost", when=w) for k, w in (("code_grader", None), ("trajectory", None),
                                                       ("budget", "token-usage, or no threshold"))},
    "check.fields": Rule("lost (weight is kept)", when="the check itself is kept"),
    "case.messages": Rule("flattened to the text"),
    "case.judge": Rule("written as an llm-rubric assertion, graded on every run", kept="an llm-rubric assertion"),
    **{f"case.{f}": Rule("lost") for f in ("files", "fixture", "setup", "bucket", "requires", "timeout_minutes",
                                           "max_turns", "input_files", "tags", "timeout_ms", "expected_fail",
                                           "expected_output", "extra")},
    "triggers": Rule("lost", when="no skill name to check with skill-used"),
    "triggers.extra": Rule("lost", covered_by="triggers"),
    "set.input": Rule("lost"), "set.tags": Rule("lost"), "set.extra": Rule("lost"),
    "set.name": Rule("lost", when="the set has a description too"),
    "set.skill": Rule("lost unless a skill-used assertion names it", when="no skill-trigger names the skill"),
    "suite": Rule("its rows become separate tests, each running its own session"),
})
_TEMPLATE_VAR = re.compile(r"^\{\{\s*([A-Za-z_][\w]*)\s*\}\}$")
_TEMPLATE_ANY = re.compile(r"\{\{")


# ------------------------------------------------------------------------------------ detection


def detect(path: str) -> bool:
    name = basename(path).lower()
    if re.fullmatch(r"promptfooconfig(\.[\w-]+)?\.(ya?ml|json)", name):
        return True
    if not name.endswith((".yaml", ".yml")):
        return False
    text = head(path)
    if "promptfoo.dev/config-schema" in text:
        return True
    keys = peek_keys(path)
    if ("prompts" in keys or "providers" in keys) and ("tests" in keys or "defaultTest" in keys):
        return True
    # a promptfoo test file: a YAML list of tests with vars / assert
    # (line-start patterns take blanks only up to the line's end: \s there would rescan blank runs)
    body = re.sub(r"(?m)^[^\S\n]*#.*\n", "", text).lstrip()
    return body.startswith("-") and bool(re.search(r"(?m)^[^\S\n]+(vars|assert):", text)) and \
        bool(re.search(r"(?m)^[^\S\n]*-\s+(description|vars|assert):", text)) and "should_trigger" not in keys


# ------------------------------------------------------------------------------------ reading


def read(path: str) -> ReadResult:
    """The config read as the IR's JSON shape, then built into IR (:mod:`evalfmt.ir.build`)."""
    result = ReadResult()
    plain_sets: list[dict[str, Any]] = []
    _read(path, result, plain_sets)
    result.sets.extend(build_evalset(d) for d in plain_sets)
    return result


def _read(path: str, result: ReadResult, plain_sets: list[dict[str, Any]]) -> ReadResult:
    r = open_document(path, result)
    if r is None:
        return result
    data = r.loaded.data
    evalset: dict[str, Any] = {"format": NAME, "source": path, "span": span_at(path), "cases": [], "checks": [],
                               "extra": {}, "hints": {"file_name": basename(path)}}
    plain_sets.append(evalset)
    extra, hints = evalset["extra"], evalset["hints"]
    if isinstance(data, list):
        hints["shape"] = "tests"
        evalset["cases"].extend(_read_tests(r, data, (), None, None))
        return result
    if not isinstance(data, dict):
        r.add("EV102", f"a promptfoo config must be a mapping (or a list of tests), not a {type_name(data)}")
        extra["$root"] = data
        return result
    hints["key_order"] = list(data)
    template, prompt_var = _template(data.get("prompts"), path)
    if "description" in data and isinstance(data["description"], str):
        evalset["description"] = data["description"]
    elif "description" in data:
        r.add("EV102", f"'description' must be a string, not a {type_name(data['description'])}", "description")
        extra["description"] = data["description"]
    for key, value in data.items():
        if key in ("description", "tests", "defaultTest"):
            continue
        extra[key] = value
    default = data.get("defaultTest")
    if isinstance(default, dict):
        rest = {k: v for k, v in default.items() if k != "assert"}
        if "assert" in default:
            if isinstance(default["assert"], list):
                evalset["checks"] = [c for i, a in enumerate(default["assert"])
                                     for c in _read_assertion(r, a, ("defaultTest", "assert", i))]
            else:
                r.add("EV102", f"'defaultTest.assert' must be a list, not a {type_name(default['assert'])}",
                      "defaultTest", "assert")
                rest["assert"] = default["assert"]
        hints["default_keys"] = list(default)
        if rest:
            extra["defaultTest"] = rest
    elif default is not None:
        extra["defaultTest"] = default
    tests = data.get("tests")
    if tests is None:
        pass
    elif isinstance(tests, list) or _is_tests_path(tests):
        layout = []
        entries = tests if isinstance(tests, list) else [tests]
        for i, entry in enumerate(entries):
            if _is_tests_path(entry):
                at = ("tests", i) if isinstance(tests, list) else ("tests",)
                cases = _read_ref(r, entry, at, template, prompt_var)
                layout.append({"ref": entry, "cases": len(cases) if cases is not None else 0,
                               "resolved": cases is not None})
                for c in cases or []:
                    c["hints"]["from_file"] = entry
                    evalset["cases"].append(c)
            else:
                evalset["cases"].extend(_read_tests(r, [entry], ("tests",), template, prompt_var, start=i))
                layout.append({"inline": 1})
        if any("ref" in x for x in layout):
            hints["tests_layout"] = layout
        if not isinstance(tests, list):
            hints["tests_string"] = True
        for n, case in enumerate(evalset["cases"]):  # promptfoo numbers tests across all their files
            if case["hints"].get("no_description"):
                case["name"] = f"test-{n + 1}"
    else:
        r.add("EV102", "'tests' must be a list of tests, a file:// path (a glob is fine) or a list of them; this "
                       "one is kept as it is", "tests")
        extra["tests"] = tests
    return result


def _template(prompts: Any, config: str = "") -> tuple[str | None, str | None]:
    """(template, variable): the single prompt's text (a ``file://`` prompt read from its file), and the
    variable it consists of when it is exactly one ``{{ variable }}``."""
    if isinstance(prompts, list) and len(prompts) == 1 and isinstance(prompts[0], str):
        text = prompts[0]
        if text.startswith("file://"):
            text = _prompt_file(config, text[len("file://"):])
            if text is None:
                return None, None
        m = _TEMPLATE_VAR.match(text.strip())
        if m:
            return text, m.group(1)
        return text, None
    return None, None


def _prompt_file(config: str, rel: str) -> str | None:
    """The text of a ``file://`` prompt (a .txt / .md / .j2 / .nunjucks file beside the config), else None."""
    if not rel.lower().endswith((".txt", ".md", ".j2", ".njk", ".nunjucks")):
        return None
    path = os.path.join(os.path.dirname(config), rel)
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        return None


def _outputs(template: str):
    """(start, end, expression) of each ``{{ ... }}``: what ``\\{\\{-?\\s*(.*?)\\s*-?\\}\\}`` (dot matching
    line breaks) finds, found with ``str.find`` (as a regex, a ``{{`` with no closing ``}}`` made
    every later ``{{`` rescan the rest of the template: quadratic)."""
    i = template.find("{{")
    while i >= 0:
        close = template.find("}}", i + 2)
        if close < 0:
            return
        inner = template[i + 2:close]
        expr = (inner[1:] if inner.startswith("-") else inner).lstrip()
        if expr.endswith("-"):
            expr = expr[:-1]
        yield i, close + 2, expr.rstrip()
        i = template.find("{{", close + 2)


_VAR_PATH = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\Z")


def render_template(template: str, vars_: dict) -> tuple[str | None, str | None]:
    """The template rendered as promptfoo's nunjucks renders it, for the subset evalfmt reads: ``{{ name }}``
    and ``{{ a.b }}`` with string, number, boolean or null values (an undefined variable renders as
    nothing, as in nunjucks). Anything else (tags ``{% %}``, comments ``{# #}``, filters, expressions,
    list or mapping values, ``file://`` values promptfoo loads) is not rendered: (None, what it is)."""
    for opener, what in (("{%", "a '{% %}' tag"), ("{#", "a '{# #}' comment")):
        if opener in template:
            return None, what
    out: list[str] = []
    at = 0
    for start, end, expr in _outputs(template):
        if not _VAR_PATH.match(expr):
            return None, f"the expression '{{{{ {expr} }}}}'"
        value: Any = vars_
        for part in expr.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if isinstance(value, str) and value.startswith("file://"):
            return None, f"'{expr}', a file:// value promptfoo loads"
        if isinstance(value, (dict, list)):
            return None, f"'{expr}', a {type_name(value)} value"
        text = "" if value is None else ("true" if value is True else "false" if value is False else
                                        value if isinstance(value, str) else _js_number(value))
        out.append(template[at:start])
        out.append(text)
        at = end
    out.append(template[at:])
    return "".join(out), None


def _js_number(value: Any) -> str:
    from ..js import stringify

    return stringify(value)


def _render_input(r: Reporter, case: dict, template: str | None, vars_: dict) -> None:
    """A test's input from the prompt template and its vars; what cannot be rendered is reported once."""
    if template is None:
        return
    if not _TEMPLATE_ANY.search(template):
        case["input"] = template
        return
    text, why = render_template(template, vars_)
    if text is not None:
        case["input"] = text
        case["hints"]["rendered"] = True
        return
    reported = r.result.__dict__.setdefault("_promptfoo_unrendered", set())
    if r.loaded.path not in reported:
        reported.add(r.loaded.path)
        r.add("EV103", f"the prompt template uses {why}: evalfmt renders only '{{{{ variable }}}}' (see "
                       "docs/promptfoo.md), so the task of a test using it is not known here",
              *(("prompts", 0) if isinstance(r.loaded.data, dict) and "prompts" in r.loaded.data else ()),
              severity="warning")


def _is_tests_path(value: Any) -> bool:
    """A tests entry promptfoo loads from files: ``file://x.yaml``, or a path / glob of YAML or JSON."""
    if not isinstance(value, str):
        return False
    path = value[len("file://"):] if value.startswith("file://") else value
    return value.startswith("file://") or path.lower().endswith((".yaml", ".yml", ".json"))


_GLOB_CHARS = re.compile(r"[*?\[]")


def tests_files(config: str, ref: str) -> list[str]:
    """The files a tests path names, as promptfoo's ``loadTestsFromGlob`` finds them: relative to the
    config's folder, ``*``/``?``/``[...]`` not matching ``/`` or a leading dot, ``**`` any depth (in
    sorted order: promptfoo takes the file system's)."""
    import glob

    path = ref[len("file://"):] if ref.startswith("file://") else ref
    full = os.path.join(os.path.dirname(config), path)
    if not _GLOB_CHARS.search(path):
        return [full] if os.path.isfile(full) else []
    return sorted(p for p in glob.glob(full, recursive=True) if os.path.isfile(p))


def _read_ref(r: Reporter, ref: str, at: tuple, template, prompt_var) -> list[dict] | None:
    targets = tests_files(r.loaded.path, ref)
    if not targets:
        r.add("EV107", f"tests file '{ref}' does not exist: its tests are not read" if not _GLOB_CHARS.search(ref)
              else f"tests glob '{ref}' matches no file: no tests are read from it", *at, severity="warning")
        return None
    out: list[dict] = []
    base = os.path.dirname(r.loaded.path)
    for target in targets:
        sub = open_document(target, r.result)
        if sub is None:
            continue
        if not isinstance(sub.loaded.data, list):
            sub.add("EV102", f"a promptfoo tests file must be a list of tests, not a {type_name(sub.loaded.data)}")
            continue
        cases = _read_tests(sub, sub.loaded.data, (), template, prompt_var, config=r)
        for c in cases:
            c["hints"]["file"] = os.path.relpath(target, base).replace(os.sep, "/")
        out.extend(cases)
    return out


def _read_tests(r: Reporter, tests: list, at: tuple, template, prompt_var, start: int = 0,
                config: Reporter | None = None) -> list[dict]:
    cases = []
    for j, test in enumerate(tests):
        i = start + j
        where = at + (i,)
        case: dict[str, Any] = {"name": f"test-{i + 1}", "span": r.span(*where), "checks": [], "extra": {},
                                "hints": {}}
        cases.append(case)
        extra, hints = case["extra"], case["hints"]
        if not isinstance(test, dict):
            r.add("EV102", f"a test must be a mapping with vars and assert, not a {type_name(test)}", *where)
            extra["$value"] = test
            continue
        hints["key_order"] = list(test)
        desc = test.get("description")
        if isinstance(desc, str) and desc.strip():
            case["name"] = desc
        elif "description" in test:
            r.add("EV102", "'description' is blank: describe the test, or remove the key" if isinstance(desc, str)
                  else f"'description' must be a string, not a {type_name(desc)}", *where, "description")
            extra["description"] = desc
        else:
            hints["no_description"] = True
        vars_ = test.get("vars")
        if isinstance(vars_, dict):
            hints["var_order"] = list(vars_)
            pv = prompt_var
            if pv is None and template is None:
                pv = "prompt" if "prompt" in vars_ else (next(iter(vars_)) if len(vars_) == 1 else None)
            if pv is not None and isinstance(vars_.get(pv), str):
                case["input"] = vars_[pv]
                hints["prompt_var"] = pv
                others = {k: v for k, v in vars_.items() if k != pv}
            else:
                others = dict(vars_)
                _render_input(config or r, case, template, vars_)
            if others:
                extra["vars"] = others
        elif "vars" in test:
            r.add("EV102", f"'vars' must be a mapping, not a {type_name(vars_)}", *where, "vars")
            extra["vars"] = vars_
        else:
            _render_input(config or r, case, template, {})
        asserts = test.get("assert")
        if isinstance(asserts, list):
            for k, a in enumerate(asserts):
                case["checks"].extend(_read_assertion(r, a, where + ("assert", k)))
        elif "assert" in test:
            r.add("EV102", f"'assert' must be a list of assertions, not a {type_name(asserts)}", *where, "assert")
            extra["assert"] = asserts
        metadata = test.get("metadata")
        if isinstance(metadata, dict):
            case["metadata"] = metadata
        for key, value in test.items():
            if key not in ("description", "vars", "assert", "metadata") or (key == "metadata" and
                                                                            not isinstance(metadata, dict)):
                extra.setdefault(key, value)
    return cases


def _escape(text: str) -> str:
    from .skillgym_checks import escape_regex

    return escape_regex(text)


def _glob_literal(pattern: str) -> tuple[str, str] | None:
    """A promptfoo glob that is literal text with ``*`` only at the ends: (anchoring, text)."""
    start = pattern.startswith("*")
    end = pattern.endswith("*") and len(pattern) > 1
    core = pattern[1 if start else 0: len(pattern) - 1 if end else len(pattern)]
    if not core or "*" in core or "?" in core:
        return None
    regex = ("" if start else "^") + _escape(core) + ("" if end else "$")
    return regex, core


def _opaque(a: Any, span: dict, typ: str | None = None) -> list[dict]:
    """An assertion kept as it is (written back unchanged)."""
    return [{"kind": "opaque", "type": typ, "origin": NAME, "raw": a, "span": span}]


def _read_assertion(r: Reporter, a: Any, where: tuple) -> list[dict]:
    """The IR checks (plain data) for one promptfoo assertion."""
    span = r.span(*where)
    if not isinstance(a, dict) or not isinstance(a.get("type"), str):
        if isinstance(a, dict) and "type" not in a:
            r.add("EV103", "an assertion needs a 'type'", *where)
        elif isinstance(a, dict):
            r.add("EV102", f"'type' must be a string, not a {type_name(a.get('type'))}", *where, "type")
        else:
            r.add("EV102", f"an assertion must be a mapping with 'type', not a {type_name(a)}", *where)
        return _opaque(a, span)
    typ = a["type"]
    negate = typ.startswith("not-")
    base = typ[4:] if negate else typ
    value = a.get("value")
    extra = {k: v for k, v in a.items() if k not in VALUE_KEYS}
    weight = a.get("weight")
    if weight is not None and not (isinstance(weight, (int, float)) and not isinstance(weight, bool)):
        return _opaque(a, span, typ)
    common: dict[str, Any] = {"span": span, "weight": weight, "extra": extra, "hints": {"key_order": list(a)}}
    if negate:
        common["negate"] = True
    if base in TO_KIND:
        kind = TO_KIND[base]
        if kind in ("contains-any", "contains-all", "icontains-any", "icontains-all"):
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return [{"kind": kind, "values": list(value), **common}]
        elif kind == "is-json":
            if "value" not in a:
                return [{"kind": kind, **common}]
        elif kind == "equals":
            if "value" in a:
                return [{"kind": kind, "value": value, **common}]
        elif isinstance(value, str):
            return [{"kind": kind, "value": value, **common}]
        return _opaque(a, span, typ)
    if base == "skill-used":
        names = [value] if isinstance(value, str) else value
        if isinstance(value, dict) and set(value) == {"name"} and isinstance(value["name"], str):
            names = [value["name"]]
            common["hints"]["form"] = "object"
        if isinstance(names, list) and names and all(isinstance(n, str) and n.strip() for n in names) \
                and not extra and (weight is None or len(names) == 1):
            checks = []
            for k, n in enumerate(names):
                hints = dict(common["hints"]) if k == 0 else {"group_part": True}
                if k == 0 and isinstance(value, list):
                    hints["group"] = len(names)
                checks.append({"kind": "skill-trigger", "skill": n.strip(),
                               "should_trigger": False if negate else None, "span": span, "hints": hints,
                               "weight": weight})
            return checks
        return _opaque(a, span, typ)
    if base == "trajectory:step-count" and isinstance(value, dict) and value.get("type") == "command" \
            and isinstance(value.get("pattern"), str) and set(value) <= {"type", "pattern", "min", "max"}:
        lit = _glob_literal(value["pattern"])
        bounds = (value.get("min"), value.get("max"))
        if lit is not None and not extra and weight is None and not negate and bounds in ((1, None), (None, 0)):
            kind = "command_matching" if bounds == (1, None) else "no_command_matching"
            return [{"kind": kind, "pattern": lit[0], "span": span, "hints": {"key_order": list(a)}}]
        return _opaque(a, span, typ)
    if base == "llm-rubric" and isinstance(value, str) and not negate:
        return [{"kind": "rubrics", "criteria": [value], **common}]
    if base in ("latency", "cost") and not negate and "value" not in a and \
            isinstance(a.get("threshold"), (int, float)) and not isinstance(a.get("threshold"), bool):
        extra.pop("threshold")
        if base == "latency":
            return [{"kind": "latency", "threshold": a["threshold"], **common}]
        return [{"kind": "cost", "budget": a["threshold"], **common}]
    return _opaque(a, span, typ)


# ------------------------------------------------------------------------------------ writing


def _assertion(check: Any, own: bool, losses: list[Loss], where: str) -> list[dict]:
    """promptfoo assertions for one IR check (empty when it is lost)."""
    k = check.kind
    neg = "not-" if check.negate else ""
    out: dict[str, Any] | None = None
    label = check.label()
    if k == "opaque":
        if check.origin == NAME:
            return [check.raw]
        losses.append(TABLE.loss("check.opaque", check.span, where, f"{check.origin or 'opaque'} check '{label}' (no promptfoo equivalent)"))
        return []
    if k in SAME:
        out = {"type": neg + SAME[k]}
        if k == "regex":
            flags = (check.flags or "").replace("g", "")
            if flags:
                losses.append(TABLE.loss("check.output/flags", check.span, where, f"flags '{check.flags}' of check '{label}' "
                                                         "(promptfoo's regex takes none)"))
        if k in ("contains-any", "contains-all", "icontains-any", "icontains-all"):
            out["value"] = list(check.values)
        elif k != "is-json":
            out["value"] = check.value
    elif k == "skill-trigger":
        if not check.skill:
            losses.append(TABLE.loss("check.skill_trigger", check.span, where, "skill-trigger check without a skill name"))
            return []
        fires = check.expects_trigger != bool(check.negate)
        out = {"type": ("" if fires else "not-") + "skill-used", "value": check.skill}
        if own and check.hints.get("form") == "object":
            out["value"] = {"name": check.skill}
    elif k in ("command_matching", "no_command_matching"):
        glob = _glob_of(check.pattern)
        positive = (k == "command_matching") != bool(check.negate)
        if glob is None or check.extra:
            losses.append(TABLE.loss("check.command", check.span, where, f"check '{label}' (promptfoo's trajectory:step-count takes a "
                                                     "case-insensitive glob; this regex has no faithful glob)"))
            return []
        out = {"type": "trajectory:step-count",
               "value": {"type": "command", "pattern": glob, **({"min": 1} if positive else {"max": 0})}}
    elif k == "rubrics":
        crits = [c if isinstance(c, str) else str(c.get("outcome") or c.get("description") or "") for c in check.criteria]
        if any(not isinstance(c, str) for c in check.criteria):
            losses.append(TABLE.loss("check.rubric/objects", check.span, where, f"criterion fields other than the text of check '{label}'"))
        res = []
        for c in crits:
            item: dict[str, Any] = {"type": "llm-rubric", "value": c}
            if check.weight is not None:
                item["weight"] = check.weight
            if own and len(crits) == 1:
                item.update(check.extra)
                item = _order(item, check.hints.get("key_order"))
            res.append(item)
        if not own:
            for key in check.extra:
                losses.append(TABLE.loss("check.fields", check.span, where, f"'{key}' of check '{label}'"))
        _common_losses(check, losses, where, skip=("weight",))
        return res
    elif k == "latency" and check.threshold is not None:
        out = {"type": "latency", "threshold": check.threshold}
    elif k == "cost" and check.budget is not None:
        out = {"type": "cost", "threshold": check.budget}
    else:
        why = {
            "transcript_mentions": "promptfoo's contains checks only the final output, not the transcript",
            "transcript_omits": "promptfoo's contains checks only the final output, not the transcript",
            "file_exists": "promptfoo does not inspect the workspace",
            "file_absent": "promptfoo does not inspect the workspace",
            "command_succeeds": "promptfoo does not run commands after the session",
        }.get(k, "no promptfoo equivalent")
        losses.append(TABLE.loss(check_feature(k), check.span, where, f"check '{label}' ({why})"))
        return []
    if check.weight is not None:
        out["weight"] = check.weight
    _common_losses(check, losses, where, skip=("weight",))
    if own:
        for key, value in check.extra.items():
            out[key] = value
        order = check.hints.get("key_order")
        if order:
            out = {**{x: out[x] for x in order if x in out}, **{x: v for x, v in out.items() if x not in order}}
    else:
        for key in check.extra:
            losses.append(TABLE.loss("check.fields", check.span, where, f"'{key}' of check '{label}'"))
    return [out]


def _common_losses(check: Any, losses: list[Loss], where: str, skip: tuple = ()) -> None:
    for f in ("name", "required", "min_score"):
        if f not in skip and getattr(check, f, None) is not None:
            losses.append(TABLE.loss("check.fields", check.span, where, f"'{f}' of check '{check.label()}'"))


def _glob_of(pattern: str) -> str | None:
    """A glob equivalent to an ECMAScript search for literal text (``^``/``$`` anchors allowed)."""
    from .skillgym_checks import literal_of

    start = pattern.startswith("^")
    end = pattern.endswith("$") and not pattern.endswith("\\$")
    core = pattern[1 if start else 0: len(pattern) - 1 if end else len(pattern)]
    text = literal_of(core)
    if not text or "*" in text or "?" in text or "\n" in text:
        return None
    return ("" if start else "*") + text + ("" if end else "*")


def _group_checks(checks: list) -> list[list]:
    """Checks read from one promptfoo assertion (a skill-used list) stay together."""
    groups: list[list] = []
    for c in checks:
        if c.hints.get("group_part") and groups and groups[-1][0].kind == "skill-trigger":
            groups[-1].append(c)
        else:
            groups.append([c])
    return groups


def _assertions(checks: list, own: bool, losses: list[Loss], where: str) -> list:
    out: list = []
    for group in _group_checks(checks):
        first = group[0]
        n = first.hints.get("group") if own else None
        if own and n and len(group) == n and all(c.kind == "skill-trigger" for c in group) \
                and len({c.should_trigger for c in group}) == 1:
            neg = first.should_trigger is False
            out.append(_order({"type": ("not-" if neg else "") + "skill-used", "value": [c.skill for c in group]},
                              first.hints.get("key_order")))
            continue
        for c in group:
            out.extend(_assertion(c, own, losses, where))
    return out


def _order(d: dict, order: list | None) -> dict:
    if not order:
        return d
    return {**{k: d[k] for k in order if k in d}, **{k: v for k, v in d.items() if k not in order}}


LOST_CASE_FIELDS = (
    ("files", "inline files"), ("fixture", "fixture"), ("setup", "setup command"), ("bucket", "bucket"),
    ("requires", "requires"), ("timeout_minutes", "timeout_minutes"), ("max_turns", "max_turns"),
    ("input_files", "input_files"), ("tags", "tags"), ("timeout_ms", "timeoutMs"), ("expected_fail", "expectedFail"),
    ("expected_output", "expected_output"),
)


def _test(case: ir.Case, own: bool, losses: list[Loss], where: str, prompt_var: str) -> Any:
    from .. import ir

    if own and "$value" in case.extra:
        return case.extra["$value"]
    t: dict[str, Any] = {}
    if own and "description" in case.extra:
        t["description"] = case.extra["description"]
    elif not (own and case.hints.get("no_description")):
        t["description"] = case.name
    vars_: dict[str, Any] = {}
    if case.input is not None:
        if own and "prompt_var" in case.hints:
            vars_[case.hints["prompt_var"]] = ir.input_text(case.input)
        elif not own:
            vars_[prompt_var] = ir.input_text(case.input)
            if not isinstance(case.input, str):
                losses.append(TABLE.loss("case.messages", case.span, where, f"message input of '{case.name}' flattened to its text"))
    extra_vars = case.extra.get("vars") if own else None
    if isinstance(extra_vars, dict):
        vars_.update(extra_vars)
    if own and case.hints.get("var_order"):
        vars_ = _order(vars_, case.hints["var_order"])
    if own and extra_vars is not None and not isinstance(extra_vars, dict):
        t["vars"] = extra_vars
    elif vars_ or (own and "var_order" in case.hints):
        t["vars"] = vars_
    checks = list(case.checks)
    asserts = _assertions(checks, own, losses, where)
    if case.judge:
        asserts.append({"type": "llm-rubric", "value": case.judge})
        losses.append(TABLE.loss("case.judge", case.span, where, f"judge of '{case.name}' written as an llm-rubric assertion (graded "
                                                "on every run, not only when the checks tie)"))
    if own and "assert" in case.extra:
        t["assert"] = case.extra["assert"]
    elif asserts or (own and "assert" in (case.hints.get("key_order") or [])):
        t["assert"] = asserts
    if case.metadata is not None:
        t["metadata"] = case.metadata
    if own:
        for key, value in case.extra.items():
            if key not in ("description", "vars", "assert", "$value"):
                t[key] = value
        t = _order(t, case.hints.get("key_order"))
    else:
        for field, what in LOST_CASE_FIELDS:
            if getattr(case, field) not in (None, [], {}):
                losses.append(TABLE.loss(f"case.{field}", case.span, where, f"{what} of '{case.name}'"))
        for key in case.extra:
            losses.append(TABLE.loss("case.extra", case.span, where, f"'{key}' of '{case.name}'"))
    return t


def write(evalset: ir.EvalSet, existing: dict[str, str] | None = None) -> WriteResult:
    from .. import yamlrt

    own = evalset.format == NAME
    losses: list[Loss] = []
    setwhere = f"{evalset.span.file}:{evalset.span.line}" if evalset.span else "set"
    files: dict[str, str] = {}
    name = hinted_name(evalset.hints.get("file_name"), DEFAULT_NAME, setwhere, losses) if own else DEFAULT_NAME
    prompt_var = "prompt"
    if own and "$root" in evalset.extra:
        files[name] = yamlrt.dump(evalset.extra["$root"], existing=(existing or {}).get(name))
        return WriteResult(files=files)
    cases = list(evalset.cases)
    if evalset.suite is not None:
        cases.extend(_suite_cases(evalset.suite, losses))
    if not own and evalset.triggers is not None and evalset.triggers.prompts:
        cases.extend(_trigger_cases(evalset, losses, setwhere))
    if own and evalset.hints.get("shape") == "tests":
        data: Any = [_test(c, True, losses, f"cases[{i}]", prompt_var) for i, c in enumerate(cases)]
        files[name] = yamlrt.dump(data, existing=(existing or {}).get(name))
        return WriteResult(files=files, losses=losses)
    data = {}
    if own:
        if evalset.description is not None:
            data["description"] = evalset.description
        for key, value in evalset.extra.items():
            if key not in ("tests", "defaultTest"):
                data[key] = value
    else:
        desc = evalset.description or evalset.name or (evalset.skill.name if evalset.skill else None)
        if desc:
            data["description"] = desc
        data["prompts"] = ["{{prompt}}"]
        data["providers"] = [DEFAULT_PROVIDER]
        _set_losses(evalset, losses, setwhere)
    default = dict(evalset.extra.get("defaultTest") or {}) if own and isinstance(evalset.extra.get("defaultTest"), dict) \
        else None
    set_asserts = _assertions(list(evalset.checks), own, losses, "checks")
    if set_asserts or default is not None:
        d = default if default is not None else {}
        if set_asserts:
            d["assert"] = set_asserts
        if own:
            d = _order(d, evalset.hints.get("default_keys"))
        data["defaultTest"] = d
    elif own and "defaultTest" in evalset.extra:
        data["defaultTest"] = evalset.extra["defaultTest"]
    if own and "tests" in evalset.extra:
        data["tests"] = evalset.extra["tests"]
    elif cases or (own and "tests" in (evalset.hints.get("key_order") or [])):
        data["tests"], extra_files = _tests(evalset, cases, own, losses, prompt_var, existing or {})
        files.update(extra_files)
    if own:
        data = _order(data, evalset.hints.get("key_order"))
    files = {name: yamlrt.dump(data, existing=(existing or {}).get(name)), **files}
    return WriteResult(files=files, losses=losses)


def _tests(evalset: ir.EvalSet, cases: list, own: bool, losses: list[Loss], prompt_var: str,
           existing: dict[str, str]) -> tuple[Any, dict[str, str]]:
    from .. import yamlrt

    layout = evalset.hints.get("tests_layout") if own else None
    out: list = []
    extra_files: dict[str, str] = {}
    if not layout:
        return [_test(c, own, losses, f"cases[{i}]", prompt_var) for i, c in enumerate(cases)], extra_files
    i = 0
    by_file: dict[str, list] = {}
    names = _RefNames(cases, losses, f"{evalset.span.file}:{evalset.span.line}" if evalset.span else "tests")
    for entry in layout:
        if "inline" in entry:
            if i < len(cases) and "from_file" not in cases[i].hints:
                out.append(_test(cases[i], own, losses, f"cases[{i}]", prompt_var))
                i += 1
            continue
        ref = entry["ref"]
        rels: list[str] = []
        while i < len(cases) and cases[i].hints.get("from_file") == ref:
            rel = _file_of(cases[i])
            if rel not in rels:
                rels.append(rel)
            by_file.setdefault(names.rel(rel), []).append(_test(cases[i], own, losses, f"cases[{i}]", prompt_var))
            i += 1
        out.extend(names.refs(ref, rels))
    while i < len(cases):
        out.append(_test(cases[i], own, losses, f"cases[{i}]", prompt_var))
        i += 1
    for rel, tests in by_file.items():
        extra_files[rel] = yamlrt.dump(tests, existing=existing.get(rel))
    if evalset.hints.get("tests_string") and len(out) == 1 and isinstance(out[0], str):
        return out[0], extra_files  # ``tests: file://examples.yaml``, as written
    return out, extra_files


def _file_of(case: ir.Case) -> str:
    """The tests file a case was read from, relative to the config's folder."""
    ref = case.hints.get("from_file") or ""
    return case.hints.get("file") or (ref[len("file://"):] if ref.startswith("file://") else ref)


class _RefNames:
    """Where the tests of a ``file://`` reference are written: each file at its own path when every
    one is a plain relative path (they stay inside the output folder, and the reference, glob or not,
    is kept); otherwise each under a plain name beside the config (its file name, or ``tests-N.yaml``),
    the reference replaced by one ``file://`` per file, with a Loss saying so. An absolute or ``../``
    tests file is never written where it is."""

    def __init__(self, cases: list, losses: list[Loss], where: str):
        self.losses = losses
        self.where = where
        self.taken = {r for r in (_file_of(c) for c in cases if "from_file" in c.hints) if plain_relpath(r)}
        self.renamed: dict[str, str] = {}

    def rel(self, rel: str) -> str:
        """The output name of the tests file ``rel``."""
        if plain_relpath(rel):
            return rel
        if rel not in self.renamed:
            base = rel.replace("\\", "/").rsplit("/", 1)[-1]
            new, n = (base if plain_name(base) else "tests-1.yaml"), 1
            while new in self.taken:
                n += 1
                new = f"tests-{n}.yaml"
            self.taken.add(new)
            self.renamed[rel] = new
        return self.renamed[rel]

    def refs(self, ref: str, rels: list[str]) -> list[str]:
        """What the config lists for ``ref`` whose tests are in ``rels``."""
        if all(plain_relpath(r) for r in rels):
            return [ref]
        new = [f"file://{self.rel(r)}" for r in rels]
        self.losses.append(Loss(self.where, f"tests file '{ref}' (outside the output folder; written as "
                                            f"{', '.join(repr(x) for x in new)} beside the config)"))
        return new


def _trigger_cases(evalset: ir.EvalSet, losses: list[Loss], where: str) -> list[ir.Case]:
    """Trigger prompts as tests: ``skill-used`` for should-trigger prompts, ``not-skill-used`` for the rest."""
    from .. import ir

    trig = evalset.triggers
    skill = trig.skill or (evalset.skill.name if evalset.skill else None)
    if not skill:
        losses.append(TABLE.loss("triggers", trig.span, where, f"{len(trig.prompts)} trigger prompts (no skill name to check "
                                                "with skill-used)"))
        return []
    cases = []
    counts = {True: 0, False: 0}
    for p in trig.prompts:
        counts[p.should_trigger] += 1
        name = f"{'triggers' if p.should_trigger else 'does-not-trigger'}-{counts[p.should_trigger]}"
        cases.append(ir.Case(name=name, input=p.text, span=p.span,
                             checks=[ir.SkillTrigger(skill=skill, should_trigger=None if p.should_trigger else False)]))
        for key in p.extra:
            losses.append(TABLE.loss("triggers.extra", p.span, where, f"'{key}' of trigger prompt {p.text!r}"))
    for key in trig.extra:
        losses.append(TABLE.loss("triggers.extra", trig.span, where, f"trigger set key '{key}'"))
    return cases


def _set_losses(evalset: ir.EvalSet, losses: list[Loss], where: str) -> None:
    if evalset.input is not None:
        losses.append(TABLE.loss("set.input", None, where, "suite-level input prepended to every test"))
    if evalset.tags:
        losses.append(TABLE.loss("set.tags", None, where, "eval set tags"))
    for key in evalset.extra:
        losses.append(TABLE.loss("set.extra", None, where, f"{evalset.format} key '{key}'"))
    if evalset.name and evalset.description and evalset.name != evalset.description:
        losses.append(TABLE.loss("set.name", None, where, f"eval set name '{evalset.name}' (the description "
                                                          "holds the set's description)"))
    skill = evalset.skill
    if skill is not None and skill.span is not None and not any(
            c.kind == "skill-trigger" and c.skill == skill.name for case in evalset.cases for c in case.checks):
        losses.append(TABLE.loss("set.skill", skill.span, where, f"skill name '{skill.name}' (promptfoo names skills "
                                                                 "only in skill-used assertions)"))


def _suite_cases(suite: ir.Suite, losses: list[Loss]) -> list[ir.Case]:
    from .. import ir

    losses.append(TABLE.loss("suite", suite.span, "suite", f"suite: its {len(suite.entries)} entries become separate tests, "
                                               "each running its own session"))
    out = []
    for entry in suite.entries:
        case = ir.Case(name=entry.name, input=suite.input, checks=list(entry.checks), span=entry.span or suite.span)
        for field in ("files", "fixture", "setup", "requires", "timeout_minutes", "max_turns"):
            setattr(case, field, getattr(suite, field))
        out.append(case)
    return out


FORMAT = Format(
    name=NAME,
    module=__name__,
    description="promptfoo promptfooconfig.yaml (tests with vars.prompt and assertions)",
    detect=detect,
    read=read,
    write=write,
    single_file=True,
    default_name=DEFAULT_NAME,
)
