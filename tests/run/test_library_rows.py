"""The rows of a two-library trigger run: a dead session's row carries no detail of its own, whatever
row came before it (a dead first row used to raise UnboundLocalError; a dead row after a judged one
took that row's detail)."""

from __future__ import annotations

from evalfmt import ir
from evalfmt.run import judges, layout
from evalfmt.run import library


def _test(name: str) -> library.Test:
    return library.Test(id=name, case=ir.Case(name=name, input="do it", judge="names the skill"), task="do it", system="",
                extra_checks=[], expect={})


def _sessions(name: str, candidate_dead: bool) -> list[library.Session]:
    return [library.Session(layout.CANDIDATE, name, 1, error="agent exited 3" if candidate_dead else None),
            library.Session(layout.BASELINE, name, 1)]


def test_a_dead_row_first_and_after_a_judged_row_has_no_detail():
    tests = [_test("dead-first"), _test("judged"), _test("dead-after")]
    sessions = [*_sessions("dead-first", True), *_sessions("judged", False), *_sessions("dead-after", True)]
    rows, tally = library.decide_rows(tests, sessions, 1, judges.NoJudge())
    assert rows == [
        {"case": "dead-first", "repetition": 1, "opponent": "baseline", "outcome": "tie",
         "reason": "candidate-run-failed"},
        {"case": "judged", "repetition": 1, "opponent": "baseline", "outcome": "tie",
         "reason": "judge-not-configured", "detail": judges.NOT_CONFIGURED},
        {"case": "dead-after", "repetition": 1, "opponent": "baseline", "outcome": "tie",
         "reason": "candidate-run-failed"},
    ]
    assert (tally.win, tally.loss, tally.tie) == (0, 0, 1)  # dead rows are not counted
