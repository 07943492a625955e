"""agentv's ``tool-trajectory``: the tool calls the agent made against the expected ones (``any_order``:
minimum counts per tool; ``in_order``: the expected calls in that order, others between allowed; ``exact``:
position by position). An expected entry is a tool name or ``{tool, args?}``; with ``args`` every given key
must equal the call's input value (``any`` matches anything). Scored in [0, 1], passing at ``min_score``."""

from __future__ import annotations

from typing import Any, Literal

from ... import js
from ...js import get
from ..node import CheckBase, node
from ._words import PROMPTFOO_NONE, TERUM_NO_OUTPUT
from .spec import Absent, Agentv, AgentvField, Evidence, KindSpec, Outcome, verdict


@node
class ToolTrajectory(CheckBase):
    """agentv ``tool-trajectory``: ``mode`` (any_order, in_order, exact, ...), ``expected`` steps and, for
    any_order, ``minimums`` (tool name -> the calls it needs at least)."""

    kind: Literal["tool-trajectory"] = "tool-trajectory"
    mode: str | None = None
    expected: list[Any] | None = None
    minimums: dict[str, Any] | None = None

    @property
    def arg(self) -> str:
        return self.mode or ""


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


def _any_order(check: ToolTrajectory, calls: list[tuple[str, Any]], expected: list[Any]) -> Outcome:
    mins: dict[str, int] = {str(k): int(v) for k, v in (check.minimums or {}).items()
                            if isinstance(v, (int, float)) and not isinstance(v, bool)}
    for e in expected:
        mins[_tool(e)] = mins.get(_tool(e), 0) + 1
    if not mins:
        return False, "malformed check: tool-trajectory any_order needs minimums or expected"
    counts = {t: sum(1 for name, _ in calls if name == t) for t in mins}
    short = [f"{t} called {counts[t]} time(s) (minimum {n})" for t, n in mins.items() if counts[t] < n]
    met = len(mins) - len(short)
    return verdict(check, met / len(mins), "; ".join(short) or f"{met} tool minimum(s) met")


def _in_order(check: ToolTrajectory, calls: list[tuple[str, Any]], expected: list[Any]) -> Outcome:
    i = 0
    for name, inp in calls:
        if i < len(expected) and _matches(expected[i], name, inp):
            i += 1
    what = f"{i} of {len(expected)} expected calls in order" + (f"; next missing: {_tool(expected[i])}"
                                                                 if i < len(expected) else "")
    return verdict(check, i / len(expected), what)


def _exact(check: ToolTrajectory, calls: list[tuple[str, Any]], expected: list[Any]) -> Outcome:
    n = max(len(expected), len(calls))
    hits = sum(1 for e, (name, inp) in zip(expected, calls) if _matches(e, name, inp))
    seq = ", ".join(name for name, _ in calls) or "no calls"
    return verdict(check, hits / n, f"{hits} of {n} positions match (calls: {seq})")


_MODES = {"in_order": _in_order, "exact": _exact}


def _score(check: ToolTrajectory, ev: Evidence) -> Outcome:
    calls = [(c.name, c.input) for c in ev.session.tool_calls]
    mode = check.mode or "any_order"
    expected = list(check.expected or [])
    if mode == "any_order":
        return _any_order(check, calls, expected)
    if not expected:
        return False, f"malformed check: tool-trajectory {mode} needs expected"
    scorer = _MODES.get(mode)
    if scorer is None:
        return False, f"malformed check: unknown tool-trajectory mode '{mode}'"
    return scorer(check, calls, expected)


def _transpiled(entry: Any) -> str:
    expected = get(entry, "expected")
    steps = expected if isinstance(expected, list) else []
    tools = ", ".join(js.string(t) for t in (get(e, "tool") for e in steps) if js.truthy(t))
    return f"Agent called tools in order: {tools}" if tools else "Agent followed expected tool trajectory"


SPEC = KindSpec(
    kind="tool-trajectory", cls=ToolTrajectory, description="The agent's tool calls against the expected ones.",
    feature="check.trajectory", looks_at="session", asserts="score", graded=False, score=_score,
    sentence=lambda c: f"Passes the check '{c.label()}'",
    terum=Absent(TERUM_NO_OUTPUT),
    agentv=Agentv("tool-trajectory", (AgentvField("mode", "mode", "str"), AgentvField("expected", "expected", "list"),
                                      AgentvField("minimums", "minimums", "mapping?")),
                  spellings=("tool_trajectory",), sentence=_transpiled),
    promptfoo=Absent(PROMPTFOO_NONE),
    skillgym=Absent(""))
SPECS = (SPEC,)
