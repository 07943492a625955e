"""agentv's ``regex``: an ECMAScript regex (with its ``flags``) searched in the final output."""

from __future__ import annotations

from typing import Literal

from ... import js
from ...js import get
from ..node import CheckBase, node
from ._words import TERUM_NO_OUTPUT
from .spec import Absent, Agentv, AgentvField, Evidence, KindSpec, Outcome, Promptfoo, Skillgym, on_output


@node
class Regex(CheckBase):
    """Final output matches the ECMAScript regex ``value`` with ``flags``."""

    kind: Literal["regex"] = "regex"
    value: str
    flags: str | None = None

    @property
    def arg(self) -> str:
        return self.value


def _score(check: Regex, ev: Evidence) -> Outcome:
    flags = check.flags or ""
    found = ev.first_match(check.value, flags, [ev.session.final_output]) is not None
    return on_output(check, found, f"matches /{check.value}/{flags}")


SPEC = KindSpec(
    kind="regex", cls=Regex, description="Passes when the ECMAScript regex matches the final output (a search).",
    feature="check.output", looks_at="output", asserts="presence", graded=False, score=_score,
    sentence=lambda c: f"Output matches /{c.value}/{c.flags or ''}",
    terum=Absent(TERUM_NO_OUTPUT),
    agentv=Agentv("regex", (AgentvField("value", "value", "str", True), AgentvField("flags", "flags", "str")),
                  sentence=lambda entry: f"Output matches regex: {js.string(get(entry, 'value'))}",
                  regex=("value", "flags")),
    promptfoo=Promptfoo("regex"),
    skillgym=Skillgym("regex"))
SPECS = (SPEC,)
