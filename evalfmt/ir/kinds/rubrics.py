"""agentv's ``rubrics``: criteria a model grades the output against (promptfoo's ``llm-rubric``, one per
criterion; an ``evals.json``'s expectations; terum's judge)."""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal

from ...js import get
from ..node import CheckBase, node
from .spec import Absent, AgentSkills, Agentv, AgentvField, Evidence, KindSpec, Outcome, Promptfoo, Terum


def criterion_text(criterion: str | dict[str, Any]) -> str:
    """A criterion's text: itself, or an agentv criterion object's outcome (else its description)."""
    if isinstance(criterion, str):
        return criterion
    return str(criterion.get("outcome") or criterion.get("description") or "")


@node
class Rubrics(CheckBase):
    """A rubric: criteria strings (or agentv criterion objects) an LLM grades."""

    kind: Literal["rubrics"] = "rubrics"
    criteria: list[str | dict[str, Any]] = field(default_factory=list)

    @property
    def arg(self) -> str:
        return "; ".join(c if isinstance(c, str) else str(c.get("outcome") or c.get("description") or c)
                         for c in self.criteria)


def rubric(check: Rubrics, ev: Evidence) -> tuple[str | None, str]:
    lines = [criterion_text(c) for c in check.criteria]
    return "\n".join(f"- {x}" for x in lines if x) or None, "the rubric has no criteria"


def _score(check: Rubrics, ev: Evidence) -> Outcome:
    return ev.model_grade(check, *rubric(check, ev))


def _transpiled(entry: Any) -> str | None:
    """agentv transpile keeps criteria given as one text; a list of criteria makes no sentence."""
    crit = get(entry, "criteria")
    return crit if isinstance(crit, str) else None


def _lossy(entry: Any) -> str | None:
    if isinstance(get(entry, "criteria"), str):
        return None
    return ("drops a rubric's criteria list from evals.json; if the criteria matter there, state them in the "
            "test's 'criteria' too")


SPEC = KindSpec(
    kind="rubrics", cls=Rubrics, description="A model grades the output against these criteria.",
    feature="check.rubric", looks_at="model", asserts="score", graded=True, score=_score,
    sentence=lambda c: "; ".join(x if isinstance(x, str) else str(x.get("outcome") or x.get("description") or x)
                                 for x in c.criteria),
    terum=Terum("criteria", form="judge"),
    agentv=Agentv("rubrics", (AgentvField("criteria", "criteria", "criteria", True),), form="rubrics",
                  sentence=_transpiled, lossy=_lossy),
    promptfoo=Promptfoo("llm-rubric", form="rubric"),
    skillgym=Absent("no model grader"),
    agent_skills=AgentSkills("expectations", "criteria"))
SPECS = (SPEC,)
