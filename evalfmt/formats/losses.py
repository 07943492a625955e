"""The one place where what a writer cannot carry becomes a :class:`~evalfmt.formats.Loss`.

Every writer declares a :class:`Table`: for each *feature* of the IR (a row of the conversion matrix,
:data:`FEATURES`) that it does not hold as its own meaning, a :class:`Rule` saying whether the output
still keeps the value (as metadata, a custom assertion type, ...: ``kept``) or loses it, and when. A
writer reports through ``TABLE.add(losses, feature, span, fallback, what)`` (``TABLE.loss`` builds the
:class:`Loss`); a feature without a rule is a bug
(KeyError), so the tables are complete by construction. ``docs/conversions.md`` is generated from the
tables (:mod:`evalfmt.formats.matrix`) and a test checks it against real conversions.

Pure data and no pydantic: importable from anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..ir.kinds import SPECS, Terum
from . import Loss, loss_at

#: The matrix rows: IR features a source may use, in the order the docs list them.
FEATURES: dict[str, str] = {
    "set.name": "the eval set's name",
    "set.description": "the eval set's description",
    "set.tags": "the eval set's tags",
    "set.input": "a shared input prepended to every test",
    "set.checks": "checks applied to every test (agentv suite-level assertions, promptfoo defaultTest)",
    "set.skill": "the skill a file names (evals.json skill_name)",
    "set.extra": "format-specific top-level keys (promptfoo providers, a skillgym workspace, ...)",
    "set.tests_file": "tests kept in another file (agentv 'tests: path', promptfoo 'file://')",
    "case.input": "a test's prompt as plain text",
    "case.messages": "a test's input as chat messages",
    "case.name": "a test's name or id",
    "case.judge": "a rubric for the whole answer (terum judge, agentv criteria)",
    "case.expected_output": "the expected output",
    "case.files": "inline files created in the workspace (terum files)",
    "case.fixture": "a fixture folder copied into the workspace (terum fixture)",
    "case.setup": "a setup command (terum setup)",
    "case.bucket": "terum's bucket label",
    "case.requires": "binaries the case needs (terum requires)",
    "case.timeout_minutes": "terum's timeout_minutes",
    "case.max_turns": "terum's max_turns",
    "case.input_files": "input files given to the agent (agentv input_files, evals.json files)",
    "case.metadata": "a test's metadata",
    "case.tags": "a test's tags",
    "case.timeout_ms": "skillgym's timeoutMs",
    "case.expected_fail": "skillgym's expectedFail",
    "case.extra": "format-specific keys of a test (promptfoo vars, skillgym classifyFailure, ...)",
    "case.unscored": "a test with nothing to score",
    "check.transcript": "transcript checks (transcript_mentions, transcript_omits)",
    "check.command": "command checks (command_matching, no_command_matching)",
    "check.workspace": "workspace checks (file_exists, file_absent, command_succeeds)",
    "check.skill_trigger": "skill-trigger checks",
    "check.output": "final-output checks (contains, regex, equals, is-json, ...)",
    "check.rubric": "model-graded checks (rubrics, llm-grader)",
    "check.code_grader": "code-grader checks",
    "check.trajectory": "tool-trajectory checks",
    "check.budget": "latency, cost and token-usage checks",
    "check.opaque": "checks only their own format runs (skillgym code and fileReads, promptfoo javascript, agentv "
                    "composite, ...)",
    "check.fields": "a check's name, weight, required, min_score, negate and extra keys",
    "suite": "a terum suite (rows scored against one session)",
    "triggers": "trigger prompts (should / should not trigger)",
    "triggers.extra": "extra keys of a trigger set or prompt",
    "code": "top-level code of a skillgym suite (helpers, setup calls)",
}

def check_feature(kind: str) -> str:
    """The matrix row a check of ``kind`` fills (its spec's ``feature``; an unknown kind: a final-output check)."""
    spec = SPECS.get(kind)
    return spec.feature if spec is not None else "check.output"


@dataclass(frozen=True)
class Rule:
    """What a target does with one feature it does not hold as its own meaning.

    ``text``: one phrase for the matrix; ``kept``: where the output keeps the value (None: lost);
    ``when``: the condition, when the rule applies to some values of the feature only."""


    text: str
    kept: str | None = None
    when: str | None = None
    #: the source formats the rule applies to (None: every source)
    sources: tuple[str, ...] | None = None
    #: a feature whose loss already reports this one (a whole test lost reports its fields too)
    covered_by: str | None = None


class Table:
    """A writer's loss table: rule keys are a feature, or ``feature/variant`` for a second rule."""

    def __init__(self, target: str, rules: dict[str, Rule]):
        for key in rules:
            assert key.split("/")[0] in FEATURES, key
        self.target = target
        self.rules = rules

    def loss(self, key: str, span: Any, fallback: str, what: str) -> Loss:
        rule = self.rules[key]
        return loss_at(span, fallback, what, rule.kept, key)

    def add(self, losses: list[Loss], key: str, span: Any, fallback: str, what: str) -> None:
        """Record the loss of feature ``key`` in ``losses``: the one call every writer reports through."""
        losses.append(self.loss(key, span, fallback, what))


def features_of(evalset: Any) -> set[str]:
    """The features an eval set (IR) uses: the matrix rows it fills."""
    out: set[str] = set()
    es = evalset
    for f in ("name", "description", "tags", "input"):
        if getattr(es, f):
            out.add(f"set.{f}")
    if es.checks:
        out.add("set.checks")
    out.update(_checks(es.checks))
    if es.skill is not None and es.skill.span is not None:
        out.add("set.skill")
    if es.extra:
        out.add("set.extra")
    if es.hints.get("inlined") or es.hints.get("tests_layout"):
        out.add("set.tests_file")
    if es.hints.get("code"):
        out.add("code")
    for case in es.cases:
        out.update(_case(case))
    if es.suite is not None:
        out.add("suite")
        out.update(_case(es.suite))
        for entry in es.suite.entries:
            out.update(_checks(entry.checks))
    if es.triggers is not None and es.triggers.prompts:
        out.add("triggers")
        if es.triggers.extra or any(p.extra for p in es.triggers.prompts):
            out.add("triggers.extra")
    return out


def _case(case: Any) -> set[str]:
    out = {"case.name"}
    if isinstance(case.input, str):
        out.add("case.input")
    elif case.input is not None:
        out.add("case.messages")
    for f in ("judge", "expected_output", "files", "fixture", "setup", "bucket", "requires", "timeout_minutes",
              "max_turns", "input_files", "metadata", "tags", "timeout_ms", "expected_fail"):
        if getattr(case, f) is not None:
            out.add(f"case.{f}")
    if case.extra:
        out.add("case.extra")
    out.update(_checks(case.checks))
    return out


def _checks(checks: list[Any]) -> set[str]:
    out = set()
    for c in checks:
        out.add(check_feature(c.kind))
        if c.extra or any(getattr(c, f) is not None for f in ("name", "weight", "required", "min_score", "negate")) \
                or (isinstance(SPECS[c.kind].terum, Terum) and getattr(c, "flags", None)):  # (terum's regexes: none)
            out.add("check.fields")
    return out
