"""agentv's singular ``rubric``: a model grades the output against its ``criteria`` text (else its ``value``);
without either text it is not scored."""

from __future__ import annotations

from typing import ClassVar, Literal

from ..node import CheckBase, node
from ._words import TERUM_NO_KIND
from .spec import Agentv, AgentvField, Evidence, KindSpec, Outcome, Verbatim


@node
class Rubric(CheckBase):
    """agentv ``rubric``: the text a model grades the output against, ``criteria`` (else ``value``)."""

    kind: Literal["rubric"] = "rubric"
    criteria: str | None = None
    value: str | None = None
    #: the format whose tool runs it (what another format's writer names in its loss)
    origin: ClassVar[str] = "agentv"


def _score(check: Rubric, ev: Evidence) -> Outcome:
    text = check.criteria if check.criteria is not None else check.value
    if text is None or not text.strip():
        return ev.model_grade(check, None, "the rubric has no criteria")
    return ev.model_grade(check, text, "")


SPEC = KindSpec(
    kind="rubric", cls=Rubric, description="A model grades the output against the criteria text.",
    feature="check.opaque", looks_at="model", asserts="score", graded=True, score=_score,
    sentence=lambda c: f"Passes the agentv check '{c.label()}'",
    terum=Verbatim(TERUM_NO_KIND),
    agentv=Agentv("rubric", (AgentvField("criteria", "criteria", "str"), AgentvField("value", "value", "str")),
                  loose=True),
    promptfoo=Verbatim("no promptfoo equivalent"),
    skillgym=Verbatim("code"))
SPECS = (SPEC,)
