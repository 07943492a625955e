"""Reading an AgentV EVAL.yaml into IR, as agentv 4.42.4 reads it, with diagnostics.

What agentv does, and so what this reader does (see docs/agentv.md for the whole mapping):

- YAML as agentv's parser reads it (:func:`.loader.load_file`: what it refuses is EV100 at its
  position, merge keys ``<<`` are applied, a duplicate key is EV114: agentv refuses the file);
- ``tests`` is a list of test mappings, ``file://`` references to more of them (globs allowed), or a
  path: a ``.yaml``/``.yml`` file holding a list, a ``.jsonl`` file, or a folder in which every
  sub-folder holding ``case.yaml`` is one test (id = the folder's name unless given), sorted by name.
  A path that does not exist is EV103 at the ``tests`` value;
- legacy names are read and reported (EV501, with the replacement): ``eval_cases``/``evalcases``,
  ``assert``, ``expected_outcome``, ``code-judge``/``llm-judge`` and snake_case assertion types;
- unknown keys are ignored by agentv with a warning: EV101. A near miss of a known key (a typo by the
  rule of :func:`evalfmt.suggest.typo`: ``assertion:`` for ``assertions:``, with a did-you-mean) is an
  error: agentv's shrug loses what the author meant (every assertion of the test); any other key
  (``expectedKind:``, a field the author's own code-grader reads) stays a warning, without a hint;
- assertion types agentv does not build in are custom assertions, looked up in ``.agentv/assertions/``
  up the folder tree: only a type found in neither place is reported (EV104): an error when it is a
  near miss of a built-in type (``skill-triger``), a warning otherwise;
- a test agentv would skip silently (no criteria, expected_output, assertions or turns) is EV502
  (error); an assertion ``agentv transpile`` drops or reduces to a placeholder is EV504 (warning).

Nothing is dropped: values of the wrong type and unknown keys stay in ``extra`` (in source order), a
key order that differs from the writer's is kept in ``hints["keys"]``, and terum's fields written by
:mod:`.writer` under ``metadata.terum`` are lifted back into the case.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ... import ir
from ...ecmaregex import problems
from ...errors import Diagnostic, LoadError, Pos, Severity
from ...fsview import DISK, View
from ...load import Loaded, load_text, read_text, type_name
from ...skill_triggers import conflict_message, missing_skill_message
from ...suggest import near, typo
from ...ir.kinds import AGENTV_TYPES, SPECS, Agentv, AgentvField, KindSpec
from .. import ReadResult
from .loader import load_file, plain

# ------------------------------------------------------------------------------ the vocabulary

TOP_KEYS = ("$schema", "name", "description", "category", "version", "author", "tags", "license",
            "requires", "input", "input_files", "tests", "target", "execution", "assertions",
            "evaluators", "preprocessors", "workspace", "metadata", "governance")
TOP_DEPRECATED = {"eval_cases": "tests", "evalcases": "tests", "assert": "assertions", "evaluator": "assertions"}
TEST_KEYS = ("id", "vars", "criteria", "input", "input_files", "expected_output", "assertions",
             "evaluators", "rubrics", "execution", "workspace", "metadata", "conversation_id", "suite",
             "depends_on", "on_dependency_failure", "mode", "turns", "aggregation", "on_turn_failure",
             "window_size")
TEST_DEPRECATED = {"assert": "assertions", "expected_outcome": "criteria", "evaluator": "assertions"}

#: The keys of an llm-grader's executable prompt template (``prompt: {command: [...], config: {...}}``).
PROMPT_TEMPLATE_KEYS = ("command", "script", "config")

# The assertion types and their keys are the kinds' specs (:mod:`evalfmt.ir.kinds`, each kind's ``agentv``
# entry: its type, keys and form); what follows is derived from them.

#: assertion type -> its kind's agentv entry
ENTRIES: dict[str, Agentv] = {t: s.agentv for t, s in AGENTV_TYPES.items() if isinstance(s.agentv, Agentv)}
#: agentv 4.42.4's built-in assertion types (the rest of :data:`KNOWN_TYPES` are custom types evalfmt writes).
BUILTIN_TYPES = tuple(t for t, e in ENTRIES.items() if e.builtin)
#: snake_case spellings ``agentv transpile`` understands (all others fall to its placeholder).
TRANSPILE_SNAKE = tuple(sp for e in ENTRIES.values() for sp in e.spellings)
#: deprecated type -> its current name (EV501)
DEPRECATED_TYPES = {old: new for s in SPECS.values() for old, new in s.aliases.items()}
#: every type evalfmt reads into a typed check: the built-in ones, then the custom types of terum's kinds
KNOWN_TYPES = BUILTIN_TYPES + tuple(t for t in ENTRIES if t not in BUILTIN_TYPES)
#: code-grader keys agentv does not hand to the program as its ``config`` (the rest of its unknown keys).
CODE_GRADER_OWN = ("cwd", "script", "target")
COMMON_FIELDS = (("name", "str"), ("weight", "number"), ("required", "required"), ("min_score", "number"),
                 ("negate", "bool"))
_COMMON = dict(COMMON_FIELDS)

#: Canonical key orders (what the writer emits without a ``keys`` hint).
TOP_ORDER = ("name", "description", "tags", "input", "assertions", "tests")
TEST_ORDER = ("id", "criteria", "input", "input_files", "expected_output", "assertions", "metadata")
TERUM_FIELDS = ("bucket", "files", "fixture", "setup", "requires", "timeout_minutes", "max_turns")
TERUM_META = "terum"
TERUM_MARKERS = ("suite", "trigger")
ROLES = ("system", "user", "assistant", "tool")
JS_REGEX_FLAGS = set("dgimsuvy")


def agentv_fields(kind: str) -> tuple[AgentvField, ...]:
    """An IR kind's agentv keys (none for a kind agentv holds no typed entry of)."""
    entry = SPECS[kind].agentv
    return entry.fields if isinstance(entry, Agentv) else ()


def canonical_check_order(kind: str, present: list[str]) -> list[str]:
    """The writer's key order for a check: name, type, its own fields, the common fields, extras."""
    fixed = _FIXED_ORDER.get(kind)
    if fixed is None:
        own = [f.key for f in agentv_fields(kind)]
        fixed = _FIXED_ORDER[kind] = ["name", "type"] + own + ["weight", "required", "min_score", "negate"]
    known = [k for k in fixed if k in present]
    return known + [k for k in present if k not in fixed]


_FIXED_ORDER: dict[str, list[str]] = {}  # kind -> the keys canonical_check_order puts first (the specs are fixed)
_BY_KEY: dict[tuple[AgentvField, ...], dict[str, AgentvField]] = {}  # an entry's fields by their key (_by_key)


def _by_key(fields: tuple[AgentvField, ...]) -> dict[str, AgentvField]:
    """An entry's fields (or its aggregator's) by their key in the file."""
    found = _BY_KEY.get(fields)
    if found is None:
        found = _BY_KEY[fields] = {f.key: f for f in fields}
    return found


def canonical_order(fixed: tuple[str, ...], present: list[str], extras_before: str | None = None) -> list[str]:
    """``fixed`` keys that are present, in that order, with the others (extras) in source order
    inserted before ``extras_before`` (or at the end)."""
    extras = [k for k in present if k not in fixed]
    known = [k for k in fixed if k in present]
    if extras_before is not None and extras_before in fixed:
        cut = fixed.index(extras_before)
        head = [k for k in known if fixed.index(k) < cut]
        tail = [k for k in known if fixed.index(k) >= cut]
        return head + extras + tail
    return known + extras


# ---------------------------------------------------------------------------------- positions


class Ctx:
    """One loaded file (or one JSONL line) and the path of the node being read inside it."""

    def __init__(self, loaded: Loaded, diags: list[Diagnostic], line_offset: int = 0):
        self.loaded = loaded
        self.path = loaded.path
        self.diags = diags
        self.line_offset = line_offset

    def _pos(self, p: Pos) -> Pos:
        return Pos(p.line + self.line_offset, p.column) if self.line_offset else p

    def pos(self, *path: Any) -> Pos:
        return self._pos(self.loaded.pos(*path))

    def kpos(self, *path: Any) -> Pos:
        return self._pos(self.loaded.key_pos(*path))

    def span(self, *path: Any) -> ir.Span:
        p = self.pos(*path)
        return ir.Span(self.path, p.line, p.column)

    def add(self, p: Pos, code: str, message: str, severity: Severity = "error", **data: Any) -> None:
        self.diags.append(Diagnostic(self.path, p.line, p.column, code, message, severity,
                                     fixable=bool(data.get("fix")), data=data))

    def at_value(self, path: tuple[Any, ...], code: str, message: str, severity: Severity = "error",
                 **data: Any) -> None:
        if data.get("fix"):  # what --fix replaces: it refuses when the file holds something else there
            node = self.loaded.data
            for step in path:
                node = node[step]
            data["old"] = node
        self.add(self.pos(*path), code, message, severity, **data)

    def at_key(self, path: tuple[Any, ...], code: str, message: str, severity: Severity = "error",
               **data: Any) -> None:
        if data.get("fix"):
            data["old"] = path[-1]
        self.add(self.kpos(*path), code, message, severity, **data)


def _evalset(path: str) -> ir.EvalSet:
    return ir.EvalSet(format="agentv", source=path, span=ir.Span(path, 1, 1))


def _case(span: ir.Span) -> ir.Case:
    return ir.Case(name="", span=span)


def _opaque(raw: Any, span: ir.Span, kind: str | None = None) -> ir.Opaque:
    return ir.Opaque(type=kind, raw=raw, origin="agentv", span=span)


def _pos_of(span: ir.Span | None) -> Pos:
    return Pos(span.line, span.column) if span else Pos(1, 1)


def _q(value: Any) -> str:
    """A value quoted for a message."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"'{text}'"


# ---------------------------------------------------------------------------------------- entry


def _load(path: str, fs: View) -> Loaded:
    """:func:`.loader.load_file`, refusing a ``!!binary`` value (EV100 at its position), as the terum and
    promptfoo readers do: agentv's parser makes a byte buffer of it, which no field of an eval file takes
    and no output format can carry."""
    loaded = load_file(path, fs=fs)
    if "binary" in loaded.text:  # every spelling of the tag names it (!!binary, a verbatim or %TAG tag)
        where = _binary(loaded.data, ())
        if where is not None:
            pos = _tag_pos(loaded.text, loaded.pos(*where))
            raise LoadError("invalid YAML: a !!binary value (agentv's parser makes a byte buffer of it, which no "
                            "eval file field takes); write the text itself", path, pos.line, pos.column)
    return loaded


def _tag_pos(text: str, pos: Pos) -> Pos:
    """Where the tag of the value at ``pos`` starts when it is on the value's line (``input: !!binary aGk=``
    points at ``!!binary``, as the other readers point at a tag they refuse); else ``pos``."""
    lines = text.split("\n")
    before = lines[pos.line - 1][:pos.column - 1] if 0 < pos.line <= len(lines) else ""
    column = None
    end = len(before.rstrip())
    for token in reversed(before.split()):  # the properties before the value: an anchor and the tag
        if not token.startswith(("!", "&")):
            break
        start = before.rfind(token, 0, end)
        if token.startswith("!"):
            column = start + 1
        end = start
    return Pos(pos.line, column) if column is not None else pos


def _binary(value: Any, where: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The path of the first byte string in ``value`` (a key or a value), or None."""
    if isinstance(value, bytes):
        return where
    if isinstance(value, dict):
        for key, item in value.items():
            found = where + (key,) if isinstance(key, bytes) else _binary(item, where + (key,))
            if found is not None:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = _binary(item, where + (i,))
            if found is not None:
                return found
    return None


def read_file(path: str, *, fs: View = DISK) -> ReadResult:
    result = ReadResult()
    try:
        loaded = _load(path, fs)
    except LoadError as exc:
        result.diagnostics.append(exc.to_diagnostic())
        result.sets.append(_evalset(path))
        return result
    result.documents[path] = loaded
    ctx = Ctx(loaded, result.diagnostics)
    _duplicates(ctx)
    data = loaded.data
    evalset = _evalset(path)
    if not isinstance(data, dict):
        what = "empty" if data is None else f"a {type_name(data)}"
        ctx.add(Pos(1, 1), "EV102", f"an EVAL.yaml must be a mapping with 'tests', the file is {what}")
        if data is not None:
            evalset.extra["document"] = plain(data)
    else:
        Reader(ctx, result, path, fs).top(evalset, data)
    result.sets.append(evalset)
    return result


def _duplicates(ctx: Ctx) -> None:
    for dup in ctx.loaded.duplicates:
        ctx.add(dup.second, "EV114",
                f"duplicate key '{dup.key}' (first at line {dup.first.line}); agentv refuses the file: "
                "remove one")


class Reader:
    def __init__(self, ctx: Ctx, result: ReadResult, path: str, fs: View):
        self.ctx = ctx
        self.result = result
        self.path = path
        self.fs = fs
        self.folder = os.path.dirname(os.path.abspath(path))
        self._custom: set[str] | None = None

    # ------------------------------------------------------------------------------- top level

    def top(self, es: ir.EvalSet, data: dict[str, Any]) -> None:
        # agentv: tests ?? eval_cases ?? evalcases, assertions ?? assert (the first one that is present)
        tests_key = next((k for k in ("tests", "eval_cases", "evalcases") if k in data), None)
        assertions_key = next((k for k in ("assertions", "assert") if k in data), None)
        order = [self._top_key(es, key, value, tests_key, assertions_key) for key, value in data.items()]
        if tests_key is None:
            self.ctx.add(Pos(1, 1), "EV103", "missing 'tests': list the tests, or give the path of a file or folder "
                                             "that holds them")
        if order != canonical_order(TOP_ORDER, order, extras_before="input"):
            es.hints["keys"] = order

    def _top_key(self, es: ir.EvalSet, key: str, value: Any, tests_key: str | None,
                 assertions_key: str | None) -> str:
        """Read one top-level key; the name it has in the writer's key order."""
        if key == tests_key:
            if key != "tests":
                self.ctx.at_key((key,), "EV501", f"'{key}' is deprecated: use 'tests'", "warning",
                                fix={"rename": "tests"})
            self._tests(es, value, (key,))
            return "tests"
        if key == assertions_key:
            self._top_assertions(es, key, value)
            return "assertions"
        if not self._top_field(es, key, value):
            self._top_ignored(key, value, tests_key, assertions_key)
            es.extra[key] = plain(value)
        return key

    def _top_assertions(self, es: ir.EvalSet, key: str, value: Any) -> None:
        """The assertions every test gets."""
        ctx = self.ctx
        if key != "assertions":
            ctx.at_key((key,), "EV501", "'assert' is deprecated: use 'assertions'", "warning",
                       fix={"rename": "assertions"})
        if isinstance(value, list):
            es.checks = self.checks(value, (key,))
            if not value:
                es.hints["assertions"] = "empty"
            self._trigger_conflicts(ctx, es.checks, None)
        else:
            ctx.at_value((key,), "EV102", f"'{key}' must be a list of assertions, not a {type_name(value)}")
            es.extra["assertions"] = plain(value)

    def _top_field(self, es: ir.EvalSet, key: str, value: Any) -> bool:
        """A top-level key the IR has a field for, with a value it holds (an input that is none, reported and
        kept in ``extra``); False for any other."""
        if key == "name" and isinstance(value, str):
            es.name = value
        elif key == "description" and isinstance(value, str):
            es.description = value
        elif key == "tags" and isinstance(value, list) and all(isinstance(t, str) for t in value):
            es.tags = list(value)
        elif key == "input":
            inp = self.input(value, ("input",), es.hints)
            if inp is not None:
                es.input = inp
            else:
                es.extra[key] = plain(value)
        else:
            return False
        return True

    def _top_ignored(self, key: str, value: Any, tests_key: str | None, assertions_key: str | None) -> None:
        """The diagnostic for a top-level key evalfmt keeps in ``extra``."""
        ctx = self.ctx
        if key in ("name", "description"):
            ctx.at_value((key,), "EV102", f"'{key}' must be a string, not a {type_name(value)}")
        elif key == "tags":
            ctx.at_value((key,), "EV102", "'tags' must be a list of strings")
        elif key in ("tests", "eval_cases", "evalcases", "assert", "assertions"):
            used = tests_key if key in ("tests", "eval_cases", "evalcases") else assertions_key
            ctx.at_key((key,), "EV501" if key in TOP_DEPRECATED else "EV101",
                       f"'{key}' is ignored: '{used}' is used instead; remove it", "warning")
        elif key in TOP_DEPRECATED:
            ctx.at_key((key,), "EV501", f"'{key}' is deprecated: use '{TOP_DEPRECATED[key]}'", "warning")
        elif key not in TOP_KEYS:
            self._unknown(ctx, key, (key,), TOP_KEYS)

    @staticmethod
    def _unknown(ctx: Ctx, key: str, where: tuple[Any, ...], known: tuple[str, ...]) -> None:
        """EV101 in the document being read (an external tests file has its own ``ctx``): an error for a
        typo of a known key (:func:`evalfmt.suggest.typo`), a warning for any other key (agentv passes
        it through: a code-grader of the author's may read it)."""
        hint = typo(key, known)
        more = f" (did you mean '{hint}'?)" if hint else ""
        ctx.at_key(where, "EV101", f"unknown key '{key}'{more}; agentv ignores it", "error" if hint else "warning",
                        **({"fix": {"rename": hint}} if hint else {}))

    # ------------------------------------------------------------------------------------ tests

    def _tests(self, es: ir.EvalSet, value: Any, where: tuple[Any, ...]) -> None:
        ctx = self.ctx
        if isinstance(value, str):
            self._tests_path(es, value, where)
            return
        if not isinstance(value, list):
            ctx.at_value(where, "EV102", f"'tests' must be a list of tests or the path of a file or folder, "
                                         f"not a {type_name(value)}")
            es.extra["tests"] = plain(value)
            return
        ids: dict[str, Pos] = {}
        for i, item in enumerate(value):
            if isinstance(item, str) and item.startswith("file://"):
                self._file_reference(es, item, where + (i,), ids)
                es.hints.setdefault("inlined", []).append(item)
            elif isinstance(item, dict):
                self._add(es, self.case(ctx, item, where + (i,), ids, i))
            else:
                ctx.at_value(where + (i,), "EV102",
                             f"a test must be a mapping (or a 'file://' reference), not a {type_name(item)}")
                raw_case = _case(ctx.span(*where, i))
                raw_case.hints["raw"] = True
                raw_case.extra["test"] = plain(item)
                es.cases.append(raw_case)

    def _add(self, es: ir.EvalSet, item: tuple[Any, ...]) -> None:
        """Add what :meth:`case` read: ("case", case), ("suite", suite, case) or ("trigger", prompt, skill, case)."""
        what = item[0]
        if what == "suite" and es.suite is None:
            es.suite = item[1]
        elif what == "trigger":
            _, prompt, skill, case = item
            if es.triggers is None:
                es.triggers = ir.TriggerSet(skill=skill, span=prompt.span)
            if es.triggers.skill == skill:
                es.triggers.prompts.append(prompt)
            else:  # evalfmt writes one skill per trigger set: anything else stays a test
                es.cases.append(case)
        else:
            es.cases.append(item[-1])

    def _resolve(self, ref: str) -> str:
        """A path relative to the EVAL.yaml's folder, as a path relative to where the EVAL.yaml was given."""
        return os.path.normpath(os.path.join(os.path.dirname(self.path), ref))

    def _tests_path(self, es: ir.EvalSet, ref: str, where: tuple[Any, ...]) -> None:
        ctx = self.ctx
        es.hints["inlined"] = [ref]
        full = self._resolve(ref)
        if self.fs.isdir(full):
            self._tests_dir(es, full)
            return
        if not self.fs.exists(full):
            ctx.at_value(where, "EV103",
                         f"tests path '{ref}' does not exist (looked for {full}); create it, or list the tests inline")
            return
        ext = os.path.splitext(full)[1].lower()
        if ext not in (".yaml", ".yml", ".jsonl"):
            ctx.at_value(where, "EV102",
                         f"tests path '{ref}' has the extension '{ext}': agentv reads .yaml, .yml or .jsonl files "
                         "(or a folder of case folders)")
            return
        self._tests_file(es, full, {})

    def _open(self, path: str) -> tuple[Ctx, Any] | None:
        """Load another YAML file of tests (recorded, duplicate keys reported): its Ctx and its data
        (as agentv's parser gives it); None when it does not load (EV100 recorded)."""
        try:
            loaded = _load(path, self.fs)
        except LoadError as exc:
            self.result.diagnostics.append(exc.to_diagnostic())
            return None
        self.result.documents[path] = loaded
        sub = Ctx(loaded, self.result.diagnostics)
        _duplicates(sub)
        return sub, loaded.data

    def _tests_file(self, es: ir.EvalSet, full: str, ids: dict[str, Any]) -> None:
        if full.lower().endswith(".jsonl"):
            self._tests_jsonl(es, full, ids)
            return
        opened = self._open(full)
        if opened is None:
            return
        sub, data = opened
        if data is None:
            return  # agentv: an empty file is skipped with a warning
        if not isinstance(data, list):
            sub.add(Pos(1, 1), "EV102", f"an external tests file must hold a list of tests, not a {type_name(data)}")
            return
        for i, item in enumerate(data):
            if isinstance(item, dict):
                self._add(es, self.case(sub, item, (i,), ids, i))
            else:
                sub.at_value((i,), "EV102", f"a test must be a mapping, not a {type_name(item)}")

    def _tests_jsonl(self, es: ir.EvalSet, full: str, ids: dict[str, Any]) -> None:
        try:
            text = read_text(full, fs=self.fs)
        except LoadError as exc:
            self.result.diagnostics.append(exc.to_diagnostic())
            return
        for n, line in enumerate(text.split("\n")):
            if not line.strip():
                continue
            try:
                loaded = load_text(line, full, "json")
            except LoadError as exc:
                d = exc.to_diagnostic()
                d.line = n + 1
                self.result.diagnostics.append(d)
                continue
            sub = Ctx(loaded, self.result.diagnostics, line_offset=n)
            if not isinstance(loaded.data, dict):
                sub.add(Pos(n + 1, 1), "EV102", f"a JSONL test must be an object, not a {type_name(loaded.data)}")
                continue
            self._add(es, self.case(sub, loaded.located, (), ids, n))

    def _tests_dir(self, es: ir.EvalSet, full: str) -> None:
        """agentv's directory discovery: each sub-folder with case.yaml (or case.yml) is one test."""
        ids: dict[str, Pos] = {}
        try:
            subdirs = [e.name for e in self.fs.scandir(full) if e.is_dir()]
        except OSError as exc:
            self.ctx.add(Pos(1, 1), "EV103", f"cannot list the tests folder {full}: {exc.strerror}")
            return
        for name in subdirs:
            case_file = None
            for fname in ("case.yaml", "case.yml"):
                candidate = os.path.join(full, name, fname)
                if self.fs.isfile(candidate):
                    case_file = candidate
                    break
            if case_file is None:
                continue  # agentv skips it with a warning
            opened = self._open(case_file)
            if opened is None:
                continue
            sub, data = opened
            if not isinstance(data, dict):
                sub.add(Pos(1, 1), "EV102", f"a case file must hold a mapping, not a {type_name(data)}")
                continue
            self._add(es, self.case(sub, data, (), ids, 0, default_id=name))

    def _file_reference(self, es: ir.EvalSet, ref: str, where: tuple[Any, ...], ids: dict[str, Any]) -> None:
        raw = ref[len("file://"):]
        full = self._resolve(raw)
        if any(ch in raw for ch in "*?{"):
            matches = [p for p in self.fs.glob(full) if self.fs.isfile(p)]
            if not matches:
                self.ctx.at_value(where, "EV103", f"'{ref}' matches no file; fix the pattern or remove it", "warning")
            for m in matches:
                self._tests_file(es, m, ids)
            return
        if not self.fs.isfile(full):
            self.ctx.at_value(where, "EV103", f"'{ref}' does not exist (looked for {full}); fix the path or remove it")
            return
        self._tests_file(es, full, ids)

    # ------------------------------------------------------------------------------------- case

    def case(self, ctx: Ctx, data: dict[str, Any], where: tuple[Any, ...], ids: dict[str, Any], index: int,
             default_id: str | None = None) -> tuple[Any, ...]:
        """One test, as ("case", case). A test evalfmt wrote for a terum suite or trigger prompt
        (``metadata.terum.suite`` / ``trigger``) comes back as ("suite", suite, case) or
        ("trigger", prompt, skill, case)."""
        case = _case(ctx.span(*where) if where else ir.Span(ctx.path, 1 + ctx.line_offset, 1))
        markers: dict[str, Any] = {}
        judge_key = "criteria" if "criteria" in data else ("expected_outcome" if "expected_outcome" in data else None)
        checks_key = "assertions" if "assertions" in data else ("assert" if "assert" in data else None)
        order = [self._case_key(ctx, case, key, value, where + (key,), ids, (judge_key, checks_key), markers)
                 for key, value in data.items()]
        name = self._case_required(ctx, case, data, where, default_id)
        self._skipped(ctx, name, data, where)
        self._trigger_conflicts(ctx, case.checks, name)
        if order != canonical_order(TEST_ORDER, order):
            case.hints["keys"] = order
        if markers.get("trigger"):
            prompt = self._as_trigger(case, data)
            if prompt is not None:
                return ("trigger", prompt, case.checks[0].skill, case)  # type: ignore[union-attr]
        if markers.get("suite"):
            return ("suite", self._as_suite(ctx, case, data, where), case)
        return ("case", case)

    def _case_key(self, ctx: Ctx, case: ir.Case, key: str, value: Any, at: tuple[Any, ...], ids: dict[str, Any],
                  used: tuple[str | None, str | None], markers: dict[str, Any]) -> str:
        """Read one key of a test (``used``: the keys read as its criteria and its assertions; the markers of
        ``metadata.terum`` go into ``markers``); the name it has in the writer's key order."""
        judge_key, checks_key = used
        if key == judge_key:
            self._case_judge(ctx, case, key, value, at)
            return "criteria"
        if key == checks_key:
            self._case_checks(ctx, case, key, value, at)
            return "assertions"
        if key == "id":
            self._case_id(ctx, case, value, at, ids)
        elif key == "input":
            inp = self.input(value, at, case.hints, ctx=ctx)
            if inp is not None:
                case.input = inp
            else:
                case.extra["input"] = plain(value)
        elif key == "input_files" and isinstance(value, list) and all(isinstance(f, str) for f in value):
            case.input_files = list(value)
        elif key == "expected_output":
            self._case_expected(ctx, case, value, at)
        elif key == "metadata" and isinstance(value, dict):
            markers.update(self._metadata(case, ctx, value, at))
        else:
            self._case_ignored(ctx, key, value, at, judge_key, checks_key)
            case.extra[key] = plain(value)
        return key

    @staticmethod
    def _case_judge(ctx: Ctx, case: ir.Case, key: str, value: Any, at: tuple[Any, ...]) -> None:
        if key == "expected_outcome":
            ctx.at_key(at, "EV501", "'expected_outcome' is deprecated: use 'criteria'", "warning",
                       fix={"rename": "criteria"})
        if isinstance(value, str):
            case.judge = value
        else:
            ctx.at_value(at, "EV102", f"'{key}' must be a string, not a {type_name(value)}")
            case.extra["criteria"] = plain(value)

    def _case_checks(self, ctx: Ctx, case: ir.Case, key: str, value: Any, at: tuple[Any, ...]) -> None:
        if key == "assert":
            ctx.at_key(at, "EV501", "'assert' is deprecated: use 'assertions'", "warning",
                       fix={"rename": "assertions"})
        if isinstance(value, list):
            case.checks = self.checks(value, at, ctx=ctx)
            if not value:
                case.hints["assertions"] = "empty"  # agentv runs a test with `assertions: []`
        else:
            ctx.at_value(at, "EV102", f"'{key}' must be a list of assertions, not a {type_name(value)}")
            case.extra["assertions"] = plain(value)

    @staticmethod
    def _case_expected(ctx: Ctx, case: ir.Case, value: Any, at: tuple[Any, ...]) -> None:
        if value is None:
            case.extra["expected_output"] = None  # agentv reads null as absent; kept so that the key writes back
        elif not isinstance(value, (str, list, dict)):
            ctx.at_value(at, "EV102", "'expected_output' must be a string, a mapping or a list of messages, "
                                      f"not a {type_name(value)}")
            case.extra["expected_output"] = plain(value)
        else:
            case.expected_output = plain(value)

    @staticmethod
    def _case_id(ctx: Ctx, case: ir.Case, value: Any, at: tuple[Any, ...], ids: dict[str, Any]) -> None:
        if isinstance(value, str) and value.strip():
            case.name = value
            first = ids.get(value)
            if first is not None:
                ctx.at_value(at, "EV115", f"duplicate test id '{value}' (first at line {first.line}); "
                                          "ids must be unique: rename one")
            else:
                ids[value] = ctx.pos(*at)
        elif isinstance(value, str):
            ctx.at_value(at, "EV103", "test 'id' is blank; give the test a name")
            case.extra["id"] = value
        else:
            ctx.at_value(at, "EV102", f"test 'id' must be a string, not a {type_name(value)} "
                                      "(agentv skips the test)")
            case.extra["id"] = plain(value)
            case.name = "" if value is None else str(value)

    def _case_ignored(self, ctx: Ctx, key: str, value: Any, at: tuple[Any, ...], judge_key: str | None,
                      checks_key: str | None) -> None:
        """The diagnostic for a test key evalfmt keeps in ``extra`` (a value of the wrong type, a key
        shadowed by its other spelling, a deprecated or unknown key)."""
        if key == "input_files":
            ctx.at_value(at, "EV102", "'input_files' must be a list of paths")
        elif key == "metadata":
            ctx.at_value(at, "EV102", f"'metadata' must be a mapping, not a {type_name(value)}")
        elif key in ("criteria", "expected_outcome", "assertions", "assert"):
            used = judge_key if key in ("criteria", "expected_outcome") else checks_key
            ctx.at_key(at, "EV501" if key in TEST_DEPRECATED else "EV101",
                       f"'{key}' is ignored: '{used}' is used instead; remove it", "warning")
        elif key in TEST_DEPRECATED:
            ctx.at_key(at, "EV501", f"'{key}' is deprecated: use '{TEST_DEPRECATED[key]}'", "warning")
        elif key not in TEST_KEYS:
            self._unknown(ctx, key, at, TEST_KEYS)

    @staticmethod
    def _case_required(ctx: Ctx, case: ir.Case, data: dict[str, Any], where: tuple[Any, ...],
                       default_id: str | None) -> str:
        """EV103 for a test without an id or an input; the test's name."""
        name = case.name
        if "id" not in data:
            if default_id is not None:
                case.name = name = default_id
                case.hints["id_from_folder"] = True
            else:
                ctx.add(case_pos(ctx, where), "EV103", "test is missing 'id'; give it a unique name")
                case.hints["no_id"] = True
        if "input" not in data and "input_files" not in data:
            ctx.add(case_pos(ctx, where), "EV103",
                    f"test '{name}' is missing 'input'; give the prompt as a string or a list of messages")
        elif "input" not in data:
            ctx.add(case_pos(ctx, where), "EV103",
                    f"test '{name}' has 'input_files' but no 'input'; give the prompt as 'input'")
        return name

    def _as_trigger(self, case: ir.Case, data: dict[str, Any]) -> ir.TriggerPrompt | None:
        keys = set(data) - {"id", "input", "assertions", "metadata"}
        if keys or not isinstance(case.input, str) or case.metadata or len(case.checks) != 1:
            return None
        check = case.checks[0]
        if not isinstance(check, ir.SkillTrigger) or not isinstance(check.should_trigger, bool) or check.extra \
                or any(getattr(check, f) is not None for f in ("name", "weight", "required", "min_score", "negate")):
            return None
        return ir.TriggerPrompt(text=case.input, should_trigger=check.should_trigger, span=case.span)

    def _as_suite(self, ctx: Ctx, case: ir.Case, data: dict[str, Any], where: tuple[Any, ...]) -> ir.Suite:
        suite = ir.Suite(**{f: getattr(case, f) for f in ir.field_names(ir.Case) if f != "checks"})
        key = "assertions" if "assertions" in data else "assert"
        for i, check in enumerate(case.checks):
            if isinstance(check, ir.Composite) and check.name is not None and check.members is not None:
                item = data[key][i]  # a row: its checks read again, what is wrong with them reported this time
                at = where + (key, i, "assertions")
                checks = [self.check(ctx, m, at + (j,)) for j, m in enumerate(item["assertions"])]
                extra = {k: plain(v) for k, v in item.items() if k not in ("name", "type", "assertions")}
                suite.entries.append(ir.SuiteEntry(name=check.name, checks=checks, extra=extra, span=check.span))
            else:
                suite.checks.append(check)
        return suite

    def _metadata(self, case: ir.Case, ctx: Ctx, value: dict[str, Any], at: tuple[Any, ...]) -> dict[str, Any]:
        """Set the case's metadata, lifting terum's fields out of ``metadata.terum``; returns the markers
        (``suite``/``trigger``) found there."""
        meta = plain(value)
        terum = meta.get(TERUM_META)
        markers: dict[str, Any] = {}
        if isinstance(terum, dict) and list(meta)[-1] == TERUM_META:
            fields = {k: v for k, v in terum.items() if k not in TERUM_MARKERS}
            marks = {k: terum[k] for k in TERUM_MARKERS if k in terum}
            if (fields or marks) and all(v is True for v in marks.values()) and _lift_terum(case, fields):
                del meta[TERUM_META]
                markers = marks
                if not meta:
                    return markers  # only evalfmt's terum block: the writer makes it again
        case.metadata = meta
        return markers

    def _skipped(self, ctx: Ctx, name: str, data: dict[str, Any], where: tuple[Any, ...]) -> None:
        """EV502: agentv skips a test with no criteria, expected_output, assertions or turns."""
        crit = data.get("criteria")
        if not (isinstance(crit, str) and crit):
            crit = data.get("expected_outcome")
        has = isinstance(crit, str) and crit != ""
        has = has or _has_expected(data.get("expected_output"))
        has = has or "assertions" in data or "assert" in data
        turns = data.get("turns")
        has = has or (isinstance(turns, list) and len(turns) > 0)
        if not has:
            ctx.add(case_pos(ctx, where), "EV502",
                    f"agentv skips test '{name}' silently: it has no criteria, expected_output, assertions or "
                    "turns; add one")

    def _trigger_conflicts(self, ctx: Ctx, checks: list[Any], test: str | None) -> None:
        """EV103 for a skill-trigger without a skill (the router's line too), EV503 for a test that asks
        one skill both to trigger and not to."""
        seen: dict[str, bool] = {}
        for check in checks:
            if not isinstance(check, ir.SkillTrigger):
                continue
            pos = _pos_of(check.span)
            skill = check.skill
            if "skill" not in check.extra and skill is None:
                ctx.add(pos, "EV103", missing_skill_message(test))
            if isinstance(skill, str):
                want = check.should_trigger is not False
                if skill in seen and seen[skill] != want and test is not None:
                    ctx.add(pos, "EV503", conflict_message(test, skill, want, seen[skill]))
                seen.setdefault(skill, want)

    # ------------------------------------------------------------------------------------ input

    def input(self, value: Any, at: tuple[Any, ...], hints: dict[str, Any], ctx: Ctx | None = None) -> ir.Input | None:
        """A string, or messages (a list, or agentv's object shorthand). None: wrong type (reported)."""
        ctx = ctx or self.ctx
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            msgs = []
            for i, item in enumerate(value):
                msg = self.message(ctx, item, at + (i,))
                if msg is None:
                    return None
                msgs.append(msg)
            return msgs
        if isinstance(value, dict):
            if "role" in value:
                msg = self.message(ctx, value, at)
                if msg is None:
                    return None
                hints["input"] = "message"
                return [msg]
            hints["input"] = "content"
            return [ir.Message(role="user", content=plain(value), span=ctx.span(*at))]
        ctx.at_value(at, "EV102", f"'input' must be a string or a list of messages, not a {type_name(value)}")
        return None

    def message(self, ctx: Ctx, item: Any, at: tuple[Any, ...]) -> ir.Message | None:
        if not isinstance(item, dict):
            ctx.at_value(at, "EV102", f"a message must be a mapping with 'role' and 'content', not a {type_name(item)}")
            return None
        role = item.get("role")
        if not isinstance(role, str):
            ctx.at_value(at + ("role",) if "role" in item else at, "EV102" if "role" in item else "EV103",
                         "a message needs a 'role' (system, user, assistant or tool)")
            return None
        if role not in ROLES:
            ctx.at_value(at + ("role",), "EV102", f"invalid role '{role}': use system, user, assistant or tool")
        content = self._content(ctx, item, at)
        extra = {k: plain(v) for k, v in item.items() if k not in ("role", "content")}
        return ir.Message(role=role, content=content, extra=extra, span=ctx.span(*at))

    @staticmethod
    def _content(ctx: Ctx, item: dict[str, Any], at: tuple[Any, ...]) -> Any:
        """A message's content: a list of ``{type, value}`` parts, or the value as it is (reported when it
        is not a string, a list of parts or a mapping)."""
        content: Any = item.get("content")
        if isinstance(content, list) and all(isinstance(p, dict) and isinstance(p.get("type"), str) for p in content):
            parts = []
            for j, p in enumerate(content):
                extra = {k: plain(v) for k, v in p.items() if k not in ("type", "value")}
                parts.append(ir.ContentPart(type=p["type"], value=plain(p.get("value")), extra=extra,
                                            span=ctx.span(*at, "content", j)))
                if p["type"] == "text" and not isinstance(p.get("value"), str):
                    ctx.at_value(at + ("content", j), "EV102", "a text part needs a string 'value'")
            content = parts
        elif isinstance(content, list):
            for j, p in enumerate(content):
                if isinstance(p, dict):
                    ctx.at_value(at + ("content", j), "EV103", "a content part needs a 'type' (text, file or image)")
                elif not isinstance(p, str):
                    ctx.at_value(at + ("content", j), "EV102", "content parts must be strings or mappings")
            content = plain(content)
        elif content is None and "tool_calls" not in item:
            ctx.at_value(at, "EV103" if "content" not in item else "EV102", "a message needs 'content'")
        elif not isinstance(content, (str, dict)) and content is not None:
            ctx.at_value(at + ("content",), "EV102", f"message 'content' must be a string, a list of parts or a "
                                                     f"mapping, not a {type_name(content)}")
            content = plain(content)
        else:
            content = plain(content)
        return content

    # ----------------------------------------------------------------------------------- checks

    def checks(self, items: list[Any], at: tuple[Any, ...], ctx: Ctx | None = None) -> list[ir.Check]:
        ctx = ctx or self.ctx
        return [self.check(ctx, item, at + (i,)) for i, item in enumerate(items)]

    def check(self, ctx: Ctx, item: Any, at: tuple[Any, ...]) -> ir.Check:
        span = ctx.span(*at)
        if isinstance(item, str):
            if not item.strip():
                ctx.at_value(at, "EV103", "empty assertion string; agentv ignores it: remove it", "warning")
            ctx.at_value(at, "EV504", "agentv transpile drops plain-string assertions from evals.json; state it in "
                                      "the test's 'criteria' too, or give it a type", "warning")
            return ir.Rubrics(criteria=[item], hints={"shorthand": "string"}, span=span)
        if not isinstance(item, dict):
            ctx.at_value(at, "EV102", f"an assertion must be a mapping with 'type' (or a string), not a "
                                      f"{type_name(item)}")
            return _opaque(plain(item), span)
        if "include" in item and len(item) == 1:
            return _opaque(plain(item), span)
        raw_type = item.get("type")
        if not isinstance(raw_type, str):
            ctx.at_value(at + ("type",) if "type" in item else at, "EV102" if "type" in item else "EV103",
                         "an assertion needs a 'type' (a string such as 'contains' or 'llm-grader')")
            return _opaque(plain(item), span)
        kind = self._type(ctx, raw_type, at)
        spec = AGENTV_TYPES.get(kind)
        if spec is None and kind not in self.custom_types():
            close = near(kind, KNOWN_TYPES, 0.75)
            more = f" (did you mean '{close}'?)" if close else ""
            ctx.at_value(at + ("type",), "EV104",
                         f"unknown assertion type '{raw_type}'{more}; agentv runs it as a custom assertion, and none "
                         f"named '{kind}' was found in .agentv/assertions/", "error" if close else "warning")
        self._lossy(ctx, item, spec, kind, raw_type, at)
        if spec is None:
            raw = plain(item)
            raw["type"] = kind
            return _opaque(raw, span, kind)
        return self._typed(ctx, item, spec, at, span)

    @staticmethod
    def _type(ctx: Ctx, raw_type: str, at: tuple[Any, ...]) -> str:
        """The assertion type agentv reads ``raw_type`` as (EV501 for a snake_case or deprecated name)."""
        kind = raw_type.replace("_", "-")
        if kind != raw_type:
            ctx.at_value(at + ("type",), "EV501", f"snake_case type '{raw_type}' is deprecated: use '{kind}'",
                         "warning", fix={"replace": kind})
        if kind in DEPRECATED_TYPES:
            new = DEPRECATED_TYPES[kind]
            ctx.at_value(at + ("type",), "EV501", f"type '{raw_type}' is deprecated: use '{new}' "
                                                  "(agentv 4.42.4 skips the assertion)", "warning",
                         fix={"replace": new})
            kind = new
        return kind

    def _typed(self, ctx: Ctx, item: dict[str, Any], spec: KindSpec, at: tuple[Any, ...], span: ir.Span) -> ir.Check:
        """An assertion of a kind's agentv entry: its keys read by their types (a value of the wrong type kept in
        ``extra``), then what its form adds (a code grader's config, a regex checked, the unknown keys named)."""
        entry = spec.agentv
        assert isinstance(entry, Agentv)
        got = _Got(entry)
        own = _by_key(entry.fields)
        for key, value in item.items():
            if key == "type":
                continue
            field = own.get(key)
            if field is not None:
                if not self._field(ctx, got, field, value, at + (key,), entry.loose):
                    return self._malformed(item, span, entry.type)
            elif key in _COMMON:
                self._common(ctx, got, key, value, at + (key,), entry)
            else:
                got.extra[key] = plain(value)
        for key, field in own.items():
            if field.required and field.field not in got.fields:
                ctx.at_value(at, "EV103", f"a {entry.type} assertion needs '{key}'")
                return self._malformed(item, span, entry.type)
        self._regex(ctx, got.fields, entry, at)
        _own_config(entry, got.fields, got.extra)
        if entry.unknown is not None:
            unknown = [k for k in item if k != "type" and k not in own and k not in _COMMON]
            if unknown:
                got.fields[entry.unknown] = unknown
        check: ir.CheckBase = spec.cls(**got.fields, extra=got.extra, hints=got.hints, span=span)
        present = list(item)
        if present != _written_order(spec.kind, present, got.fields):
            check.hints["keys"] = present
        return check  # type: ignore[return-value]

    @staticmethod
    def _malformed(item: dict[str, Any], span: ir.Span, kind: str) -> ir.Opaque:
        """An assertion missing what its type requires (reported): kept as it was read."""
        raw = plain(item)
        raw["type"] = kind
        return _opaque(raw, span, kind)

    def _field(self, ctx: Ctx, got: _Got, field: AgentvField, value: Any, at: tuple[Any, ...], loose: bool) -> bool:
        """Read one key of the entry by its field's type; False: a required key of the wrong type (reported)."""
        typ = field.type.rstrip("?")
        quiet = loose or field.type.endswith("?")
        if value is None and typ == "any":
            got.extra[field.key] = None  # null and absent are one thing in the IR; keep the key
            return True
        if typ == "prompt" and isinstance(value, dict):
            self._prompt_template(ctx, value, at)
            got.fields["template"] = plain(value)  # held as written (a program evalfmt does not run)
            return True
        ok, conv = self._value(ctx, got, value, at, typ)
        if ok:
            got.fields[field.field] = conv
            return True
        if not quiet:  # (a quiet type is never required)
            ctx.at_value(at, "EV102", f"'{field.key}' of a {got.type} assertion must be {_TYPE_TEXT[typ]}, not a "
                                      f"{type_name(value)}")
            if field.required:
                return False
        got.extra[field.key] = plain(value)
        return True

    def _value(self, ctx: Ctx, got: _Got, value: Any, at: tuple[Any, ...], typ: str) -> tuple[bool, Any]:
        """(whether ``value`` has the type, the IR value): the types that need the reader (criteria given as one
        text, member assertions, an aggregator), else :func:`_convert`."""
        if typ == "criteria" and isinstance(value, str):
            got.hints["criteria"] = "text"
            return True, [value]
        if typ == "checks" and isinstance(value, list):
            return True, self._members(ctx, value, at)
        if typ == "aggregator" and isinstance(value, dict):
            return True, self._aggregator(ctx, got.entry, value, at)
        return _convert(value, _BASE_TYPE.get(typ, typ))

    def _members(self, ctx: Ctx, items: list[Any], at: tuple[Any, ...]) -> list[ir.Check]:
        """A composite's member assertions, read as a test's are; what is wrong with them is not reported (as
        agentv, which reads them only when it runs the composite)."""
        quiet = Ctx(ctx.loaded, [], ctx.line_offset)
        return [self.check(quiet, item, at + (i,)) for i, item in enumerate(items)]

    @staticmethod
    def _aggregator(ctx: Ctx, entry: Agentv, value: dict[str, Any], at: tuple[Any, ...]) -> ir.Aggregator:
        """A composite's aggregator, its keys read by the entry's ``aggregator`` fields (none reported)."""
        fields: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        own = _by_key(entry.aggregator)
        for key, item in value.items():
            field = own.get(key)
            ok, conv = (False, None) if field is None or (item is None and field.type == "any") else \
                _convert(item, field.type.rstrip("?"))
            if ok and field is not None:
                fields[field.field] = conv
            else:
                extra[key] = plain(item)
        agg = ir.Aggregator(**fields, extra=extra, span=ctx.span(*at))
        present = list(value)
        if present != canonical_order(tuple(own), present):
            agg.hints["keys"] = present
        return agg

    @staticmethod
    def _common(ctx: Ctx, got: _Got, key: str, value: Any, at: tuple[Any, ...], entry: Agentv) -> None:
        """One of the keys every assertion may have (name, weight, required, min_score, negate)."""
        ok, conv = _convert(value, _COMMON[key])
        if ok:
            got.fields[key] = conv
            return
        if not entry.loose:
            ctx.at_value(at, "EV102", f"'{key}' must be {_TYPE_TEXT[_COMMON[key]]}, not a {type_name(value)}")
        got.extra[key] = plain(value)

    @staticmethod
    def _regex(ctx: Ctx, fields: dict[str, Any], entry: Agentv, at: tuple[Any, ...]) -> None:
        """EV105 for an entry's ECMAScript regex (and flags) that ``new RegExp`` refuses or Python reads otherwise."""
        if entry.regex is None or entry.regex[0] not in fields:
            return
        pattern, flags = entry.regex
        problem = regex_problem(fields[pattern], fields.get(flags) if flags else None)
        if problem:
            keys = {f.field: f.key for f in entry.fields}
            ctx.at_value(at + (keys[flags] if problem[0] == "flags" and flags else keys[pattern],), "EV105",
                         problem[2], problem[1])
    def _prompt_template(self, ctx: Ctx, value: dict[str, Any], at: tuple[Any, ...]) -> None:
        """An llm-grader's executable prompt template, ``prompt: {command: [argv...], config: {...}}``, as
        agentv 4.42.4 loads it: ``command`` (or the deprecated ``script``, used when ``command`` is absent)
        must be a non-empty list of non-empty strings, or agentv skips the test; ``config`` is a mapping
        handed to the command (anything else is ignored), and other keys are ignored."""
        key = "command" if "command" in value else "script" if "script" in value else None
        if key is None:
            ctx.at_value(at, "EV103", "a prompt template needs 'command', the argv list that prints the prompt "
                                      "(e.g. [bun, run, prompt.ts]); agentv skips the test without it")
        else:
            if key == "script":
                ctx.at_key(at + (key,), "EV501", "'prompt.script' is deprecated: use 'prompt.command'", "warning",
                           fix={"rename": "command"})
            elif "script" in value:
                ctx.at_key(at + ("script",), "EV101", "'script' is ignored: 'command' is used; remove it", "warning")
            argv = value[key]
            if not isinstance(argv, list):
                ctx.at_value(at + (key,), "EV102",
                             f"'{key}' of a prompt template must be a list of argv strings (e.g. [bun, run, "
                             f"prompt.ts]), "
                             f"not a {type_name(argv)}; agentv skips the test")
            elif not argv:
                ctx.at_value(at + (key,), "EV102", f"'{key}' of a prompt template is empty; agentv skips the test")
            else:
                for i, token in enumerate(argv):
                    if not isinstance(token, str) or not token.strip():
                        what = "empty" if isinstance(token, str) else f"a {type_name(token)}"
                        ctx.at_value(at + (key, i), "EV102",
                                     f"each argv entry of '{key}' must be a non-empty string, this one is {what}; "
                                     "agentv skips the test")
                        break
        if "config" in value and not isinstance(value["config"], dict):
            ctx.at_value(at + ("config",), "EV102", f"'config' of a prompt template must be a mapping, not a "
                                                   f"{type_name(value['config'])}; agentv ignores it", "warning")
        for k in value:
            if k not in PROMPT_TEMPLATE_KEYS:
                self._unknown(ctx, k, at + (k,), PROMPT_TEMPLATE_KEYS)

    @staticmethod
    def _lossy(ctx: Ctx, item: dict[str, Any], spec: KindSpec | None, kind: str, raw_type: str,
               at: tuple[Any, ...]) -> None:
        """EV504: assertions ``agentv transpile`` drops or reduces to a placeholder (a type's own losses are its
        spec's ``lossy``; a built-in type without a sentence, and a custom type without a command, criteria
        or prompt, become ``<type> assertion``)."""
        entry = spec.agentv if spec is not None and isinstance(spec.agentv, Agentv) else None
        what = None
        if raw_type != kind and raw_type not in TRANSPILE_SNAKE and raw_type.replace("_", "-") == kind:
            routes = spec is not None and spec.cls is ir.SkillTrigger  # (agentv transpile routes tests by it)
            what = (f"does not know the snake_case type '{raw_type}': it writes '{raw_type} assertion'"
                    + (" and does not route the test" if routes else "") + f"; use '{kind}'")
        elif entry is not None and entry.lossy is not None:
            what = entry.lossy(item)
        elif _placeholder(entry, item):
            what = (f"writes this assertion as the placeholder '{raw_type} assertion' in evals.json; state what "
                    "it checks in the test's 'criteria' if the placeholder is not enough")
        if what:
            ctx.at_value(at, "EV504", f"agentv transpile {what}", "warning")

    def custom_types(self) -> set[str]:
        """Custom assertion names agentv finds: script files in ``.agentv/assertions/`` up the tree."""
        if self._custom is None:
            found: set[str] = set()
            d = self.folder
            while True:
                folder = os.path.join(d, ".agentv", "assertions")
                try:
                    for e in self.fs.scandir(folder):
                        stem, ext = os.path.splitext(e.name)
                        if e.is_file() and ext.lower() in (".ts", ".js", ".mts", ".mjs", ".cts", ".cjs"):
                            found.add(stem)
                except OSError:
                    pass
                parent = os.path.dirname(d)
                if parent == d:
                    break
                d = parent
            self._custom = found
        return self._custom


def _placeholder(entry: Agentv | None, item: dict[str, Any]) -> bool:
    """Whether agentv transpile writes ``<type> assertion`` for an entry: a built-in type it has no sentence
    for, or a custom type (its fallback: a command, else criteria text, else prompt text, else the placeholder)."""
    if entry is not None and entry.builtin:
        return entry.sentence is None
    return "command" not in item and not isinstance(item.get("criteria"), str) \
        and not isinstance(item.get("prompt"), str)


def case_pos(ctx: Ctx, where: tuple[Any, ...]) -> Pos:
    return ctx.pos(*where) if where else Pos(1 + ctx.line_offset, 1)


def _has_expected(value: Any) -> bool:
    """agentv's expected-output shorthand yields at least one message."""
    if value is None:
        return False
    if isinstance(value, str):
        return True
    if isinstance(value, list):
        if value and isinstance(value[0], dict) and "role" in value[0]:
            return any(_is_message(m) for m in value)
        return True
    if isinstance(value, dict):
        return _is_message(value) if "role" in value else True
    return False


def _is_message(m: Any) -> bool:
    if not isinstance(m, dict) or m.get("role") not in ROLES:
        return False
    c = m.get("content")
    if isinstance(c, (str, dict)):
        return True
    if isinstance(c, list) and all(isinstance(x, (str, dict)) for x in c):
        return True
    tc = m.get("tool_calls")
    return isinstance(tc, list) and len(tc) > 0


class _Got:
    """What :meth:`Reader._typed` has read of one assertion: its IR fields, its extra keys, its hints."""

    def __init__(self, entry: Agentv):
        self.entry = entry
        self.type = entry.type
        self.fields: dict[str, Any] = {}
        self.extra: dict[str, Any] = {}
        self.hints: dict[str, Any] = {}


_TYPE_TEXT = {"str": "a string", "bool": "true or false", "number": "a number", "strlist": "a list of strings",
              "list": "a list", "any": "a value", "criteria": "a list of criteria (strings or mappings)",
              "command": "a string or a list of strings", "required": "true, false or a number in (0, 1]",
              "prompt": "a string", "checks": "a list of assertions", "aggregator": "a mapping"}
#: the field types read by the reader itself (:meth:`Reader._value`), as :func:`_convert` checks another value
_BASE_TYPE = {"prompt": "str", "checks": "list", "aggregator": "mapping"}


def _written_order(kind: str, present: list[str], fields: dict[str, Any]) -> list[str]:
    """The key order the writer gives a check without a keys hint: canonical, a code-grader's config last."""
    config = fields.get("config") or {}
    order = canonical_check_order(kind, [k for k in present if k not in config])
    return order + [k for k in present if k in config]


def _own_config(entry: Agentv, fields: dict[str, Any], extra: dict[str, Any]) -> None:
    """A code-grader's ``config``: the keys agentv hands to the program, moved out of ``extra``."""
    if entry.form != "code-grader":
        return
    config = {k: v for k, v in extra.items() if k not in CODE_GRADER_OWN}
    if config:
        fields["config"] = config
        for k in config:
            del extra[k]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


#: field type -> (whether a value has it, the IR value of one that has)
_CONVERT: dict[str, tuple[Callable[[Any], bool], Callable[[Any], Any]]] = {
    "str": (lambda v: isinstance(v, str), lambda v: v),
    "bool": (lambda v: isinstance(v, bool), lambda v: v),
    "number": (_is_number, float),
    "strlist": (_strings, list),
    "list": (lambda v: isinstance(v, list), plain),
    "mapping": (lambda v: isinstance(v, dict), plain),
    "any": (lambda v: True, plain),
    "criteria": (lambda v: isinstance(v, list) and all(isinstance(x, (str, dict)) for x in v), plain),
    "command": (lambda v: isinstance(v, str) or _strings(v), plain),
    # (bool first: it is an int in Python)
    "required": (lambda v: isinstance(v, (bool, int, float)), lambda v: v if isinstance(v, bool) else float(v)),
}


def _convert(value: Any, typ: str) -> tuple[bool, Any]:
    """(whether ``value`` has the field type ``typ``, its IR value); a value of another type as it is."""
    has, conv = _CONVERT[typ]
    return (True, conv(value)) if has(value) else (False, value)


def _lift_terum(case: ir.Case, terum: dict[str, Any]) -> bool:
    """Put terum fields written under ``metadata.terum`` back into the case; False if they do not fit."""
    if any(k not in TERUM_FIELDS for k in terum):
        return False
    checks = {
        "bucket": lambda v: isinstance(v, str),
        "files": lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()),
        "fixture": lambda v: isinstance(v, str),
        "setup": lambda v: isinstance(v, str),
        "requires": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
        "timeout_minutes": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "max_turns": lambda v: isinstance(v, int) and not isinstance(v, bool),
    }
    if not all(checks[k](v) for k, v in terum.items()):
        return False
    for key, value in terum.items():  # as written: an integer stays an integer (``timeout_minutes: 30``)
        setattr(case, key, value)
    return True


# ------------------------------------------------------------------------------------- regexes


def regex_problem(pattern: str, flags: str | None) -> tuple[str, Severity, str] | None:
    """What is wrong with ``new RegExp(pattern, flags)``, as (key at fault, severity, message); None
    when nothing is. Invalid ECMAScript (or flags) is an error; syntax Python reads differently a warning."""
    if flags is not None:
        bad = [ch for ch in flags if ch not in JS_REGEX_FLAGS]
        if bad or len(set(flags)) != len(flags):
            return "flags", "error", f"invalid regex flags '{flags}': use a subset of d, g, i, m, s, u, v, y, each once"
    for p in problems(pattern, flags or ""):
        if p.kind == "invalid":
            return "value", "error", f"regex {_q(pattern)} is not a valid ECMAScript regex: {p.message} " \
                                     f"(at offset {p.offset}); fix the pattern"
        if p.kind == "differs":
            return "value", "warning", f"regex {_q(pattern)}: {p.message}"
    return None
