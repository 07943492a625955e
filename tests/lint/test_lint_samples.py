"""The sample library is the yardstick of "conservative": every realistic, well-written skill in
fixtures/library (release-notes, migration-review, csv-summary, and the eval-less siblings) and the
bundled EVAL.yaml lint clean with every rule on, info included."""

from __future__ import annotations

import pytest

from conftest import FIXTURES

SKILLS = sorted(p.name for p in (FIXTURES / "library").iterdir() if p.is_dir())


@pytest.mark.parametrize("skill", SKILLS)
def test_sample_skill_lints_clean(run_cli, skill):
    path = str(FIXTURES / "library" / skill)
    code, out, err = run_cli("lint", "--isolated", "--select", "ALL", "--quiet", path)
    assert (code, out, err) == (0, "", "")


def test_library_and_eval_yaml_clean(run_cli):
    code, out, err = run_cli("lint", "--isolated", str(FIXTURES / "library"), str(FIXTURES / "agentv"))
    assert (code, err) == (0, "")
    assert out.startswith("0 errors, 0 warnings in ")


def test_library_has_several_skills_with_evals():
    with_evals = [s for s in SKILLS if (FIXTURES / "library" / s / "evals").is_dir()]
    assert len(with_evals) >= 3
