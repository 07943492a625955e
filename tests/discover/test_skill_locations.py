"""Folder search finds skills in every project skill folder the agents read (docs/discovery.md), and
still skips version control, dependencies, caches and the other hidden folders."""

from __future__ import annotations

import pytest

from evalfmt.discover import discover

#: agent folder -> the agent whose docs name it (docs/discovery.md says where each is documented)
LOCATIONS = [".claude/skills", ".github/skills", ".agents/skills", ".codex/skills", ".cursor/skills",
             ".gemini/skills", ".opencode/skills", ".windsurf/skills", "skills/.curated", "skills/.system"]

#: a case with a typo: an EV101 and an EV103 error in each skill found
BROKEN = "check:\n  - transcript_mentions: x\n"


def skill(root, where: str, name: str = "demo") -> str:
    folder = root / where / name
    (folder / "evals" / "cases").mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\nbody\n")
    (folder / "evals" / "cases" / "c.yaml").write_text(BROKEN)
    return f"{where}/{name}/evals/cases/c.yaml"


@pytest.mark.parametrize("where", LOCATIONS)
def test_each_agent_skill_folder_is_searched(run_cli, tmp_path, where):
    rel = skill(tmp_path, where)
    code, out, err = run_cli("validate", ".", cwd=str(tmp_path))
    assert (code, err) == (1, "")
    assert out == (f"{rel}:1:1: EV101 unknown key 'check' (did you mean 'checks'?); the engine ignores it silently\n"
                   f"{rel}:1:1: EV103 case 'c' needs a 'task' (the prompt the agent receives)\n"
                   "2 errors, 0 warnings in 1 file\n")


def test_every_location_in_one_repository(tmp_path):
    for i, where in enumerate(LOCATIONS):
        skill(tmp_path, where, f"s{i}")
    units = discover(str(tmp_path))
    assert sorted(u.path for u in units) == sorted(str(tmp_path / w / f"s{i}") for i, w in enumerate(LOCATIONS))
    assert {u.format for u in units} == {"terum"}


@pytest.mark.parametrize("where", [".git/skills", "node_modules/pkg/skills", ".venv/skills", ".vscode/skills",
                                   ".github/workflows", ".claude/commands", ".idea", "__pycache__", ".agentv/skills"])
def test_other_folders_stay_skipped(tmp_path, where):
    skill(tmp_path, where)
    assert discover(str(tmp_path)) == []


def test_files_directly_in_an_agent_folder_are_not_read(tmp_path):
    (tmp_path / ".github").mkdir()
    # a workflow-like file with agentv's top-level key: not a skill, so not searched
    (tmp_path / ".github" / "ci.yaml").write_text("tests:\n  - id: a\n    input: x\n    criteria: c\n")
    assert discover(str(tmp_path)) == []


def test_lint_gives_hygiene_to_skills_in_agent_folders(run_cli, tmp_path):
    folder = tmp_path / ".github" / "skills" / "Bad_Name"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: Bad_Name\ndescription: d\n---\nbody\n")
    code, out, err = run_cli("lint", "--isolated", "--select", "HYG1", ".", cwd=str(tmp_path))
    assert (code, err) == (1, "")
    assert out.startswith(".github/skills/Bad_Name/SKILL.md:2:7: HYG1 ")
