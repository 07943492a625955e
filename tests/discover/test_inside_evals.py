"""A folder inside a skill's ``evals/`` (``evals/cases``, or ``.`` typed from inside ``evals/``) is read
through its skill: the terum reader reads the whole skill, so its findings are reported, not a note that
there is no SKILL.md (there is one, above) and not 'no eval files found'."""

from __future__ import annotations

import pytest

SKILL_MD = "---\nname: myskill\ndescription: Does things.\n---\nBody.\n"
FINDING = "EV101 unknown key 'check' (did you mean 'checks'?); the engine ignores it silently\n"


@pytest.fixture
def skill(tmp_path):
    root = tmp_path / "myskill"
    (root / "evals" / "cases").mkdir(parents=True)
    (root / "SKILL.md").write_text(SKILL_MD)
    (root / "evals" / "cases" / "a.yaml").write_text("task: do it\ncheck: []\n")
    return root


@pytest.mark.parametrize("cwd, arg, shown", [
    ("evals", ".", "../evals/cases/a.yaml"),
    ("evals/cases", ".", "../../evals/cases/a.yaml"),
    ("evals", "cases", "../evals/cases/a.yaml"),
    (".", "evals/cases", "./evals/cases/a.yaml"),  # as `validate evals` spells it
])
def test_a_folder_inside_evals_is_read_through_its_skill(run_cli, skill, cwd, arg, shown):
    code, out, err = run_cli("validate", arg, cwd=str(skill / cwd))
    assert (code, out, err) == (1, f"{shown}:2:1: {FINDING}1 error, 0 warnings in 1 file\n", "")


def test_an_absolute_folder_inside_evals_keeps_absolute_paths(run_cli, skill):
    code, out, err = run_cli("validate", str(skill / "evals" / "cases"))
    assert (code, out, err) == (1, f"{skill}/evals/cases/a.yaml:2:1: {FINDING}1 error, 0 warnings in 1 file\n", "")


def test_an_evals_folder_without_a_skill_is_still_not_terum(run_cli, tmp_path):
    (tmp_path / "evals" / "cases").mkdir(parents=True)
    (tmp_path / "evals" / "cases" / "a.yaml").write_text("task: do it\n")
    code, out, err = run_cli("validate", ".", cwd=str(tmp_path / "evals" / "cases"))
    assert (code, out, err) == (0, "", "evalfmt: no eval files found under .\n")
