"""agentv's deterministic assertions, scored against the session's final output.

``contains`` (case-sensitive) and ``icontains``, the ``-any``/``-all`` forms, ``starts-with`` and
``ends-with`` (both sides trimmed), ``equals`` (both trimmed), ``regex`` (an ECMAScript regex with its
``flags``) and ``is-json`` (``JSON.parse`` succeeds). ``negate: true`` inverts the result. ``latency``
and ``cost`` compare the session's duration and cost with their threshold.
"""

from __future__ import annotations

from typing import Any

from .. import ir
from .. import js
from .regex_deadline import first_match
from .session import Session

def text_of(v: Any) -> str:
    """A YAML value as a string: ``String(v)`` for a scalar, ``JSON.stringify`` for a list or mapping."""
    return js.stringify(v) if isinstance(v, (list, dict)) else js.string(v)


def score(check: ir.CheckBase, session: Session) -> tuple[bool, str] | None:
    """``(passed, detail)`` for an assertion this module knows, None otherwise. Raises
    :class:`~evalfmt.ecmaregex.EcmaRegexError` for a bad regex (the caller reports a malformed check) and
    :class:`~evalfmt.run.regex_deadline.RegexTimeout` for one that runs past its budget."""
    out = session.final_output
    kind = check.kind
    if isinstance(check, ir.Contains):
        ok, what = check.value in out, f'contains "{check.value}"'
    elif isinstance(check, ir.Icontains):
        ok, what = check.value.lower() in out.lower(), f'contains "{check.value}" (case-insensitive)'
    elif isinstance(check, (ir.ContainsAny, ir.ContainsAll, ir.IcontainsAny, ir.IcontainsAll)):
        fold = kind.startswith("i")
        hay = out.lower() if fold else out
        hits = [v for v in check.values if (v.lower() if fold else v) in hay]
        if kind.endswith("any"):
            ok, what = bool(hits), "contains any of " + ", ".join(f'"{v}"' for v in check.values)
        else:
            ok, what = len(hits) == len(check.values), "contains all of " + ", ".join(f'"{v}"' for v in check.values)
    elif isinstance(check, ir.StartsWith):
        ok, what = js.trim(out).startswith(js.trim(check.value)), f'starts with "{check.value}"'
    elif isinstance(check, ir.EndsWith):
        ok, what = js.trim(out).endswith(js.trim(check.value)), f'ends with "{check.value}"'
    elif isinstance(check, ir.Equals):
        value = text_of(check.value)
        ok, what = js.trim(out) == js.trim(value), f'equals "{value}"'
    elif isinstance(check, ir.Regex):
        flags = check.flags or ""
        ok, what = first_match(check.value, flags, [out]) is not None, f"matches /{check.value}/{flags}"
    elif isinstance(check, ir.IsJson):
        try:
            js.loads(out)
            ok = True
        except ValueError:
            ok = False
        what = "is valid JSON"
    elif isinstance(check, ir.Latency):
        if check.threshold is None or session.duration_ms is None:
            return False, "no duration recorded" if session.duration_ms is None else "no threshold"
        ok = session.duration_ms <= check.threshold
        what = f"took {session.duration_ms:g} ms (limit {check.threshold:g})"
        return _negate(check, ok, what)
    elif isinstance(check, ir.Cost):
        if check.budget is None or session.cost_usd is None:
            return False, "no cost recorded" if session.cost_usd is None else "no budget"
        ok, what = session.cost_usd <= check.budget, f"cost ${session.cost_usd:g} (budget ${check.budget:g})"
        return _negate(check, ok, what)
    else:
        return None
    return _negate(check, ok, f"output {what}" if ok else f"expected: output {what}")


def _negate(check: ir.CheckBase, ok: bool, detail: str) -> tuple[bool, str]:
    if check.negate:
        return (not ok), f"negated: {detail}"
    return ok, detail
