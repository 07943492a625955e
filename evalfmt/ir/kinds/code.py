"""Code only its own tool runs: promptfoo's ``javascript``, ``python`` and ``webhook`` assertions (``language``
names which, ``source`` holds the code, its file or the webhook's URL, as read). evalfmt does not run it: not
scored; other formats keep it as they keep a check only its own tool runs (lost, in the words of an opaque
one)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from ..node import CheckBase, node
from ._words import AGENTV_CANNOT_RUN, TERUM_NO_KIND
from .spec import Evidence, KindSpec, Outcome, Promptfoo, Verbatim


@node
class Code(CheckBase):
    """promptfoo's code assertion of type ``language`` (``javascript``, ``python``, ``webhook``) with its value
    ``source`` (as read, None when it has none)."""

    kind: Literal["code"] = "code"
    language: str
    source: Any = None
    #: the format whose tool runs the code (what another format's writer names in its loss)
    origin: ClassVar[str] = "promptfoo"

    @property
    def arg(self) -> str:
        return self.language

    def label(self) -> str:
        return self.language


def _score(check: Code, ev: Evidence) -> Outcome:
    return None, f"not scored: promptfoo's {check.language} assertion is code evalfmt does not run"


SPEC = KindSpec(
    kind="code", cls=Code, description="Code only its own tool runs (promptfoo's javascript, python, webhook).",
    feature="check.opaque", looks_at="nothing", asserts="score", graded=True, score=_score,
    sentence=lambda c: f"Passes the promptfoo check '{c.label()}'",
    terum=Verbatim(TERUM_NO_KIND),
    agentv=Verbatim(AGENTV_CANNOT_RUN),
    promptfoo=Promptfoo("javascript", form="code", field="language", types=("python", "webhook"), into="source"),
    skillgym=Verbatim("code"))
SPECS = (SPEC,)
