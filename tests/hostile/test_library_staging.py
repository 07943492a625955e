"""A trigger run stages the whole library in each sandbox by the rules of every sandbox copy: a symlink in
a skill that leads out of it (to a key, a home folder) never reaches the agent; one inside stays a link."""

from __future__ import annotations

import os

from evalfmt.run.library import stage_library


def test_a_symlink_leading_out_of_a_library_skill_is_not_staged(tmp_path):
    (tmp_path / "secret.txt").write_text("key\n")
    skill = tmp_path / "lib" / "notes"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: notes\ndescription: Writes minutes.\n---\n")
    (skill / "evals" / "cases.yaml").write_text("x: 1\n")
    os.symlink(str(tmp_path / "secret.txt"), skill / "secret.txt")
    os.symlink("../../secret.txt", skill / "relative-secret.txt")
    os.symlink("SKILL.md", skill / "alias.md")
    sandbox = tmp_path / "sandbox"
    sandbox.mkdir()
    stage_library({"notes": str(skill)}, str(sandbox))
    staged = sandbox / ".claude" / "skills" / "notes"
    assert sorted(os.listdir(staged)) == ["SKILL.md", "alias.md"]
    assert os.readlink(staged / "alias.md") == "SKILL.md"
    assert (staged / "alias.md").read_text() == (skill / "SKILL.md").read_text()
