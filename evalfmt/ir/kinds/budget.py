"""agentv's budgets: ``latency`` (the run took at most ``threshold`` ms), ``cost`` (it cost at most ``budget``)
and ``token-usage`` (its tokens within ``max_total``, ``max_input``, ``max_output``)."""

from __future__ import annotations

from typing import Any, Literal

from ... import js
from ...js import get
from ..node import CheckBase, as_float, node
from ._words import PROMPTFOO_NONE, TERUM_NO_OUTPUT
from .spec import Absent, Agentv, AgentvField, Evidence, KindSpec, Outcome, Promptfoo, negated, verdict


@node
class Latency(CheckBase):
    """agentv ``latency``: the run took at most ``threshold`` ms."""

    kind: Literal["latency"] = "latency"
    threshold: float | None = None

    def __post_init__(self) -> None:
        CheckBase.__post_init__(self)
        self.threshold = as_float(self.threshold)

    @property
    def arg(self) -> str:
        return "" if self.threshold is None else f"{self.threshold:g}"


@node
class Cost(CheckBase):
    """agentv ``cost``: the run cost at most ``budget``."""

    kind: Literal["cost"] = "cost"
    budget: float | None = None

    def __post_init__(self) -> None:
        CheckBase.__post_init__(self)
        self.budget = as_float(self.budget)

    @property
    def arg(self) -> str:
        return "" if self.budget is None else f"{self.budget:g}"


@node
class TokenUsage(CheckBase):
    """agentv ``token-usage``: the session's tokens at most ``max_total`` (input and output), ``max_input``,
    ``max_output``."""

    kind: Literal["token-usage"] = "token-usage"
    max_total: float | None = None
    max_input: float | None = None
    max_output: float | None = None

    def __post_init__(self) -> None:
        CheckBase.__post_init__(self)
        self.max_total, self.max_input, self.max_output = (
            as_float(self.max_total), as_float(self.max_input), as_float(self.max_output))


def _latency(check: Latency, ev: Evidence) -> Outcome:
    took = ev.session.duration_ms
    if check.threshold is None or took is None:
        return False, "no duration recorded" if took is None else "no threshold"
    return negated(check, took <= check.threshold, f"took {took:g} ms (limit {check.threshold:g})")


def _cost(check: Cost, ev: Evidence) -> Outcome:
    cost = ev.session.cost_usd
    if check.budget is None or cost is None:
        return False, "no cost recorded" if cost is None else "no budget"
    return negated(check, cost <= check.budget, f"cost ${cost:g} (budget ${check.budget:g})")


def within(check: CheckBase, limits: list[tuple[str, float, float | None]], unknown: list[str]) -> Outcome:
    """A graded check of figures against their limits: the fraction of limits kept."""
    if unknown:
        return None, f"not scored: unknown threshold(s) {', '.join(unknown)}"
    if not limits:
        return False, "malformed check: no threshold given"
    missing = [k for k, _, v in limits if v is None]
    if missing:
        return False, f"not recorded in the session: {', '.join(missing)}"
    over = [f"{k} {v:g} > {lim:g}" for k, lim, v in limits if v is not None and v > lim]
    met = len(limits) - len(over)
    return verdict(check, met / len(limits), "; ".join(over) or "within every limit")


def _tokens(check: TokenUsage, ev: Evidence) -> Outcome:
    s = ev.session
    total = None if s.input_tokens is None or s.output_tokens is None else s.input_tokens + s.output_tokens
    given = {"max_total": check.max_total, "max_input": check.max_input, "max_output": check.max_output}
    values = {"max_total": total, "max_input": s.input_tokens, "max_output": s.output_tokens}
    return within(check, [(k, lim, values[k]) for k in values if (lim := given[k]) is not None], [])


def _latency_sentence(entry: Any) -> str:
    threshold = get(entry, "threshold")
    return f"Response time under {js.string(threshold)}ms" if js.is_number(threshold) else \
        "Response time within threshold"


def _cost_sentence(entry: Any) -> str:
    budget = get(entry, "budget")
    return f"Cost under ${js.string(budget)}" if js.is_number(budget) else "Cost within budget"


def _tokens_sentence(entry: Any) -> str:
    return "Token usage within limits"


def _passes(check: CheckBase) -> str:
    return f"Passes the check '{check.label()}'"


LATENCY = KindSpec(
    kind="latency", cls=Latency, description="Passes when the run took at most this many milliseconds.",
    feature="check.budget", looks_at="session", asserts="bound", graded=False, score=_latency, sentence=_passes,
    terum=Absent(TERUM_NO_OUTPUT),
    agentv=Agentv("latency", (AgentvField("threshold", "threshold", "number"),), sentence=_latency_sentence),
    promptfoo=Promptfoo("latency", form="threshold", field="threshold"),
    skillgym=Absent(""))
COST = KindSpec(
    kind="cost", cls=Cost, description="Passes when the run cost at most this budget (USD).",
    feature="check.budget", looks_at="session", asserts="bound", graded=False, score=_cost, sentence=_passes,
    terum=Absent(TERUM_NO_OUTPUT),
    agentv=Agentv("cost", (AgentvField("budget", "budget", "number"),), sentence=_cost_sentence),
    promptfoo=Promptfoo("cost", form="threshold", field="budget"),
    skillgym=Absent(""))
TOKEN_USAGE = KindSpec(
    kind="token-usage", cls=TokenUsage, description="Passes when the session's tokens stay within the limits.",
    feature="check.budget", looks_at="session", asserts="bound", graded=False, score=_tokens, sentence=_passes,
    terum=Absent(TERUM_NO_OUTPUT),
    agentv=Agentv("token-usage", (AgentvField("max_total", "max_total", "number?"),
                                  AgentvField("max_input", "max_input", "number?"),
                                  AgentvField("max_output", "max_output", "number?")),
                  spellings=("token_usage",), sentence=_tokens_sentence),
    promptfoo=Absent(PROMPTFOO_NONE),
    skillgym=Absent(""))
SPECS = (LATENCY, COST, TOKEN_USAGE)
