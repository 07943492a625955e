"""agentv's ``field-accuracy``: the final output parsed as JSON (a fenced ```json block is unwrapped) against the
test's ``expected_output`` (an object, or the last message holding one), field by field: ``fields: [{path,
match, required, weight, tolerance, relative}]``, ``match`` ``exact`` (the default), ``numeric_tolerance`` or
``date`` (the same calendar day); score = matched weight / total weight, 0 or 1 with ``aggregation:
all_or_nothing`` or a missed ``required`` field; passes at ``min_score``."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, ClassVar, Literal

from ... import js
from ...js import get
from ..node import CheckBase, node
from ._words import TERUM_NO_KIND
from .spec import Agentv, AgentvField, Evidence, KindSpec, Outcome, Verbatim, number, verdict


@node
class FieldAccuracy(CheckBase):
    """agentv ``field-accuracy``: ``fields`` as written (each ``{path, match, required, weight, tolerance,
    relative}``), ``aggregation`` (``weighted_average``, the default, or ``all_or_nothing``)."""

    kind: Literal["field-accuracy"] = "field-accuracy"
    fields: list[Any] | None = None
    aggregation: str | None = None
    #: the format whose tool runs it (what another format's writer names in its loss)
    origin: ClassVar[str] = "agentv"


def _parse_output(text: str) -> Any:
    """The output as JSON; a fenced block (```json or ```) is unwrapped first (found by plain search:
    no regex runs over agent output here)."""
    start = text.find("```")
    if start != -1:
        nl = text.find("\n", start)
        end = text.find("\n```", nl) if nl != -1 else -1
        if end != -1 and text[start + 3:nl].strip() in ("", "json"):
            return js.loads(text[nl + 1:end])
    return js.loads(text.strip())


def _expected_object(expected: Any) -> Any:
    if isinstance(expected, list):
        for m in reversed(expected):  # (a message as data, or as an IR message)
            content = m.get("content") if isinstance(m, dict) else getattr(m, "content", None)
            if isinstance(content, dict):
                return content
        return None
    return expected if isinstance(expected, dict) else None


def _at(obj: Any, path: str) -> tuple[bool, Any]:
    for part in re.findall(r"[^.\[\]]+", path):
        if isinstance(obj, dict) and part in obj:
            obj = obj[part]
        elif isinstance(obj, list) and part.isdigit() and int(part) < len(obj):
            obj = obj[int(part)]
        else:
            return False, None
    return True, obj


def _day(v: Any) -> str | None:
    """The calendar day a date string names (ISO 8601 or a few common layouts), None when unparseable."""
    if not isinstance(v, str):
        return None
    text = v.strip()
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).date().isoformat()
    except ValueError:
        pass
    for fmt in ("%Y/%m/%d", "%d/%m/%Y", "%m/%d/%Y", "%d %b %Y", "%b %d, %Y", "%d %B %Y", "%B %d, %Y"):
        try:
            return datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def _field_ok(spec: dict[str, Any], got: Any, want: Any) -> bool:
    match = spec.get("match") or "exact"
    if match == "numeric_tolerance":
        g, w, tol = number(got), number(want), number(spec.get("tolerance")) or 0.0
        if g is None or w is None:
            return False
        return abs(g - w) <= (tol * abs(w) if spec.get("relative") else tol)
    if match == "date":
        return _day(got) is not None and _day(got) == _day(want)
    return bool(got == want)


def _score(check: FieldAccuracy, ev: Evidence) -> Outcome:
    fields = check.fields
    if not fields:
        return False, "malformed check: field-accuracy needs fields"
    want_obj = _expected_object(ev.expected)
    if want_obj is None:
        return False, "malformed check: field-accuracy needs the test's expected_output (an object)"
    try:
        got_obj = _parse_output(ev.session.final_output)
    except ValueError:
        return verdict(check, 0.0, "the final output is not JSON")
    total = earned = 0.0
    missed = []
    required_missed = False
    for spec in fields:
        if not isinstance(spec, dict) or not isinstance(spec.get("path"), str):
            return False, "malformed check: a field needs a path"
        weight = number(spec.get("weight"))
        weight = 1.0 if weight is None else weight
        _, want = _at(want_obj, spec["path"])
        found, got = _at(got_obj, spec["path"])
        total += weight
        if found and _field_ok(spec, got, want):
            earned += weight
        else:
            missed.append(spec["path"])
            required_missed = required_missed or bool(spec.get("required"))
    score = earned / total if total else 0.0
    if check.aggregation == "all_or_nothing" or required_missed:
        score = 1.0 if not missed else 0.0
    detail = f"fields missed: {', '.join(missed)}" if missed else "every field matches"
    return verdict(check, score, detail)


def _transpiled(entry: Any) -> str:
    fields = get(entry, "fields")
    paths = ", ".join(js.string(p) for p in (get(f, "path") for f in fields) if js.truthy(p)) \
        if isinstance(fields, list) else ""
    return f"Fields {paths} match expected values" if paths else "Fields match expected values"


SPEC = KindSpec(
    kind="field-accuracy", cls=FieldAccuracy,
    description="The final output's JSON fields against the test's expected output.",
    feature="check.opaque", looks_at="output", asserts="score", graded=False, score=_score,
    sentence=lambda c: f"Passes the agentv check '{c.label()}'",
    terum=Verbatim(TERUM_NO_KIND),
    agentv=Agentv("field-accuracy", (AgentvField("fields", "fields", "list"),
                                     AgentvField("aggregation", "aggregation", "str")),
                  spellings=("field_accuracy",), sentence=_transpiled, loose=True),
    promptfoo=Verbatim("no promptfoo equivalent"),
    skillgym=Verbatim("code"))
SPECS = (SPEC,)
