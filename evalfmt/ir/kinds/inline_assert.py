"""agentv's ``inline-assert``: a function of agentv's TypeScript API (``evaluate()``); an eval file holds no
function to run, so evalfmt does not score it."""

from __future__ import annotations

from typing import ClassVar, Literal

from ..node import CheckBase, node
from ._words import TERUM_NO_KIND
from .spec import Agentv, Evidence, KindSpec, Outcome, Verbatim


@node
class InlineAssert(CheckBase):
    """agentv ``inline-assert`` (its keys kept in ``extra``)."""

    kind: Literal["inline-assert"] = "inline-assert"
    #: the format whose tool runs it (what another format's writer names in its loss)
    origin: ClassVar[str] = "agentv"


def _score(check: InlineAssert, ev: Evidence) -> Outcome:
    return None, ("not scored: inline-assert is a function of agentv's TypeScript API; an eval file holds no "
                  "function to run")


SPEC = KindSpec(
    kind="inline-assert", cls=InlineAssert, description="A function of agentv's TypeScript API (not scored).",
    feature="check.opaque", looks_at="nothing", asserts="score", graded=True, score=_score,
    sentence=lambda c: f"Passes the agentv check '{c.label()}'",
    terum=Verbatim(TERUM_NO_KIND),
    agentv=Agentv("inline-assert", loose=True),
    promptfoo=Verbatim("no promptfoo equivalent"),
    skillgym=Verbatim("code"))
SPECS = (SPEC,)
