"""Writing IR as an AgentV EVAL.yaml (current names only; see docs/agentv.md).

- test ``id`` <- ``Case.name``, ``criteria`` <- ``judge``, ``assertions`` <- ``checks``; the set's
  ``input``/``checks`` become the suite-level ``input``/``assertions``; ``extra`` keys go back where
  they were (a key order read from a file is kept in ``hints["keys"]``);
- terum check kinds have no agentv type: they are written as custom assertion types
  (``transcript-mentions``, ``command-matching``, ... with ``value``), which the reader maps back, and
  a loss says agentv needs a custom grader for them;
- terum's case fields go under ``metadata.terum`` (the reader lifts them back): ``bucket`` is a label
  and keeps its meaning there; ``files``, ``fixture``, ``setup``, ``requires``, ``timeout_minutes`` and
  ``max_turns`` keep their values but agentv does not act on them, so each is reported as a loss;
- a terum suite becomes one test (``metadata.terum.suite: true``) whose rows are ``composite``
  assertions named after them; a terum trigger set becomes one test per prompt with a
  ``skill-trigger`` assertion (``metadata.terum.trigger: true``), so the agentv file routes.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ... import ir, yamlrt
from .. import Loss, WriteResult
from ...ir.kinds import SPECS, Absent, Agentv, AgentvField, Verbatim, spec_of
from ..losses import Rule, Table
from ..restore import Restore, carry_all
from .reader import TERUM_FIELDS, TERUM_META, TEST_ORDER, TOP_ORDER, canonical_check_order, canonical_order

FILE_NAME = "EVAL.yaml"
COMMON = ("name", "weight", "required", "min_score", "negate")

_FOREIGN = ("agent-skills", "skill-creator-triggers", "skillgym", "promptfoo")
TABLE = Table("agentv", {
    **{f"case.{fld}": Rule(f"kept as metadata.terum.{fld}; agentv does not act on it", kept=f"metadata.terum.{fld}")
       for fld in ("files", "fixture", "setup", "requires", "timeout_minutes", "max_turns")},
    **{feature: Rule("kept as a custom assertion type (transcript-mentions, ...); agentv runs it only with a "
                     "grader in .agentv/assertions/", kept="custom assertion type")
       for feature in dict.fromkeys(s.feature for s in SPECS.values()
                                    if isinstance(s.agentv, Agentv) and s.agentv.form == "custom")},
    "set.tests_file": Rule("written inline", kept="inline tests", sources=("agentv",)),
    "set.skill": Rule("lost unless a skill-trigger assertion names it, or it is written as the eval set's name "
                      "(a set without a name of its own), which an evals.json takes back as skill_name",
                      when="no skill-trigger names the skill and the set has a name of its own"),
    "case.tags": Rule("lost: agentv has no tags for a test"),
    "case.timeout_ms": Rule("lost: agentv has no timeout for a test"),
    "case.expected_fail": Rule("lost: agentv has no expected failure"),
    "case.unscored": Rule("agentv skips a test with no criteria, expected_output or assertions"),
    "suite": Rule("kept as one test (metadata.terum.suite) whose rows are composite assertions, scored against "
                  "that test's session", kept="metadata.terum.suite"),
    "triggers/no_skill": Rule("lost: a skill-trigger assertion needs a skill", when="the trigger set names no skill"),
    "triggers/empty": Rule("no test holds an empty trigger set", when="the trigger set has no prompts"),
    "triggers.extra": Rule("lost", covered_by="triggers"),
    "set.extra": Rule("lost: another format's top-level keys mean nothing to agentv", sources=_FOREIGN),
    "case.extra": Rule("lost: another format's test keys mean nothing to agentv", sources=_FOREIGN),
    "check.fields": Rule("lost: another format's assertion keys mean nothing to agentv", sources=_FOREIGN,
                         when="the check has extra keys"),
    "check.opaque": Rule("lost: agentv cannot run another format's code"),
})

#: What agentv does not do with a terum field it can only carry as metadata.
TERUM_LOSS = {
    "files": "agentv does not create 'files' in the workspace (kept as metadata.terum.files)",
    "fixture": "agentv does not copy a 'fixture' into the workspace (kept as metadata.terum.fixture; "
               "agentv's workspace.template is the nearest equivalent)",
    "setup": "agentv does not run 'setup' (kept as metadata.terum.setup; agentv's workspace hooks are the "
             "nearest equivalent)",
    "requires": "agentv does not probe 'requires' (kept as metadata.terum.requires)",
    "timeout_minutes": "agentv does not apply 'timeout_minutes' (kept as metadata.terum.timeout_minutes)",
    "max_turns": "agentv does not apply 'max_turns' (kept as metadata.terum.max_turns)",
}


def write(evalset: ir.EvalSet, existing: dict[str, str] | None = None) -> WriteResult:
    data, losses = to_data(evalset)
    old = None
    if existing:
        old = existing.get(FILE_NAME)
        if old is None and len(existing) == 1:
            old = next(iter(existing.values()))
    return WriteResult({FILE_NAME: yamlrt.dump(data, existing=old)}, losses)


def to_data(evalset: ir.EvalSet) -> tuple[Any, list[Loss]]:
    """The EVAL.yaml document as plain data, and what it could not carry."""
    return _Writer().top(evalset)


def _num(x: Any) -> Any:
    """Integral floats written as integers (``weight: 2``, not ``2.0``); ``-0.0`` stays a float."""
    if isinstance(x, float) and x.is_integer() and abs(x) < 2**53 and not (x == 0 and math.copysign(1.0, x) < 0):
        return int(x)
    return x


_INT_KEY = re.compile(r"(?:0|[1-9][0-9]{0,14})\Z")


def _int_keys(value: Any) -> Any:
    """Mapping keys that are integers written as integers (``0: ...``, not ``'0': ...``).

    The loader keeps every key as text, as JavaScript does (agentv sees ``"0"`` either way); writing
    them back unquoted keeps the file as its author wrote it."""
    if isinstance(value, dict):
        return {(int(k) if isinstance(k, str) and _INT_KEY.match(k) else k): _int_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_int_keys(v) for v in value]
    return value


def _ordered(values: dict[str, Any], order: list[Any] | None, canonical: list[Any]) -> dict[str, Any]:
    keys: list[Any] = []
    for k in (order or []):
        if k in values and k not in keys:
            keys.append(k)
    for k in canonical:
        if k in values and k not in keys:
            keys.append(k)
    for k in values:
        if k not in keys:
            keys.append(k)
    return {k: values[k] for k in keys}


#: Formats whose unknown keys an EVAL.yaml may carry as they are: agentv's own, and terum's (the same
#: authoring style; an unknown terum key is already reported in the source). Other formats' keys
#: (promptfoo's prompts/providers/vars, skillgym's workspace) are valid there and wrong here: lost.
CARRY_EXTRA = {"terum": carry_all}
_DROPPED = object()  # a check the output leaves out (reported as lost)


class _Writer:
    def __init__(self) -> None:
        self.losses: list[Loss] = []
        self.r = Restore("agentv", "agentv")  # (until :meth:`top` names the set's format: carry every key)

    def lose(self, feature: str, node: ir.Node | None, path: str, what: str) -> None:
        TABLE.add(self.losses, feature, node.span if node is not None else None, path, what)

    # ------------------------------------------------------------------------------- top level

    def top(self, es: ir.EvalSet) -> tuple[Any, list[Loss]]:
        self.r = Restore(es.format, "agentv", CARRY_EXTRA)
        if "document" in es.extra and not es.cases and len(es.extra) == 1:
            return es.extra["document"], self.losses
        values: dict[str, Any] = {}
        if es.name is not None:
            values["name"] = es.name
        elif (skill := self.unnamed_skill(es)) is not None:
            values["name"] = skill  # agentv's name for the set: converting back to evals.json gives skill_name
        if es.description is not None:
            values["description"] = es.description
        if es.tags is not None:
            values["tags"] = list(es.tags)
        if es.input is not None:
            values["input"] = self.input(es.input, es.hints)
        if es.checks or es.hints.get("assertions") == "empty":
            values["assertions"] = self.checks(es.checks, "assertions")
        tests = [self.case(c, f"tests[{i}]") for i, c in enumerate(es.cases)]
        if es.suite is not None:
            tests.append(self.suite(es.suite))
        if es.triggers is not None:
            tests.extend(self.triggers(es.triggers, {c.name for c in es.cases}))
        inlined = es.hints.get("inlined", [])
        if not tests and len(inlined) == 1 and not inlined[0].startswith("file://"):
            values["tests"] = inlined[0]  # a tests path that held nothing (or did not exist): keep it
        else:
            values["tests"] = tests
            for ref in inlined:
                self.lose("set.tests_file", es, "tests", f"tests read from '{ref}' are written inline")
        values = self.r.back(values, es, order_hint=None,  # (ordered below, from the hints)
                             lose=lambda k: self.lose("set.extra", es, k,
                                                      f"{es.format} key '{k}' (agentv has no such key)"))
        self.skill_name(es)
        present = list(values)
        canon = canonical_order(TOP_ORDER, present, extras_before="input")
        return _int_keys(_ordered(values, es.hints.get("keys"), canon)), self.losses

    @staticmethod
    def unnamed_skill(es: ir.EvalSet) -> str | None:
        """The skill name the source file wrote (evals.json ``skill_name``) when no skill-trigger assertion
        names it, so that only the set's name can carry it; else None."""
        skill = es.skill
        if skill is None or skill.span is None or es.name == skill.name:
            return None
        named = any(isinstance(c, ir.SkillTrigger) and c.skill == skill.name
                    for case in es.cases for c in case.checks) or any(
            isinstance(c, ir.SkillTrigger) and c.skill == skill.name for c in es.checks)
        return None if named else skill.name

    def skill_name(self, es: ir.EvalSet) -> None:
        """A skill name the source file wrote survives in the skill-trigger assertions that name it, or as
        the set's name (:meth:`unnamed_skill`); a set with a name of its own loses it."""
        skill = self.unnamed_skill(es)
        if skill is not None and es.name is not None:
            self.lose("set.skill", es.skill, "skill_name", f"skill name '{skill}' (agentv has no key for the skill a "
                                                           f"file tests, and the set's name is '{es.name}')")

    # ------------------------------------------------------------------------------------ input

    def message(self, m: ir.Message) -> dict[str, Any]:
        out: dict[str, Any] = {"role": m.role}
        if m.content is not None or "tool_calls" not in m.extra:
            out["content"] = self.content(m.content)
        out.update(m.extra)
        return out

    def content(self, content: Any) -> Any:
        if isinstance(content, list) and content and all(isinstance(p, ir.ContentPart) for p in content):
            parts = []
            for p in content:
                part = {"type": p.type, "value": p.value}
                part.update(p.extra)
                parts.append(part)
            return parts
        if isinstance(content, ir.ContentPart):  # pragma: no cover - defensive
            return {"type": content.type, "value": content.value, **content.extra}
        return content

    def input(self, value: ir.Input, hints: dict[str, Any]) -> Any:
        if isinstance(value, str):
            return value
        shape = hints.get("input")
        if shape == "message" and len(value) == 1:
            return self.message(value[0])
        if shape == "content" and len(value) == 1 and value[0].role == "user" and not value[0].extra:
            return value[0].content
        return [self.message(m) for m in value]

    # ------------------------------------------------------------------------------------- case

    def case(self, case: ir.Case, where: str) -> Any:
        if case.hints.get("raw"):
            return case.extra.get("test")
        values: dict[str, Any] = {}
        if not case.hints.get("no_id"):
            values["id"] = case.name
        if case.judge is not None:
            values["criteria"] = case.judge
        if case.input is not None:
            values["input"] = self.input(case.input, case.hints)
        if case.input_files is not None:
            values["input_files"] = list(case.input_files)
        if case.expected_output is not None:
            values["expected_output"] = case.expected_output
        if case.checks or case.hints.get("assertions") == "empty":
            values["assertions"] = self.checks(case.checks, f"{where}.assertions")
        meta = self.metadata(case, where)
        if meta is not None:
            values["metadata"] = meta
        values = self.r.back(values, case, order_hint=None,
                             lose=lambda k: self.lose("case.extra", case, f"{where}.{k}",
                                                      f"'{k}' of test '{case.name}' (agentv has no such key)"))
        for fld in ("tags", "timeout_ms", "expected_fail"):
            if getattr(case, fld) is not None:
                self.lose(f"case.{fld}", case, f"{where}.{fld}", f"agentv has no '{fld}' for a test")
        if not (case.checks or case.judge or case.expected_output is not None or "turns" in case.extra):
            self.lose("case.unscored", case, where, f"agentv skips test '{case.name}': it has no criteria, "
                                                    f"expected_output or "
                                   "assertions")
        present = list(values)
        return _ordered(values, case.hints.get("keys"), canonical_order(TEST_ORDER, present))

    def metadata(self, case: ir.Case, where: str, marker: dict[str, Any] | None = None) -> dict[str, Any] | None:
        terum: dict[str, Any] = {}
        for fld in TERUM_FIELDS:
            value = getattr(case, fld)
            if value is None:
                continue
            terum[fld] = value  # as read: 30 stays 30 and 30.0 stays 30.0 (a round trip keeps the type)
            if fld in TERUM_LOSS:
                self.lose(f"case.{fld}", case, f"{where}.{fld}", TERUM_LOSS[fld])
        if marker:
            terum.update(marker)
        if not terum:
            return dict(case.metadata) if case.metadata is not None else None
        meta = {k: v for k, v in (case.metadata or {}).items() if k != TERUM_META}
        meta[TERUM_META] = terum
        return meta

    def suite(self, suite: ir.Suite) -> dict[str, Any]:
        entries = []
        for i, entry in enumerate(suite.entries):
            row: dict[str, Any] = {"name": entry.name, "type": "composite",
                                   "assertions": self.checks(entry.checks, f"suite.cases[{i}].checks")}
            row.update(entry.extra)
            entries.append(row)
        values: dict[str, Any] = {"id": suite.name}
        if suite.judge is not None:
            values["criteria"] = suite.judge
        if suite.input is not None:
            values["input"] = self.input(suite.input, suite.hints)
        values["assertions"] = entries + self.checks(suite.checks, "suite.checks")
        values["metadata"] = self.metadata(suite, "suite", {"suite": True})
        for k, v in suite.extra.items():
            values[k] = v
        self.lose("suite", suite, "suite", "agentv scores each test in its own session: the suite's rows are written "
                                           "as "
                                  "composite assertions of one test, scored against that test's session")
        return values

    def triggers(self, ts: ir.TriggerSet, taken: set[str]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        counts = {True: 0, False: 0}
        if ts.skill is None and ts.prompts:  # a skill-trigger without 'skill' is an error agentv refuses
            self.lose("triggers/no_skill", ts, "triggers", f"{len(ts.prompts)} trigger prompts (the trigger set names "
                                                           f"no "
                                                           "skill, and a skill-trigger assertion needs one)")
            return out
        if not ts.prompts:
            self.lose("triggers/empty", ts, "triggers", "the trigger set has no prompts: agentv has no test to hold it")
        for p in ts.prompts:
            counts[p.should_trigger] += 1
            base = "should-trigger" if p.should_trigger else "should-not-trigger"
            name = f"{base}-{counts[p.should_trigger]}"
            while name in taken:
                name += "-trigger"
            assertion: dict[str, Any] = {"type": "skill-trigger"}
            if ts.skill is not None:
                assertion["skill"] = ts.skill
            assertion["should_trigger"] = p.should_trigger
            test = {"id": name, "input": p.text, "assertions": [assertion],
                    "metadata": {TERUM_META: {"trigger": True}}}
            if p.extra:
                self.lose("triggers.extra", p, "triggers", f"agentv has no place for {', '.join(sorted(p.extra))} of a "
                                                           f"trigger prompt")
            out.append(test)
        if ts.extra:
            self.lose("triggers.extra", ts, "triggers", f"agentv has no place for {', '.join(sorted(ts.extra))} of a "
                                                        f"trigger set")
        return out

    # ----------------------------------------------------------------------------------- checks

    def checks(self, checks: list[Any], where: str) -> list[Any]:
        out = [self.check(c, f"{where}[{i}]") for i, c in enumerate(checks)]
        return [x for x in out if x is not _DROPPED]  # (an agentv entry may itself be null)

    def check(self, c: ir.CheckBase, where: str) -> Any:
        """One assertion entry: its kind's agentv entry (:mod:`evalfmt.ir.kinds`) written by its form's method
        (:data:`FORM_WRITERS`); a check kept as it was read goes back as it was, from its own format."""
        spec = spec_of(c)
        entry = spec.agentv
        if isinstance(entry, Verbatim):
            return self._verbatim(c, entry, where)  # type: ignore[arg-type]
        if isinstance(entry, Absent):
            self.lose(spec.feature, c, where, f"{entry.why} ({c.label()})")
            return _DROPPED
        return getattr(self, FORM_WRITERS[entry.form])(c, entry, where)

    def _verbatim(self, c: ir.Opaque, entry: Verbatim, where: str) -> Any:
        if c.origin == "agentv" or c.origin is None and isinstance(c.raw, dict) and "type" in c.raw:
            return c.raw
        self.lose(spec_of(c).feature, c, where, f"{entry.why.format(origin=c.origin or 'unknown')} ({c.label()})")
        return _DROPPED

    def _rubrics(self, c: ir.Rubrics, entry: Agentv, where: str) -> Any:
        """A plain string when it was read as one, else its fields."""
        if c.hints.get("shorthand") == "string" and len(c.criteria) == 1 and isinstance(c.criteria[0], str) \
                and not c.extra and all(getattr(c, f) is None for f in COMMON):
            return c.criteria[0]
        return self._assertion(c, entry, where)

    def _custom(self, c: ir.CheckBase, entry: Agentv, where: str) -> Any:
        """A kind agentv has no type for, written as a custom assertion type agentv runs only with a grader of
        that name; a field of the check the type has no key for is lost."""
        kind = c.kind
        self.lose(spec_of(c).feature, c, where, f"agentv has no built-in '{kind}' check: written as the custom "
                                                f"assertion type '{entry.type}', which agentv runs only with a "
                                                f"grader in .agentv/assertions/{entry.type}.ts")
        keyed = {f.field for f in entry.fields}
        for name in ir.field_names(type(c)):
            if name not in keyed and name not in _CHECK_BASE and getattr(c, name):
                self.lose("check.fields", c, where, f"'{name}' of check '{c.label()}' (agentv has no such key)")
        return self._assertion(c, entry, where)

    def _assertion(self, c: ir.CheckBase, entry: Agentv, where: str) -> Any:
        return self._entry(c, where, self._fields(c, entry, where))

    def _fields(self, c: ir.CheckBase, entry: Agentv, where: str) -> dict[str, Any]:
        """``type`` and the entry's keys the check has a value for, written by their field's type."""
        values: dict[str, Any] = {"type": entry.type}
        for f in entry.fields:
            value = getattr(c, f.field)
            if value is not None:
                values[f.key] = self._value(c, f, value, entry, where)
        return values

    def _value(self, c: ir.CheckBase, f: AgentvField, value: Any, entry: Agentv, where: str) -> Any:
        typ = f.type.rstrip("?")
        if typ == "number":
            return _num(value)
        if typ == "criteria" and self.r.hints(c).get("criteria") == "text" and len(value) == 1 \
                and isinstance(value[0], str):
            return value[0]
        if typ == "checks":
            return self.checks(value, f"{where}.{f.key}")
        if typ == "aggregator":
            return self._aggregator(value, entry)
        return value

    def _aggregator(self, agg: ir.Aggregator, entry: Agentv) -> dict[str, Any]:
        """A composite's aggregator: its keys, then the others it was read with, in the order read."""
        values = {f.key: _num(v) if f.type.startswith("number") else v
                  for f in entry.aggregator if (v := getattr(agg, f.field)) is not None}
        return self.r.back(values, agg, order_hint=None, order=self.r.hints(agg).get("keys"))

    def _llm_grader(self, c: ir.LlmGrader, entry: Agentv, where: str) -> Any:
        """``prompt``: its text, else its executable template as written."""
        values = self._fields(c, entry, where)
        if c.template is not None and c.prompt is None:
            values["prompt"] = c.template
        return self._entry(c, where, values)

    def _code_grader(self, c: ir.CodeGrader, entry: Agentv, where: str) -> Any:
        """Its fields, then the config's keys after the others (in the order read, by the keys hint)."""
        out = self._entry(c, where, self._fields(c, entry, where))
        out.update(c.config or {})
        return _ordered(out, c.hints.get("keys"), list(out))

    def _entry(self, c: ir.CheckBase, where: str, typed: dict[str, Any]) -> Any:
        """The shared part of every assertion entry: its name, the common fields, its own extra keys, in
        the key order it was read in (or agentv's canonical one)."""
        values: dict[str, Any] = {"name": c.name} if c.name is not None else {}
        values.update(typed)
        for fld in COMMON[1:]:
            value = getattr(c, fld)
            if value is not None:
                values[fld] = _num(value) if isinstance(value, float) else value
        values = self.r.back(values, c, order_hint=None,
                             lose=lambda k: self.lose("check.fields", c, where,
                                                      f"'{k}' of check '{c.label()}' (agentv has no such key)"))
        return _ordered(values, c.hints.get("keys"), canonical_check_order(c.kind, list(values)))


#: The method of :class:`_Writer` that writes each agentv form (a kind's form is its spec's ``agentv.form``).
FORM_WRITERS: dict[str, str] = {
    "fields": "_assertion",
    "rubrics": "_rubrics",
    "llm-grader": "_llm_grader",
    "code-grader": "_code_grader",
    "custom": "_custom",
    "composite": "_assertion",
}
#: the fields every check has (:class:`~evalfmt.ir.CheckBase`), written by :meth:`_Writer._entry`
_CHECK_BASE = frozenset(ir.field_names(ir.CheckBase)) | {"kind"}
