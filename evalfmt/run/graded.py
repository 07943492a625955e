"""agentv's deterministic graded assertions: ``tool-trajectory``, ``token-usage``, ``execution-metrics`` and
``field-accuracy``, scored from the session (and the test's ``expected_output``) without a model.

Each gives a score in [0, 1] and passes when the score reaches the assertion's ``min_score`` (1.0 when
absent: every expectation met); ``negate: true`` inverts. The detail names what missed.

- ``tool-trajectory``: ``any_order`` (``minimums: {tool: n}``, or each ``expected`` entry counted):
  score = tools meeting their minimum / tools with one; ``in_order``: the ``expected`` calls appear in
  that order, other calls between allowed: score = matched / expected; ``exact``: the calls are exactly
  ``expected``, position by position: score = matching positions / max(expected, actual). An expected
  entry is ``{tool, args?}``; with ``args`` every given key must equal the call's input value (``any``
  matches anything). Tool names compare exactly.
- ``token-usage``: ``max_total``, ``max_input``, ``max_output`` against the session's recorded tokens.
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
from collections.abc import Sequence

from .. import ir, js
from .session import Session

Result = tuple[bool | None, str]


class Scored(tuple):
    """``(passed, detail)`` that also carries the assertion's score in [0, 1] (negation applied), which a
    ``composite`` aggregates."""

    score: float

    def __new__(cls, passed: bool, detail: str, score: float) -> Scored:
        obj = super().__new__(cls, (passed, detail))
        obj.score = score
        return obj


def _verdict(check: ir.CheckBase, score: float, what: str) -> Scored:
    need = 1.0 if check.min_score is None else float(check.min_score)
    ok = score >= need - 1e-9
    detail = f"score {score:.2f} (needs {need:.2f}): {what}"
    if check.negate:
        return Scored((not ok), f"negated: {detail}", 1.0 - score)
    return Scored(ok, detail, score)


# ------------------------------------------------------------------------------------ trajectory


def _matches(entry: Any, call_name: str, call_input: Any) -> bool:
    if isinstance(entry, str):
        return entry == call_name
    if not isinstance(entry, dict) or entry.get("tool") != call_name:
        return False
    args = entry.get("args")
    if args is None or args == "any":
        return True
    if not isinstance(args, dict) or not isinstance(call_input, dict):
        return False
    return all(v == "any" or call_input.get(k) == v for k, v in args.items())


def _tool(entry: Any) -> str:
    return entry if isinstance(entry, str) else str(entry.get("tool")) if isinstance(entry, dict) else str(entry)


def tool_trajectory(check: ir.ToolTrajectory, session: Session) -> Result:
    calls = [(c.name, c.input) for c in session.tool_calls]
    mode = check.mode or "any_order"
    expected = list(check.expected or [])
    if mode == "any_order":
        mins: dict[str, int] = {str(k): int(v) for k, v in (check.minimums or {}).items()
                                if isinstance(v, (int, float)) and not isinstance(v, bool)}
        for e in expected:
            mins[_tool(e)] = mins.get(_tool(e), 0) + 1
        if not mins:
            return False, "malformed check: tool-trajectory any_order needs minimums or expected"
        counts = {t: sum(1 for name, _ in calls if name == t) for t in mins}
        short = [f"{t} called {counts[t]} time(s) (minimum {n})" for t, n in mins.items() if counts[t] < n]
        met = len(mins) - len(short)
        return _verdict(check, met / len(mins), "; ".join(short) or f"{met} tool minimum(s) met")
    if not expected:
        return False, f"malformed check: tool-trajectory {mode} needs expected"
    if mode == "in_order":
        i = 0
        for name, inp in calls:
            if i < len(expected) and _matches(expected[i], name, inp):
                i += 1
        what = f"{i} of {len(expected)} expected calls in order" + (f"; next missing: {_tool(expected[i])}"
                                                                     if i < len(expected) else "")
        return _verdict(check, i / len(expected), what)
    if mode == "exact":
        n = max(len(expected), len(calls))
        hits = sum(1 for e, (name, inp) in zip(expected, calls) if _matches(e, name, inp))
        seq = ", ".join(name for name, _ in calls) or "no calls"
        return _verdict(check, hits / n, f"{hits} of {n} positions match (calls: {seq})")
    return False, f"malformed check: unknown tool-trajectory mode '{mode}'"


# ------------------------------------------------------------------------------------ metrics


def _limit(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _within(check: ir.CheckBase, limits: Sequence[tuple[str, float, float | None]], unknown: list[str]) -> Result:
    if unknown:
        return None, f"not scored: unknown threshold(s) {', '.join(unknown)}"
    if not limits:
        return False, "malformed check: no threshold given"
    missing = [k for k, _, v in limits if v is None]
    if missing:
        return False, f"not recorded in the session: {', '.join(missing)}"
    over = [f"{k} {v:g} > {lim:g}" for k, lim, v in limits if v is not None and v > lim]
    met = len(limits) - len(over)
    return _verdict(check, met / len(limits), "; ".join(over) or "within every limit")


def token_usage(check: ir.TokenUsage, session: Session) -> Result:
    total = None if session.input_tokens is None or session.output_tokens is None else \
        session.input_tokens + session.output_tokens
    given = {"max_total": check.max_total, "max_input": check.max_input, "max_output": check.max_output}
    values = {"max_total": total, "max_input": session.input_tokens, "max_output": session.output_tokens}
    limits = [(k, lim, values[k]) for k in values if (lim := given[k]) is not None]
    return _within(check, limits, [])


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
