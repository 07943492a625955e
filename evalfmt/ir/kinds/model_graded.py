"""promptfoo's model-graded assertions (``g-eval``, ``model-graded-closedqa``, ``factuality``,
``answer-relevance``, the ``context-*`` graders, ...; an ``llm-rubric`` whose value is no text): a model grades
the output by the promptfoo grader ``grader`` names, holding it to ``value``; promptfoo's ``threshold`` is the
score the grade needs (``min_score``). Only promptfoo has these graders: other formats keep them as they keep a
check only its own tool runs (lost, in the words of an opaque one)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import orjson

from ..node import CheckBase, node
from ._words import AGENTV_CANNOT_RUN, TERUM_NO_KIND
from .spec import Evidence, KindSpec, Outcome, Promptfoo, Verbatim

#: promptfoo's model-graded assertion types besides ``g-eval`` (``llm-rubric``: one whose value is no text;
#: a text one is a ``rubrics`` check)
GRADERS = ("model-graded-closedqa", "model-graded-factuality", "factuality", "answer-relevance",
           "context-faithfulness", "context-recall", "context-relevance", "llm-rubric")


@node
class ModelGraded(CheckBase):
    """A model grades the output by promptfoo's grader ``grader`` (its assertion type), held to ``value`` (the
    assertion's value as read, None when it has none)."""

    kind: Literal["model-graded"] = "model-graded"
    grader: str
    value: Any = None
    #: the format whose tool has the grader (what another format's writer names in its loss)
    origin: ClassVar[str] = "promptfoo"

    @property
    def arg(self) -> str:
        return self.grader

    def label(self) -> str:
        return self.grader


def rubric(check: ModelGraded) -> str:
    """What the judge grades against: the grader's name and its value (JSON when it is no text)."""
    value = check.value
    return f"{check.grader}: {value if isinstance(value, str) else orjson.dumps(value).decode()}"


def _score(check: ModelGraded, ev: Evidence) -> Outcome:
    return ev.model_grade(check, rubric(check), "")


SPEC = KindSpec(
    kind="model-graded", cls=ModelGraded,
    description="A model grades the output by the promptfoo grader named (its assertion type).",
    feature="check.opaque", looks_at="model", asserts="score", graded=True, score=_score,
    sentence=lambda c: f"Passes the promptfoo check '{c.label()}'",
    terum=Verbatim(TERUM_NO_KIND),
    agentv=Verbatim(AGENTV_CANNOT_RUN),
    promptfoo=Promptfoo("g-eval", form="graded", field="grader", types=GRADERS, into="value"),
    skillgym=Verbatim("code"))
SPECS = (SPEC,)
