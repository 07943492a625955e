"""The pieces of ``evalfmt run`` on their own: templates, the agent environment, staging rules,
copies and symlinks, requires probes."""

from __future__ import annotations

import os
import pathlib
import re
import stat

import pytest

from evalfmt.errors import EvalfmtError
from evalfmt.run import runners, sandbox
from evalfmt.run.sandbox import StageError, StageSpec

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "running.md"


def test_template_split_and_placeholders_stay_inside_their_word():
    words = runners.split_template("agent -p {task} --prompt={task} --note \"{note}\" '{unknown}' {max_turns}")
    values = {"task": "a b; $(x) {note}", "note": "N", "max_turns": "7", "model": ""}
    assert runners.expand(words, values) == [
        "agent", "-p", "a b; $(x) {note}", "--prompt=a b; $(x) {note}", "--note", "N", "{unknown}", "7"]


def test_the_documented_terum_template_splits_as_terum_passes_its_arguments():
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(r"--agent-command '(claude -p \{task\}\n.*?)'\n", text, re.S).group(1)
    words = runners.split_template(block)
    assert words == ["claude", "-p", "{task}", "--output-format", "stream-json", "--verbose", "--max-turns",
                     "{max_turns}", "--permission-mode", "acceptEdits", "--allowedTools",
                     "Bash Read Write Edit Glob Grep", "--setting-sources", "project", "--strict-mcp-config",
                     "--append-system-prompt", "{note}", "--model", "{model}"]


def test_agent_env_drops_evalfmt_variables_and_sets_the_project_dir():
    base = {"HOME": "/home/u", "PATH": "/bin", "EVALFMT_MAX_BYTES": "1", "EVALFMT_CONFORMANCE": "x",
            "CLAUDE_PROJECT_DIR": "/elsewhere"}
    env = runners.agent_env("/sb", {"EXTRA": "1"}, base=base)
    assert env == {"HOME": "/home/u", "PATH": "/bin", "CLAUDE_PROJECT_DIR": "/sb", "EXTRA": "1", "PWD": "/sb"}
    assert runners.agent_env(None, None, base=base) == {"HOME": "/home/u", "PATH": "/bin",
                                                         "CLAUDE_PROJECT_DIR": "/elsewhere"}


def test_resolve_program(tmp_path):
    assert runners.resolve_program("sh", str(tmp_path), os.environ.get("PATH")).endswith("/sh")
    script = tmp_path / "agent.sh"
    script.write_text("#!/bin/sh\n")
    with pytest.raises(EvalfmtError, match="not executable"):
        runners.resolve_program("./agent.sh", str(tmp_path), None)
    script.chmod(0o755)
    assert runners.resolve_program("./agent.sh", str(tmp_path), None) == str(script)


@pytest.mark.parametrize("rel, problem", [
    ("/etc/passwd", True), ("a/../../b", True), ("..", True), (".claude/settings.json", True),
    ("./.claude/hooks.sh", True), ("a/.claude/x", False), ("bin/tool", False), ("x..y", False),
])
def test_files_path_rule(rel, problem):
    assert (sandbox.file_path_violation(rel) is not None) == problem


@pytest.mark.parametrize("rel, executable", [
    ("run.sh", True), ("bin/tool", True), ("./bin/tool", True), ("a/bin/tool", False), ("tool.py", False),
    ("scripts/x.sh", True),
])
def test_executable_rule(rel, executable):
    assert sandbox.is_executable_path(rel) == executable


def test_unsafe_paths_are_checked_before_anything_is_written(tmp_path):
    fixture = tmp_path / "fx"
    fixture.mkdir()
    (fixture / "f.txt").write_text("x")
    box = tmp_path / "box"
    box.mkdir()
    spec = StageSpec("c", str(tmp_path), fixture="fx", files={"ok.txt": "1", ".claude/settings.json": "{}"},
                     setup="touch ran")
    with pytest.raises(StageError) as info:
        sandbox.stage(spec, str(box))
    assert (info.value.kind, info.value.where) == ("staging", ("files", ".claude/settings.json"))
    assert os.listdir(box) == []


def test_a_nul_in_a_files_path_or_in_setup_drops_the_case(tmp_path):
    box = tmp_path / "box"
    box.mkdir()
    with pytest.raises(StageError) as info:
        sandbox.stage(StageSpec("c", str(tmp_path), files={"a\x00b": "x"}), str(box))
    assert (info.value.kind, info.value.detail) == ("staging", "unsafe file path 'a\\0b': holds a NUL character")
    with pytest.raises(StageError) as info:
        sandbox.stage(StageSpec("c", str(tmp_path), setup="echo \x00"), str(box))
    assert (info.value.kind, info.value.detail) == ("setup", "setup cannot run: embedded null byte")


def test_a_file_is_never_written_through_a_symlink_out_of_the_sandbox(tmp_path):
    box, elsewhere = tmp_path / "box", tmp_path / "elsewhere"
    box.mkdir()
    elsewhere.mkdir()
    os.symlink(elsewhere, box / "out")
    with pytest.raises(StageError, match="leads out of the sandbox through a symlink"):
        sandbox.stage(StageSpec("c", str(tmp_path), files={"out/x.txt": "gotcha"}), str(box))
    assert os.listdir(elsewhere) == []


def test_missing_fixture_and_failing_setup_are_drops(tmp_path):
    box = tmp_path / "box"
    box.mkdir()
    with pytest.raises(StageError) as info:
        sandbox.stage(StageSpec("c", str(tmp_path), fixture="nope"), str(box))
    assert (info.value.kind, info.value.detail) == ("staging", f"fixture directory not found: {tmp_path}/nope")
    (tmp_path / "file").write_text("x")
    with pytest.raises(StageError, match="fixture directory not a directory"):
        sandbox.stage(StageSpec("c", str(tmp_path), fixture="file"), str(box))
    with pytest.raises(StageError) as info:
        sandbox.stage(StageSpec("c", str(tmp_path), setup="echo one\necho two >&2\nfalse\necho never"), str(box))
    assert (info.value.kind, info.value.detail, info.value.where) == ("setup", "setup failed: exit 1: two", ("setup",))
    with pytest.raises(StageError, match=r"setup failed: timed out after 0.3 s"):
        sandbox.stage(StageSpec("c", str(tmp_path), setup="sleep 5"), str(box), setup_timeout=0.3)


def test_skill_copy_filters_top_level_evals_and_fixtures_and_symlinks_out(tmp_path):
    skill = tmp_path / "skill"
    for rel in ("SKILL.md", "evals/cases/a.yaml", "fixtures/f.txt", "docs/evals/kept.md", "docs/fixtures/kept.md"):
        (skill / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill / rel).write_text(rel)
    (skill / "run.sh").write_text("echo\n")
    (skill / "run.sh").chmod(0o755)
    os.symlink("docs/evals/kept.md", skill / "inside-link")
    os.symlink(str(skill / "SKILL.md"), skill / "absolute-inside")
    os.symlink("/etc/hostname", skill / "outside-link")
    os.symlink("../", skill / "parent-link")
    box = tmp_path / "box"
    box.mkdir()
    report = sandbox.stage(StageSpec("c", str(tmp_path), skill_dir=str(skill), skill_name="skill"), str(box))
    staged = box / ".claude" / "skills" / "skill"
    found = sorted(str(p.relative_to(staged)) for p in staged.rglob("*"))
    assert found == ["SKILL.md", "absolute-inside", "docs", "docs/evals", "docs/evals/kept.md", "docs/fixtures",
                     "docs/fixtures/kept.md", "inside-link", "run.sh"]
    assert os.readlink(staged / "absolute-inside") == "SKILL.md"
    assert (staged / "inside-link").read_text() == "docs/evals/kept.md"
    assert stat.S_IMODE(os.stat(staged / "run.sh").st_mode) == 0o755
    assert sorted(n.split(" ")[3] for n in report.notes) == ["outside-link", "parent-link"]


def test_a_link_that_climbs_out_of_the_fixture_and_back_in_stays_inside_the_sandbox(tmp_path):
    fixture = tmp_path / "fx"
    (fixture / "sub").mkdir(parents=True)
    (fixture / "data.txt").write_text("original")
    os.symlink("../fx/data.txt", fixture / "climb")  # resolves inside the fixture, by way of its parent
    os.symlink("../../fx/data.txt", fixture / "sub" / "climb2")
    box = tmp_path / "runs" / "box"
    box.mkdir(parents=True)
    sandbox.stage(StageSpec("c", str(tmp_path), fixture="fx"), str(box))
    for link in (box / "climb", box / "sub" / "climb2"):
        assert os.path.realpath(link) == str(box / "data.txt")
        link.write_text("written by the agent")
    assert (fixture / "data.txt").read_text() == "original"


def test_the_skill_is_never_staged_through_a_symlink_left_by_setup(tmp_path):
    skill = tmp_path / "skill"
    skill.mkdir()
    (skill / "SKILL.md").write_text("s")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    box = tmp_path / "box"
    box.mkdir()
    spec = StageSpec("c", str(tmp_path), setup=f"ln -s {elsewhere} .claude", skill_dir=str(skill), skill_name="skill")
    with pytest.raises(StageError, match="leads out of the sandbox"):
        sandbox.stage(spec, str(box))
    assert os.listdir(elsewhere) == []


def test_requires_probes_pass_values_as_arguments(tmp_path):
    assert sandbox.missing_requirements(["sh", "python3:os"]) == []
    marker = tmp_path / "pwned"
    evil = f"x; touch {marker}"
    assert sandbox.missing_requirements([evil, f"python3:os; open('{marker}', 'w')"]) == \
        [evil, f"python3:os; open('{marker}', 'w')"]
    assert not marker.exists()


def test_describe_exit():
    assert runners.describe_exit(0, False, 60) is None
    assert runners.describe_exit(3, False, 60) == "agent exited 3"
    assert runners.describe_exit(-9, False, 60) == "agent killed by SIGKILL"
    assert runners.describe_exit(None, True, 1.2) == "agent timed out after 1.2 s"
