"""agentv's ``equals``: the final output equals the value, both trimmed (a value that is no string compares as
``String()`` of it, a list or mapping as its JSON)."""

from __future__ import annotations

from typing import Any, Literal

from ... import js
from ...js import get
from ..node import CheckBase, node
from ._words import TERUM_NO_OUTPUT
from .spec import Absent, Agentv, AgentvField, Evidence, KindSpec, Outcome, Promptfoo, Skillgym, on_output


@node
class Equals(CheckBase):
    """Final output equals ``value`` (after trimming, as agentv does)."""

    kind: Literal["equals"] = "equals"
    value: Any = None

    @property
    def arg(self) -> str:
        return self.value if isinstance(self.value, str) else str(self.value)


def text_of(v: Any) -> str:
    """A YAML value as a string: ``String(v)`` for a scalar, ``JSON.stringify`` for a list or mapping."""
    return js.stringify(v) if isinstance(v, (list, dict)) else js.string(v)


def _score(check: Equals, ev: Evidence) -> Outcome:
    value = text_of(check.value)
    return on_output(check, js.trim(ev.session.final_output) == js.trim(value), f'equals "{value}"')


SPEC = KindSpec(
    kind="equals", cls=Equals, description="Passes when the final output equals the value (both trimmed).",
    feature="check.output", looks_at="output", asserts="presence", graded=False, score=_score,
    sentence=lambda c: f"Output equals '{c.arg}'",
    terum=Absent(TERUM_NO_OUTPUT),
    agentv=Agentv("equals", (AgentvField("value", "value", "any"),),
                  sentence=lambda entry: f"Output exactly equals: {js.string(get(entry, 'value'))}"),
    promptfoo=Promptfoo("equals", value="any"),
    skillgym=Skillgym("equal"))
SPECS = (SPEC,)
