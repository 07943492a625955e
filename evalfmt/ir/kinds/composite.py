"""agentv's ``composite``: member assertions, each scored like any assertion, then aggregated by its
``aggregator``: ``weighted_average`` (the default: the members' scores weighted by ``weights[name]``, 1.0
by default), ``threshold`` (the fraction of members that passed, which passes at ``threshold``),
``code-grader`` (a program given ``{"results": {name: {score, verdict, assertions}}}``) or ``llm-grader``
(the judge, with the results in its prompt). Members that are not scored are left out of the aggregate, as
agentv leaves out skipped ones; when every member is, so is the composite. Only agentv runs it."""

from __future__ import annotations

from dataclasses import field
from typing import Annotated, Any, ClassVar, Literal

import orjson

from ..node import CheckBase, Node, node
from .code_grader import ONLY_IN_RUN, answer_score, answer_texts
from .opaque import Opaque
from ._words import TERUM_NO_KIND
from .spec import Agentv, AgentvField, Evidence, KindSpec, Outcome, Scored, Verbatim, number, verdict

RESULTS_PLACEHOLDER = "{{EVALUATOR_RESULTS_JSON}}"
DEFAULT_AGGREGATOR_PROMPT = ("Review the following evaluation results:\n" + RESULTS_PLACEHOLDER + "\n\n"
                             "Decide the final score based on all grader results.")


class AnyCheck:
    """Annotation marker: any IR check, the ``kind``-tagged union :mod:`evalfmt.ir` builds from the kinds (and
    sets here as :attr:`union` once it has); the hook runs only when :mod:`evalfmt.ir.adapter` builds its
    schema."""

    union: Any = CheckBase

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        return handler.generate_schema(AnyCheck.union)


@node
class Aggregator(Node):
    """How a composite aggregates its members: ``type`` (``weighted_average`` when absent or unknown,
    ``threshold``, ``code-grader``, ``llm-grader``), ``weights`` (member name -> weight, as written: a value
    that is no number weighs 1), ``threshold`` (the fraction of members that must pass), the aggregating
    program (``path``, else ``command``, as written) and its ``cwd``, the judge's ``prompt`` (text or a file
    relative to the eval file; its ``{{EVALUATOR_RESULTS_JSON}}`` becomes the members' results)."""

    type: str | None = None
    weights: dict[str, Any] | None = None
    threshold: float | None = None
    path: Any = None
    command: Any = None
    cwd: str | None = None
    prompt: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    hints: dict[str, Any] = field(default_factory=dict)


@node
class Composite(CheckBase):
    """agentv ``composite``: its ``members`` (IR checks, None when it has no list of them) aggregated by its
    ``aggregator`` (None: weighted_average)."""

    kind: Literal["composite"] = "composite"
    members: list[Annotated[CheckBase, AnyCheck()]] | None = None
    aggregator: Aggregator | None = None
    #: the format whose tool runs it (what another format's writer names in its loss)
    origin: ClassVar[str] = "agentv"


Result = tuple[bool | None, str, float | None]


def _name(member: CheckBase, i: int) -> str:
    return member.name or (member.type if isinstance(member, Opaque) else member.kind) or f"#{i}"


def member_score(result: Result) -> float:
    """A member's score: a graded assertion's own, else 1 for passed and 0 for failed."""
    passed, _, score = result
    return score if score is not None else (1.0 if passed else 0.0)


def _threshold(check: Composite, agg: Aggregator, scored: list[tuple[str, Result]], note: str) -> Outcome:
    need = agg.threshold
    if need is None:
        return False, "malformed check: a threshold aggregator needs a threshold"
    passing = sum(1 for _, r in scored if r[0])
    frac = passing / len(scored)
    ok = frac >= need - 1e-9
    what = f"{passing}/{len(scored)} members passed (threshold {need:g}): " + \
        ", ".join(f"{n} {'passed' if r[0] else 'failed'}" for n, r in scored) + note
    if check.negate:
        return Scored(not ok, f"negated: {what}", 1.0 - frac)
    return Scored(ok, what, frac)


def _weighted(check: Composite, agg: Aggregator, scored: list[tuple[str, Result]], note: str) -> Outcome:
    weights = agg.weights or {}
    parts: list[str] = []
    total = acc = 0.0
    for n, r in scored:
        w = number(weights.get(n))
        w = 1.0 if w is None else w
        s = member_score(r)
        total, acc = total + w, acc + w * s
        parts.append(f"{n} {s:.2f} (weight {w:g})")
    score = acc / total if total > 0 else 0.0
    return verdict(check, score, "weighted average of " + ", ".join(parts) + note)


def _by_program(check: Composite, agg: Aggregator, table: dict[str, Any], ev: Evidence) -> Outcome:
    if not ev.runs_programs:
        return None, ONLY_IN_RUN
    answer, why = ev.run_program(check, agg.path or agg.command, {"results": table}, agg.cwd)
    if answer is None:
        return (False, why) if why.startswith("malformed check") else verdict(check, 0.0, f"aggregator: {why}")
    score = answer_score(answer)
    said = answer.get("verdict")
    what = f"code aggregator: {answer_texts(answer)}"
    if said in ("pass", "fail"):
        ok = said == "pass"
        if check.negate:
            return Scored(not ok, f"negated: score {score:.2f}, verdict {said}: {what}", 1.0 - score)
        return Scored(ok, f"score {score:.2f}, verdict {said}: {what}", score)
    return verdict(check, score, what)


def _by_judge(check: Composite, agg: Aggregator, table: dict[str, Any], ev: Evidence) -> Outcome:
    prompt = agg.prompt
    template, why = ev.prompt_text(prompt, check) if isinstance(prompt, str) else (DEFAULT_AGGREGATOR_PROMPT, "")
    rubric = None if template is None else \
        template.replace(RESULTS_PLACEHOLDER, orjson.dumps(table, option=orjson.OPT_INDENT_2).decode())
    return ev.model_grade(check, rubric, why)


def _outside(kind: str, check: Composite, agg: Aggregator, names: list[str], results: list[Result],
             ev: Evidence) -> Outcome:
    """A code-grader or llm-grader aggregator: given every member's result."""
    table = {n: {"score": None if r[0] is None else member_score(r),
                 "verdict": "skip" if r[0] is None else ("pass" if r[0] else "fail"),
                 "assertions": [{"text": r[1], "passed": bool(r[0])}]} for n, r in zip(names, results)}
    return _by_program(check, agg, table, ev) if kind == "code-grader" else _by_judge(check, agg, table, ev)


def _score(check: Composite, ev: Evidence) -> Outcome:
    if not check.members:
        return False, "malformed check: composite needs assertions"
    names = [_name(m, i) for i, m in enumerate(check.members, 1)]
    results = [ev.result(m) for m in check.members]
    agg = check.aggregator or Aggregator()
    kind = agg.type or "weighted_average"
    if kind in ("code-grader", "llm-grader"):
        return _outside(kind, check, agg, names, results, ev)
    scored = [(n, r) for n, r in zip(names, results) if r[0] is not None]
    skipped = [f"{n} ({r[1].removeprefix('not scored: ')})" for n, r in zip(names, results) if r[0] is None]
    if not scored:
        return None, "not scored: no member could be scored: " + ", ".join(skipped)
    note = f"; not scored: {', '.join(skipped)}" if skipped else ""
    return (_threshold if kind == "threshold" else _weighted)(check, agg, scored, note)


AGGREGATOR = (AgentvField("type", "type", "str"), AgentvField("weights", "weights", "mapping"),
              AgentvField("threshold", "threshold", "number"), AgentvField("path", "path", "any"),
              AgentvField("command", "command", "any"), AgentvField("cwd", "cwd", "str"),
              AgentvField("prompt", "prompt", "str"))

SPEC = KindSpec(
    kind="composite", cls=Composite, description="Member assertions scored, then aggregated (agentv's composite).",
    feature="check.opaque", looks_at="members", asserts="score", graded=True, score=_score,
    sentence=lambda c: f"Passes the agentv check '{c.label()}'",
    terum=Verbatim(TERUM_NO_KIND),
    agentv=Agentv("composite", (AgentvField("members", "assertions", "checks"),
                                AgentvField("aggregator", "aggregator", "aggregator")),
                  form="composite", loose=True, aggregator=AGGREGATOR),
    promptfoo=Verbatim("no promptfoo equivalent"),
    skillgym=Verbatim("code"),
    paths={"members": "checks", "aggregator": {"path": "path", "command": "command", "prompt": "path"}})
SPECS = (SPEC,)
