"""Reading promptfoo configs and tests files into IR (built directly, no pydantic).

A config's ``tests`` become cases, ``defaultTest.assert`` the set's checks; each assertion is read by
the function :data:`ASSERTION_READERS` names for its type (``not-`` forms negate), anything else is an
``opaque`` check kept as it is. See the package's docstring for the mapping.
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass
from typing import Any, Callable

from ... import ir
from ...load import type_name
from .. import ReadResult, Reporter, basename, open_document
from ..skillgym.tslit import escape_regex
from .kinds import NAME, TO_KIND
from .loader import load_file
from .template import TEMPLATE_ANY, prompt_template, render_template

VALUE_KEYS = ("type", "value", "weight")
_GLOB_CHARS = re.compile(r"[*?\[]")
_LIST_KINDS = ("contains-any", "contains-all", "icontains-any", "icontains-all")


@dataclass
class _Reading:
    """One config being read: its reporter, its prompt template and the variable that is the prompt."""

    config: Reporter
    template: str | None = None
    prompt_var: str | None = None
    #: the template's unrendered warning was given (once per config)
    warned: bool = False


def read(path: str) -> ReadResult:
    """The config (or a list of tests) as an IR eval set."""
    result = ReadResult()
    r = open_document(path, result, loader=load_file)
    if r is None:
        return result
    data = r.loaded.data
    evalset = ir.EvalSet(format=NAME, source=path, span=ir.Span(file=path, line=1, column=1),
                         hints={"file_name": basename(path)})
    result.sets.append(evalset)
    if isinstance(data, list):
        evalset.hints["shape"] = "tests"
        evalset.cases.extend(_read_tests(_Reading(r), r, data, ()))
        return result
    if not isinstance(data, dict):
        r.add("EV102", f"a promptfoo config must be a mapping (or a list of tests), not a {type_name(data)}")
        evalset.extra["$root"] = data
        return result
    evalset.hints["key_order"] = list(data)
    template, prompt_var = prompt_template(data.get("prompts"), path)
    reading = _Reading(r, template, prompt_var)
    _read_description(r, evalset, data)
    for key, value in data.items():
        if key not in ("description", "tests", "defaultTest"):
            evalset.extra[key] = value
    _read_default_test(r, evalset, data.get("defaultTest"))
    _read_config_tests(reading, evalset, data.get("tests"))
    return result


def _read_description(r: Reporter, evalset: ir.EvalSet, data: dict) -> None:
    if "description" not in data:
        return
    if isinstance(data["description"], str):
        evalset.description = data["description"]
        return
    r.add("EV102", f"'description' must be a string, not a {type_name(data['description'])}", "description")
    evalset.extra["description"] = data["description"]


def _read_default_test(r: Reporter, evalset: ir.EvalSet, default: Any) -> None:
    """``defaultTest``: its ``assert`` list is the set's checks, the rest stays in ``extra``."""
    if default is None:
        return
    if not isinstance(default, dict):
        evalset.extra["defaultTest"] = default
        return
    rest = {k: v for k, v in default.items() if k != "assert"}
    if "assert" in default:
        if isinstance(default["assert"], list):
            evalset.checks = [c for i, a in enumerate(default["assert"])
                              for c in read_assertion(r, a, ("defaultTest", "assert", i))]
        else:
            r.add("EV102", f"'defaultTest.assert' must be a list, not a {type_name(default['assert'])}",
                  "defaultTest", "assert")
            rest["assert"] = default["assert"]
    evalset.hints["default_keys"] = list(default)
    if rest:
        evalset.extra["defaultTest"] = rest


def _read_config_tests(reading: _Reading, evalset: ir.EvalSet, tests: Any) -> None:
    """A config's ``tests``: inline tests, ``file://`` references (globs too), or a list of both."""
    r = reading.config
    if tests is None:
        return
    if not (isinstance(tests, list) or _is_tests_path(tests)):
        r.add("EV102", "'tests' must be a list of tests, a file:// path (a glob is fine) or a list of them; this "
                       "one is kept as it is", "tests")
        evalset.extra["tests"] = tests
        return
    layout: list[dict] = []
    entries = tests if isinstance(tests, list) else [tests]
    for i, entry in enumerate(entries):
        if not _is_tests_path(entry):
            evalset.cases.extend(_read_tests(reading, r, [entry], ("tests",), start=i))
            layout.append({"inline": 1})
            continue
        at = ("tests", i) if isinstance(tests, list) else ("tests",)
        cases = _read_ref(reading, entry, at)
        layout.append({"ref": entry, "cases": len(cases) if cases is not None else 0, "resolved": cases is not None})
        for c in cases or []:
            c.hints["from_file"] = entry
            evalset.cases.append(c)
    if any("ref" in x for x in layout):
        evalset.hints["tests_layout"] = layout
    if not isinstance(tests, list):
        evalset.hints["tests_string"] = True
    for n, case in enumerate(evalset.cases):  # promptfoo numbers tests across all their files
        if case.hints.get("no_description"):
            case.name = f"test-{n + 1}"


def _is_tests_path(value: Any) -> bool:
    """A tests entry promptfoo loads from files: ``file://x.yaml``, or a path / glob of YAML or JSON."""
    if not isinstance(value, str):
        return False
    path = value[len("file://"):] if value.startswith("file://") else value
    return value.startswith("file://") or path.lower().endswith((".yaml", ".yml", ".json"))


def tests_files(config: str, ref: str) -> list[str]:
    """The files a tests path names, as promptfoo's ``loadTestsFromGlob`` finds them: relative to the
    config's folder, ``*``/``?``/``[...]`` not matching ``/`` or a leading dot, ``**`` any depth (in
    sorted order: promptfoo takes the file system's)."""
    path = ref[len("file://"):] if ref.startswith("file://") else ref
    full = os.path.join(os.path.dirname(config), path)
    if not _GLOB_CHARS.search(path):
        return [full] if os.path.isfile(full) else []
    return sorted(p for p in glob.glob(full, recursive=True) if os.path.isfile(p))


def _read_ref(reading: _Reading, ref: str, at: tuple) -> list[ir.Case] | None:
    r = reading.config
    targets = tests_files(r.loaded.path, ref)
    if not targets:
        r.add("EV107", f"tests file '{ref}' does not exist: its tests are not read" if not _GLOB_CHARS.search(ref)
              else f"tests glob '{ref}' matches no file: no tests are read from it", *at, severity="warning")
        return None
    out: list[ir.Case] = []
    base = os.path.dirname(r.loaded.path)
    for target in targets:
        sub = open_document(target, r.result, loader=load_file)
        if sub is None:
            continue
        if not isinstance(sub.loaded.data, list):
            sub.add("EV102", f"a promptfoo tests file must be a list of tests, not a {type_name(sub.loaded.data)}")
            continue
        cases = _read_tests(reading, sub, sub.loaded.data, ())
        for c in cases:
            c.hints["file"] = os.path.relpath(target, base).replace(os.sep, "/")
        out.extend(cases)
    return out


def _read_tests(reading: _Reading, r: Reporter, tests: list, at: tuple, start: int = 0) -> list[ir.Case]:
    """The tests of a list (in the file ``r`` reads), the first one numbered ``start``."""
    cases = []
    for j, test in enumerate(tests):
        i = start + j
        where = at + (i,)
        case = ir.Case(name=f"test-{i + 1}", span=r.span(*where))
        cases.append(case)
        if not isinstance(test, dict):
            r.add("EV102", f"a test must be a mapping with vars and assert, not a {type_name(test)}", *where)
            case.extra["$value"] = test
            continue
        _read_test(reading, r, case, test, where)
    return cases


def _read_test(reading: _Reading, r: Reporter, case: ir.Case, test: dict, where: tuple) -> None:
    case.hints["key_order"] = list(test)
    desc = test.get("description")
    if isinstance(desc, str) and desc.strip():
        case.name = desc
    elif "description" in test:
        r.add("EV102", "'description' is blank: describe the test, or remove the key" if isinstance(desc, str)
              else f"'description' must be a string, not a {type_name(desc)}", *where, "description")
        case.extra["description"] = desc
    else:
        case.hints["no_description"] = True
    _read_vars(reading, r, case, test, where)
    asserts = test.get("assert")
    if isinstance(asserts, list):
        for k, a in enumerate(asserts):
            case.checks.extend(read_assertion(r, a, where + ("assert", k)))
    elif "assert" in test:
        r.add("EV102", f"'assert' must be a list of assertions, not a {type_name(asserts)}", *where, "assert")
        case.extra["assert"] = asserts
    metadata = test.get("metadata")
    if isinstance(metadata, dict):
        case.metadata = metadata
    for key, value in test.items():
        if key not in ("description", "vars", "assert", "metadata") or (key == "metadata" and
                                                                        not isinstance(metadata, dict)):
            case.extra.setdefault(key, value)


def _read_vars(reading: _Reading, r: Reporter, case: ir.Case, test: dict, where: tuple) -> None:
    """A test's ``vars``: the prompt variable is its input (or the template rendered with them)."""
    vars_ = test.get("vars")
    if "vars" in test and not isinstance(vars_, dict):
        r.add("EV102", f"'vars' must be a mapping, not a {type_name(vars_)}", *where, "vars")
        case.extra["vars"] = vars_
        return
    if vars_ is None:
        _render_input(reading, case, {})
        return
    case.hints["var_order"] = list(vars_)
    pv = reading.prompt_var
    if pv is None and reading.template is None:
        pv = "prompt" if "prompt" in vars_ else (next(iter(vars_)) if len(vars_) == 1 else None)
    if pv is not None and isinstance(vars_.get(pv), str):
        case.input = vars_[pv]
        case.hints["prompt_var"] = pv
        others = {k: v for k, v in vars_.items() if k != pv}
    else:
        others = dict(vars_)
        _render_input(reading, case, vars_)
    if others:
        case.extra["vars"] = others


def _render_input(reading: _Reading, case: ir.Case, vars_: dict) -> None:
    """A test's input from the prompt template and its vars; what cannot be rendered is reported once."""
    template = reading.template
    if template is None:
        return
    if not TEMPLATE_ANY.search(template):
        case.input = template
        return
    text, why = render_template(template, vars_)
    if text is not None:
        case.input = text
        case.hints["rendered"] = True
        return
    if reading.warned:
        return
    reading.warned = True
    r = reading.config
    r.add("EV103", f"the prompt template uses {why}: evalfmt renders only '{{{{ variable }}}}' (see "
                   "docs/promptfoo.md), so the task of a test using it is not known here",
          *(("prompts", 0) if isinstance(r.loaded.data, dict) and "prompts" in r.loaded.data else ()),
          severity="warning")


# ----------------------------------------------------------------------------------------- assertions


@dataclass
class _Assertion:
    """One promptfoo assertion being read: its mapping, its type without ``not-``, where it is."""

    a: dict
    base: str
    negate: bool
    span: ir.Span
    extra: dict
    weight: Any

    @property
    def value(self) -> Any:
        return self.a.get("value")

    def common(self) -> dict[str, Any]:
        """The keyword arguments every check read from an assertion takes."""
        out: dict[str, Any] = {"span": self.span, "weight": self.weight, "extra": self.extra,
                               "hints": {"key_order": list(self.a)}}
        if self.negate:
            out["negate"] = True
        return out


def _opaque(a: Any, span: ir.Span, typ: str | None = None) -> list[ir.Check]:
    """An assertion kept as it is (written back unchanged)."""
    return [ir.Opaque(type=typ, origin=NAME, raw=a, span=span)]


def read_assertion(r: Reporter, a: Any, where: tuple) -> list[ir.Check]:
    """The IR checks for one promptfoo assertion."""
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
    weight = a.get("weight")
    if weight is not None and not (isinstance(weight, (int, float)) and not isinstance(weight, bool)):
        return _opaque(a, span, typ)
    reader = ASSERTION_READERS.get(base)
    if reader is None and base in TO_KIND:
        reader = _same_kind
    checks = reader(_Assertion(a, base, negate, span, {k: v for k, v in a.items() if k not in VALUE_KEYS}, weight)) \
        if reader is not None else None
    return checks if checks is not None else _opaque(a, span, typ)


def _same_kind(x: _Assertion) -> list[ir.Check] | None:
    """An output check promptfoo and the IR share (``contains``, ``regex``, ``equals``, ...)."""
    kind = TO_KIND[x.base]
    cls: Any = ir.CHECK_MODELS[kind]
    if kind in _LIST_KINDS:
        if isinstance(x.value, list) and all(isinstance(v, str) for v in x.value):
            return [cls(values=list(x.value), **x.common())]
        return None
    if kind == "is-json":
        return [cls(**x.common())] if "value" not in x.a else None
    if kind == "equals":
        return [cls(value=x.value, **x.common())] if "value" in x.a else None
    return [cls(value=x.value, **x.common())] if isinstance(x.value, str) else None


def _skill_used(x: _Assertion) -> list[ir.Check] | None:
    """``skill-used`` with a name, ``{name}`` or a list of names: one skill-trigger per name."""
    value = x.value
    names: Any = [value] if isinstance(value, str) else value
    hints: dict[str, Any] = {"key_order": list(x.a)}
    if isinstance(value, dict) and set(value) == {"name"} and isinstance(value["name"], str):
        names = [value["name"]]
        hints["form"] = "object"
    if not (isinstance(names, list) and names and all(isinstance(n, str) and n.strip() for n in names)) \
            or x.extra or not (x.weight is None or len(names) == 1):
        return None
    checks: list[ir.Check] = []
    for k, n in enumerate(names):
        h: dict[str, Any] = dict(hints) if k == 0 else {"group_part": True}
        if k == 0 and isinstance(value, list):
            h["group"] = len(names)
        checks.append(ir.SkillTrigger(skill=n.strip(), should_trigger=False if x.negate else None, span=x.span,
                                      hints=h, weight=x.weight))
    return checks


def _step_count(x: _Assertion) -> list[ir.Check] | None:
    """``trajectory:step-count`` of a literal command glob, at least once or never: a command check."""
    value = x.value
    if not (isinstance(value, dict) and value.get("type") == "command" and isinstance(value.get("pattern"), str)
            and set(value) <= {"type", "pattern", "min", "max"}):
        return None
    lit = _glob_literal(value["pattern"])
    bounds = (value.get("min"), value.get("max"))
    if lit is None or x.extra or x.weight is not None or x.negate or bounds not in ((1, None), (None, 0)):
        return None
    cls = ir.CommandMatching if bounds == (1, None) else ir.NoCommandMatching
    return [cls(pattern=lit[0], span=x.span, hints={"key_order": list(x.a)})]


def _llm_rubric(x: _Assertion) -> list[ir.Check] | None:
    if not isinstance(x.value, str) or x.negate:
        return None
    return [ir.Rubrics(criteria=[x.value], **x.common())]


def _budget(x: _Assertion) -> list[ir.Check] | None:
    """``latency`` / ``cost`` with a numeric threshold."""
    threshold = x.a.get("threshold")
    if x.negate or "value" in x.a or not isinstance(threshold, (int, float)) or isinstance(threshold, bool):
        return None
    x.extra.pop("threshold")
    if x.base == "latency":
        return [ir.Latency(threshold=threshold, **x.common())]
    return [ir.Cost(budget=threshold, **x.common())]


def _glob_literal(pattern: str) -> tuple[str, str] | None:
    """A promptfoo glob that is literal text with ``*`` only at the ends: (anchoring, text)."""
    start = pattern.startswith("*")
    end = pattern.endswith("*") and len(pattern) > 1
    core = pattern[1 if start else 0: len(pattern) - 1 if end else len(pattern)]
    if not core or "*" in core or "?" in core:
        return None
    regex = ("" if start else "^") + escape_regex(core) + ("" if end else "$")
    return regex, core


#: promptfoo assertion type (without ``not-``) -> its IR checks, None when the assertion is kept opaque
#: (the types promptfoo and the IR share, :data:`~.kinds.TO_KIND`, are read by ``_same_kind``)
ASSERTION_READERS: dict[str, Callable[[_Assertion], list[ir.Check] | None]] = {
    "skill-used": _skill_used,
    "trajectory:step-count": _step_count,
    "llm-rubric": _llm_rubric,
    "latency": _budget, "cost": _budget,
}
