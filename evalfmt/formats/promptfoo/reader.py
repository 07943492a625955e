"""Reading promptfoo configs and tests files into IR (built directly, no pydantic).

A config is expanded as promptfoo expands it (:mod:`.expand`): one IR case per test, var combination and
prompt, its input the prompt rendered with the test's vars (:mod:`.template`); ``defaultTest.assert`` is
the set's checks. Each assertion is read by the reader of its form (:data:`FORM_READERS`), as the specs of its
type say (:data:`evalfmt.ir.kinds.PROMPTFOO_TYPES`; ``not-`` forms negate), anything else is an ``opaque`` check
kept as it is.

Writing back (a promptfoo set to promptfoo) needs the config as it was written, so the reader keeps, as
hints, what the cases hold in rendered form: the ``prompts``, ``scenarios``, ``defaultTest.vars`` and each
test's own ``vars``. A case is the test's own (written back) for its first var combination and first
prompt; the others are ``variant`` cases, each a run of the same test (another format writes every case).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, TypedDict
from collections.abc import Callable

from ... import ir
from ...fsview import DISK, View
from ...ir.kinds import PROMPTFOO_TYPES, KindSpec, Promptfoo
from ...load import type_name
from .. import ReadResult, Reporter, basename, open_document
from ..skillgym.tslit import escape_regex
from . import expand as ex
from .files import Files, FilesError, Outside
from .kinds import DEFAULT_PROVIDER, NAME
from .loader import load_file
from .template import js_string

VALUE_KEYS = ("type", "value", "weight")
_GLOB_CHARS = re.compile(r"[*?\[]")
#: a config's keys the cases hold (rendered): kept as hints for writing back, never lost elsewhere
CONSUMED = ("description", "tests", "defaultTest", "prompts", "scenarios")


@dataclass
class _Reading:
    """One config being read: its reporter, the variable that is the prompt (a tests file read alone)."""

    config: Reporter
    #: how the reading looks at the disk (every file read is an input of the result cache)
    fs: View
    prompt_var: str | None = None
    #: var names some prompt template names
    used: set[str] = field(default_factory=set)
    #: the features not rendered that were reported (each once per config)
    warned: set[str] = field(default_factory=set)


def read(path: str, *, fs: View = DISK) -> ReadResult:
    """The config (or a list of tests) as an IR eval set."""
    result = ReadResult()
    r = open_document(path, result, loader=load_file, fs=fs)
    if r is None:
        return result
    data = r.loaded.data
    evalset = ir.EvalSet(format=NAME, source=path, span=ir.Span(file=path, line=1, column=1),
                         hints={"file_name": basename(path)})
    result.sets.append(evalset)
    if isinstance(data, list):
        evalset.hints["shape"] = "tests"
        evalset.cases.extend(_read_tests(_Reading(r, fs), r, data, ()))
        return result
    if not isinstance(data, dict):
        r.add("EV102", f"a promptfoo config must be a mapping (or a list of tests), not a {type_name(data)}")
        evalset.extra["$root"] = data
        return result
    evalset.hints["key_order"] = list(data)
    _read_description(r, evalset, data)
    for key, value in data.items():
        if key == "providers" and value == [DEFAULT_PROVIDER]:
            evalset.hints["providers"] = value  # (evalfmt's own writer puts it there: not a loss elsewhere)
        elif key in ("prompts", "scenarios"):
            evalset.hints[key] = value
        elif key not in CONSUMED:
            evalset.extra[key] = value
    _Config(r, evalset, data, fs).read()
    return result


def _read_description(r: Reporter, evalset: ir.EvalSet, data: dict[str, Any]) -> None:
    if "description" not in data:
        return
    if isinstance(data["description"], str):
        evalset.description = data["description"]
        return
    r.add("EV102", f"'description' must be a string, not a {type_name(data['description'])}", "description")
    evalset.extra["description"] = data["description"]


class _Config:
    """A config read as promptfoo expands it (see the module docstring)."""

    def __init__(self, r: Reporter, evalset: ir.EvalSet, data: dict[str, Any], fs: View):
        self.r = r
        self.evalset = evalset
        self.data = data
        self.base = os.path.dirname(r.loaded.path)
        self.fs = fs
        self.files = Files(fs, r.loaded.path)
        self.reading = _Reading(r, fs)
        self.config = ex.Config(r.loaded.path, env=data["env"] if isinstance(data.get("env"), dict) else {},
                                provider_prompts=ex.provider_prompts(data.get("providers")))
        #: the IR case of each test read (the test's own reading: name, checks, extra, hints)
        self.own: dict[int, ir.Case] = {}
        #: each test's name before its runs are told apart
        self.test_name: dict[int, str] = {}
        #: the refusals (files outside the repository) already reported with a run's finding
        self.reported: set[str] = set()

    def read(self) -> None:
        data = self.data
        try:
            self.config.prompts = ex.read_prompts(data.get("prompts"), self.base, self.files)
        except ex.ConfigError as exc:
            self.r.add("EV107" if "exist" in str(exc) or "no prompts" in str(exc) else "EV102", str(exc),
                       *(exc.where if _has(data, exc.where) else ()))
            self.config.prompts = []
        for prompt in self.config.prompts:
            self.reading.used.update(_root_names(prompt.raw))
        self._read_default(data.get("defaultTest"))
        _read_config_tests(self, data.get("tests"))
        self._read_scenarios(data.get("scenarios"))
        if not any(t.origin != "scenario" for t in self.config.tests) and data.get("scenarios") is None:
            # (no test read, none named or none found: promptfoo runs the prompts once, with no vars)
            self.config.tests.append(ex.Test({}, origin="empty"))
        self._expand()

    # -------------------------------------------------------------------------------- defaultTest

    def _read_default(self, default: Any) -> None:
        """``defaultTest`` (inline or ``file://``): its ``assert`` list is the set's checks, its vars go into
        every test, the rest stays in ``extra``."""
        evalset, r = self.evalset, self.r
        if default is None:
            return
        at: ex.Where = ("defaultTest",)
        rep = r
        if isinstance(default, str) and default.startswith("file://"):
            evalset.hints["default_ref"] = default
            sub = self._open(default[len("file://"):], ("defaultTest",), "defaultTest file")
            if sub is None:
                return
            rep, at, default = sub, (), sub.loaded.data
        if not isinstance(default, dict):
            if rep is r:
                evalset.extra["defaultTest"] = default
            return
        self.config.default = default
        rest = {k: v for k, v in default.items() if k not in ("assert", "vars")}
        if "assert" in default:
            self._default_asserts(default["assert"], rep, at, rest)
        if isinstance(default.get("vars"), dict):
            self.reading.used.update(v for x in default["vars"].values() if isinstance(x, str)
                                     for v in _root_names(x))
        if rep is r:
            self._default_kept(default, rest)

    def _default_asserts(self, asserts: Any, rep: Reporter, at: ex.Where, rest: dict[str, Any]) -> None:
        """``defaultTest.assert``: the set's checks (a value that is no list stays in ``rest``)."""
        if isinstance(asserts, list):
            self.evalset.checks = [c for i, a in enumerate(asserts) for c in read_assertion(rep, a, at + ("assert", i))]
            return
        rep.add("EV102", f"'defaultTest.assert' must be a list, not a {type_name(asserts)}", *at, "assert")
        rest["assert"] = asserts

    def _default_kept(self, default: dict[str, Any], rest: dict[str, Any]) -> None:
        """What writing an inline ``defaultTest`` back needs: its vars and key order (hints), its other keys."""
        evalset = self.evalset
        if "vars" in default:
            evalset.hints["default_vars"] = default["vars"]
        evalset.hints["default_keys"] = list(default)
        if rest:
            evalset.extra["defaultTest"] = rest

    def _open(self, rel: str, at: ex.Where, what: str) -> Reporter | None:
        path = os.path.join(self.base, rel)
        if not self.fs.isfile(path):
            self.r.add("EV107", f"{what} '{rel}' does not exist: promptfoo stops here", *at)
            return None
        try:
            self.files.check(path)
        except Outside as exc:
            _refusal(self, self.r, exc, f"{what} {exc}", at)
            return None
        return open_document(path, self.r.result, loader=load_file, fs=self.fs)

    # ---------------------------------------------------------------------------------- scenarios

    def _read_scenarios(self, scenarios: Any) -> None:
        """``scenarios`` (a list, a ``file://`` file or glob, a list holding such references): each ``config``
        entry (vars, assert) times each of the scenario's tests (a list, or a ``file://`` file of them)."""
        if scenarios is None:
            return
        n = 0
        for idx, (scenario, rep, at) in enumerate(self._scenario_entries(scenarios)):
            if not isinstance(scenario, dict) or not isinstance(scenario.get("config"), list):
                rep.add("EV102", "a scenario must be a mapping with a 'config' list", *at)
                continue
            entries = self._scenario_tests(scenario.get("tests"), rep, at)
            if entries is None:
                continue
            for d, item in enumerate(scenario["config"]):
                if not isinstance(item, dict):
                    rep.add("EV102", f"a scenario's config entry must be a mapping, not a {type_name(item)}",
                            *at, "config", d)
                    continue
                for t in entries:
                    self._scenario_test(item, t, (idx, n), at + ("config", d), rep)
                    n += 1

    def _scenario_entries(self, scenarios: Any) -> list[tuple[Any, Reporter, ex.Where]]:
        """Each scenario with the reporter of the file holding it and where it is there (promptfoo's
        ``maybeLoadFromExternalFile`` of the list or of each entry, then ``flat()``)."""
        if isinstance(scenarios, str) and scenarios.startswith("file://"):
            return [x for sub in self._open_all(scenarios, ("scenarios",), "scenarios file") for x in _items(sub)]
        if not isinstance(scenarios, list):
            self.r.add("EV102", f"'scenarios' must be a list of scenarios, not a {type_name(scenarios)}", "scenarios")
            return []
        out: list[tuple[Any, Reporter, ex.Where]] = []
        for s, entry in enumerate(scenarios):
            if isinstance(entry, str) and entry.startswith("file://"):
                out.extend(x for sub in self._open_all(entry, ("scenarios", s), "scenarios file") for x in _items(sub))
            else:
                out.append((entry, self.r, ("scenarios", s)))
        return out

    def _scenario_tests(self, tests: Any, rep: Reporter, at: ex.Where) -> list[ex.Test] | None:
        """A scenario's tests, read as a config's ``tests`` list is (None: not a list of tests)."""
        if tests is None:
            return [ex.Test({}, at, rep)]
        sub_reading = _Config.__new__(_Config)
        sub_reading.__dict__.update(self.__dict__)
        sub_reading.config = ex.Config(self.config.path)
        if isinstance(tests, str) and tests.startswith("file://"):
            for sub in self._open_all(tests, at + ("tests",), "scenario tests file"):
                data = sub.loaded.data
                _read_config_tests(sub_reading, data if isinstance(data, list) else [data], (), sub)
            return sub_reading.config.tests
        if not isinstance(tests, list):
            rep.add("EV102", "a scenario's 'tests' must be a list of tests", *at, "tests")
            return None
        _read_config_tests(sub_reading, tests, at + ("tests",), rep)
        return sub_reading.config.tests

    def _scenario_test(self, item: dict[str, Any], t: ex.Test, number: tuple[int, int], where: ex.Where,
                       rep: Reporter) -> None:
        merged = {**item, **t.data,
                  "vars": {**_dict(item.get("vars")), **_dict(t.data.get("vars"))},
                  "options": {**_dict(item.get("options")), **_dict(t.data.get("options"))},
                  "assert": [*_list(item.get("assert")), *_list(t.data.get("assert"))]}
        test = ex.Test(merged, t.where, t.reporter, "scenario", number[0], t.file)
        test.scenario = (number[0], number[1], where, rep, item, t)
        self.config.tests.append(test)
        for v in merged["vars"].values():
            if isinstance(v, str):
                self.reading.used.update(_root_names(v))

    def _open_all(self, ref: str, at: ex.Where, what: str) -> list[Reporter]:
        """The files a ``file://`` reference (or glob) names, opened (what is missing or outside reported)."""
        rel = ref[len("file://"):]
        if not _GLOB_CHARS.search(rel) and "{" not in rel:
            sub = self._open(rel, at, what)
            return [sub] if sub is not None else []
        try:
            paths = [p for p in self.files.glob(os.path.join(self.base, rel)) if self.fs.isfile(p)]
        except FilesError as exc:
            _refusal(self, self.r, exc, f"{what} '{ref}': {exc}", at)
            return []
        if not paths:
            self.r.add("EV107", f"{what} glob '{ref}' matches no file: promptfoo stops here", *at)
        subs = [open_document(p, self.r.result, loader=load_file, fs=self.fs) for p in paths]
        return [sub for sub in subs if sub is not None]

    # ---------------------------------------------------------------------------------- expansion

    def _collect_runs(self) -> list[ex.Run]:
        """The config's runs (up to :data:`~.expand.MAX_RUNS`, past which an EV103 says the rest are not read)."""
        runs: list[ex.Run] = []
        try:
            for run in ex.runs(self.config, self.base, self.files):
                runs.append(run)
        except ex.TooManyRuns as exc:
            self.r.add("EV103", str(exc), severity="warning")
        return runs

    def _report_refused(self) -> None:
        """An EV106 warning for each file the config names outside its repository (not read)."""
        for message in self.files.refused:
            if message not in self.reported:
                self.r.add("EV106", message, severity="warning")

    def _expand(self) -> None:
        evalset = self.evalset
        runs = self._collect_runs()
        self._report_repeat()
        default_checks = list(evalset.checks)
        apart = any(not run.defaults for run in runs)
        if apart:  # a test that disables the default assertions: each case holds its own
            evalset.checks = []
        names: dict[str, int] = {}
        for run in runs:
            case, base = self._case(run)
            if apart and run.defaults:
                case.checks[:0] = [ir.replace(c) for c in default_checks]
            parts = self._name_parts(run, base)
            name = " ".join(parts)
            if name != base and not case.hints.get("variant"):
                case.hints["name"] = case.name  # (the test's description, written back)
            if len(parts) > 1:  # runs of one test told apart (tests may share a description, as in promptfoo)
                names[name] = names.get(name, 0) + 1
                name = name if names[name] == 1 else f"{name} #{names[name]}"
            case.name = name
            if run.rendered is not None:
                case.input = _input(run.rendered)
            elif run.why:
                case.input = None
                self._unrendered(run)
            evalset.cases.append(case)
        self._report_refused()

    def _name_parts(self, run: ex.Run, base: str) -> list[str]:
        """A run's name: its test's, the values that vary (``[lang=fr]``), the prompt (``@ formal``)."""
        parts = [base]
        if run.combos > 1:
            varying = [k for k, v in _dict(run.test.data.get("vars")).items()
                       if isinstance(v, list) or (isinstance(v, str) and v.startswith("file://"))] or \
                [k for k, v in _dict(self.config.default.get("vars")).items() if isinstance(v, list)]
            parts.append("[" + ", ".join(f"{k}={_short(run.vars.get(k))}" for k in varying) + "]")
        if len(self.config.prompts) > 1 and not run.test.invalid:
            parts.append(f"@ {run.prompt.named or f'prompt-{run.prompt_index + 1}'}")
        return parts

    def _report_repeat(self) -> None:
        repeat = _dict(self.data.get("evaluateOptions")).get("repeat")
        if isinstance(repeat, int) and not isinstance(repeat, bool) and repeat > 1:
            self.r.add("EV103", f"evaluateOptions.repeat: promptfoo runs each test {repeat} times; evalfmt reads "
                                "each once", "evaluateOptions", "repeat", severity="warning")

    def _case(self, run: ex.Run) -> tuple[ir.Case, str]:
        """The case of a run (the test's own for its first run, else a variant copy) and the test's name."""
        test = run.test
        key = id(test)
        first = key not in self.own
        if first:
            own = self.own[key] = self._read_test(test)
            self.test_name[key] = own.name
            if test.origin in ("inline", "file"):
                return own, own.name
        own = self.own[key]
        return ir.replace(own, name=self.test_name[key], hints={**own.hints, "variant": True}, extra=dict(own.extra),
                          checks=[ir.replace(c) for c in own.checks]), self.test_name[key]

    def _read_test(self, test: ex.Test) -> ir.Case:
        """The test's own case (name, checks, vars, other keys), as the first of its runs holds it: read with the
        test (inline or from a tests file), or here for the runs promptfoo makes of no test, a scenario, a row."""
        if test.origin == "empty":
            return ir.Case(name="test-1", span=self.r.span(), hints={"variant": True})
        if test.origin == "scenario":
            return self._scenario_case(test)
        if test.origin == "rows":
            return self._row_case(test)
        case = test.case
        return case

    def _scenario_case(self, test: ex.Test) -> ir.Case:
        """A scenario's config entry times one of its tests: both their assertions, the vars no prompt names."""
        r = test.reporter or self.r
        s, n, where, rep, item, own = test.scenario
        data = test.data
        case = ir.Case(name=data["description"] if isinstance(data.get("description"), str) and
                       data["description"].strip() else f"scenario-{s + 1}-{n + 1}", span=rep.span(*where),
                       hints={"scenario": s, "variant": True})
        case.checks = [c for i, a in enumerate(_list(item.get("assert")))
                       for c in read_assertion(rep, a, where + ("assert", i))]
        case.checks += [c for i, a in enumerate(_list(own.data.get("assert")))
                        for c in read_assertion(own.reporter or r, a, own.where + ("assert", i))]
        used = {k: v for k, v in data["vars"].items() if k not in self.reading.used}
        if used:
            case.extra["vars"] = used
        return case

    def _row_case(self, test: ex.Test) -> ir.Case:
        """A row of a tests table: its assertions, the vars no prompt names."""
        r = test.reporter or self.r
        case = ir.Case(name=test.data.get("description") or "row", span=r.span(*test.where),
                       hints={"variant": True, "file": test.file})
        case.checks = [c for a in _list(test.data.get("assert")) for c in read_assertion(r, a, test.where)]
        unused = {k: v for k, v in _dict(test.data.get("vars")).items() if k not in self.reading.used}
        if unused:
            case.extra["vars"] = unused
        return case

    def _unrendered(self, run: ex.Run) -> None:
        why = run.why or ""
        if why in self.reading.warned:
            return
        self.reading.warned.add(why)
        r = self.r
        at: ex.Where = ("prompts", run.prompt.entry) if _has(self.data, ("prompts", run.prompt.entry)) else \
            ("prompts",) if "prompts" in self.data else ()
        if run.at_test and run.test.reporter is not None:
            r, at = run.test.reporter, run.test.where
        outside = [m for m in self.files.refused if m in why]
        self.reported.update(outside)
        r.add("EV106" if outside else "EV103", f"not rendered: {why}: the task of a test using it is not known here "
                                               "(see docs/promptfoo.md)", *at, severity="warning")


def _refusal(cfg: _Config, r: Reporter, exc: FilesError, message: str, at: ex.Where) -> None:
    """A file the config names that is not read, reported where it is named (EV106 when it is outside the
    repository, once: not again among the refusals reported at the end)."""
    if isinstance(exc, Outside):
        cfg.reported.add(str(exc))
    r.add("EV106" if isinstance(exc, Outside) else "EV103", message, *at, severity="warning")


def _items(sub: Reporter) -> list[tuple[Any, Reporter, ex.Where]]:
    """The entries of a file holding a list (each with its place), or the file's one mapping."""
    data = sub.loaded.data
    if isinstance(data, list):
        return [(x, sub, (i,)) for i, x in enumerate(data)]
    return [(data, sub, ())]


def _has(data: Any, path: tuple[Any, ...]) -> bool:
    node = data
    for p in path:
        if isinstance(node, dict) and p in node or isinstance(node, list) and isinstance(p, int) and 0 <= p < len(node):
            node = node[p]
        else:
            return False
    return True


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _short(value: Any) -> str:
    text = js_string(value)
    if text.startswith("file://"):
        text = text[len("file://"):]
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:39] + "\u2026"


def _root_names(template: str) -> list[str]:
    out = []
    for name in ex.template_vars(template):
        m = re.match(r"[A-Za-z_$][\w$]*", name)
        if m:
            out.append(m.group(0))
    return out


def _input(rendered: str) -> ir.Input:
    """A rendered prompt: a chat prompt (a JSON list of ``{role, content}`` with text content) as messages,
    anything else as the text promptfoo sends."""
    if rendered[:1] == "[":
        try:
            data = json.loads(rendered)
        except ValueError:
            return rendered
        if isinstance(data, list) and data and all(
                isinstance(m, dict) and set(m) == {"role", "content"} and isinstance(m["role"], str)
                and isinstance(m["content"], str) for m in data):
            return [ir.Message(role=m["role"], content=m["content"]) for m in data]
    return rendered


def chat_text(value: ir.Input | None) -> str | None:
    """The text promptfoo sends for a case's input (messages as the JSON promptfoo renders)."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps([{"role": m.role, "content": m.content} for m in value], ensure_ascii=False, indent=2)


# ------------------------------------------------------------------------------------------- tests


def _read_config_tests(cfg: _Config, tests: Any, at: ex.Where = ("tests",), rep: Reporter | None = None) -> None:
    """A config's ``tests``: inline tests, ``file://`` references (globs too), tables, or a list of them."""
    r = rep or cfg.r
    evalset = cfg.evalset
    top = at == ("tests",)
    if tests is None:
        return
    if isinstance(tests, dict) and isinstance(tests.get("path"), str):
        _read_rows(cfg, tests["path"], at + ("path",), r)
        if top:
            evalset.hints["tests_value"] = tests  # (written back as it is)
        return
    if not (isinstance(tests, (list, str))):
        r.add("EV102", "'tests' must be a list of tests, a file:// path (a glob is fine) or a list of them; this "
                       "one is kept as it is", *at)
        if top:
            evalset.extra["tests"] = tests
        return
    if isinstance(tests, str):
        layout = [_ref_entry(cfg, tests, at, r, glob_of_files=tests.endswith(("yaml", "yml")))]
    else:
        layout = [_tests_entry(cfg, entry, at, i, r) for i, entry in enumerate(tests)]
    if not top:
        return
    if any("ref" in x for x in layout):
        evalset.hints["tests_layout"] = layout
    if not isinstance(tests, list):
        evalset.hints["tests_string"] = True
    own = [t.case for t in cfg.config.tests if t.origin in ("inline", "file")]
    for n, case in enumerate(own):  # promptfoo numbers tests across all their files
        if case.hints.get("no_description"):
            case.name = f"test-{n + 1}"


class _LayoutEntry(TypedDict, total=False):
    """What the writer's ``tests_layout`` hint keeps of one entry of a config's ``tests``: an inline test, or a
    reference as written (a path, a glob, a ``{path}`` table) with the number of cases read from it and whether it
    was resolved."""

    inline: int
    ref: Any
    cases: int
    resolved: bool


def _tests_entry(cfg: _Config, entry: Any, at: ex.Where, i: int, r: Reporter) -> _LayoutEntry:
    """One entry of a ``tests`` list: an inline test, a table (``{path}``, CSV, a script), or files of tests;
    what the writer's layout keeps of it."""
    if isinstance(entry, dict) and isinstance(entry.get("path"), str):
        _read_rows(cfg, entry["path"], at + (i, "path"), r)
        return {"ref": entry, "cases": 0, "resolved": True}
    if isinstance(entry, str):
        return _ref_entry(cfg, entry, at + (i,), r, glob_of_files=not (ex.is_standalone(entry)
                                                                       or entry.lower().endswith(".csv")))
    (case,) = _read_tests(cfg.reading, r, [entry], at, start=i)
    valid = isinstance(entry, dict)
    t = ex.Test(_with_vars_files(entry, cfg.base, cfg.files) if valid else {}, at + (i,), r, "inline", i,
                invalid=not valid)
    t.case = case
    cfg.config.tests.append(t)
    return {"inline": 1}


def _ref_entry(cfg: _Config, ref: str, at: ex.Where, r: Reporter, glob_of_files: bool) -> _LayoutEntry:
    if not glob_of_files:
        _read_rows(cfg, ref, at, r)
        return {"ref": ref, "cases": 0, "resolved": True}
    cases = _read_ref(cfg, ref, at, r)
    return {"ref": ref, "cases": len(cases) if cases is not None else 0, "resolved": cases is not None}


def tests_files(cfg: _Config, config: str, ref: str) -> list[str]:
    """The files a tests path names, as promptfoo's ``loadTestsFromGlob`` finds them: relative to the
    config's folder, as :mod:`.files` globs (braces too; in sorted order: promptfoo takes the file system's),
    inside the repository (:class:`~.files.FilesError` otherwise)."""
    path = ref[len("file://"):] if ref.startswith("file://") else ref
    full = os.path.join(os.path.dirname(config), path)
    if not _GLOB_CHARS.search(path) and not ex.has_magic(path) and "{" not in path:  # (braces expand here)
        return [cfg.files.check(full)] if cfg.fs.isfile(full) else []
    return [p for p in cfg.files.glob(full) if cfg.fs.isfile(p)]


def _read_ref(cfg: _Config, ref: str, at: ex.Where, r: Reporter) -> list[ir.Case] | None:
    """A YAML/JSON/JSONL tests file (or glob of them): each test read as it is."""
    why = ex.runtime_source(ref)
    if why is not None:
        r.add("EV103", f"tests from '{ref}' are not read: {why}", *at, severity="warning")
        return None
    try:
        targets = tests_files(cfg, r.loaded.path, ref)
    except FilesError as exc:
        _refusal(cfg, r, exc, f"tests file '{ref}': {exc}", at)
        return None
    if not targets:
        r.add("EV107", f"tests file '{ref}' does not exist: its tests are not read" if not _GLOB_CHARS.search(ref)
              else f"tests glob '{ref}' matches no file: no tests are read from it", *at, severity="warning")
        return None
    out: list[ir.Case] = []
    base = os.path.dirname(r.loaded.path)
    for target in targets:
        if target.lower().endswith(".csv"):
            _read_rows(cfg, os.path.relpath(target, base), at, r)
            continue
        if target.lower().endswith(".jsonl"):
            rows = _jsonl(cfg, target, r, at)
            sub_cases = [] if rows is None else _read_tests(cfg.reading, r, rows, at, start=0)
            for k, c in enumerate(sub_cases):
                t = ex.Test(rows[k] if rows and isinstance(rows[k], dict) else {}, at, r, "file", None,
                            os.path.relpath(target, base))
                t.case = c
                c.hints["variant"] = True  # (a JSONL file is not written back: its reference is)
                cfg.config.tests.append(t)
            continue
        sub = open_document(target, r.result, loader=load_file, fs=cfg.fs)
        if sub is None:
            continue
        data = sub.loaded.data
        if isinstance(data, dict):
            data = [data]
        if not isinstance(data, list):
            sub.add("EV102", f"a promptfoo tests file must be a list of tests, not a {type_name(sub.loaded.data)}")
            continue
        cases = _read_tests(cfg.reading, sub, data, () if isinstance(sub.loaded.data, list) else None)
        rel = os.path.relpath(target, base).replace(os.sep, "/")
        for k, c in enumerate(cases):
            c.hints["file"] = rel
            c.hints["from_file"] = ref
            item = data[k] if isinstance(data[k], dict) else {}
            t = ex.Test(_with_vars_files(_resolve_file_values(item, os.path.dirname(target), cfg.files),
                                     os.path.dirname(target), cfg.files),
                        (k,) if isinstance(sub.loaded.data, list) else (), sub, "file", None, rel,
                        invalid=not isinstance(data[k], dict))
            t.case = c
            cfg.config.tests.append(t)
        out.extend(cases)
    return out


def _jsonl(cfg: _Config, target: str, r: Reporter, at: ex.Where) -> list[Any] | None:
    rows = []
    for n, line in enumerate(cfg.files.text(target).split("\n"), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except ValueError:
            r.add("EV100", f"invalid JSON on line {n} of '{os.path.basename(target)}': promptfoo stops here", *at)
            return None
    return rows


def _resolve_file_values(item: dict[str, Any], base: str, files: Files) -> dict[str, Any]:
    """``maybeLoadConfigFromExternalFile`` on a test read from a tests file: ``file://`` text and data files
    loaded (not under ``vars``, nor a JavaScript or Python assertion's value)."""
    def walk(v: Any, ctx: str | None) -> Any:
        if isinstance(v, list):
            return [walk(x, ctx) for x in v]
        if isinstance(v, dict):
            return {k: walk(x, "assertion" if k == "value" and v.get("type") in ("python", "javascript") else
                            "vars" if k == "vars" else ctx) for k, x in v.items()}
        if not (isinstance(v, str) and v.startswith("file://")) or ctx in ("vars", "assertion"):
            return v
        rel = v[len("file://"):]
        path = os.path.join(base, rel)
        if rel.endswith((".py", *ex._JS_EXT)) or _GLOB_CHARS.search(rel) or not files.fs.isfile(path):
            return v
        try:
            if rel.endswith((".json", ".yaml", ".yml")):
                return files.load(path)
            return files.text(path)
        except Exception:
            return v
    out = walk(item, None)
    return out if isinstance(out, dict) else item


def _vars_paths(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def _with_vars_files(test: dict[str, Any], base: str, files: Files) -> dict[str, Any]:
    """A test whose ``vars`` name YAML/JSON files (paths or globs): the vars those files hold, merged in order
    (promptfoo's ``readTestFiles``)."""
    value = test.get("vars")
    if not _vars_paths(value):
        return test
    merged: dict[str, Any] = {}
    for pattern in [value] if isinstance(value, str) else list(value or []):  # (file:// names no file there)
        for path in files.glob(os.path.join(base, pattern)):
            try:
                data = files.load(path)
            except Exception:
                continue
            if isinstance(data, dict):
                merged.update(_resolve_file_values(data, os.path.dirname(path), files))
    return {**test, "vars": merged}


def _read_rows(cfg: _Config, ref: str, at: ex.Where, r: Reporter) -> None:
    """A table of tests (``readStandaloneTestsFile``): CSV rows, or the tests of a JSON/JSONL/YAML file,
    each described ``Row #N`` unless it has a description."""
    why = ex.runtime_source(ref)
    if why is not None:
        r.add("EV103", f"tests from '{ref}' are not read: {why}", *at, severity="warning")
        return
    rel = ref[len("file://"):] if ref.startswith("file://") else ref
    path = os.path.join(os.path.dirname(r.loaded.path), rel)
    if not cfg.fs.isfile(path):
        r.add("EV107", f"tests file '{ref}' does not exist: promptfoo stops here", *at)
        return
    ext = os.path.splitext(rel)[1].lower()
    try:
        rows = _table_rows(cfg, path, ext, r, at)
    except Outside as exc:
        _refusal(cfg, r, exc, f"tests file {exc}", at)
        return
    except ex.ConfigError as exc:
        r.add("EV102", f"tests file '{ref}': {exc}", *at)
        return
    except Exception as exc:  # a file that does not parse
        r.add("EV100", f"tests file '{ref}' cannot be read: {exc}", *at)
        return
    _add_rows(cfg, rows, ref, rel, at, r)


def _table_rows(cfg: _Config, path: str, ext: str, r: Reporter, at: ex.Where) -> list[Any]:
    """The rows of a tests table by its extension: CSV rows and YAML tests as promptfoo makes tests of rows,
    JSON and JSONL tests as they are."""
    if ext == ".csv":
        return [ex.test_from_row(row) for row in ex.csv_rows(cfg.files.text(path))]
    if ext == ".jsonl":
        return _jsonl(cfg, path, r, at) or []
    if ext not in (".json", ".yaml", ".yml"):
        return []
    data = cfg.files.load(path)
    rows = data if isinstance(data, list) else [data]
    if ext in (".yaml", ".yml"):
        rows = [ex.test_from_row(row) if isinstance(row, dict) else row for row in rows]
    return rows


def _add_rows(cfg: _Config, rows: list[Any], ref: str, rel: str, at: ex.Where, r: Reporter) -> None:
    """A table's rows as tests, each described ``Row #N`` unless it has a description."""
    for n, row in enumerate(rows):
        if not isinstance(row, dict):
            r.add("EV102", f"row {n + 1} of '{ref}' is not a test", *at)
            continue
        row = {**row, "description": row.get("description") or f"Row #{n + 1}"}
        cfg.config.tests.append(ex.Test(row, at, r, "rows", None, rel))
        for v in _dict(row.get("vars")).values():
            if isinstance(v, str):
                cfg.reading.used.update(_root_names(v))


def _read_tests(reading: _Reading, r: Reporter, tests: list[Any], at: ex.Where | None, start: int = 0) -> list[ir.Case]:
    """The tests of a list (in the file ``r`` reads), the first one numbered ``start``; ``at`` None: a
    file holding one test (a mapping)."""
    cases = []
    for j, test in enumerate(tests):
        i = start + j
        where = () if at is None else at + (i,)
        case = ir.Case(name=f"test-{i + 1}", span=r.span(*where))
        cases.append(case)
        if not isinstance(test, dict):
            r.add("EV102", f"a test must be a mapping with vars and assert, not a {type_name(test)}", *where)
            case.extra["$value"] = test
            continue
        _read_test(reading, r, case, test, where)
    return cases


def _read_test(reading: _Reading, r: Reporter, case: ir.Case, test: dict[str, Any], where: ex.Where) -> None:
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


def _read_vars(reading: _Reading, r: Reporter, case: ir.Case, test: dict[str, Any], where: ex.Where) -> None:
    """A test's ``vars``: kept as written (a hint, for writing back); those no prompt names stay in
    ``extra`` (the input holds the others, rendered). In a tests file read alone, the prompt variable
    (``prompt``, or the only one) is the input."""
    vars_ = test.get("vars")
    if "vars" in test and not isinstance(vars_, dict):
        if not _vars_paths(vars_):
            r.add("EV102", f"'vars' must be a mapping (or paths of vars files), not a {type_name(vars_)}", *where,
                  "vars")
        case.extra["vars"] = vars_
        return
    if vars_ is None:
        return
    case.hints["var_order"] = list(vars_)
    case.hints["vars"] = vars_
    if isinstance(r.loaded.data, list) and r is reading.config:  # a tests file read alone: no prompt template
        pv = "prompt" if "prompt" in vars_ else (next(iter(vars_)) if len(vars_) == 1 else None)
        if pv is not None and isinstance(vars_.get(pv), str):
            case.input = vars_[pv]
            case.hints["prompt_var"] = pv
        others = {k: v for k, v in vars_.items() if k != pv}
    else:
        others = {k: v for k, v in vars_.items() if k not in reading.used}
    if others:
        case.extra["vars"] = others


# ----------------------------------------------------------------------------------------- assertions


@dataclass
class _Assertion:
    """One promptfoo assertion being read: its mapping, its type without ``not-``, where it is."""

    a: dict[str, Any]
    base: str
    negate: bool
    span: ir.Span
    extra: dict[str, Any]
    weight: Any
    #: common fields a form read from the assertion's own keys (``min_score``, ``negate``)
    common_fields: dict[str, Any] = field(default_factory=dict)

    @property
    def value(self) -> Any:
        return self.a.get("value")

    def common(self) -> dict[str, Any]:
        """The keyword arguments every check read from an assertion takes."""
        out: dict[str, Any] = {"span": self.span, "weight": self.weight, "extra": self.extra,
                               "hints": {"key_order": list(self.a)}, **self.common_fields}
        if self.negate:
            out["negate"] = True
        return out


def _opaque(a: Any, span: ir.Span, typ: str | None = None) -> list[ir.Check]:
    """An assertion kept as it is (written back unchanged)."""
    return [ir.Opaque(type=typ, origin=NAME, raw=a, span=span)]


def read_assertion(r: Reporter, a: Any, where: ex.Where) -> list[ir.Check]:
    """The IR checks for one promptfoo assertion: the reader of its spec's form (:data:`FORM_READERS`), the
    specs of its type (without ``not-``) found in :data:`~evalfmt.ir.kinds.PROMPTFOO_TYPES`; an assertion no
    spec holds, or one its form refuses, is kept opaque."""
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
    specs = PROMPTFOO_TYPES.get(base, ())
    for form in dict.fromkeys(_entry(s).form for s in specs):  # (the type's own kind first)
        x = _Assertion(a, base, negate, span, {k: v for k, v in a.items() if k not in VALUE_KEYS}, a.get("weight"))
        if not _number(x.weight) and x.weight is not None:
            if form not in WHOLE:
                continue
            x.extra = {k: v for k, v in a.items() if k not in ("type", "value")}  # (the odd weight stays beside it)
            x.weight = None
        checks = FORM_READERS[form](x, tuple(s for s in specs if _entry(s).form == form))
        if checks is not None:
            return checks
    return _opaque(a, span, typ)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _entry(spec: KindSpec) -> Promptfoo:
    entry = spec.promptfoo
    assert isinstance(entry, Promptfoo)  # (PROMPTFOO_TYPES lists the specs with a promptfoo form)
    return entry


# the forms (evalfmt.ir.kinds.spec.PromptfooForm): each reads an assertion as the specs of its type say


def _same(x: _Assertion, specs: tuple[KindSpec, ...]) -> list[ir.Check] | None:
    """``{type, value}``: a check promptfoo and the IR share (``contains``, ``regex``, ``equals``, ...); the
    spec's ``value`` says what the value must be."""
    spec = specs[0]
    return _SAME_VALUES[_entry(spec).value](x, spec.cls)


def _one_text(x: _Assertion, cls: Any) -> list[ir.Check] | None:
    return [cls(value=x.value, **x.common())] if isinstance(x.value, str) else None


def _texts(x: _Assertion, cls: Any) -> list[ir.Check] | None:
    if isinstance(x.value, list) and all(isinstance(v, str) for v in x.value):
        return [cls(values=list(x.value), **x.common())]
    return None


def _any_value(x: _Assertion, cls: Any) -> list[ir.Check] | None:
    return [cls(value=x.value, **x.common())] if "value" in x.a else None


def _no_value(x: _Assertion, cls: Any) -> list[ir.Check] | None:
    return [cls(**x.common())] if "value" not in x.a else None


#: the value of a ``same`` assertion (the spec's ``value``) -> how it is read
_SAME_VALUES: dict[str, Callable[[_Assertion, Any], list[ir.Check] | None]] = {
    "text": _one_text, "texts": _texts, "any": _any_value, "none": _no_value}


def _skill(x: _Assertion, specs: tuple[KindSpec, ...]) -> list[ir.Check] | None:
    """``skill-used`` with a name, ``{name}`` or a list of names: one skill-trigger per name. promptfoo checks a
    list as one assertion (every name used; ``not-``: none), so the checks of a list share its weight (each
    ``weight / n``, the assertion's weight 1 when it gives none): the list counts once, not once per name."""
    cls: Any = specs[0].cls
    value = x.value
    names: Any = [value] if isinstance(value, str) else value
    hints: dict[str, Any] = {"key_order": list(x.a)}
    if isinstance(value, dict) and set(value) == {"name"} and isinstance(value["name"], str):
        names = [value["name"]]
        hints["form"] = "object"
    if not (isinstance(names, list) and names and all(isinstance(n, str) and n.strip() for n in names)) \
            or x.extra:
        return None
    weight = x.weight if len(names) == 1 else (1.0 if x.weight is None else x.weight) / len(names)
    checks: list[ir.Check] = []
    for k, n in enumerate(names):
        h: dict[str, Any] = dict(hints) if k == 0 else {"group_part": True}
        if k == 0 and isinstance(value, list):
            h["group"] = len(names)
            if len(names) > 1:
                h["group_weight"] = x.weight  # (the assertion's own weight, None when it gives none)
        checks.append(cls(skill=n.strip(), should_trigger=False if x.negate else None, span=x.span,
                          hints=h, weight=weight))
    return checks


#: the bounds of a ``trajectory:step-count`` a command check is, by what the check asserts
_STEP_BOUNDS = {(1, None): "presence", (None, 0): "absence"}


def _step_count(x: _Assertion, specs: tuple[KindSpec, ...]) -> list[ir.Check] | None:
    """``trajectory:step-count`` of a literal command glob, at least once (the spec asserting presence) or
    never (the one asserting absence)."""
    value = x.value
    if not (isinstance(value, dict) and value.get("type") == "command" and isinstance(value.get("pattern"), str)
            and set(value) <= {"type", "pattern", "min", "max"}):
        return None
    lit = _glob_literal(value["pattern"])
    asserts = _STEP_BOUNDS.get((value.get("min"), value.get("max")))
    if lit is None or x.extra or x.weight is not None or x.negate or asserts is None:
        return None
    cls: Any = next(s.cls for s in specs if s.asserts == asserts)
    return [cls(pattern=lit[0], span=x.span, hints={"key_order": list(x.a)})]


def _rubric(x: _Assertion, specs: tuple[KindSpec, ...]) -> list[ir.Check] | None:
    """``llm-rubric``: one criterion; its ``threshold`` is the score the judge must give (the IR's
    ``min_score``)."""
    cls: Any = specs[0].cls
    if not isinstance(x.value, str) or x.negate:
        return None
    threshold = x.extra.get("threshold")
    if isinstance(threshold, (int, float)) and not isinstance(threshold, bool):
        del x.extra["threshold"]
        return [cls(criteria=[x.value], min_score=threshold, **x.common())]
    return [cls(criteria=[x.value], **x.common())]


def _threshold(x: _Assertion, specs: tuple[KindSpec, ...]) -> list[ir.Check] | None:
    """``{type, threshold}`` with a numeric threshold (``latency``, ``cost``): it fills the spec's field."""
    spec = specs[0]
    threshold = x.a.get("threshold")
    if x.negate or "value" in x.a or not isinstance(threshold, (int, float)) or isinstance(threshold, bool):
        return None
    x.extra.pop("threshold")
    cls: Any = spec.cls
    return [cls(**{_entry(spec).field or "threshold": threshold}, **x.common())]


def _graded(x: _Assertion, specs: tuple[KindSpec, ...]) -> list[ir.Check] | None:
    """``{type, value, threshold}`` of a model-graded type: the type fills the entry's ``field``, the value its
    ``into``; a numeric ``threshold`` is the score the grade needs (``min_score``), ``negate: true`` negates it."""
    if x.negate:
        return None
    extra = dict(x.extra)
    if _number(extra.get("threshold")):
        x.common_fields["min_score"] = extra.pop("threshold")
    if extra.get("negate") is True:
        del extra["negate"]
        x.common_fields["negate"] = True
    x.extra = extra
    return _typed(x, specs[0])


def _code(x: _Assertion, specs: tuple[KindSpec, ...]) -> list[ir.Check] | None:
    """``{type, value}`` of code only promptfoo runs: the type fills the entry's ``field``, the value its
    ``into``; every other key stays beside them."""
    return None if x.negate else _typed(x, specs[0])


def _typed(x: _Assertion, spec: KindSpec) -> list[ir.Check]:
    """A check whose field (the entry's ``field``) holds the assertion's type, and ``into`` its value."""
    entry = _entry(spec)
    cls: Any = spec.cls
    fields: dict[str, Any] = {entry.field or "type": x.base}
    if "value" in x.a:
        fields[entry.into or "value"] = x.value
    return [cls(**fields, **x.common())]


def _glob_literal(pattern: str) -> tuple[str, str] | None:
    """A promptfoo glob that is literal text with ``*`` only at the ends: (anchoring, text)."""
    start = pattern.startswith("*")
    end = pattern.endswith("*") and len(pattern) > 1
    core = pattern[1 if start else 0: len(pattern) - 1 if end else len(pattern)]
    if not core or "*" in core or "?" in core:
        return None
    regex = ("" if start else "^") + escape_regex(core) + ("" if end else "$")
    return regex, core


#: a promptfoo form (the ``form`` of a spec's :class:`~evalfmt.ir.kinds.Promptfoo` entry) -> how an assertion
#: of it is read, given the specs of its type: its IR checks, None when the assertion is kept opaque
FORM_READERS: dict[str, Callable[[_Assertion, tuple[KindSpec, ...]], list[ir.Check] | None]] = {
    "same": _same, "threshold": _threshold, "rubric": _rubric, "skill": _skill, "step-count": _step_count,
    "graded": _graded, "code": _code,
}
#: the forms that keep an assertion whole: a ``weight`` that is no number stays beside it (the others leave
#: such an assertion opaque)
WHOLE = ("graded", "code")
