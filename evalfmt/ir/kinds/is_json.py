"""agentv's ``is-json``: the final output parses as JSON (``JSON.parse`` succeeds)."""

from __future__ import annotations

from typing import Any, Literal

from ... import js
from ..node import CheckBase, node
from ._words import TERUM_NO_OUTPUT
from .spec import Absent, Agentv, Evidence, KindSpec, Outcome, Promptfoo, Skillgym, on_output


@node
class IsJson(CheckBase):
    """Final output is valid JSON."""

    kind: Literal["is-json"] = "is-json"


def _score(check: IsJson, ev: Evidence) -> Outcome:
    try:
        js.loads(ev.session.final_output)
    except ValueError:
        return on_output(check, False, "is valid JSON")
    return on_output(check, True, "is valid JSON")


def _transpiled(entry: Any) -> str:
    return "Output is valid JSON"


SPEC = KindSpec(
    kind="is-json", cls=IsJson, description="Passes when the final output is valid JSON.",
    feature="check.output", looks_at="output", asserts="presence", graded=False, score=_score,
    sentence=lambda c: "Output is valid JSON",
    terum=Absent(TERUM_NO_OUTPUT),
    agentv=Agentv("is-json", spellings=("is_json",), sentence=_transpiled),
    promptfoo=Promptfoo("is-json", value="none"),
    skillgym=Skillgym("json-parse"))
SPECS = (SPEC,)
