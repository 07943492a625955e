"""Golden reports: each fixed receipt set rendered by `evalfmt report` in both formats, byte for byte."""

from __future__ import annotations

import pytest
from conftest import check_golden

from reporthelp import GOLDEN, ROOT, receipt

SETS = {
    # the latest of three runs of one skill, with an incumbent arm, triggers and k=2
    "single": ["release-notes-3"],
    # three runs of one skill: the trend (given out of order: the report orders them by run_id)
    "trend": ["release-notes-2", "release-notes-3", "release-notes-1"],
    # sessions missing or unreadable: status partial, dead arms
    "partial": ["partial"],
    # no agent sessions, only trigger selections
    "triggers-only": ["triggers-only"],
    # a receipt as terum writes it: no rows (read from per_case), no summary lines, skips and drops
    "terum-style": ["terum-style"],
    # two skills in one report
    "two-skills": ["terum-style", "partial"],
    # hostile strings in every value taken from eval files or transcripts
    "hostile": ["hostile"],
}
EXT = {"html": "html", "markdown": "md"}


@pytest.mark.parametrize("fmt", ["html", "markdown"])
@pytest.mark.parametrize("name", list(SETS))
def test_golden(run_cli, name, fmt):
    code, out, err = run_cli("report", *[receipt(r) for r in SETS[name]], "--format", fmt, cwd=str(ROOT))
    assert (code, err) == (0, "")
    check_golden(GOLDEN / f"{name}.{EXT[fmt]}", out)
