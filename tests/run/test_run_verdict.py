"""terum's numbers: the worked examples, the summary line, and properties of the band and the sign test."""

from __future__ import annotations

from math import comb

from hypothesis import given, settings
from hypothesis import strategies as st

from evalfmt import verdict as v


def test_terum_examples():
    assert v.band(2, 0, 4) == "PASS"  # exactly +1/3
    assert v.band(1, 0, 5) == "NEUTRAL"
    assert v.band(5, 1, 3) == "PASS"
    assert v.summary_line(5, 1, 3) == "+44% net lift (5W / 1L / 3T over 9 comparisons, sign test p=0.219)"
    assert v.summary_line(2, 1, 6) == "+11% net lift (2W / 1L / 6T over 9 comparisons, sign test p=1.000)"
    assert v.band(0, 1, 2) == "FAIL" and v.band(2, 1, 6) == "NEUTRAL" and v.band(0, 0, 0) == "NEUTRAL"
    assert v.summary_line(0, 0, 0) == "+0% net lift (0W / 0L / 0T over 0 comparisons, sign test p=1.000)"


def test_rounding_is_javascript_tofixed():
    assert v.summary_line(1, 0, 7).startswith("+13% ")  # 12.5 rounds up, as toFixed does (Python: 12)
    assert v.summary_line(0, 1, 300).startswith("-0% ")  # a negative lift under half a percent
    assert v.to_fixed(0.0625, 3) == "0.063"
    assert v.to_fixed(1.005, 2) == "1.00"  # the double is just below 1.005


def test_status():
    assert v.status(9, 9) == "complete" and v.status(0, 0) == "complete"
    assert v.status(9, 5) == "partial" and v.status(9, 0) == "failed"
    assert v.status_suffix(9, 5) == " [partial — 5/9 scored]"
    assert v.status_suffix(9, 0) == " [failed — 0/9 scored]"
    assert v.status_suffix(9, 9) == ""


counts = st.integers(min_value=0, max_value=60)


@settings(max_examples=300)
@given(counts, counts, counts)
def test_band_is_antisymmetric_and_matches_the_lift(w, l, t):
    b, mirror = v.band(w, l, t), v.band(l, w, t)
    assert {b, mirror} in ({"PASS", "FAIL"}, {"NEUTRAL"}) or (b == mirror == "NEUTRAL")
    n = w + l + t
    lift = v.net_lift(w, l, t)
    assert -1 <= lift <= 1
    if n:
        assert (b == "PASS") == (lift >= 1 / 3 - 1e-12 and 3 * (w - l) >= n)
        assert (b == "FAIL") == (3 * (w - l) <= -n)


@settings(max_examples=200)
@given(counts, counts, counts)
def test_more_wins_never_lower_the_band(w, l, t):
    rank = {"FAIL": 0, "NEUTRAL": 1, "PASS": 2}
    assert rank[v.band(w + 1, l, t)] >= rank[v.band(w, l, t)]
    if t:
        assert rank[v.band(w + 1, l, t - 1)] >= rank[v.band(w, l, t)]  # a tie turning into a win


@settings(max_examples=300)
@given(counts, counts)
def test_sign_test_properties(w, l):
    p = v.sign_test(w, l)
    assert 0 < p <= 1
    assert p == v.sign_test(l, w)
    if w == l:
        assert p == 1.0
    n = w + l
    if n:
        brute = min(1.0, 2 * sum(comb(n, i) for i in range(min(w, l) + 1)) / 2**n)
        assert abs(p - brute) < 1e-12
        assert v.sign_test(w + 1, l) <= p or w < l  # more lopsided, smaller p


@settings(max_examples=100)
@given(counts, counts, counts)
def test_ties_do_not_change_the_sign_test(w, l, t):
    assert v.summary_line(w, l, t).endswith(f"sign test p={v.to_fixed(v.sign_test(w, l), 3)})")
