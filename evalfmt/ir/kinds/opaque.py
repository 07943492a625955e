"""A check no kind fits: an unknown terum kind, an agentv custom assertion, a malformed entry, a skillgym
statement evalfmt does not model. It carries the value as read; each format writes back its own. evalfmt
scores it as its own tool would, by what the reader filled in: a check its tool fails (``fails``: terum's
engine fails an unknown kind or a malformed entry) fails; a known kind its tool runs on an argument it
coerces (``runs_with``: terum's ``String()`` of a missing or non-string argument) is scored as that kind on
that text; anything else is a custom assertion evalfmt does not run (not scored)."""

from __future__ import annotations

from typing import Any, Literal

from ..node import CheckBase, node
from ._words import AGENTV_CANNOT_RUN, TERUM_NO_KIND
from .spec import Evidence, KindSpec, Outcome, Verbatim


@node
class Opaque(CheckBase):
    """A check no class fits: an unknown terum kind, an agentv custom assertion, a malformed entry, a
    skillgym statement. ``type`` is its type/kind name when it has one, ``raw``
    the original value exactly as read, ``origin`` the format it came from."""

    kind: Literal["opaque"] = "opaque"
    type: str | None = None
    raw: Any = None
    origin: str | None = None
    #: the detail its own tool fails it with (None: its tool runs it, evalfmt does not)
    fails: str | None = None
    #: the argument text its own tool runs the known kind ``type`` with (terum's String() of a missing or
    #: non-string argument)
    runs_with: str | None = None

    @property
    def arg(self) -> str:
        return self.type or ""

    def label(self) -> str:
        return f"{self.type}" if self.type else "opaque"


def _score(check: Opaque, ev: Evidence) -> Outcome:
    if check.fails is not None:
        return False, check.fails
    if check.runs_with is not None and check.type is not None:
        return ev.score_as(check.type, check.runs_with)
    return None, f"not scored: custom assertion '{check.type or 'opaque'}'"


SPEC = KindSpec(
    kind="opaque", cls=Opaque, description="A check evalfmt does not model, kept as it was read.",
    feature="check.opaque", looks_at="nothing", asserts="score", graded=True, score=_score,
    sentence=lambda c: f"Passes the {c.origin + ' ' if c.origin else ''}check '{c.label()}'",
    terum=Verbatim(TERUM_NO_KIND),
    agentv=Verbatim(AGENTV_CANNOT_RUN),
    promptfoo=Verbatim("no promptfoo equivalent"),
    skillgym=Verbatim("code"))
SPECS = (SPEC,)
