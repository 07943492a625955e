"""agentv's ``llm-grader``: a model grades the output against a prompt (inline text or a file), or against the
test's criteria when it has no prompt; a prompt that is an executable template is a program evalfmt does not
run."""

from __future__ import annotations

from typing import Any, Literal

from ...js import coalesce, get
from ..node import CheckBase, node
from ._words import TERUM_NO_OUTPUT
from .spec import Absent, Agentv, AgentvField, Evidence, KindSpec, Outcome


@node
class LlmGrader(CheckBase):
    """An LLM grader; ``prompt`` is inline text or a path to a prompt file; ``template`` an executable prompt
    template instead (agentv ``prompt: {command: [argv...], config: {...}}``, held as written: a program
    evalfmt does not run)."""

    kind: Literal["llm-grader"] = "llm-grader"
    prompt: str | None = None
    template: dict[str, Any] | None = None

    @property
    def arg(self) -> str:
        return self.prompt or ""


def rubric(check: LlmGrader, ev: Evidence) -> tuple[str | None, str]:
    """What the judge grades against, or (None, why it cannot be graded)."""
    if check.prompt is None and check.template is not None:
        return None, "an llm-grader prompt template is a command evalfmt does not run"
    if check.prompt is None:
        return (ev.criteria, "") if ev.criteria else (None, "the llm-grader has no prompt and the test no criteria")
    return ev.prompt_text(check.prompt, check)


def _score(check: LlmGrader, ev: Evidence) -> Outcome:
    return ev.model_grade(check, *rubric(check, ev))


def _rubrics(entry: Any) -> list[Any] | None:
    rubrics = get(entry, "rubrics")
    return rubrics if isinstance(rubrics, list) and rubrics else None


def _transpiled(entry: Any) -> str | list[str] | None:
    """agentv transpile: a grader with rubrics makes their outcomes (else criteria, else id: the texts among
    them); else its prompt text."""
    rubrics = _rubrics(entry)
    if rubrics is not None:
        texts = (coalesce(get(r, "outcome"), get(r, "criteria"), get(r, "id")) for r in rubrics)
        return [t for t in texts if isinstance(t, str)]
    prompt = get(entry, "prompt")
    return prompt if isinstance(prompt, str) else None


def _lossy(entry: Any) -> str | None:
    """agentv transpile drops an llm-grader without rubrics whose prompt is no text."""
    prompt = get(entry, "prompt")
    if _rubrics(entry) is not None or isinstance(prompt, str):
        return None
    if isinstance(prompt, dict):
        return ("drops an llm-grader whose prompt is a template command from evals.json; state what it checks in "
                "the test's 'criteria' if evals.json needs it")
    return "drops an llm-grader without a prompt from evals.json; give it a 'prompt'"


SPEC = KindSpec(
    kind="llm-grader", cls=LlmGrader, description="A model grades the output against the prompt (or the criteria).",
    feature="check.rubric", looks_at="model", asserts="score", graded=True, score=_score,
    sentence=lambda c: c.prompt or "An LLM grader accepts the output",
    terum=Absent(TERUM_NO_OUTPUT),
    agentv=Agentv("llm-grader", (AgentvField("prompt", "prompt", "prompt"),), form="llm-grader",
                  spellings=("llm_grader",), sentence=_transpiled, lossy=_lossy),
    promptfoo=Absent("no promptfoo equivalent"),
    skillgym=Absent("no model grader"),
    aliases={"llm-judge": "llm-grader"},
    paths={"prompt": "path"})
SPECS = (SPEC,)
