"""Reading a terum skill's ``evals/`` into IR, with the engine's own rules as diagnostics.

What the engine (``terum-skills eval``) does, and therefore what this reader reproduces:

- cases are ``evals/cases/*.yaml`` and ``*.yml`` sorted by file name, the stem is the name; the suite
  is exactly ``evals/suite.yaml``, the triggers exactly ``evals/triggers.yaml`` (case-sensitive).
  Anything else that looks like an eval file is never loaded: EV111 says so and how to rename it;
- fields are coerced as the engine coerces them (``String(value)``), and every refusal of the engine
  (missing task, bad bucket, files not a map, timeout out of range, bad suite entries ...) is an
  error diagnostic at the offending key or value; what the engine silently ignores (unknown keys,
  ``checks`` that is not a list, a suite's own checks/judge/bucket) is reported too;
- check kinds are not validated by the engine at load time (an unknown kind fails its arm when it
  runs), so the IR keeps them as :class:`~evalfmt.ir.Opaque` and validation reports them (EV104).

The reader builds the IR's dataclasses directly (no pydantic on ``validate``'s path).
"""

from __future__ import annotations

import os
import re
from typing import Any
from collections.abc import Callable

from ... import ir
from ...ir import BUCKETS
from ...ir.kinds import SPECS, TERUM_KINDS, Terum
from ...errors import Diagnostic, LoadError, Pos, Severity
from ...js import UNDEFINED, is_integer as is_js_integer, is_number as is_js_number, string as js_string
from ...frontmatter import find as find_frontmatter
from ...fsview import DISK, View
from ...load import Loaded, load_file, load_text, plain, read_text, type_name
from ...suggest import key as suggest_key, near, typo
from .. import ReadResult, parts
from .listed import listed
from .paths import (  # noqa: F401 - re-exported for the terum format's users
    ASSET_NAMES, CASE_DIR_VARIANTS, CASE_DIRS, EVAL_EXTS, GENERATED_MARK, MISPLACED_TOP, case_files, escapes_sandbox,
    file_path_violation, fixture_outside, has_assets, is_skill_dir, misplaced_files, read_or_reported, skill_root,
)

from ...ecmaregex import problems

CASE_KEYS = ("task", "checks", "judge", "files", "fixture", "setup", "bucket", "requires",
             "timeout_minutes", "max_turns")
SUITE_KEYS = CASE_KEYS + ("cases",)
SUITE_ENTRY_KEYS = ("name", "checks")
SUITE_ENTRY_REFUSED = ("judge", "task", "files", "fixture", "setup", "bucket")
TRIGGER_KEYS = ("should_trigger", "should_not_trigger")
#: Fields other tools' eval files have too (a ``judge:`` rubric, ``files``, a ``setup`` command, ``requires``,
#: a list of ``cases``): terum reads them, but alone they are no evidence that a file is terum's.
GENERIC_KEYS = ("judge", "files", "setup", "requires", "cases")


#: Likely intended keys for words people write by habit from other formats.
SYNONYMS = {
    "prompt": "task", "input": "task", "query": "task", "assertions": "checks", "assert": "checks",
    "rubric": "judge", "criteria": "judge", "timeout": "timeout_minutes", "turns": "max_turns",
    "fixtures": "fixture", "require": "requires", "should-trigger": "should_trigger",
    "should_not": "should_not_trigger", "should-not-trigger": "should_not_trigger",
}

_BINARY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._+-]*\Z")
_PY_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\Z")

def suggest(key: str, known: tuple[str, ...]) -> str | None:
    """The known key a mistyped one most likely meant (with terum's :data:`SYNONYMS`), or None."""
    return suggest_key(key, known, SYNONYMS)


class _Ctx:
    """Diagnostics collector for one file."""

    def __init__(self, loaded: Loaded, diags: list[Diagnostic], fs: View):
        self.loaded = loaded
        self.path = loaded.path
        self.diags = diags
        self.fs = fs  # what the fixture checks look at

    def at(self, pos: Pos, code: str, message: str, severity: Severity = "error", **data: Any) -> None:
        self.diags.append(Diagnostic(self.path, pos.line, pos.column, code, message, severity,
                                     fixable=bool(data.get("fix")), data=data))

    def value(self, *path: str | int, code: str, message: str, severity: Severity = "error", **data: Any) -> None:
        self.at(self.loaded.pos(*path), code, message, severity, **data)

    def key(self, *path: str | int, code: str, message: str, severity: Severity = "error", **data: Any) -> None:
        if data.get("fix"):  # what --fix replaces: it refuses when the file holds something else there
            data["old"] = path[-1]
        self.at(self.loaded.key_pos(*path), code, message, severity, **data)

    def span(self, *path: str | int) -> ir.Span:
        p = self.loaded.pos(*path)
        return ir.Span(self.path, p.line, p.column)


# ----------------------------------------------------------------------------------------- checks


def parse_checks(ctx: _Ctx, raw: Any, base: tuple[Any, ...]) -> list[ir.Check]:
    """A terum ``checks`` list into IR checks (``raw`` must be a list)."""
    return [parse_check(ctx, item, base + (i,)) for i, item in enumerate(raw)]


def parse_check(ctx: _Ctx, item: Any, where: tuple[Any, ...]) -> ir.Check:
    span = ctx.span(*where)
    if isinstance(item, str):
        kind, arg, has_arg = item, None, False
    elif isinstance(item, dict) and len(item) == 1:
        kind, arg = next(iter(item.items()))
        has_arg = True
    else:
        shape = f"a mapping with {len(item)} keys" if isinstance(item, dict) else f"a {type_name(item)}"
        ctx.value(*where, code="EV102",
                  message=f"a check must be a one-key mapping like '{{transcript_mentions: text}}', not {shape} "
                          "(the engine fails it as 'unrecognized check spec')")
        return _opaque(span, None, item, fails="unrecognized check spec")
    if kind not in TERUM_KINDS:
        hint = suggest(kind, TERUM_KINDS)
        more = f" (did you mean '{hint}'?)" if hint else f" (known: {', '.join(TERUM_KINDS)})"
        pos = ctx.loaded.key_pos(*where, kind) if has_arg else ctx.loaded.pos(*where)
        ctx.at(pos, "EV104", f"unknown check kind '{kind}'{more}; the engine fails the arm with "
                             f"\"unknown check kind '{kind}'\"", suggestion=hint)
        return _opaque(span, kind, item, fails=f"unknown check kind '{kind}'")
    if not has_arg or arg is None:
        ctx.value(*where, code="EV103",
                  message=f"check '{kind}' needs an argument, e.g. '{{{kind}: ...}}' "
                          "(without one the engine tests the text 'undefined')")
        return _opaque(span, kind, item, runs_with=js_string(arg if has_arg else UNDEFINED))
    if isinstance(arg, (dict, list)):
        ctx.value(*where, kind, code="EV102",
                  message=f"the argument of '{kind}' must be a string, not a {type_name(arg)}")
        return _opaque(span, kind, item, runs_with=js_string(arg))
    text = js_string(arg)
    entry = SPECS[kind].terum
    assert isinstance(entry, Terum)  # (TERUM_KINDS are the kinds with a terum check entry)
    if entry.argument == "regex":
        problem = regex_problem(text)
        if problem:
            ctx.value(*where, kind, code="EV105", message=f"regex {text!r}: {problem}")
    if entry.argument == "sandbox-path" and escapes_sandbox(text):
        ctx.value(*where, kind, code="EV106",
                  message=f"path '{text}' escapes the sandbox; the check always fails "
                          "('path escapes the sandbox'): use a path relative to the sandbox root")
    args: dict[str, Any] = {entry.field: text}
    # CHECK_MODELS holds the classes of the ir.Check union, typed by their base class
    return ir.CHECK_MODELS[kind](span=span, **args)  # type: ignore[return-value]


def _opaque(span: ir.Span, kind: str | None, item: Any, fails: str | None = None,
            runs_with: str | None = None) -> ir.Opaque:
    """A check kept as written; ``fails``: what the engine fails it with; ``runs_with``: the text the engine
    tests a known kind with (``String()`` of its missing or non-string argument)."""
    return ir.Opaque(span=span, type=kind, raw=plain(item), origin="terum", fails=fails, runs_with=runs_with)


def regex_problem(pattern: str, flags: str = "") -> str | None:
    """Why ``pattern`` is not a usable ECMAScript regex, or reads differently in Python (None if fine).

    Only ``invalid`` (not ECMAScript), ``unsupported`` (evalfmt cannot run it) and ``differs`` (Python
    reads it otherwise, likely a mistake) are findings; the subtler differences the translator
    handles are not."""
    found = [p for p in problems(pattern, flags) if p.kind in ("invalid", "unsupported", "differs")]
    return "; ".join(p.message for p in found) if found else None


# ------------------------------------------------------------------------------------------ cases


class _Fields:
    """What the field readers of one case (or the suite's top level) share: the document, the data, and
    the IR fields and ``extra`` they fill."""

    def __init__(self, ctx: _Ctx, name: str, data: dict[str, Any], suite: bool):
        self.ctx, self.name, self.data, self.suite = ctx, name, data, suite
        self.what = "suite" if suite else "case"
        self.fields: dict[str, Any] = {}
        self.extra: dict[str, Any] = {}


def read_case_data(ctx: _Ctx, name: str, data: Any, suite: bool, skill_dir: str | None) -> ir.Case:
    """The shared loader for a case file and the suite's top level (an :class:`~evalfmt.ir.Suite` when
    ``suite``)."""
    span = ctx.span()
    what = "suite" if suite else "case"
    if not isinstance(data, dict):
        found = "empty" if data is None else f"a {type_name(data)}"
        ctx.value(code="EV102", message=f"a {what} file must be a mapping of fields, this one is {found}")
        ctx.value(code="EV103", message=f"{what} '{name}' needs a 'task' (the prompt the agent receives)")
        return _case(name, span, suite)
    f = _Fields(ctx, name, data, suite)
    for read_field in _FIELD_READERS:
        read_field(f)
    if "fixture" in f.fields and skill_dir is not None:
        _check_fixture(ctx, f.fields["fixture"], skill_dir, what)
    hints = {}
    if ctx.loaded.text.startswith(GENERATED_MARK):
        hints["generated"] = ctx.loaded.text.split("\n", 1)[0]
    return _case(name, span, suite, extra=f.extra, hints=hints, **f.fields)


def _unknown_keys(f: _Fields) -> None:
    known = SUITE_KEYS if f.suite else CASE_KEYS
    for key, value in f.data.items():
        if key not in known:
            hint = suggest(key, known)
            f.extra[key] = plain(value)
            if key == "name" and not f.suite:
                msg = "unknown key 'name': a case's name is its file stem; the engine ignores this key"
            else:
                msg = f"unknown key '{key}'" + (f" (did you mean '{hint}'?)" if hint else "") + \
                      "; the engine ignores it silently"
            f.ctx.key(key, code="EV101", message=msg, suggestion=hint, fix=bool(hint) and hint not in f.data)


def _task(f: _Fields) -> None:
    ctx, data, what, name = f.ctx, f.data, f.what, f.name
    task = data.get("task")
    if "task" not in data or task is None:
        ctx.value(code="EV103", message=f"{what} '{name}' needs a 'task' (the prompt the agent receives)")
    elif not isinstance(task, str):
        ctx.value("task", code="EV102",
                  message=f"'task' must be a string, not a {type_name(task)} (the engine refuses the {what})")
        f.extra["task"] = plain(task)
    elif not task.strip():
        ctx.value("task", code="EV103", message=f"{what} '{name}' has a blank 'task': write the prompt the agent "
                                                f"receives")
        f.fields["input"] = task
    else:
        f.fields["input"] = task


def _checks(f: _Fields) -> None:
    if "checks" not in f.data:
        return
    checks = f.data["checks"]
    if isinstance(checks, list):
        f.fields["checks"] = parse_checks(f.ctx, checks, ("checks",))
        if f.suite:
            f.ctx.key("checks", code="EV113",
                      message="a suite's top-level 'checks' are parsed and discarded by the engine: "
                              "move them into the entries of 'cases'", severity="warning")
    else:
        f.extra["checks"] = plain(checks)
        f.ctx.value("checks", code="EV102",
                    message=f"'checks' must be a list, not a {type_name(checks)}; the engine treats it as "
                            "empty, so the case has no checks")


def _strings(f: _Fields) -> None:
    for key in ("judge", "fixture", "setup"):
        if key in f.data:
            value = f.data[key]
            if isinstance(value, (dict, list)):
                f.ctx.value(key, code="EV102", message=f"'{key}' must be a string, not a {type_name(value)}")
            f.fields[key] = js_string(value)
    if f.suite and "judge" in f.data:
        f.ctx.key("judge", code="EV113",
                  message="a suite is never judged: the engine discards its 'judge'", severity="warning")


def _bucket(f: _Fields) -> None:
    if "bucket" not in f.data:
        return
    bucket = js_string(f.data["bucket"])
    if bucket not in BUCKETS:
        near_bucket = near(bucket.lower(), BUCKETS)
        f.ctx.value("bucket", code="EV109",
                    message=f"unknown bucket '{bucket}'"
                            + (f" (did you mean '{near_bucket}'?)" if near_bucket else "") +
                            f"; the engine refuses the {f.what}: use one of {', '.join(BUCKETS)}")
        f.extra["bucket"] = plain(f.data["bucket"])
    else:
        f.fields["bucket"] = bucket
    if f.suite:
        f.ctx.key("bucket", code="EV113",
                  message="a suite's 'bucket' is parsed and discarded by the engine", severity="warning")


def _files(f: _Fields) -> None:
    if "files" not in f.data:
        return
    ctx, files, what = f.ctx, f.data["files"], f.what
    if not isinstance(files, dict):
        ctx.value("files", code="EV102",
                  message=f"'files' must be a map of path to contents, not "
                          f"{'empty' if files is None else 'a ' + type_name(files)} "
                          f"(the engine refuses the {what})")
        f.extra["files"] = plain(files)
        return
    out = {}
    for rel, content in files.items():
        problem = file_path_violation(rel)
        if problem:
            ctx.key("files", rel, code="EV106",
                    message=f"files path '{rel}' {problem}; the engine refuses the {what}")
        if isinstance(content, (dict, list)):
            ctx.value("files", rel, code="EV102",
                      message=f"the contents of '{rel}' must be a string, not a {type_name(content)} "
                              f"(the engine writes {js_string(content)!r})")
        out[rel] = js_string(content)
    f.fields["files"] = out


def _requires(f: _Fields) -> None:
    if "requires" not in f.data:
        return
    req = f.data["requires"]
    if isinstance(req, list):
        items = []
        for i, entry in enumerate(req):
            text = js_string(entry)
            items.append(text)
            if not requirement_ok(text):
                f.ctx.value("requires", i, code="EV110",
                            message=f"requires entry '{text}' is neither a binary name nor 'python3:<module>'")
        f.fields["requires"] = items
    else:
        f.ctx.value("requires", code="EV102",
                    message=f"'requires' must be a list, not a {type_name(req)}; the engine ignores it")
        f.extra["requires"] = plain(req)


def _timeout(f: _Fields) -> None:
    if "timeout_minutes" not in f.data:
        return
    t = f.data["timeout_minutes"]
    if not is_js_number(t):
        f.ctx.value("timeout_minutes", code="EV102",
                    message=f"'timeout_minutes' must be a number, not a {type_name(t)} (the engine refuses the "
                            f"{f.what})")
        f.extra["timeout_minutes"] = plain(t)
    elif not (t > 0 and t <= 120) or t != t:
        f.ctx.value("timeout_minutes", code="EV108",
                    message=f"'timeout_minutes' is {js_string(t)}: it must be greater than 0 and at most 120")
        f.extra["timeout_minutes"] = t
    else:
        f.fields["timeout_minutes"] = t


def _max_turns(f: _Fields) -> None:
    if "max_turns" not in f.data:
        return
    m = f.data["max_turns"]
    if not is_js_number(m):
        f.ctx.value("max_turns", code="EV102",
                    message=f"'max_turns' must be a positive integer, not a {type_name(m)}")
        f.extra["max_turns"] = plain(m)
    elif not is_js_integer(m) or m <= 0 or m > 2 ** 53:  # (2**53: the largest integer a JS number holds exactly)
        f.ctx.value("max_turns", code="EV108", message=f"'max_turns' is {js_string(m)}: it must be a positive integer")
        f.extra["max_turns"] = m
    else:
        f.fields["max_turns"] = int(m)


#: The field readers of a case, in the order their diagnostics come.
_FIELD_READERS: tuple[Callable[[_Fields], None], ...] = (
    _unknown_keys, _task, _checks, _strings, _bucket, _files, _requires, _timeout, _max_turns)


def _case(name: str, span: ir.Span, suite: bool, **fields: Any) -> ir.Case:
    return (ir.Suite if suite else ir.Case)(name=name, span=span, **fields)


def requirement_ok(text: str) -> bool:
    if text.startswith("python3:"):
        return bool(_PY_MODULE.match(text[len("python3:"):]))
    return bool(_BINARY.match(text))


def _check_fixture(ctx: _Ctx, fixture: str, skill_dir: str, what: str) -> None:
    if "\0" in fixture:  # no path can hold one (and the os.path functions refuse it)
        shown = fixture.replace("\0", "\\0")
        ctx.value("fixture", code="EV107", message=f"fixture '{shown}' holds a NUL character: no directory has "
                                                    f"that name; the engine drops the {what}")
        return
    base = os.path.dirname(ctx.path)
    target = os.path.normpath(os.path.join(base, fixture))
    if fixture_outside(base, fixture, skill_dir, fs=ctx.fs):
        ctx.value("fixture", code="EV107",
                  message=f"fixture '{fixture}' is outside the skill folder: keep fixtures under evals/")
    elif not ctx.fs.isdir(target):
        ctx.value("fixture", code="EV107",
                  message=f"fixture directory '{fixture}' not found (looked for {target}); the engine drops the {what}")


def read_suite_entries(ctx: _Ctx, suite: ir.Suite, data: Any, case_stems: set[str]) -> None:
    if not isinstance(data, dict):
        return
    if "cases" not in data:
        ctx.value(code="EV103", message="suite 'suite' needs a non-empty 'cases' list (the rows it scores)")
        return
    raw = data["cases"]
    if not isinstance(raw, list):
        ctx.value("cases", code="EV102", message=f"'cases' must be a list of {{name, checks}} entries, not a "
                                                 f"{type_name(raw)}")
        suite.extra["cases"] = plain(raw)
        return
    if not raw:
        ctx.value("cases", code="EV112", message="suite 'suite' needs a non-empty 'cases' list: the engine refuses an "
                                                 "empty one")
        return
    names: dict[str, int] = {}
    for i, item in enumerate(raw):
        where = ("cases", i)
        if not isinstance(item, dict):
            ctx.value(*where, code="EV112", message=f"suite entry {i + 1} must be a mapping with 'name' and 'checks'")
            suite.entries.append(ir.SuiteEntry(name="", span=ctx.span(*where), extra={"_raw": plain(item)}))
            continue
        extra: dict[str, Any] = {}
        for key in item:
            if key in SUITE_ENTRY_KEYS:
                continue
            extra[key] = plain(item[key])
            if key in SUITE_ENTRY_REFUSED:
                ctx.key(*where, key, code="EV112",
                        message=f"suite 'suite': sub-case must not carry '{key}' (the engine refuses it): "
                                "shared fields belong at the top of the suite")
            else:
                ctx.key(*where, key, code="EV112",
                        message=f"suite entry field '{key}' is not allowed: an entry has only 'name' and 'checks'")
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            ctx.value(*where, *(("name",) if "name" in item else ()), code="EV112",
                      message="suite entry needs a non-empty 'name' (it names the row in the receipt)")
            if name is not None:
                extra["name"] = plain(name)
            name = ""
        elif name in names:
            ctx.value(*where, "name", code="EV112",
                      message=f"duplicate suite entry name '{name}' (first at entry {names[name] + 1})")
        elif name in case_stems:
            ctx.value(*where, "name", code="EV112",
                      message=f"suite 'suite': sub-case name '{name}' collides with authored case name: rename it")
        if name:
            names.setdefault(name, i)
        checks: list[ir.Check] = []
        entry = f"suite entry '{name}'" if name else f"suite entry {i + 1}"
        if "checks" not in item:
            ctx.value(*where, code="EV103", message=f"{entry} needs a 'checks' list")
        elif not isinstance(item["checks"], list):
            ctx.value(*where, "checks", code="EV102",
                      message=f"{entry}: 'checks' must be a list, not a {type_name(item['checks'])}")
            extra["checks"] = plain(item["checks"])
        else:
            checks = parse_checks(ctx, item["checks"], where + ("checks",))
        suite.entries.append(ir.SuiteEntry(name=name, checks=checks, span=ctx.span(*where), extra=extra))


def read_triggers_data(ctx: _Ctx, data: Any, skill: str | None) -> ir.TriggerSet:
    ts = ir.TriggerSet(skill=skill, span=ctx.span())
    if data is None:
        return ts
    if not isinstance(data, dict):
        ctx.value(code="EV102", message=f"a triggers file must be a mapping with 'should_trigger' and "
                                        f"'should_not_trigger' lists, this one is a {type_name(data)}")
        ts.extra["_raw"] = plain(data)
        return ts
    for key, value in data.items():
        if key in TRIGGER_KEYS:
            continue
        hint = suggest(key, TRIGGER_KEYS)
        ts.extra[key] = plain(value)
        ctx.key(key, code="EV101", message=f"unknown key '{key}'" + (f" (did you mean '{hint}'?)" if hint else "") +
                "; the engine reads only 'should_trigger' and 'should_not_trigger'", suggestion=hint,
                fix=bool(hint) and hint not in data)
    for key in TRIGGER_KEYS:
        if key not in data:
            continue
        value = data[key]
        if value is None:
            ts.hints[f"{key}_null"] = True
            continue
        if not isinstance(value, list):
            ctx.value(key, code="EV102", message=f"'{key}' must be a list of prompts, not a {type_name(value)}")
            ts.extra[key] = plain(value)
            continue
        for i, item in enumerate(value):
            if isinstance(item, (dict, list)):
                ctx.value(key, i, code="EV102", message=f"a trigger prompt must be a string, not a {type_name(item)}")
            p = ctx.loaded.pos(key, i)
            ts.prompts.append(ir.TriggerPrompt(text=js_string(item), should_trigger=key == "should_trigger",
                                               span=ir.Span(ctx.path, p.line, p.column)))
        if not value:
            ts.hints[f"{key}_empty"] = True
    return ts


# --------------------------------------------------------------------------------------- the unit


def _load(path: str, result: ReadResult, fs: View, known: tuple[str, ...] | None = None,
          what: str = "") -> Loaded | None:
    """Load one file of the skill; with ``known`` (not forced), a file that shows none of terum's fields
    is left unread with a note (another tool's file at terum's path) instead of being refused."""
    try:
        loaded = load_file(path, fs=fs)
    except LoadError as exc:
        result.diagnostics.append(exc.to_diagnostic())
        return None
    if known is not None:
        why = not_terum(loaded.data, known)
        if why is not None:
            result.notes.append(f"{path}: not read as a terum {what}: {why}; --from terum reads it as one")
            return None
    result.documents[path] = loaded
    for dup in loaded.duplicates:
        where = "/".join(str(p) for p in dup.path)
        result.diagnostics.append(Diagnostic(
            path, dup.second.line, dup.second.column, "EV114",
            f"duplicate key '{dup.key}'" + (f" in {where}" if where else "") +
            f" (first at line {dup.first.line}); the engine refuses the file: keep one", "error"))
    return loaded


def not_terum(data: Any, known: tuple[str, ...]) -> str | None:
    """Why a loaded document is not evidently a terum file with the fields ``known``, or None when it
    is: a mapping naming one of them that is terum's own (not one of :data:`GENERIC_KEYS`) or a typo of
    one (:func:`evalfmt.suggest.typo`), a list of such mappings (a terum file written as a list: the
    reader refuses it), or an empty document (which the engine reads, and refuses)."""
    if data is None or data == {}:
        return None
    known = tuple(k for k in known if k not in GENERIC_KEYS)
    if isinstance(data, dict):
        keys = [k for k in data if isinstance(k, str)]
    elif isinstance(data, list):  # a case written as a list item; a list of trigger items is another tool's
        known = tuple(k for k in known if k not in TRIGGER_KEYS)
        keys = [k for item in data[:20] if isinstance(item, dict) for k in item if isinstance(k, str)]
    else:
        return f"it holds a {type_name(data)}, not a mapping of terum's fields"
    for key in keys:
        if key in known or typo(key, known):
            return None
    if isinstance(data, list):
        return "it holds a list, and none of its items has one of terum's fields"
    return _no_terum_key(keys)


def _no_terum_key(keys: list[str]) -> str:
    """The note's reason for a mapping none of whose keys is terum's own."""
    shown = ", ".join(repr(k) for k in keys[:4]) + (", ..." if len(keys) > 4 else "")
    generic = [k for k in keys if k in GENERIC_KEYS]
    if generic:
        return (f"none of its keys ({shown}) is one of terum's own fields ({', '.join(repr(k) for k in generic)} "
                f"{'is one' if len(generic) == 1 else 'are ones'} other tools use as well)")
    return f"none of its keys ({shown}) is one of terum's"


def read_case_file(path: str, result: ReadResult, skill_dir: str | None, fs: View,
                   forced: bool = True) -> ir.Case | None:
    name, _, ext = os.path.basename(path).rpartition(".")
    loaded = _load(path, result, fs, None if forced else CASE_KEYS, "case")
    if loaded is None:
        return None
    case = read_case_data(_Ctx(loaded, result.diagnostics, fs), name, loaded.data, False, skill_dir)
    if ext == "yml":
        case.hints["ext"] = "yml"
    return case


def read_suite_file(path: str, result: ReadResult, skill_dir: str | None, case_stems: set[str], fs: View,
                    forced: bool = True) -> ir.Suite | None:
    loaded = _load(path, result, fs, None if forced else SUITE_KEYS, "suite")
    if loaded is None:
        return None
    ctx = _Ctx(loaded, result.diagnostics, fs)
    suite = read_case_data(ctx, "suite", loaded.data, True, skill_dir)
    assert isinstance(suite, ir.Suite)
    read_suite_entries(ctx, suite, loaded.data, case_stems)
    return suite


def read_triggers_file(path: str, result: ReadResult, skill: str | None, fs: View,
                       forced: bool = True) -> ir.TriggerSet | None:
    loaded = _load(path, result, fs, None if forced else TRIGGER_KEYS, "triggers file")
    if loaded is None:
        return None
    return read_triggers_data(_Ctx(loaded, result.diagnostics, fs), loaded.data, skill)


def _not_terum_file(path: str, fs: View) -> str | None:
    """Why a file the engine never loads (EV111) is not a terum file under a wrong name (it shows none
    of terum's fields), or None when it is one (or does not load: its name is what it is judged by)."""
    try:
        data = load_file(path, fs=fs).data
    except LoadError:
        return None
    return not_terum(data, SUITE_KEYS + TRIGGER_KEYS)  # any of terum's fields: the name is what is wrong


NEVER_LOADED = ("never loaded: the engine reads exactly evals/suite.yaml, evals/triggers.yaml and "
                "evals/cases/*.yaml|*.yml")
#: why EV111 proposes no name for a file outside a skill's evals/
OUTSIDE_EVALS = ("no name to give it: it is not in a skill's evals/ folder or a folder directly in it "
                 "(a skill's evals/ has SKILL.md in the folder above it)")


def report_misplaced(path: str, target: str | None, result: ReadResult, *, forced: bool, in_evals: bool,
                     fs: View) -> None:
    """EV111 for a file the engine never loads. Its rename (``target``) is proposed only for a file in a
    skill's ``evals/`` (``in_evals``) that shows terum's fields: a file outside one has no name the engine
    would read, and a file that is not an eval file is never moved. Unless ``forced`` (``--from terum``),
    such a file is left unread with a note instead."""
    why = _not_terum_file(path, fs)
    if why is not None and not forced:
        result.notes.append(f"{path}: not read as a terum file: {why}; --from terum reads it as one")
        return
    if not in_evals:
        result.diagnostics.append(misplaced_diagnostic(path, None, fs, OUTSIDE_EVALS))
    elif why is not None:
        result.diagnostics.append(misplaced_diagnostic(path, None, fs, f"not renamed: {why}, so it is not "
                                                                       "an eval file"))
    else:
        result.diagnostics.append(misplaced_diagnostic(path, target, fs))


def misplaced_diagnostic(path: str, target: str | None, fs: View, why_not: str = "") -> Diagnostic:
    """EV111 with the rename to ``target``, or (``target`` None) ``why_not`` it has none."""
    if target is None:
        return Diagnostic(path, 1, 1, "EV111", f"{NEVER_LOADED}; {why_not}", "error")
    exists = fs.exists(target)
    msg = f"{NEVER_LOADED}; rename it to {_from_evals(target)}"
    if exists:
        msg += " (that file already exists: merge them by hand)"
    return Diagnostic(path, 1, 1, "EV111", msg, "error", fixable=not exists,
                      data={} if exists else {"rename_to": target})


def _from_evals(path: str) -> str:
    segs = path.replace("\\", "/").split("/")
    return "/".join(segs[len(segs) - 1 - segs[::-1].index("evals"):]) if "evals" in segs else path


def skill_info(skill_dir: str, fs: View) -> ir.SkillInfo:
    name = os.path.basename(os.path.abspath(skill_dir))
    description = None
    md = os.path.join(skill_dir, "SKILL.md")
    if fs.isfile(md):
        fm = frontmatter(md, fs)
        if isinstance(fm, dict) and isinstance(fm.get("description"), str):
            description = fm["description"]
    return ir.SkillInfo(name=name, description=description, path=skill_dir)


def frontmatter(md_path: str, fs: View) -> Any:
    """The parsed frontmatter of a SKILL.md (None when absent or unreadable)."""
    try:
        text = read_text(md_path, fs=fs)
    except LoadError:
        return None
    block = find_frontmatter(text)
    if block is None:
        return None
    try:
        return load_text(block.yaml, md_path).data
    except LoadError:
        return None


# --------------------------------------------------------------------------------------- the unit

def read_unit(path: str, *, fs: View = DISK, forced: bool = False, exclude: frozenset[str] = frozenset()) -> ReadResult:
    """Read a skill folder (or its ``evals/``) or one file of it, through ``fs``. Unless ``forced``
    (``--from terum``), a file that shows none of terum's fields is left unread with a note; files in
    ``exclude`` (read by an agentv eval file as its tests) are never read."""
    result = ReadResult()
    if fs.isdir(path):
        _read_folder(skill_root(path, fs=fs) or path, result, forced, exclude, fs)
        return result
    root = skill_root(path, fs=fs)
    evals = os.path.dirname(path) if os.path.basename(os.path.dirname(path)) == "evals" else \
        os.path.dirname(os.path.dirname(path))
    info = _skill(root, fs)
    evalset = _evalset(path, info)
    index = None if forced else listed(evals, fs=fs).get(os.path.abspath(path))
    if index is not None:
        result.notes.append(_listed_note(path, index))
        return result
    segs = parts(path)
    name = segs[-1]
    if len(segs) >= 2 and segs[-2] == "evals" and name == "suite.yaml":
        stems = {os.path.basename(p).rsplit(".", 1)[0] for p in case_files(evals, fs=fs)}
        evalset.suite = read_suite_file(path, result, root, stems, fs, forced)
    elif len(segs) >= 2 and segs[-2] == "evals" and name == "triggers.yaml":
        evalset.triggers = read_triggers_file(path, result, info.name if info else None, fs, forced)
    elif len(segs) >= 3 and segs[-2] == "cases" and name.endswith((".yaml", ".yml")):
        case = read_case_file(path, result, root, fs, forced)
        if case is not None:
            evalset.cases.append(case)
    else:
        target = dict(misplaced_files(evals, fs=fs)).get(path) or _guess_target(path, evals)
        report_misplaced(path, target, result, forced=forced, in_evals=_is_skill_evals(evals, root, info), fs=fs)
    if result.notes:
        return result  # the file was left unread (not terum's): no eval set
    result.sets.append(evalset)
    return result


def _listed_note(path: str, index: str) -> str:
    """The note for a file another tool's index (:mod:`.listed`) names."""
    return f"{path}: not read: {index} lists it, so it is that tool's file, not terum's; --from terum reads it as one"


def _skill(root: str | None, fs: View) -> ir.SkillInfo | None:
    """The skill an eval file belongs to: the folder holding SKILL.md above its ``evals/`` (the same
    rule as a skill-creator trigger set's), else none."""
    return skill_info(root, fs) if root is not None and is_skill_dir(root, fs=fs) else None


def _evalset(source: str, info: ir.SkillInfo | None) -> ir.EvalSet:
    return ir.EvalSet(format="terum", source=source, skill=info, span=ir.Span(source, 1, 1))


def _is_skill_evals(evals: str, root: str | None, info: ir.SkillInfo | None) -> bool:
    """True when the folder ``evals`` is the ``evals/`` of the skill ``root`` (``info``: it has SKILL.md)."""
    return info is not None and os.path.basename(evals) == "evals" and \
        os.path.normpath(os.path.dirname(evals)) == os.path.normpath(root or "")


def _guess_target(path: str, evals: str) -> str | None:
    name = os.path.basename(path)
    if name in MISPLACED_TOP:
        return os.path.join(evals, MISPLACED_TOP[name])
    stem = name.rsplit(".", 1)[0]
    return os.path.join(evals, "cases", stem + ".yaml")


def _read_folder(root: str, result: ReadResult, forced: bool, exclude: frozenset[str], fs: View) -> None:
    evals = os.path.join(root, "evals")
    info = _skill(root, fs)
    evalset = _evalset(root, info)

    others = {} if forced else listed(evals, fs=fs)

    def mine(p: str) -> bool:
        if os.path.abspath(p) in others:
            result.notes.append(_listed_note(p, others[os.path.abspath(p)]))
            return False
        return not exclude or os.path.abspath(p) not in exclude

    files = [p for p in case_files(evals, fs=fs) if mine(p)]
    seen: dict[str, str] = {}
    for path in files:
        case = read_case_file(path, result, root, fs, forced)
        if case is None:
            continue
        name = case.name
        if name in seen:
            result.diagnostics.append(Diagnostic(
                path, 1, 1, "EV115",
                f"case name '{name}' is also the name of {os.path.basename(seen[name])}: "
                "two files with one stem make two cases with the same name; rename one", "error"))
        seen.setdefault(name, path)
        evalset.cases.append(case)
    suite_path = os.path.join(evals, "suite.yaml")
    if fs.isfile(suite_path) and mine(suite_path):
        evalset.suite = read_suite_file(suite_path, result, root, set(seen), fs, forced)
    trig_path = os.path.join(evals, "triggers.yaml")
    if fs.isfile(trig_path) and mine(trig_path):
        evalset.triggers = read_triggers_file(trig_path, result, info.name if info else None, fs, forced)
    for path, target in misplaced_files(evals, fs=fs):
        if mine(path):
            report_misplaced(path, target, result, forced=forced, in_evals=info is not None, fs=fs)
    result.sets.append(evalset)
