"""The seed layout: golden outputs, the validation rules (nothing written on any error), path safety,
atomic and idempotent writes, --check, --stdout, and the pre-commit hook."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import FIXTURES, ROOT, check_golden

GOLDEN = ROOT / "tests" / "golden" / "transpile" / "seed"

ONE_SKILL = """\
tests:
  - id: deploy-request
    input: "How do I deploy payments-api?"
    assertions:
      - type: skill-trigger
        skill: acme-deploy
  - id: unrelated
    input: "What time is it?"
    assertions:
      - type: skill-trigger
        skill: acme-deploy
        should_trigger: false
"""

SEVERAL_SKILLS = """\
tests:
  - id: commit
    input: Commit my changes
    assertions:
      - type: skill-trigger
        skill: commit
        should_trigger: true
  - id: both
    input: Commit and push
    assertions:
      - type: skill-trigger
        skill: push
      - type: skill-trigger
        skill: commit
  - id: twice-same-way
    input: Push now
    assertions:
      - type: skill-trigger
        skill: push
      - type: skill-trigger
        skill: push
        should_trigger: true
  - id: plugin-skill
    input: Review this
    assertions:
      - type: skill-trigger
        skill: review
        should_trigger: false
"""

MESSAGES = """\
tests:
  - id: messages
    input:
      - role: system
        content: You are terse.
      - role: user
        content:
          - type: file
            value: notes.md
          - type: text
            value: Summarise the notes.
    assertions:
      - type: skill-trigger
        skill: summarise
  - id: object-shorthand
    input: {role: user, content: Summarise again.}
    assertions:
      - type: skill-trigger
        skill: summarise
"""

UNTRIGGERED = """\
tests:
  - id: routed
    input: Deploy it.
    assertions:
      - type: skill-trigger
        skill: deploy
  - id: plain
    input: Explain tags.
    criteria: Explains tags.
  - id: only-output-checks
    input: Say hi.
    assertions:
      - type: contains
        value: hi
"""


def write(tmp: pathlib.Path, rel: str, text: str) -> pathlib.Path:
    path = tmp / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def tree(root: pathlib.Path) -> dict[str, str]:
    if not root.exists():
        return {}
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*")) if p.is_file()}


def check_tree(name: str, root: pathlib.Path) -> None:
    got = tree(root)
    expected = GOLDEN / name
    if expected.exists():
        assert sorted(got) == sorted(str(p.relative_to(expected)) for p in expected.rglob("*") if p.is_file()
                                     and p.name != "stderr.txt") or os.environ.get("EVALFMT_UPDATE_GOLDEN") == "1"
    for rel, text in got.items():
        check_golden(expected / rel, text)


def run_in(run_cli, cwd: pathlib.Path, *args: str):
    return run_cli("transpile", *args, cwd=str(cwd))


# ------------------------------------------------------------------------------------ goldens


@pytest.mark.parametrize("name,text", [("one-skill", ONE_SKILL), ("several-skills", SEVERAL_SKILLS),
                                       ("message-inputs", MESSAGES)])
def test_golden(run_cli, tmp_path, name, text):
    write(tmp_path, "evals/EVAL.yaml", text)
    code, out, err = run_in(run_cli, tmp_path, "evals/EVAL.yaml")
    assert (code, out) == (0, "")
    check_tree(name, tmp_path / "evals" / ".agentv" / "skills")
    check_golden(GOLDEN / name / "stderr.txt", err)


def test_golden_untriggered_tests_are_named_on_stderr_and_exit_0(run_cli, tmp_path):
    write(tmp_path, "EVAL.yaml", UNTRIGGERED)
    code, out, err = run_in(run_cli, tmp_path, "EVAL.yaml")
    assert (code, out) == (0, "")
    assert err == ("evalfmt: not routed: EVAL.yaml:7: test 'plain' has no skill-trigger\n"
                   "evalfmt: not routed: EVAL.yaml:10: test 'only-output-checks' has no skill-trigger\n"
                   "evalfmt: wrote .agentv/skills/deploy/evals.json\n")
    check_tree("untriggered", tmp_path / ".agentv" / "skills")


def test_golden_several_input_files_feed_one_skill_in_the_order_given(run_cli, tmp_path):
    write(tmp_path, "b.eval.yaml", """\
        tests:
          - id: from-b
            input: B first
            assertions: [{type: skill-trigger, skill: deploy}]
        """)
    write(tmp_path, "a.eval.yaml", """\
        tests:
          - id: from-a
            input: A second
            assertions: [{type: skill-trigger, skill: deploy, should_trigger: false}]
          - id: other
            input: A other
            assertions: [{type: skill-trigger, skill: other}]
        """)
    code, out, err = run_in(run_cli, tmp_path, "b.eval.yaml", "a.eval.yaml", "--out-dir", "out")
    assert (code, out) == (0, "")
    assert err == "evalfmt: wrote out/deploy/evals.json\nevalfmt: wrote out/other/evals.json\n"
    check_tree("several-inputs", tmp_path / "out")


def test_golden_terum_triggers_route_by_folder_name(run_cli, tmp_path):
    shutil.copytree(FIXTURES / "library", tmp_path / "library")
    code, out, err = run_in(run_cli, tmp_path, "library/release-notes/evals/triggers.yaml")
    assert (code, out) == (0, "")
    assert err == "evalfmt: wrote library/.agentv/skills/release-notes/evals.json\n"
    check_tree("terum-triggers", tmp_path / "library" / ".agentv" / "skills")


def test_terum_skill_folder_routes_its_triggers_and_names_its_cases(run_cli, tmp_path):
    shutil.copytree(FIXTURES / "library", tmp_path / "library")
    code, _, err = run_in(run_cli, tmp_path, "library/release-notes")
    assert code == 0
    lines = err.splitlines()
    assert lines[-1] == "evalfmt: wrote library/.agentv/skills/release-notes/evals.json"
    assert all(line.startswith("evalfmt: not routed: library/release-notes/evals/") for line in lines[:-1])
    assert tree(tmp_path / "library" / ".agentv" / "skills") == tree(GOLDEN / "terum-triggers")


def test_skill_creator_trigger_set_outside_a_skill_needs_skill(run_cli, tmp_path):
    write(tmp_path, "trigger-evals.json", '[{"query": "Deploy it", "should_trigger": true},\n'
                                          ' {"query": "Time?", "should_trigger": false}]\n')
    code, _, err = run_in(run_cli, tmp_path, "trigger-evals.json")
    assert code == 1
    assert "give it with --skill NAME" in err
    assert not (tmp_path / ".agentv").exists()
    code, _, err = run_in(run_cli, tmp_path, "trigger-evals.json", "--skill", "deploy")
    assert code == 0
    assert (tmp_path / ".agentv/skills/deploy/evals.json").read_text() == (
        '{\n  "tests": [\n    {\n      "id": "should-trigger-1",\n      "input": "Deploy it",\n'
        '      "should_trigger": true\n    },\n    {\n      "id": "should-not-trigger-1",\n'
        '      "input": "Time?",\n      "should_trigger": false\n    }\n  ]\n}\n')


def test_fixture_eval_yaml(run_cli, tmp_path):
    shutil.copytree(FIXTURES / "agentv", tmp_path / "agentv")
    code, _, err = run_in(run_cli, tmp_path, "agentv/EVAL.yaml")
    assert code == 0
    assert err.splitlines()[0] == "evalfmt: not routed: agentv/EVAL.yaml:46: test 'plain-answer' has no skill-trigger"
    check_tree("fixture", tmp_path / "agentv" / ".agentv" / "skills")


# ------------------------------------------------------------------------- errors write nothing

ESCAPES = ["..", ".", "", "../outside", "a/b", "/etc", "back\\slash", "nul\x00byte"]


@pytest.mark.parametrize("skill", ESCAPES, ids=["dotdot", "dot", "empty", "parent", "slash", "absolute",
                                                  "backslash", "nul"])
def test_skill_names_that_are_not_one_folder_are_refused_and_nothing_is_written(run_cli, tmp_path, skill):
    yaml_skill = '"' + skill.replace("\\", "\\\\").replace("\x00", "\\0") + '"'
    write(tmp_path, "work/EVAL.yaml", f"""\
        tests:
          - id: good
            input: fine
            assertions: [{{type: skill-trigger, skill: fine}}]
          - id: evil
            input: go
            assertions:
              - type: skill-trigger
                skill: {yaml_skill}
        """)
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    code, out, err = run_in(run_cli, tmp_path / "work", "EVAL.yaml")
    assert (code, out) == (1, "")
    first = err.splitlines()[0]
    if "\x00" in skill:  # a control character: EV116, reported once although the reader and the router both see it
        assert first == ("evalfmt: EVAL.yaml:8:9: EV116 skill name 'nul[U+0000]byte' holds a control character "
                         "(U+0000): names and ids must print on one line; remove it")
    else:
        assert first.startswith("evalfmt: EVAL.yaml:8:9: EV106 skill name ")
        assert "in test 'evil'" in first
    assert err.splitlines()[-1] == "evalfmt: 1 error; nothing written"
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before
    assert not (tmp_path / "outside").exists()


def test_conflicting_trigger_is_an_error_and_nothing_is_written(run_cli, tmp_path):
    write(tmp_path, "EVAL.yaml", """\
        tests:
          - id: ok
            input: fine
            assertions: [{type: skill-trigger, skill: deploy}]
          - id: torn
            input: go
            assertions:
              - type: skill-trigger
                skill: deploy
              - type: skill-trigger
                skill: deploy
                should_trigger: false
        """)
    code, out, err = run_in(run_cli, tmp_path, "EVAL.yaml")
    assert (code, out) == (1, "")
    assert err == ("evalfmt: EVAL.yaml:10:9: EV503 test 'torn' asks skill 'deploy' both to trigger and not to "
                   "trigger (should_trigger false here, true before); keep one\n"
                   "evalfmt: 1 error; nothing written\n")
    assert not (tmp_path / ".agentv").exists()


def test_skill_trigger_without_skill_is_an_error_and_nothing_is_written(run_cli, tmp_path):
    write(tmp_path, "EVAL.yaml", """\
        tests:
          - id: ok
            input: fine
            assertions: [{type: skill-trigger, skill: deploy}]
          - id: nameless
            input: go
            assertions:
              - type: skill-trigger
                should_trigger: false
        """)
    code, out, err = run_in(run_cli, tmp_path, "EVAL.yaml")
    assert (code, out) == (1, "")
    assert err == ("evalfmt: EVAL.yaml:8:9: EV103 skill-trigger in test 'nameless' has no 'skill': name the skill "
                   "it should (or should not) trigger\n"
                   "evalfmt: 1 error; nothing written\n")
    assert not (tmp_path / ".agentv").exists()


def test_duplicate_ids_in_one_skill_file_are_an_error(run_cli, tmp_path):
    for name in ("a", "b"):
        write(tmp_path, f"{name}.eval.yaml", "tests:\n  - id: same\n    input: go\n"
                                             "    assertions: [{type: skill-trigger, skill: deploy}]\n")
    code, _, err = run_in(run_cli, tmp_path, "a.eval.yaml", "b.eval.yaml")
    assert code == 1
    assert err.splitlines()[0] == ("evalfmt: b.eval.yaml:2:5: EV115 test id 'same' is already routed to skill "
                                   "'deploy' from a.eval.yaml:2; ids must be unique within a skill's evals.json: "
                                   "rename one")
    assert not (tmp_path / ".agentv").exists()


def test_a_structural_error_in_the_input_writes_nothing(run_cli, tmp_path):
    write(tmp_path, "EVAL.yaml", "tests:\n  - id: a\n    input: one\n    input: two\n"
                                 "    assertions: [{type: skill-trigger, skill: deploy}]\n")
    code, _, err = run_in(run_cli, tmp_path, "EVAL.yaml")
    assert code == 1
    assert err.startswith("evalfmt: EVAL.yaml:4:5: EV114 duplicate key 'input'")
    assert not (tmp_path / ".agentv").exists()


def test_nothing_escapes_the_output_folder_through_a_symlink(run_cli, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    work = tmp_path / "work"
    write(work, "EVAL.yaml", "tests:\n  - id: a\n    input: go\n    assertions: [{type: skill-trigger, skill: deploy}]\n")
    (work / "out").mkdir()
    os.symlink(outside, work / "out" / "deploy")
    code, out, err = run_in(run_cli, work, "EVAL.yaml", "--out-dir", "out")
    assert code == 2
    assert err == ("evalfmt: refusing to write out/deploy/evals.json: outside the output folder out (through '..', "
                   "an absolute path or a symlink); nothing written\n")
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("git", [True, False])
def test_a_default_output_folder_committed_as_a_symlink_out_of_the_repository_is_refused(run_cli, tmp_path, git):
    """A repository that commits ``.agentv -> ../elsewhere``: transpile without -o wrote outside it. It is
    refused on one line naming -o; with -o the same folder is written on purpose."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    repo = tmp_path / "repo"
    write(repo, "EVAL.yaml", "tests:\n  - id: a\n    input: go\n    assertions: [{type: skill-trigger, skill: deploy}]\n")
    if git:
        (repo / ".git").mkdir()
    os.symlink("../elsewhere", repo / ".agentv")
    for layout in ("seed", "agentv"):
        code, out, err = run_in(run_cli, repo, "EVAL.yaml", "--layout", layout)
        if layout == "agentv":  # the input's own folder: inside
            assert (code, err) == (0, "evalfmt: wrote ./evals.json\n")
            continue
        where = f"the repository {repo}" if git else "the folder ."
        assert (code, out) == (2, "")
        assert err == (f"evalfmt: refusing to write into the default output folder .agentv/skills: outside {where} "
                       "(through '..', an absolute path or a symlink); nothing written; give -o .agentv/skills to write "
                       "there on purpose\n")
        assert list(elsewhere.iterdir()) == []
    code, _, err = run_in(run_cli, repo, "EVAL.yaml", "-o", ".agentv/skills")
    assert (code, err) == (0, "evalfmt: wrote .agentv/skills/deploy/evals.json\n")
    assert (elsewhere / "skills" / "deploy" / "evals.json").is_file()
    # a default folder inside the repository through a symlink is fine
    os.remove(repo / ".agentv")
    (repo / "real").mkdir()
    os.symlink("real", repo / ".agentv")
    assert run_in(run_cli, repo, "EVAL.yaml")[0] == 0 and (repo / "real" / "skills" / "deploy" / "evals.json").is_file()


def test_every_written_path_resolves_inside_the_output_folder(tmp_path):
    from evalfmt.transpile import plan

    names = ["plugin:deploy", "caf\u00e9", "a b", "x.y", "-dash", "\U0001F600", "dots...", "~home"]
    body = "tests:\n" + "".join(
        f"  - id: t{i}\n    input: go\n    assertions: [{{type: skill-trigger, skill: \"{n}\"}}]\n"
        for i, n in enumerate(names))
    path = write(tmp_path, "EVAL.yaml", body)
    out = tmp_path / "out"
    p = plan([str(path)], out_dir=str(out))
    assert p.ok
    for target in p.files:
        resolved = pathlib.Path(target).resolve()
        assert resolved.parent.parent == out.resolve()
        assert resolved.name == "evals.json"


# ---------------------------------------------------------------------------------- writing


def test_unchanged_files_are_not_rewritten_and_no_temporary_file_stays(run_cli, tmp_path):
    write(tmp_path, "EVAL.yaml", ONE_SKILL)
    assert run_in(run_cli, tmp_path, "EVAL.yaml")[0] == 0
    target = tmp_path / ".agentv" / "skills" / "acme-deploy" / "evals.json"
    stat = target.stat()
    code, out, err = run_in(run_cli, tmp_path, "EVAL.yaml")
    assert (code, out, err) == (0, "", "")
    assert target.stat().st_ino == stat.st_ino and target.stat().st_mtime_ns == stat.st_mtime_ns
    assert [p.name for p in target.parent.iterdir()] == ["evals.json"]


def test_check_names_every_missing_or_differing_file_and_writes_nothing(run_cli, tmp_path):
    write(tmp_path, "EVAL.yaml", SEVERAL_SKILLS)
    code, out, err = run_in(run_cli, tmp_path, "EVAL.yaml", "--check")
    assert (code, out) == (1, "")
    assert err == ("evalfmt: missing: .agentv/skills/commit/evals.json\n"
                   "evalfmt: missing: .agentv/skills/push/evals.json\n"
                   "evalfmt: missing: .agentv/skills/review/evals.json\n"
                   "evalfmt: 3 of 3 files out of date; to update, run: evalfmt transpile EVAL.yaml\n")
    assert not (tmp_path / ".agentv").exists()
    assert run_in(run_cli, tmp_path, "EVAL.yaml")[0] == 0
    assert run_in(run_cli, tmp_path, "EVAL.yaml", "--check") == (0, "", "")
    (tmp_path / ".agentv/skills/push/evals.json").write_text("{}\n")
    code, _, err = run_in(run_cli, tmp_path, "EVAL.yaml", "--check")
    assert code == 1
    assert err.splitlines()[0] == "evalfmt: differs: .agentv/skills/push/evals.json"
    assert (tmp_path / ".agentv/skills/push/evals.json").read_text() == "{}\n"


def test_stdout_prints_the_one_file(run_cli, tmp_path):
    write(tmp_path, "EVAL.yaml", ONE_SKILL)
    code, out, err = run_in(run_cli, tmp_path, "EVAL.yaml", "--stdout")
    assert (code, err) == (0, "")
    assert out == (GOLDEN / "one-skill" / "acme-deploy" / "evals.json").read_text()
    assert not (tmp_path / ".agentv").exists()
    write(tmp_path, "EVAL.yaml", SEVERAL_SKILLS)
    code, out, err = run_in(run_cli, tmp_path, "EVAL.yaml", "--stdout")
    assert (code, out) == (1, "")
    assert err.startswith("evalfmt: --stdout needs exactly one output file; this transpile writes 3: ")


@pytest.mark.parametrize("layout", ["seed", "agentv"])
def test_check_prints_the_exact_command_that_updates(run_cli, tmp_path, layout):
    """The advice names the inputs, the layout and the output folder, quoted for the shell, and running
    it brings --check back to exit 0 (before: "run 'evalfmt transpile' without --check", which under
    --layout agentv wrote the wrong layout)."""
    import shlex

    folder = tmp_path / "my evals"
    folder.mkdir()
    write(folder, "EVAL.yaml", ONE_SKILL)
    args = ["--layout", layout, "--out", "out dir/it's here", "my evals/EVAL.yaml"]
    code, out, err = run_in(run_cli, tmp_path, "--check", *args)
    assert (code, out) == (1, "")
    last = err.splitlines()[-1]
    layout_args = "--layout agentv " if layout == "agentv" else ""
    assert last == ("evalfmt: 1 of 1 file out of date; to update, run: evalfmt transpile "
                    f"{layout_args}--out 'out dir/it'\"'\"'s here' 'my evals/EVAL.yaml'")
    command = shlex.split(last.split("run: ", 1)[1])
    assert command[:2] == ["evalfmt", "transpile"]
    assert run_in(run_cli, tmp_path, *command[2:])[0] == 0
    assert run_in(run_cli, tmp_path, "--check", *args) == (0, "", "")


def test_check_advice_keeps_skill_and_from_and_stays_on_one_line(run_cli, tmp_path):
    from evalfmt.commands.transpile import shell_quote, update_command

    assert update_command(("-odd.json",), "seed", None, "notes", "skill-creator-triggers") == (
        "evalfmt transpile --skill notes --from skill-creator-triggers -- -odd.json")
    assert shell_quote("a\nb\tc'\\\x85\u2028") == "$'a\\nb\\tc\\'\\\\\\u0085\\u2028'"
    assert shell_quote("plain/path.yaml") == "plain/path.yaml"


def test_old_output_flag_spellings_still_work(run_cli, tmp_path):
    """-o/--out is the output flag of every command now; transpile's -d/--out-dir (agentv's names) are
    kept as hidden aliases."""
    write(tmp_path, "EVAL.yaml", ONE_SKILL)
    for flag in ("-d", "--out-dir", "-o", "--out"):
        assert run_in(run_cli, tmp_path, "--check", flag, f"x{flag}", "EVAL.yaml")[2].splitlines()[0] == (
            f"evalfmt: missing: x{flag}/acme-deploy/evals.json")
    code, out, err = run_cli("transpile", "--help")
    assert "-o, --out DIR" in out and "--out-dir" not in out and "-d," not in out


def test_missing_input_is_a_usage_error(run_cli, tmp_path):
    assert run_in(run_cli, tmp_path, "nope.yaml") == (2, "", "evalfmt: nope.yaml: no such file or directory\n")


# ------------------------------------------------------------------------------- pre-commit


def test_pre_commit_hook_entry_passes_in_sync_files_and_fails_stale_ones(tmp_path):
    import yaml

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    hook = next(h for h in hooks if h["id"] == "evalfmt-transpile-check")
    import re

    pattern = re.compile(hook["files"])
    assert pattern.search("skills/EVAL.yaml") and pattern.search("evals/dataset.eval.yaml")
    assert not pattern.search("evals/cases/x.yaml")
    entry = hook["entry"].split()
    assert entry[0] == "evalfmt"
    cmd = [sys.executable, "-m", "evalfmt", *entry[1:], *hook.get("args", [])]
    write(tmp_path, "EVAL.yaml", ONE_SKILL)
    stale = subprocess.run(cmd + ["EVAL.yaml"], cwd=tmp_path, capture_output=True, text=True)
    assert stale.returncode == 1
    assert "evalfmt: missing: .agentv/skills/acme-deploy/evals.json" in stale.stderr
    subprocess.run([sys.executable, "-m", "evalfmt", "transpile", "EVAL.yaml"], cwd=tmp_path, check=True,
                   capture_output=True)
    fresh = subprocess.run(cmd + ["EVAL.yaml"], cwd=tmp_path, capture_output=True, text=True)
    assert (fresh.returncode, fresh.stdout, fresh.stderr) == (0, "", "")
