"""A check no kind fits: an unknown terum kind, an agentv custom assertion, a malformed entry, a skillgym
statement evalfmt does not model. It carries the value as read; each format writes back its own, and evalfmt
does not score it (a malformed or unknown terum check fails, as terum's engine fails it)."""

from __future__ import annotations

from typing import Any, Literal

from ..node import CheckBase, node
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

    @property
    def arg(self) -> str:
        return self.type or ""

    def label(self) -> str:
        return f"{self.type}" if self.type else "opaque"


def _score(check: Opaque, ev: Evidence) -> Outcome:
    if check.origin not in (None, "terum"):
        return None, f"not scored: custom assertion '{check.type or 'opaque'}'"
    if check.type is None:
        return False, "unrecognized check spec"
    return False, f"unknown check kind '{check.type}'"


SPEC = KindSpec(
    kind="opaque", cls=Opaque, description="A check evalfmt does not model, kept as it was read.",
    feature="check.opaque", looks_at="nothing", asserts="score", graded=True, score=_score,
    sentence=lambda c: f"Passes the {c.origin + ' ' if c.origin else ''}check '{c.label()}'",
    terum=Verbatim("terum has no such check kind"),
    agentv=Verbatim("agentv cannot run this {origin} check"),
    promptfoo=Verbatim("no promptfoo equivalent"),
    skillgym=Verbatim("code"))
SPECS = (SPEC,)
