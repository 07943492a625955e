"""Writing promptfoo configs: IR -> ``promptfooconfig.yaml`` (and the tests files it references).

Pure and deterministic. Each IR check is written as its kind's spec says (:mod:`evalfmt.ir.kinds`): the writer
of the entry's form (:data:`FORM_WRITERS`); a kind the entry says promptfoo cannot hold, or a check its form's
writer refuses, becomes a loss in one place (:func:`_assertion`). A set read from promptfoo is written back
with its own presentation: the writer asks the shared restoration pass (:mod:`evalfmt.formats.restore`,
through :meth:`_W.hints`, :meth:`_W.restore`, which puts a node's extra keys back and restores its key order,
or reports another format's extra keys as lost), and YAML is written over the existing text with comments and
key order kept (ruamel round trip).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Mapping

from ... import ir, yamlrt
from ...ir.kinds import PROMPTFOO_NONE, Promptfoo, Verbatim, spec_of
from .. import Loss, WriteResult, hinted_name, plain_name, plain_relpath
from ..losses import Rule, Table
from ..restore import Restore, reorder
from ..skillgym.tslit import literal_of
from .kinds import DEFAULT_NAME, DEFAULT_PROVIDER, NAME

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

_ABSENT = object()

LOST_CASE_FIELDS = (
    ("files", "inline files"), ("fixture", "fixture"), ("setup", "setup command"), ("bucket", "bucket"),
    ("requires", "requires"), ("timeout_minutes", "timeout_minutes"), ("max_turns", "max_turns"),
    ("input_files", "input_files"), ("tags", "tags"), ("timeout_ms", "timeoutMs"), ("expected_fail", "expectedFail"),
    ("expected_output", "expected_output"),
)


class _W:
    """One write: the set, its restoration pass (:class:`~evalfmt.formats.restore.Restore`), the losses so far.

    The branches left on :attr:`own` are meaning, not presentation: another format's set needs the
    prompt template and provider a promptfoo config runs with, its trigger prompts become tests, and
    its fields promptfoo has no place for are losses; a promptfoo set has none of those."""

    def __init__(self, evalset: ir.EvalSet):
        self.evalset = evalset
        self.r = Restore(evalset.format, NAME)
        self.own = self.r.own
        self.losses: list[Loss] = []

    def lose(self, feature: str, span: ir.Span | None, where: str, what: str) -> None:
        TABLE.add(self.losses, feature, span, where, what)

    def hints(self, node: Any) -> Mapping[str, Any]:
        """The presentation a node was read with (none for another format's set)."""
        return self.r.hints(node)

    def kept_extra(self, node: Any) -> Mapping[str, Any]:
        """The node's extra keys the output holds: promptfoo's own; another format's are losses."""
        return self.r.extra(node)

    def restore(self, out: dict[str, Any], node: Any, feature: str, where: str, what: Callable[[str], str],
                placed: tuple[str, ...] = ()) -> dict[str, Any]:
        """The shared round-trip pass (:meth:`Restore.back`), another format's extra keys lost as ``feature``
        (``what(key)`` says which)."""
        return self.r.back(out, node, placed, lose=lambda key: self.lose(feature, node.span, where, what(key)))


# ----------------------------------------------------------------------------------------- assertions


@dataclass
class _Lost:
    """A check its form's writer refuses: the loss says ``what`` (None: the kind's default reason)."""

    what: str | None = None


_Written = dict[str, Any] | list[Any] | _Lost


def _assertion(w: _W, check: Any, where: str) -> list[Any]:
    """promptfoo assertions for one IR check, as its spec's promptfoo entry says (empty when it is lost: a kind
    the entry says is absent, with the entry's reason, or a check its form's writer refuses)."""
    spec = spec_of(check)
    entry = spec.promptfoo
    held: tuple[str, ...] = ()
    if isinstance(entry, Promptfoo):
        out = FORM_WRITERS[entry.form](w, check, where, entry)
        held = _HELD.get(entry.form, ())
    elif isinstance(entry, Verbatim):
        out = _verbatim(check, entry)
    else:
        out = _Lost(f"check '{check.label()}' ({entry.why})")
    if isinstance(out, _Lost):
        w.lose(spec.feature, check.span, where, out.what or f"check '{check.label()}' ({PROMPTFOO_NONE})")
        return []
    if isinstance(out, list):
        return out
    if check.weight is not None:
        out["weight"] = _number(check.weight)
    _common_losses(w, check, where, held)
    label = check.label()
    return [w.restore(out, check, "check.fields", where, lambda key: f"'{key}' of check '{label}'")]


def _common_losses(w: _W, check: Any, where: str, held: tuple[str, ...] = ()) -> None:
    for f in ("name", "required", "min_score"):
        if getattr(check, f, None) is not None and f not in held:
            w.lose("check.fields", check.span, where, f"'{f}' of check '{check.label()}'")


def _verbatim(check: Any, entry: Verbatim) -> _Written:
    """A check kept as read (an opaque one): promptfoo's own is written back unchanged, another format's lost."""
    if check.origin == NAME:
        return [check.raw]
    return _Lost(f"{check.origin or 'opaque'} check '{check.label()}' ({entry.why})")


# the forms (evalfmt.ir.kinds.spec.PromptfooForm): each writes a check as its spec's entry says


def _same(w: _W, check: Any, where: str, entry: Promptfoo) -> _Written:
    """``{type, value}``: an output check promptfoo has the same type for (``not-`` for a negated one), its value
    as the entry's ``value`` says; a regex's flags are lost (promptfoo's regex takes none)."""
    out: dict[str, Any] = {"type": ("not-" if check.negate else "") + entry.type}
    flags = getattr(check, "flags", None)
    if (flags or "").replace("g", ""):
        w.lose("check.output/flags", check.span, where, f"flags '{flags}' of check '{check.label()}' "
                                                        "(promptfoo's regex takes none)")
    if entry.value == "texts":
        out["value"] = list(check.values)
    elif entry.value != "none":
        out["value"] = check.value
    return out


def _skill(w: _W, check: Any, where: str, entry: Promptfoo) -> _Written:
    """``skill-used`` / ``not-skill-used`` with the skill's name (``{name}`` when read so)."""
    if not check.skill:
        return _Lost("skill-trigger check without a skill name")
    fires = check.expects_trigger != bool(check.negate)
    value: Any = {"name": check.skill} if w.hints(check).get("form") == "object" else check.skill
    return {"type": ("" if fires else "not-") + entry.type, "value": value}


def _step_count(w: _W, check: Any, where: str, entry: Promptfoo) -> _Written:
    """``trajectory:step-count`` of a command glob: at least once for a check asserting presence, never for one
    asserting absence (``negate`` swaps them)."""
    glob = _glob_of(check.pattern)
    if glob is None or check.extra or check.flags:  # a flag (e.g. i) the glob does not say
        return _Lost(f"check '{check.label()}' (promptfoo's trajectory:step-count takes a case-insensitive glob; "
                     "this regex has no faithful glob)")
    positive = (spec_of(check).asserts == "presence") != bool(check.negate)
    return {"type": entry.type,
            "value": {"type": "command", "pattern": glob, **({"min": 1} if positive else {"max": 0})}}


def _rubric(w: _W, check: Any, where: str, entry: Promptfoo) -> _Written:
    """One ``llm-rubric`` per criterion (an object criterion keeps only its text)."""
    label = check.label()
    crits = [c if isinstance(c, str) else str(c.get("outcome") or c.get("description") or "") for c in check.criteria]
    if any(not isinstance(c, str) for c in check.criteria):
        w.lose("check.rubric/objects", check.span, where, f"criterion fields other than the text of check '{label}'")
    res: list[dict[str, Any]] = []
    for c in crits:
        item: dict[str, Any] = {"type": entry.type, "value": c}
        if check.weight is not None:
            item["weight"] = _number(check.weight)
        if check.min_score is not None:
            item["threshold"] = _number(check.min_score)  # promptfoo's word for the score a grader needs
        res.append(item)
    if len(res) == 1 or not w.own:  # (extra keys go back only beside a single criterion)
        first = w.restore(res[0] if res else {}, check, "check.fields", where,
                          lambda key: f"'{key}' of check '{label}'")
        res[:1] = [first] if res else []
    _common_losses(w, check, where, held=("min_score",))
    return res


def _threshold(w: _W, check: Any, where: str, entry: Promptfoo) -> _Written:
    """``{type, threshold}`` from the entry's field (``latency``, ``cost``); lost without one."""
    value = getattr(check, entry.field or "threshold")
    return {"type": entry.type, "threshold": _number(value)} if value is not None else _Lost()


def _typed(w: _W, check: Any, where: str, entry: Promptfoo) -> _Written:
    """``{type, value}`` of a check whose ``field`` holds its assertion type (``graded``, ``code``): the value from
    the entry's ``into`` (left out when the assertion had none)."""
    out: dict[str, Any] = {"type": getattr(check, entry.field or "type")}
    value = getattr(check, entry.into or "value")
    if value is not None or "value" in (w.hints(check).get("key_order") or ()):
        out["value"] = value
    return out


def _graded(w: _W, check: Any, where: str, entry: Promptfoo) -> _Written:
    """A model-graded assertion: its type and value, ``threshold`` the score it needs, ``negate: true`` as read."""
    out = _typed(w, check, where, entry)
    assert isinstance(out, dict)
    if check.min_score is not None:
        out["threshold"] = _number(check.min_score)
    if check.negate:
        out["negate"] = True
    return out


#: a promptfoo form (the ``form`` of a spec's :class:`~evalfmt.ir.kinds.Promptfoo` entry) -> how a check of it
#: is written: an assertion, a list of them, or :class:`_Lost`
FORM_WRITERS: dict[str, Callable[[_W, Any, str, Promptfoo], _Written]] = {
    "same": _same, "threshold": _threshold, "rubric": _rubric, "skill": _skill, "step-count": _step_count,
    "graded": _graded, "code": _typed,
}
#: the common fields a form writes itself (not lost beside it)
_HELD = {"graded": ("min_score",)}


def _number(value: Any) -> Any:
    """A number as promptfoo's YAML writes it (JavaScript has one number type: 2.0 is 2)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _glob_of(pattern: str) -> str | None:
    """A glob equivalent to an ECMAScript search for literal text (``^``/``$`` anchors allowed)."""
    start = pattern.startswith("^")
    end = pattern.endswith("$") and not pattern.endswith("\\$")
    core = pattern[1 if start else 0: len(pattern) - 1 if end else len(pattern)]
    text = literal_of(core)
    if not text or "*" in text or "?" in text or "\n" in text:
        return None
    return ("" if start else "*") + text + ("" if end else "*")


def _group_checks(checks: list[Any]) -> list[list[Any]]:
    """Checks read from one promptfoo assertion (a skill-used list) stay together."""
    groups: list[list[Any]] = []
    for c in checks:
        if c.hints.get("group_part") and groups and groups[-1][0].kind == "skill-trigger":
            groups[-1].append(c)
        else:
            groups.append([c])
    return groups


def _group_weight(hints: Mapping[str, Any], group: list[Any]) -> Any:
    """The weight of the one skill-used assertion a group of skill-triggers is written as: the assertion's own
    (as read, when the checks still share it), else the sum of theirs (None: none has one)."""
    if all(c.weight is None for c in group):
        return None
    total = sum(1.0 if c.weight is None else c.weight for c in group)
    given = hints.get("group_weight")
    if "group_weight" in hints and abs(total - (1.0 if given is None else given)) < 1e-9:
        return given
    return total


def _assertions(w: _W, checks: list[Any], where: str) -> list[Any]:
    out: list[Any] = []
    for group in _group_checks(checks):
        first = group[0]
        n = w.hints(first).get("group")
        if n and len(group) == n and all(c.kind == "skill-trigger" for c in group) \
                and len({c.should_trigger for c in group}) == 1:
            neg = first.should_trigger is False
            assertion: dict[str, Any] = {"type": ("not-" if neg else "") + "skill-used",
                                         "value": [c.skill for c in group]}
            weight = _group_weight(w.hints(first), group)
            if weight is not None:
                assertion["weight"] = _number(weight)
            out.append(reorder(assertion, first.hints.get("key_order")))
            continue
        for c in group:
            out.extend(_assertion(w, c, where))
    return out


# ---------------------------------------------------------------------------------------------- tests


def _test(w: _W, case: ir.Case, where: str, prompt_var: str) -> Any:
    h, ex = w.hints(case), w.kept_extra(case)
    if "$value" in ex:
        return ex["$value"]
    t: dict[str, Any] = {}
    if "description" in ex:
        t["description"] = ex["description"]
    elif not h.get("no_description"):
        t["description"] = h.get("name", case.name)
    vars_ = _vars(w, case, where, prompt_var)
    if ex.get("vars") is not None and not isinstance(ex["vars"], dict):
        t["vars"] = ex["vars"]
    elif vars_ or "var_order" in h:
        t["vars"] = vars_
    asserts = _assertions(w, list(case.checks), where)
    if case.judge:
        asserts.append({"type": "llm-rubric", "value": case.judge})
        w.lose("case.judge", case.span, where, f"judge of '{case.name}' written as an llm-rubric assertion (graded "
                                               "on every run, not only when the checks tie)")
    if "assert" in ex:
        t["assert"] = ex["assert"]
    elif asserts or "assert" in (h.get("key_order") or []):
        t["assert"] = asserts
    if case.metadata is not None:
        t["metadata"] = case.metadata
    _case_losses(w, case, where)
    return w.restore(t, case, "case.extra", where, lambda key: f"'{key}' of '{case.name}'",
                     placed=("description", "vars", "assert", "$value"))


def _vars(w: _W, case: ir.Case, where: str, prompt_var: str) -> dict[str, Any]:
    """A test's vars: the prompt in its variable, then the other vars read with it (in their order)."""
    h, ex = w.hints(case), w.kept_extra(case)
    if isinstance(h.get("vars"), dict):  # a promptfoo test's vars, as written
        return dict(h["vars"])
    vars_: dict[str, Any] = {}
    var = h.get("prompt_var") if w.own else prompt_var
    if case.input is not None and var is not None:
        vars_[var] = ir.input_text(case.input)
        if not w.own and not isinstance(case.input, str):
            w.lose("case.messages", case.span, where, f"message input of '{case.name}' flattened to its text")
    if isinstance(ex.get("vars"), dict):
        vars_.update(ex["vars"])
    if h.get("var_order"):
        vars_ = reorder(vars_, h["var_order"])
    return vars_


def _case_losses(w: _W, case: ir.Case, where: str) -> None:
    """The fields of another format's case promptfoo has no place for."""
    if w.own:
        return
    for field, what in LOST_CASE_FIELDS:
        if getattr(case, field) not in (None, [], {}):
            w.lose(f"case.{field}", case.span, where, f"{what} of '{case.name}'")


# ------------------------------------------------------------------------------------------------ set


def write(evalset: ir.EvalSet, existing: dict[str, str] | None = None) -> WriteResult:
    w = _W(evalset)
    existing = existing or {}
    h = w.hints(evalset)
    setwhere = f"{evalset.span.file}:{evalset.span.line}" if evalset.span else "set"
    name = hinted_name(h.get("file_name"), DEFAULT_NAME, setwhere, w.losses)
    prompt_var = "prompt"
    if "$root" in w.kept_extra(evalset):
        return WriteResult(files={name: yamlrt.dump(evalset.extra["$root"], existing=existing.get(name))})
    # a promptfoo set's variant cases are further runs of a test written once (another format writes each)
    cases = [c for c in evalset.cases if not w.hints(c).get("variant")]
    if evalset.suite is not None:
        cases.extend(_suite_cases(evalset.suite, w.losses))
    if not w.own and evalset.triggers is not None and evalset.triggers.prompts:
        cases.extend(_trigger_cases(evalset, evalset.triggers, w.losses, setwhere))
    if h.get("shape") == "tests":
        data: Any = [_test(w, c, f"cases[{i}]", prompt_var) for i, c in enumerate(cases)]
        return WriteResult(files={name: yamlrt.dump(data, existing=existing.get(name))}, losses=w.losses)
    data = _config_head(w, setwhere)
    default = _default_test(w)
    if default is not _ABSENT:
        data["defaultTest"] = default
    files: dict[str, str] = {}
    if "tests" in w.kept_extra(evalset):
        data["tests"] = evalset.extra["tests"]
    elif "tests_value" in h:  # tests: {path: rows.csv}, as written
        data["tests"] = h["tests_value"]
    elif cases or "tests" in (h.get("key_order") or []):
        data["tests"], files = _tests(w, cases, prompt_var, existing)
    data = reorder(data, h.get("key_order"))
    return WriteResult(files={name: yamlrt.dump(data, existing=existing.get(name)), **files}, losses=w.losses)


def _config_head(w: _W, setwhere: str) -> dict[str, Any]:
    """The config's keys before defaultTest and tests: its own (description and the keys kept in extra),
    or for another format's set a description, the prompt template and the provider."""
    evalset = w.evalset
    data: dict[str, Any] = {}
    if w.own:
        if evalset.description is not None:
            data["description"] = evalset.description
        for key, value in evalset.extra.items():
            if key not in ("tests", "defaultTest"):
                data[key] = value
        for key in ("prompts", "providers", "scenarios"):  # held rendered in the cases: as written
            if key in evalset.hints:
                data[key] = evalset.hints[key]
        return data
    desc = evalset.description or evalset.name or (evalset.skill.name if evalset.skill else None)
    if desc:
        data["description"] = desc
    data["prompts"] = ["{{prompt}}"]
    data["providers"] = [DEFAULT_PROVIDER]
    _set_losses(evalset, w.losses, setwhere)
    return data


def _default_test(w: _W) -> Any:
    """``defaultTest``: the set's checks as its assertions, beside its own other keys; _ABSENT without either."""
    evalset = w.evalset
    h = w.hints(evalset)
    if "default_ref" in h:  # defaultTest: file://default.yaml, as written
        return h["default_ref"]
    kept = w.kept_extra(evalset).get("defaultTest")
    default = dict(kept) if isinstance(kept, dict) else None
    if "default_vars" in h:
        default = {**(default or {}), "vars": h["default_vars"]}
    set_asserts = _assertions(w, list(evalset.checks), "checks")
    if not set_asserts and default is None:  # a defaultTest that is no mapping stays as it was
        return kept if "defaultTest" in w.kept_extra(evalset) else _ABSENT
    d = default if default is not None else {}
    if set_asserts:
        d["assert"] = set_asserts
    return reorder(d, w.hints(evalset).get("default_keys"))


def _tests(w: _W, cases: list[ir.Case], prompt_var: str, existing: dict[str, str]) -> tuple[Any, dict[str, str]]:
    evalset = w.evalset
    layout = w.hints(evalset).get("tests_layout")
    out: list[Any] = []
    extra_files: dict[str, str] = {}
    if not layout:
        return [_test(w, c, f"cases[{i}]", prompt_var) for i, c in enumerate(cases)], extra_files
    i = 0
    by_file: dict[str, list[Any]] = {}
    names = _RefNames(cases, w.losses, f"{evalset.span.file}:{evalset.span.line}" if evalset.span else "tests")
    for entry in layout:
        if "inline" in entry:
            if i < len(cases) and "from_file" not in cases[i].hints:
                out.append(_test(w, cases[i], f"cases[{i}]", prompt_var))
                i += 1
            continue
        ref = entry["ref"]
        rels: list[str] = []
        while i < len(cases) and cases[i].hints.get("from_file") == ref:
            rel = _file_of(cases[i])
            if rel not in rels:
                rels.append(rel)
            by_file.setdefault(names.rel(rel), []).append(_test(w, cases[i], f"cases[{i}]", prompt_var))
            i += 1
        out.extend(names.refs(ref, rels))
    while i < len(cases):
        out.append(_test(w, cases[i], f"cases[{i}]", prompt_var))
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

    def __init__(self, cases: list[ir.Case], losses: list[Loss], where: str):
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


def _trigger_cases(evalset: ir.EvalSet, trig: ir.TriggerSet, losses: list[Loss], where: str) -> list[ir.Case]:
    """Trigger prompts as tests: ``skill-used`` for should-trigger prompts, ``not-skill-used`` for the rest."""
    skill = trig.skill or (evalset.skill.name if evalset.skill else None)
    if not skill:
        TABLE.add(losses, "triggers", trig.span, where,
                                 f"{len(trig.prompts)} trigger prompts (no skill name to check with skill-used)")
        return []
    cases = []
    counts = {True: 0, False: 0}
    for p in trig.prompts:
        counts[p.should_trigger] += 1
        name = f"{'triggers' if p.should_trigger else 'does-not-trigger'}-{counts[p.should_trigger]}"
        cases.append(ir.Case(name=name, input=p.text, span=p.span,
                             checks=[ir.SkillTrigger(skill=skill, should_trigger=None if p.should_trigger else False)]))
        for key in p.extra:
            TABLE.add(losses, "triggers.extra", p.span, where, f"'{key}' of trigger prompt {p.text!r}")
    for key in trig.extra:
        TABLE.add(losses, "triggers.extra", trig.span, where, f"trigger set key '{key}'")
    return cases


def _set_losses(evalset: ir.EvalSet, losses: list[Loss], where: str) -> None:
    if evalset.input is not None:
        TABLE.add(losses, "set.input", None, where, "suite-level input prepended to every test")
    if evalset.tags:
        TABLE.add(losses, "set.tags", None, where, "eval set tags")
    for key in evalset.extra:
        TABLE.add(losses, "set.extra", None, where, f"{evalset.format} key '{key}'")
    if evalset.name and evalset.description and evalset.name != evalset.description:
        TABLE.add(losses, "set.name", None, where, f"eval set name '{evalset.name}' (the description "
                                                          "holds the set's description)")
    skill = evalset.skill
    if skill is not None and skill.span is not None and not any(
            c.kind == "skill-trigger" and c.skill == skill.name for case in evalset.cases for c in case.checks):
        TABLE.add(losses, "set.skill", skill.span, where, f"skill name '{skill.name}' (promptfoo names skills "
                                                                 "only in skill-used assertions)")


def _suite_cases(suite: ir.Suite, losses: list[Loss]) -> list[ir.Case]:
    TABLE.add(losses, "suite", suite.span, "suite", f"suite: its {len(suite.entries)} entries become "
                                                           "separate tests, each running its own session")
    out = []
    for entry in suite.entries:
        case = ir.Case(name=entry.name, input=suite.input, checks=list(entry.checks), span=entry.span or suite.span)
        for field in ("files", "fixture", "setup", "requires", "timeout_minutes", "max_turns"):
            setattr(case, field, getattr(suite, field))
        out.append(case)
    return out
