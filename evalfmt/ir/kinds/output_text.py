"""agentv's text checks on the final output: ``contains`` (case-sensitive), ``icontains``, ``starts-with`` and
``ends-with`` (both sides trimmed, as agentv compares them)."""

from __future__ import annotations

from typing import Any, Literal

from ... import js
from ...js import get
from ..node import CheckBase, node
from ._words import PROMPTFOO_NONE, TERUM_NO_OUTPUT
from .spec import Absent, Agentv, AgentvField, Evidence, KindSpec, Outcome, Promptfoo, Skillgym, on_output


@node
class _ValueCheck(CheckBase):
    """A check on the final output with one text ``value``."""

    value: str

    @property
    def arg(self) -> str:
        return self.value


@node
class Contains(_ValueCheck):
    """Final output contains ``value`` (case-sensitive)."""

    kind: Literal["contains"] = "contains"


@node
class Icontains(_ValueCheck):
    """Final output contains ``value`` ignoring case."""

    kind: Literal["icontains"] = "icontains"


@node
class StartsWith(_ValueCheck):
    """Final output starts with ``value``."""

    kind: Literal["starts-with"] = "starts-with"


@node
class EndsWith(_ValueCheck):
    """Final output ends with ``value``."""

    kind: Literal["ends-with"] = "ends-with"


def _contains(c: Contains, ev: Evidence) -> Outcome:
    return on_output(c, c.value in ev.session.final_output, f'contains "{c.value}"')


def _icontains(c: Icontains, ev: Evidence) -> Outcome:
    return on_output(c, c.value.lower() in ev.session.final_output.lower(),
                     f'contains "{c.value}" (case-insensitive)')


def _starts(c: StartsWith, ev: Evidence) -> Outcome:
    return on_output(c, js.trim(ev.session.final_output).startswith(js.trim(c.value)), f'starts with "{c.value}"')


def _ends(c: EndsWith, ev: Evidence) -> Outcome:
    return on_output(c, js.trim(ev.session.final_output).endswith(js.trim(c.value)), f'ends with "{c.value}"')


def _said(template: str) -> Any:
    """agentv transpile's sentence: ``template`` with ``String(value)`` of the entry as written."""
    return lambda entry: template.format(js.string(get(entry, "value")))


VALUE = (AgentvField("value", "value", "str", True),)

CONTAINS = KindSpec(
    kind="contains", cls=Contains, description="Passes when the final output contains the value (case-sensitive).",
    feature="check.output", looks_at="output", asserts="presence", graded=False, score=_contains,
    sentence=lambda c: f"Output contains '{c.value}'",
    terum=Absent(TERUM_NO_OUTPUT),
    agentv=Agentv("contains", VALUE, sentence=_said("Output contains '{}'")),
    promptfoo=Promptfoo("contains"),
    skillgym=Skillgym("output-includes"))
ICONTAINS = KindSpec(
    kind="icontains", cls=Icontains, description="Passes when the final output contains the value, ignoring case.",
    feature="check.output", looks_at="output", asserts="presence", graded=False, score=_icontains,
    sentence=lambda c: f"Output contains (case-insensitive) '{c.value}'",
    terum=Absent(TERUM_NO_OUTPUT),
    agentv=Agentv("icontains", VALUE, sentence=_said("Output contains (case-insensitive) '{}'")),
    promptfoo=Promptfoo("icontains"),
    skillgym=Skillgym("output-match", flags="i"))
STARTS_WITH = KindSpec(
    kind="starts-with", cls=StartsWith, description="Passes when the final output starts with the value (trimmed).",
    feature="check.output", looks_at="output", asserts="presence", graded=False, score=_starts,
    sentence=lambda c: f"Output starts with '{c.value}'",
    terum=Absent(TERUM_NO_OUTPUT),
    agentv=Agentv("starts-with", VALUE, spellings=("starts_with",), sentence=_said("Output starts with '{}'")),
    promptfoo=Promptfoo("starts-with"),
    skillgym=Skillgym("output-match", anchor="^"))
ENDS_WITH = KindSpec(
    kind="ends-with", cls=EndsWith, description="Passes when the final output ends with the value (trimmed).",
    feature="check.output", looks_at="output", asserts="presence", graded=False, score=_ends,
    sentence=lambda c: f"Output ends with '{c.value}'",
    terum=Absent(TERUM_NO_OUTPUT),
    agentv=Agentv("ends-with", VALUE, spellings=("ends_with",), sentence=_said("Output ends with '{}'")),
    promptfoo=Absent(PROMPTFOO_NONE),
    skillgym=Skillgym("output-match", anchor="$"))
SPECS = (CONTAINS, ICONTAINS, STARTS_WITH, ENDS_WITH)
