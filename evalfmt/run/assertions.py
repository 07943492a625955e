"""agentv's deterministic assertions, scored against the session's final output.

``contains`` (case-sensitive) and ``icontains``, the ``-any``/``-all`` forms, ``starts-with`` and
``ends-with`` (both sides trimmed), ``equals`` (both trimmed), ``regex`` (an ECMAScript regex with its
``flags``) and ``is-json`` (``JSON.parse`` succeeds). ``negate: true`` inverts the result. ``latency``
and ``cost`` compare the session's duration and cost with their threshold.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

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
    on_output = _ON_OUTPUT.get(type(check))
    if on_output is not None:
        ok, what = on_output(check, session.final_output)
        return _negate(check, ok, f"output {what}" if ok else f"expected: output {what}")
    if isinstance(check, ir.Latency):
        if check.threshold is None or session.duration_ms is None:
            return False, "no duration recorded" if session.duration_ms is None else "no threshold"
        ok = session.duration_ms <= check.threshold
        return _negate(check, ok, f"took {session.duration_ms:g} ms (limit {check.threshold:g})")
    if isinstance(check, ir.Cost):
        if check.budget is None or session.cost_usd is None:
            return False, "no cost recorded" if session.cost_usd is None else "no budget"
        return _negate(check, session.cost_usd <= check.budget,
                       f"cost ${session.cost_usd:g} (budget ${check.budget:g})")
    return None


def _values(check: Any, out: str) -> tuple[bool, str]:
    """contains-any / -all and their case-insensitive twins."""
    kind = check.kind
    fold = kind.startswith("i")
    hay = out.lower() if fold else out
    hits = [v for v in check.values if (v.lower() if fold else v) in hay]
    shown = ", ".join(f'"{v}"' for v in check.values)
    if kind.endswith("any"):
        return bool(hits), "contains any of " + shown
    return len(hits) == len(check.values), "contains all of " + shown


def _equals(check: Any, out: str) -> tuple[bool, str]:
    value = text_of(check.value)
    return js.trim(out) == js.trim(value), f'equals "{value}"'


def _regex(check: Any, out: str) -> tuple[bool, str]:
    flags = check.flags or ""
    return first_match(check.value, flags, [out]) is not None, f"matches /{check.value}/{flags}"


def _is_json(check: Any, out: str) -> tuple[bool, str]:
    try:
        js.loads(out)
    except ValueError:
        return False, "is valid JSON"
    return True, "is valid JSON"


#: the assertions on the final output: check class -> (passed, what the output should do)
_ON_OUTPUT: dict[type, Callable[[Any, str], tuple[bool, str]]] = {
    ir.Contains: lambda c, out: (c.value in out, f'contains "{c.value}"'),
    ir.Icontains: lambda c, out: (c.value.lower() in out.lower(), f'contains "{c.value}" (case-insensitive)'),
    ir.ContainsAny: _values, ir.ContainsAll: _values, ir.IcontainsAny: _values, ir.IcontainsAll: _values,
    ir.StartsWith: lambda c, out: (js.trim(out).startswith(js.trim(c.value)), f'starts with "{c.value}"'),
    ir.EndsWith: lambda c, out: (js.trim(out).endswith(js.trim(c.value)), f'ends with "{c.value}"'),
    ir.Equals: _equals,
    ir.Regex: _regex,
    ir.IsJson: _is_json,
}


def _negate(check: ir.CheckBase, ok: bool, detail: str) -> tuple[bool, str]:
    if check.negate:
        return (not ok), f"negated: {detail}"
    return ok, detail
