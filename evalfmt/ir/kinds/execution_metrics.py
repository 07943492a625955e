"""agentv's ``execution-metrics``: the session's figures within limits (``max_tool_calls``, ``max_llm_calls``:
assistant turns, ``max_tokens``: input and output, ``max_cost_usd``, ``max_duration_ms``); score = limits met
/ limits, passing at ``min_score``; a threshold evalfmt does not know makes it not scored (named)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from ..node import CheckBase, as_float, node
from .budget import within
from ._words import TERUM_NO_KIND
from .spec import Agentv, AgentvField, Evidence, KindSpec, Outcome, Verbatim

LIMITS = ("max_tool_calls", "max_llm_calls", "max_tokens", "max_cost_usd", "max_duration_ms")


@node
class ExecutionMetrics(CheckBase):
    """agentv ``execution-metrics``: the limits given (None: not given), and ``unknown``, the names of the
    assertion's other keys (thresholds evalfmt does not know: it does not score the check)."""

    kind: Literal["execution-metrics"] = "execution-metrics"
    max_tool_calls: float | None = None
    max_llm_calls: float | None = None
    max_tokens: float | None = None
    max_cost_usd: float | None = None
    max_duration_ms: float | None = None
    unknown: list[str] | None = None

    def __post_init__(self) -> None:
        CheckBase.__post_init__(self)
        for name in LIMITS:
            setattr(self, name, as_float(getattr(self, name)))
    #: the format whose tool runs it (what another format's writer names in its loss)
    origin: ClassVar[str] = "agentv"


def _score(check: ExecutionMetrics, ev: Evidence) -> Outcome:
    s = ev.session
    tokens = None if s.input_tokens is None or s.output_tokens is None else s.input_tokens + s.output_tokens
    values = {"max_tool_calls": float(len(s.tool_calls)), "max_llm_calls": s.num_turns, "max_tokens": tokens,
              "max_cost_usd": s.cost_usd, "max_duration_ms": s.duration_ms}
    limits = [(k, lim, values[k]) for k in LIMITS if (lim := getattr(check, k)) is not None]
    return within(check, limits, list(check.unknown or []))


def _transpiled(entry: Any) -> str:
    return "Execution within metric bounds"


SPEC = KindSpec(
    kind="execution-metrics", cls=ExecutionMetrics,
    description="Passes when the session's figures (tool calls, turns, tokens, cost, time) stay within the limits.",
    feature="check.opaque", looks_at="session", asserts="bound", graded=False, score=_score,
    sentence=lambda c: f"Passes the agentv check '{c.label()}'",
    terum=Verbatim(TERUM_NO_KIND),
    agentv=Agentv("execution-metrics", tuple(AgentvField(k, k, "number") for k in LIMITS),
                  spellings=("execution_metrics",), sentence=_transpiled, loose=True, unknown="unknown"),
    promptfoo=Verbatim("no promptfoo equivalent"),
    skillgym=Verbatim("code"))
SPECS = (SPEC,)
