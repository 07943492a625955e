"""Net lift, the sign test, the verdict band, execution status and the summary line, as terum
computes and prints them.

- net lift = (W - L) / (W + L + T), 0 with no rows;
- sign test (two-sided, exact, ties excluded): p = min(1, 2 * sum_{i <= min(W, L)} C(W+L, i) / 2^(W+L)),
  1 when W + L = 0;
- verdict: PASS when 3(W - L) >= n, FAIL when 3(W - L) <= -n, NEUTRAL otherwise or with n = 0
  (integers, so the +-1/3 edges are exact);
- the line: ``+44% net lift (5W / 1L / 3T over 9 comparisons, sign test p=0.219)``, the percentage
  and p rounded as JavaScript's ``toFixed`` rounds (half away from zero on the double's exact value).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from math import comb

PASS, NEUTRAL, FAIL = "PASS", "NEUTRAL", "FAIL"
COMPLETE, PARTIAL, FAILED = "complete", "partial", "failed"


def net_lift(win: int, loss: int, tie: int) -> float:
    n = win + loss + tie
    return (win - loss) / n if n else 0.0


def sign_test(win: int, loss: int) -> float:
    n = win + loss
    if n == 0:
        return 1.0
    k = min(win, loss)
    tail = sum(comb(n, i) for i in range(k + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


def band(win: int, loss: int, tie: int) -> str:
    n = win + loss + tie
    if n == 0:
        return NEUTRAL
    net = win - loss
    if 3 * net >= n:
        return PASS
    if 3 * net <= -n:
        return FAIL
    return NEUTRAL


def to_fixed(x: float, digits: int) -> str:
    """``Number.prototype.toFixed(digits)``: the exact binary value, ties away from zero."""
    q = Decimal(1).scaleb(-digits)
    d = Decimal(x).quantize(q, rounding=ROUND_HALF_UP)
    text = format(d, "f")
    if x < 0 and d == 0:
        text = "-" + text.lstrip("-")
    return text


def summary_line(win: int, loss: int, tie: int, p: float | None = None) -> str:
    """terum's line, e.g. ``+44% net lift (5W / 1L / 3T over 9 comparisons, sign test p=0.219)``.
    ``p`` overrides the sign test (1.0 when a suite ran: its rows are not independent)."""
    p = sign_test(win, loss) if p is None else p
    n = win + loss + tie
    lift = 100 * net_lift(win, loss, tie)
    signed = ("+" if lift >= 0 else "") + to_fixed(lift, 0) + "%"
    return f"{signed} net lift ({win}W / {loss}L / {tie}T over {n} comparisons, sign test p={to_fixed(p, 3)})"


def status(expected: int, scored: int) -> str:
    if expected == 0 or scored >= expected:
        return COMPLETE
    return PARTIAL if scored > 0 else FAILED


def status_suffix(expected: int, scored: int) -> str:
    """What terum appends to the verdict line of an incomplete run: `` [partial — 5/9 scored]``."""
    st = status(expected, scored)
    return "" if st == COMPLETE else f" [{st} — {scored}/{expected} scored]"


@dataclass
class Tally:
    """One comparison's counts (candidate against one opponent)."""

    win: int = 0
    loss: int = 0
    tie: int = 0

    @property
    def n(self) -> int:
        return self.win + self.loss + self.tie

    @property
    def net_lift(self) -> float:
        return net_lift(self.win, self.loss, self.tie)

    @property
    def sign_p(self) -> float:
        return sign_test(self.win, self.loss)

    @property
    def verdict(self) -> str:
        return band(self.win, self.loss, self.tie)

    def line(self, sign_p: float | None = None) -> str:
        return summary_line(self.win, self.loss, self.tie, sign_p)

    def add(self, outcome: str) -> None:
        setattr(self, outcome, getattr(self, outcome) + 1)

    def to_json(self, sign_p: float | None = None) -> dict:
        return {"win": self.win, "loss": self.loss, "tie": self.tie, "net_lift": self.net_lift,
                "sign_p": self.sign_p if sign_p is None else sign_p}
