"""lint and validate as ruff users expect them (issue 12 items 5 and 12): a folder with no eval file
is named on stderr (exit 0, as ruff's "No Python files found"), `--format json` counts the files
checked, and `--exit-zero`, `--statistics`, `--exclude` (also `exclude`/`extend-exclude` in the
configuration) and one file read from stdin (`-` with `--stdin-filename`)."""

from __future__ import annotations

import json

import pytest


SKILL_MD = "---\nname: notes\ndescription: Drafts release notes from the git history.\n---\n# Notes\n"
CASE_BAD = "task: Write the release notes since v1.4.0.\nchek:\n  - transcript_mentions: LegacyConfigLoader\n"
CASE_OK = ("task: Write the release notes since v1.4.0.\nbucket: explicit\nchecks:\n"
           "  - transcript_mentions: LegacyConfigLoader\n  - transcript_omits: TODO\n")
EVAL_TYPO = ("tests:\n  - id: notes\n    input: Write the release notes.\n    criteria: Breaking changes first.\n"
             "    assertions:\n      - type: skill-triger\n        skill: notes\n")
EVAL_OK = ("tests:\n  - id: notes\n    input: Write the release notes.\n    criteria: Breaking changes first.\n"
           "    assertions:\n      - type: skill-trigger\n        skill: notes\n")
EV101 = "unknown key 'chek' (did you mean 'checks'?); the engine ignores it silently"
EV104 = ("unknown assertion type 'skill-triger' (did you mean 'skill-trigger'?); agentv runs it as a custom "
         "assertion, and none named 'skill-triger' was found in .agentv/assertions/")



@pytest.fixture
def repo(tmp_path):
    """notes/ (a skill: one bad case, one good), EVAL.yaml with a type typo, legacy/EVAL.yaml (same),
    docs/ (nothing to check)."""
    (tmp_path / "notes" / "evals" / "cases").mkdir(parents=True)
    (tmp_path / "notes" / "SKILL.md").write_text(SKILL_MD)
    (tmp_path / "notes" / "evals" / "cases" / "bad.yaml").write_text(CASE_BAD)
    (tmp_path / "notes" / "evals" / "cases" / "good.yaml").write_text(CASE_OK)
    (tmp_path / "EVAL.yaml").write_text(EVAL_TYPO)
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "EVAL.yaml").write_text(EVAL_TYPO)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "README.md").write_text("# docs\n")
    return tmp_path


# ------------------------------------------------------------------------------------ item 5


@pytest.mark.parametrize("command", ["validate", "lint"])
def test_a_folder_with_no_eval_files_is_named_on_stderr(run_cli, repo, command):
    assert run_cli(command, "docs", cwd=str(repo)) == (
        0, "" if command == "validate" else "0 errors, 0 warnings in 0 files\n",
        "evalfmt: no eval files found under docs\n")
    # only the empty one of several paths; -q keeps stderr quiet as well
    code, out, err = run_cli(command, "docs", "notes", cwd=str(repo))
    assert (code, err) == (1, "evalfmt: no eval files found under docs\n")
    assert run_cli(command, "-q", "docs", cwd=str(repo)) == (0, "", "")


@pytest.mark.parametrize("command", ["validate", "lint"])
def test_json_counts_the_files_checked(run_cli, repo, command):
    code, out, err = run_cli(command, "--format", "json", "--exit-zero", "notes", "docs", cwd=str(repo))
    assert (code, err) == (0, "evalfmt: no eval files found under docs\n")
    summary = json.loads(out)["summary"]
    # two case files (one clean); lint also reads SKILL.md for the hygiene rules
    assert summary["files"] == (2 if command == "validate" else 3)
    code, out, _ = run_cli(command, "--format", "json", "notes/evals/cases/good.yaml", cwd=str(repo))
    assert json.loads(out)["summary"]["files"] == 1 and json.loads(out)["diagnostics"] == []
    code, out, _ = run_cli(command, "--format", "json", "docs", cwd=str(repo))
    assert json.loads(out)["summary"]["files"] == 0
    assert list(json.loads(out)["summary"]) == (["errors", "warnings", "files"] if command == "validate" else
                                                ["errors", "warnings", "infos", "files", "fixable", "fixed"])


# ----------------------------------------------------------------------------- --exit-zero


@pytest.mark.parametrize("command", ["validate", "lint"])
def test_exit_zero(run_cli, repo, command):
    sel = ["--select", "EV1"] if command == "lint" else []
    code, out, err = run_cli(command, "-q", *sel, "--exit-zero", "EVAL.yaml", cwd=str(repo))
    assert (code, out, err) == (0, f"EVAL.yaml:6:15: EV104 {EV104}\n", "")
    # a usage error is still exit 2
    assert run_cli(command, "--exit-zero", "nope", cwd=str(repo))[0] == 2


# ---------------------------------------------------------------------------- --statistics


def test_lint_statistics_text_and_json(run_cli, repo):
    (repo / "notes" / "evals" / "cases" / "bad2.yaml").write_text(CASE_BAD)
    code, out, err = run_cli("lint", "--statistics", "--select", "EV1", ".", cwd=str(repo))
    assert (code, err) == (1, "")
    assert out == ("2\tEV101\t[*] unknown-key\n"
                   "2\tEV104\tunknown-check-kind\n")
    code, out, err = run_cli("lint", "--statistics", "--format", "json", "--select", "EV1", ".", cwd=str(repo))
    assert json.loads(out) == [{"code": "EV101", "name": "unknown-key", "count": 2, "fixable": True},
                               {"code": "EV104", "name": "unknown-check-kind", "count": 2, "fixable": False}]
    assert run_cli("lint", "--statistics", "--format", "sarif", ".", cwd=str(repo)) == (
        2, "", "evalfmt: --statistics prints text or json (give --format text or --format json) "
               "(see 'evalfmt lint --help')\n")


def test_validate_statistics(run_cli, repo):
    assert run_cli("validate", "--statistics", "--exit-zero", ".", cwd=str(repo)) == (
        0, "2\tEV104\tunknown-check-kind\n1\tEV101\t[*] unknown-key\n", "")


# ------------------------------------------------------------------------------- --exclude


@pytest.mark.parametrize("command", ["validate", "lint"])
def test_exclude_on_the_command_line(run_cli, repo, command):
    code, out, err = run_cli(command, "-q", "--select", "EV1", ".", cwd=str(repo)) if command == "lint" else \
        run_cli(command, "-q", ".", cwd=str(repo))
    assert sorted({line.split(":")[0] for line in out.splitlines()}) == [
        "./EVAL.yaml", "./legacy/EVAL.yaml", "notes/evals/cases/bad.yaml"]
    sel = ["--select", "EV1"] if command == "lint" else []
    # a folder, a file inside a skill's evals/, comma-separated and repeated
    code, out, err = run_cli(command, "-q", *sel, "--exclude", "legacy", "--exclude", "notes/evals/cases/bad.yaml,x",
                             ".", cwd=str(repo))
    assert (code, out, err) == (1, f"./EVAL.yaml:6:15: EV104 {EV104}\n", "")
    # a pattern without a slash matches a name in any folder; a file named directly is skipped too
    code, out, err = run_cli(command, "-q", *sel, "--exclude", "EVAL.yaml", ".", "legacy/EVAL.yaml", cwd=str(repo))
    assert (code, out) == (1, f"notes/evals/cases/bad.yaml:2:1: EV101 {EV101}\n")
    # everything excluded: nothing checked, said on stderr
    assert run_cli(command, *sel, "--exclude", "*", ".", cwd=str(repo))[2] == "evalfmt: no eval files found under .\n"


@pytest.mark.parametrize("name,text", [
    ("evalfmt.toml", 'exclude = ["legacy/**"]\nextend-exclude = ["notes/evals/cases/bad.yaml"]\n'),
    ("pyproject.toml", '[tool.evalfmt]\nexclude = ["legacy"]\nextend-exclude = ["bad.yaml"]\n'),
])
@pytest.mark.parametrize("command", ["validate", "lint"])
def test_exclude_in_the_configuration(run_cli, repo, command, name, text):
    (repo / name).write_text(text)
    sel = ["--select", "EV1"] if command == "lint" else []
    code, out, err = run_cli(command, "-q", *sel, ".", cwd=str(repo))
    assert (code, out, err) == (1, f"./EVAL.yaml:6:15: EV104 {EV104}\n", "")
    # relative to the configuration file, wherever evalfmt runs from
    code, out, err = run_cli(command, *sel, "../legacy", "evals/cases/bad.yaml", cwd=str(repo / "notes"))
    assert (code, out[:2], err) == (0, ("" if command == "validate" else "0 "),
                                    "evalfmt: no eval files found under ../legacy\n")
    # --isolated ignores it
    code, out, err = run_cli(command, "-q", "--isolated", *sel, "legacy", cwd=str(repo))
    assert (code, out) == (1, f"legacy/EVAL.yaml:6:15: EV104 {EV104}\n")


def test_exclude_must_be_a_list_of_globs(run_cli, repo):
    (repo / "evalfmt.toml").write_text('select = ["EV1"]\nexclude = "legacy"\n')
    assert run_cli("validate", ".", cwd=str(repo)) == (
        2, "", f"evalfmt: {repo / 'evalfmt.toml'}:2:1: exclude must be a list of glob patterns, like [\"legacy/**\"]\n")


# ---------------------------------------------------------------------------------- stdin


@pytest.mark.parametrize("command", ["validate", "lint"])
def test_stdin_with_a_filename(run_cli, repo, command):
    sel = ["--select", "EV1"] if command == "lint" else []
    # an EVAL.yaml that does not exist on disk: the name decides the format and the paths printed
    code, out, err = run_cli(command, "-q", *sel, "-", "--stdin-filename", "new/EVAL.yaml", input=EVAL_TYPO,
                             cwd=str(repo))
    assert (code, out, err) == (1, f"new/EVAL.yaml:6:15: EV104 {EV104}\n", "")
    # a terum case inside a skill: the text on stdin stands for the file on disk
    code, out, err = run_cli(command, "-q", *sel, "-", "--stdin-filename", "notes/evals/cases/bad.yaml",
                             input=CASE_OK, cwd=str(repo))
    assert (code, out, err) == (0, "", "")
    code, out, err = run_cli(command, "-q", *sel, "-", "--stdin-filename", "notes/evals/cases/good.yaml",
                             input=CASE_BAD, cwd=str(repo))
    assert (code, out) == (1, f"notes/evals/cases/good.yaml:2:1: EV101 {EV101}\n")
    assert (repo / "notes" / "evals" / "cases" / "good.yaml").read_text() == CASE_OK
    # --from without a name: the path printed is '-'
    code, out, err = run_cli(command, "-q", *sel, "-", "--from", "agentv", input=EVAL_TYPO, cwd=str(repo))
    assert (code, out) == (1, f"-:6:15: EV104 {EV104}\n")
    code, out, err = run_cli(command, "-q", *sel, "-", "--from", "agentv", input=EVAL_OK, cwd=str(repo))
    assert (code, out, err) == (0, "", "")


def test_stdin_uses_the_configuration_of_its_filename(run_cli, repo):
    (repo / "legacy" / "evalfmt.toml").write_text('ignore = ["EV104"]\n')
    code, out, err = run_cli("lint", "-q", "--ignore", "EV504", "-", "--stdin-filename", "legacy/EVAL.yaml",
                             input=EVAL_TYPO, cwd=str(repo))
    assert (code, out, err) == (0, "", "")
    (repo / "legacy" / "evalfmt.toml").write_text('exclude = ["EVAL.yaml"]\n')
    assert run_cli("validate", "-", "--stdin-filename", "legacy/EVAL.yaml", input=EVAL_TYPO, cwd=str(repo)) == (
        0, "", "")


@pytest.mark.parametrize("args,message", [
    (["-"], "reading from stdin needs --stdin-filename PATH (its name decides the format and the configuration) "
            "or --from FORMAT (a single-file format)"),
    (["-", "--from", "terum"], "reading from stdin needs --stdin-filename PATH"),
    (["-", "EVAL.yaml", "--stdin-filename", "x/EVAL.yaml"], "'-' (read from stdin) must be the only path"),
    (["EVAL.yaml", "--stdin-filename", "x/EVAL.yaml"], "--stdin-filename names the file read from stdin: give '-' "
                                                       "as the path"),
    (["-", "--stdin-filename", "notes"], "--stdin-filename notes: is a folder; name the file the text stands for"),
    (["-", "--stdin-filename", "x/EVAL.yaml", "--fix"], "--fix does not work on stdin"),
])
def test_stdin_usage_errors(run_cli, repo, args, message):
    command = "lint" if "--fix" in args else "validate"
    code, out, err = run_cli(command, *args, input=EVAL_OK, cwd=str(repo))
    assert (code, out) == (2, "")
    assert err.startswith(f"evalfmt: {message}") and err.count("\n") == 1


def test_stdin_is_bounded_like_a_file(run_cli, repo):
    code, out, err = run_cli("validate", "-", "--stdin-filename", "x/EVAL.yaml", input="tests: []\n" + "#" * 200,
                             env={"EVALFMT_MAX_BYTES": "100"}, cwd=str(repo))
    assert code == 1
    assert out.startswith("x/EVAL.yaml:1:1: EV100 file is larger than the limit of 100 bytes (set EVALFMT_MAX_BYTES")
