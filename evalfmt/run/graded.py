"""agentv's deterministic graded assertions still read from their raw value: ``execution-metrics`` and
``field-accuracy``, scored from the session (and the test's ``expected_output``) without a model
(``tool-trajectory`` and ``token-usage`` are scored by their kinds' specs, :mod:`evalfmt.ir.kinds`).

Each gives a score in [0, 1] and passes when the score reaches the assertion's ``min_score`` (1.0 when
absent: every expectation met); ``negate: true`` inverts. The detail names what missed.

- ``execution-metrics``: ``max_tool_calls``, ``max_llm_calls`` (assistant turns), ``max_tokens``,
  ``max_cost_usd``, ``max_duration_ms``; any other threshold is not scored (named in the detail).
- ``field-accuracy``: the final output parsed as JSON (a fenced ```json block is unwrapped) against
  ``expected_output`` (an object, or the last message holding one); ``fields: [{path, match, required,
  weight, tolerance, relative}]``, ``match`` ``exact`` (the default), ``numeric_tolerance`` or ``date``
  (same calendar day); ``aggregation: weighted_average`` (default) or ``all_or_nothing``.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from .. import ir, js
from ..ir.kinds import number as _limit, verdict as _verdict
from ..ir.kinds.budget import within as _within
from .session import Session

Result = tuple[bool | None, str]


# ------------------------------------------------------------------------------------ metrics


EXECUTION_METRICS = ("max_tool_calls", "max_llm_calls", "max_tokens", "max_cost_usd", "max_duration_ms")
COMMON_KEYS = ("type", "name", "weight", "required", "min_score", "negate")


def execution_metrics(check: ir.Opaque, session: Session) -> Result:
    raw = check.raw if isinstance(check.raw, dict) else {}
    tokens = None if session.input_tokens is None or session.output_tokens is None else \
        session.input_tokens + session.output_tokens
    values = {"max_tool_calls": float(len(session.tool_calls)), "max_llm_calls": session.num_turns,
              "max_tokens": tokens, "max_cost_usd": session.cost_usd, "max_duration_ms": session.duration_ms}
    limits = [(k, lim, values[k]) for k in EXECUTION_METRICS if (lim := _limit(raw.get(k))) is not None]
    unknown = [k for k in raw if k not in EXECUTION_METRICS and k not in COMMON_KEYS]
    return _within(_common(check, raw), limits, unknown)


# ------------------------------------------------------------------------------------ fields

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
        for m in reversed(expected):
            content = m.content if isinstance(m, ir.Message) else m.get("content") if isinstance(m, dict) else None
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
        g, w, tol = _limit(got), _limit(want), _limit(spec.get("tolerance")) or 0.0
        if g is None or w is None:
            return False
        return abs(g - w) <= (tol * abs(w) if spec.get("relative") else tol)
    if match == "date":
        return _day(got) is not None and _day(got) == _day(want)
    return got == want


def field_accuracy(check: ir.Opaque, session: Session, expected: Any) -> Result:
    raw = check.raw if isinstance(check.raw, dict) else {}
    fields = raw.get("fields")
    if not isinstance(fields, list) or not fields:
        return False, "malformed check: field-accuracy needs fields"
    want_obj = _expected_object(expected)
    if want_obj is None:
        return False, "malformed check: field-accuracy needs the test's expected_output (an object)"
    try:
        got_obj = _parse_output(session.final_output)
    except ValueError:
        return _verdict(_common(check, raw), 0.0, "the final output is not JSON")
    total = earned = 0.0
    missed = []
    required_missed = False
    for spec in fields:
        if not isinstance(spec, dict) or not isinstance(spec.get("path"), str):
            return False, "malformed check: a field needs a path"
        weight = _limit(spec.get("weight"))
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
    if raw.get("aggregation") == "all_or_nothing" or required_missed:
        score = 1.0 if not missed else 0.0
    detail = f"fields missed: {', '.join(missed)}" if missed else "every field matches"
    return _verdict(_common(check, raw), score, detail)


def _common(check: ir.Opaque, raw: dict[str, Any]) -> ir.CheckBase:
    """An opaque check's common fields read from its raw mapping (min_score, negate)."""
    return ir.replace(check, min_score=_limit(raw.get("min_score")) if check.min_score is None else check.min_score,
                      negate=raw.get("negate") is True if check.negate is None else check.negate)
