"""agentv's list checks on the final output: ``contains-any`` / ``contains-all`` and their case-insensitive twins
``icontains-any`` / ``icontains-all``."""

from __future__ import annotations

from typing import Any, Literal

from ... import js
from ...js import get
from ..node import CheckBase, node
from ._words import TERUM_NO_OUTPUT
from .spec import Absent, Agentv, AgentvField, Evidence, KindSpec, Outcome, Promptfoo, on_output


@node
class _ValuesCheck(CheckBase):
    """A check on the final output with a list of ``values``."""

    values: list[str]

    @property
    def arg(self) -> str:
        return ",".join(self.values)


@node
class ContainsAny(_ValuesCheck):
    """Final output contains one of ``values``."""

    kind: Literal["contains-any"] = "contains-any"


@node
class ContainsAll(_ValuesCheck):
    """Final output contains every one of ``values``."""

    kind: Literal["contains-all"] = "contains-all"


@node
class IcontainsAny(_ValuesCheck):
    """Final output contains one of ``values``, ignoring case."""

    kind: Literal["icontains-any"] = "icontains-any"


@node
class IcontainsAll(_ValuesCheck):
    """Final output contains every one of ``values``, ignoring case."""

    kind: Literal["icontains-all"] = "icontains-all"


def _score(check: _ValuesCheck, ev: Evidence) -> Outcome:
    kind = check.kind
    fold = kind.startswith("i")
    out = ev.session.final_output
    hay = out.lower() if fold else out
    hits = [v for v in check.values if (v.lower() if fold else v) in hay]
    shown = ", ".join(f'"{v}"' for v in check.values)
    if kind.endswith("any"):
        return on_output(check, bool(hits), "contains any of " + shown)
    return on_output(check, len(hits) == len(check.values), "contains all of " + shown)


def _transpiled(which: str) -> Any:
    """agentv transpile's sentence: the values joined (a value that is no list: ``String(value)``)."""
    def sentence(entry: Any) -> str:
        value = get(entry, "value")
        values = js.join(value, "', '") if isinstance(value, list) else js.string(value)
        return f"Output contains {which} of: '{values}'"
    return sentence


def _sentence(check: _ValuesCheck) -> str:
    k = check.kind
    which = "any" if k.endswith("any") else "all"
    case = " (case-insensitive)" if k.startswith("i") else ""
    return f"Output contains {which} of{case}: " + ", ".join(f"'{v}'" for v in check.values)


def _spec(cls: type[_ValuesCheck], description: str, spellings: tuple[str, ...] = (),
          sentence: Any = None) -> KindSpec:
    kind = cls.__dataclass_fields__["kind"].default
    return KindSpec(
        kind=kind, cls=cls, description=description, feature="check.output", looks_at="output",
        asserts="presence", graded=False, score=_score, sentence=_sentence,
        terum=Absent(TERUM_NO_OUTPUT),
        agentv=Agentv(kind, (AgentvField("values", "value", "strlist", True),), spellings=spellings,
                      sentence=sentence),
        promptfoo=Promptfoo(kind, value="texts"),
        skillgym=Absent(""))


CONTAINS_ANY = _spec(ContainsAny, "Passes when the final output contains one of the values.", ("contains_any",),
                     _transpiled("any"))
CONTAINS_ALL = _spec(ContainsAll, "Passes when the final output contains every one of the values.",
                     ("contains_all",), _transpiled("all"))
# agentv transpile has no sentence for the case-insensitive twins: its placeholder '<type> assertion'
ICONTAINS_ANY = _spec(IcontainsAny, "Passes when the final output contains one of the values, ignoring case.")
ICONTAINS_ALL = _spec(IcontainsAll, "Passes when the final output contains every one of the values, ignoring case.")
SPECS = (CONTAINS_ANY, CONTAINS_ALL, ICONTAINS_ANY, ICONTAINS_ALL)
