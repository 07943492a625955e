"""agentv's ``llm-grader``: a model grades the output against a prompt (inline text or a file), or against the
test's criteria when it has no prompt; a prompt that is an executable template is a program evalfmt does not
run."""

from __future__ import annotations

from typing import Any, Literal

from ...js import get
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


def _transpiled(entry: Any) -> str | None:
    """agentv transpile: a grader with rubrics makes their outcomes (not this sentence); else its prompt text."""
    rubrics = get(entry, "rubrics")
    if isinstance(rubrics, list) and rubrics:
        return None
    prompt = get(entry, "prompt")
    return prompt if isinstance(prompt, str) else None


SPEC = KindSpec(
    kind="llm-grader", cls=LlmGrader, description="A model grades the output against the prompt (or the criteria).",
    feature="check.rubric", looks_at="model", asserts="score", graded=True, score=_score,
    sentence=lambda c: c.prompt or "An LLM grader accepts the output",
    terum=Absent(TERUM_NO_OUTPUT),
    agentv=Agentv("llm-grader", (AgentvField("prompt", "prompt", "str"),), form="llm-grader",
                  spellings=("llm_grader",), sentence=_transpiled),
    promptfoo=Absent("no promptfoo equivalent"),
    skillgym=Absent("no model grader"),
    aliases={"llm-judge": "llm-grader"},
    paths={"prompt": "path"})
SPECS = (SPEC,)
