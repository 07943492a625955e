"""Configuration: [tool.evalfmt] in pyproject.toml or evalfmt.toml found upward, select/ignore with
prefixes and specificity, the command line winning, per-file ignores, severity overrides, rule
options, and bad configuration as a one-line error (exit 2)."""

from __future__ import annotations

import pytest

from evalfmt.lint import config as cfgmod
from lintkit import materialize

CASE = ("task: Write the release notes since v1.4.0.\n"
        "checks:\n  - transcript_mentions: done\n  - transcript_mentions: breaking changes are listed first\n")
SPEC = {"files": {"evals/cases/a.yaml": CASE}}
EV203 = "sample/evals/cases/a.yaml:3:5: EV203"
EV204 = "sample/evals/cases/a.yaml:3:26: EV204"
EV205 = "sample/evals/cases/a.yaml:4:26: EV205"
EV211 = "sample/evals/cases/a.yaml:1:1: EV211"



def codes(out: str) -> list[str]:
    return [" ".join(line.split(" ")[:2]) for line in out.splitlines()]


def lint(run_cli, repo, *args):
    return run_cli("lint", "--quiet", *args, "sample", cwd=str(repo))


def test_defaults_without_config(run_cli, tmp_path):
    repo = materialize(tmp_path, SPEC)
    code, out, err = lint(run_cli, repo)
    assert (code, err) == (0, "")
    assert codes(out) == [EV211, EV203, EV204, EV205]


@pytest.mark.parametrize("name,text", [
    ("pyproject.toml", "[project]\nname = 'x'\n[tool.evalfmt]\nselect = ['EV2']\nignore = ['EV204', 'EV211']\n"),
    ("evalfmt.toml", "select = ['EV2']\nignore = ['EV204', 'EV211']\n"),
])
def test_config_found_upward(run_cli, tmp_path, name, text):
    repo = materialize(tmp_path, SPEC)
    (repo / name).write_text(text)
    code, out, err = lint(run_cli, repo)
    assert codes(out) == [EV203, EV205]
    # from inside the skill folder too (found by walking up)
    code, out, err = run_cli("lint", "--quiet", ".", cwd=str(repo / "sample"))
    assert [line.split(" ")[1] for line in out.splitlines()] == ["EV203", "EV205"]


def test_evalfmt_toml_wins_over_pyproject_and_pyproject_without_table_is_skipped(run_cli, tmp_path):
    repo = materialize(tmp_path, SPEC)
    (repo / "pyproject.toml").write_text("[tool.evalfmt]\nselect = ['EV204']\n")
    (repo / "evalfmt.toml").write_text("select = ['EV205']\n")
    assert codes(lint(run_cli, repo)[1]) == [EV205]
    (repo / "evalfmt.toml").unlink()
    (repo / "sample" / "pyproject.toml").write_text("[project]\nname = 'skill'\n")
    assert codes(lint(run_cli, repo)[1]) == [EV204]
    (repo / "sample" / "pyproject.toml").write_text("tool = 3\n")  # a 'tool' that is not a table
    assert codes(lint(run_cli, repo)[1]) == [EV204]


def test_specificity_and_command_line_wins(run_cli, tmp_path):
    repo = materialize(tmp_path, SPEC)
    (repo / "evalfmt.toml").write_text("select = ['EV204']\nignore = ['EV2']\n")
    assert codes(lint(run_cli, repo)[1]) == [EV204]  # the more specific select wins
    assert codes(lint(run_cli, repo, "--select", "EV205")[1]) == [EV205]  # --select starts again
    assert codes(lint(run_cli, repo, "--select", "EV2", "--ignore", "EV203,EV205")[1]) == [EV211, EV204]
    assert codes(lint(run_cli, repo, "--ignore", "EV204")[1]) == []
    assert codes(lint(run_cli, repo, "--select", "ALL", "--ignore", "EV20")[1]) == [EV211]
    assert codes(lint(run_cli, repo, "--isolated")[1]) == [EV211, EV203, EV204, EV205]


def test_per_file_ignores_and_severity(run_cli, tmp_path):
    repo = materialize(tmp_path, SPEC)
    (repo / "evalfmt.toml").write_text(
        "[per-file-ignores]\n\"sample/evals/cases/*.yaml\" = ['EV204', 'EV21']\n"
        "[severity]\nEV205 = 'error'\nEV2 = 'info'\n")
    code, out, err = run_cli("lint", "sample", cwd=str(repo))
    assert code == 1
    assert out.splitlines() == [
        "sample/evals/cases/a.yaml:3:5: EV203 case 'a' checks what should happen (transcript_mentions) but nothing "
        "that should not: add transcript_omits or no_command_matching so a skill that does too much fails",
        "sample/evals/cases/a.yaml:4:26: EV205 anchor 'breaking changes are listed first' is 5 words of prose: a "
        "paraphrase misses it; anchor on an identifier, or judge prose with a 'judge' rubric",
        "1 error, 0 warnings, 1 info in 2 files",
    ]
    code, out, _ = run_cli("lint", "--format", "json", "sample", cwd=str(repo))
    assert '"severity": "error"' in out and '"severity": "info"' in out


def test_rule_options(run_cli, tmp_path):
    repo = materialize(tmp_path, SPEC)
    (repo / "evalfmt.toml").write_text("select = ['EV204', 'EV205']\n[rules.EV205]\nmin-words = 6\n"
                                       "[rules.EV204]\nmin-length = 3\nextra-words = ['done']\n")
    assert codes(lint(run_cli, repo)[1]) == [EV204]
    (repo / "evalfmt.toml").write_text("select = ['EV204']\n[rules.EV204]\nmin-length = 3\n"
                                       "extra-words = ['breaking']\n")
    assert codes(lint(run_cli, repo)[1]) == [EV204]


def test_explicit_config_file(run_cli, tmp_path):
    repo = materialize(tmp_path, SPEC)
    other = tmp_path / "ci.toml"
    other.write_text("select = ['EV205']\n")
    (repo / "evalfmt.toml").write_text("select = ['EV204']\n")
    assert codes(lint(run_cli, repo, "--config", str(other))[1]) == [EV205]


@pytest.mark.parametrize("text,message", [
    ("select = ['EV2'\n", "invalid TOML"),
    ("selct = ['EV2']\n", "unknown key 'selct' in the evalfmt settings (did you mean 'select'? known: exclude, "
                          "extend-exclude, extend-ignore, extend-select, ignore, per-file-ignores, rules, select, "
                          "severity)"),
    ("extend-ignor = ['EV2']\n", "unknown key 'extend-ignor' in the evalfmt settings (did you mean 'extend-ignore'? "
                                 "known: "),
    ("colour = 1\n", "unknown key 'colour' in the evalfmt settings (known: exclude, extend-exclude, extend-ignore, "
                     "extend-select, ignore, "),
    ("select = ['ev2x']\n", "'ev2x' is not a rule code or prefix"),
    ("[severity]\nEV204 = 'fatal'\n", "severity of EV204 must be one of error, warning, info"),
    ("select = 3\n", "expected a list of rule codes"),
    ("[rules.EV204]\nmin-length = 'x'\n", "[rules.EV204] min-length must be an integer, not 'x'"),
    ("[rules.EV305]\nthreshold = 'high'\n", "[rules.EV305] threshold must be a number, not 'high'"),
    ("[rules.EV505]\nlayouts = 'seed'\n", "[rules.EV505] layouts must be a list of strings, not 'seed'"),
    ("[rules.HYG4]\nallow-executable = 'yes'\n", "[rules.HYG4] allow-executable must be true or false, not 'yes'"),
    ("[rules.HYG5]\npolicy-license = 3\n", "[rules.HYG5] policy-license must be a string, not 3"),
    ("[rules.EV204]\nminlength = 3\n", "[rules.EV204]: unknown option 'minlength' (options of EV204: min-length, "
                                       "extra-words)"),
    ("[rules.EV998]\nx = 1\n", "[rules.EV998]: no rule has this code (see 'evalfmt rules')"),
])
def test_bad_config_is_a_one_line_error(run_cli, tmp_path, text, message):
    repo = materialize(tmp_path, SPEC)
    (repo / "evalfmt.toml").write_text(text)
    code, out, err = lint(run_cli, repo)
    assert code == 2 and out == ""
    assert err.startswith("evalfmt: ") and message in err and err.count("\n") == 1


def test_unknown_code_on_the_command_line(run_cli, tmp_path):
    repo = materialize(tmp_path, SPEC)
    assert lint(run_cli, repo, "--select", "EV9") == (
        2, "", "evalfmt: unknown rule code 'EV9' in --select (see 'evalfmt rules' for the codes)\n")
    assert lint(run_cli, repo, "--ignore", "HGY") == (2, "", "evalfmt: unknown rule code 'HGY' in --ignore "
                                                            "(did you mean 'HYG'?)\n")


# A code or prefix that names no rule, anywhere in the configuration, is refused at its line and column:
# before, `select = ["XYZ"]` linted nothing and exited 0, and bad codes elsewhere were ignored.
@pytest.mark.parametrize("name,text,where,message", [
    ("evalfmt.toml", 'select = ["XYZ"]\n', "1:11", "unknown rule code 'XYZ' in select (see 'evalfmt rules' for the codes)"),
    ("evalfmt.toml", 'select = ["EV99"]\n', "1:11", "unknown rule code 'EV99' in select (see 'evalfmt rules' for the codes)"),
    ("evalfmt.toml", 'select = ["EV2"]\nextend-select = "EV1, XYZ1"\n', "2:23",
     "unknown rule code 'XYZ1' in extend-select (see 'evalfmt rules' for the codes)"),
    ("evalfmt.toml", 'ignore = [\n  "EV1",  # "EV2044"\n  "EV2044",\n]\n', "3:3",
     "unknown rule code 'EV2044' in ignore (did you mean 'EV204'?)"),
    ("evalfmt.toml", 'extend-ignore = ["EV0001"]\n', "1:18", "unknown rule code 'EV0001' in extend-ignore (did you mean 'EV001'?)"),
    ("evalfmt.toml", '[severity]\nEV2 = "info"\nHGY1 = "error"\n', "3:1",
     "unknown rule code 'HGY1' in severity (did you mean 'HYG1'?)"),
    ("evalfmt.toml", 'select = ["EV999"]\nseverity = { EV204 = "error", EV999 = "info" }\n', "1:11",
     "unknown rule code 'EV999' in select (see 'evalfmt rules' for the codes)"),
    ("evalfmt.toml", 'severity = { EV204 = "error", EV999 = "info" }\n', "1:31",
     "unknown rule code 'EV999' in severity (see 'evalfmt rules' for the codes)"),
    ("evalfmt.toml", '[per-file-ignores]\n"fixtures/**" = ["EV1", "EV7"]\n', "2:25",
     "unknown rule code 'EV7' in per-file-ignores (see 'evalfmt rules' for the codes)"),
    ("evalfmt.toml", '[rules.EV998]\nx = 1\n', "1:8", "[rules.EV998]: no rule has this code (see 'evalfmt rules')"),
    ("evalfmt.toml", "\nselct = ['EV2']\n", "2:1", "unknown key 'selct' in the evalfmt settings"),
    ("evalfmt.toml", "select = ['ev2x']\n", "1:11", "select: 'ev2x' is not a rule code or prefix"),
    # pyproject.toml: only [tool.evalfmt] counts (ruff's select may hold the same text)
    ("pyproject.toml", '[tool.ruff]\nselect = ["XYZ"]\n[tool.evalfmt]\nignore = ["EV204"]\nselect = ["EV2", "XYZ"]\n',
     "5:18", "unknown rule code 'XYZ' in select (see 'evalfmt rules' for the codes)"),
    ("pyproject.toml", '[tool]\nevalfmt.select = ["EV2", "XYZ"]\n', "2:26",
     "unknown rule code 'XYZ' in select (see 'evalfmt rules' for the codes)"),
    ("pyproject.toml", '[tool.evalfmt.rules.ev998]\nx = 1\n', "1:21", "[rules.EV998]: no rule has this code"),
])
def test_unknown_codes_in_the_config_are_refused_at_their_line(run_cli, tmp_path, name, text, where, message):
    repo = materialize(tmp_path, SPEC)
    (repo / name).write_text(text)
    code, out, err = lint(run_cli, repo)
    assert (code, out) == (2, "")
    assert err.startswith(f"evalfmt: {repo / name}:{where}: {message}") and err.count("\n") == 1


def test_prefixes_that_match_codes_stay_valid(run_cli, tmp_path):
    repo = materialize(tmp_path, SPEC)
    (repo / "evalfmt.toml").write_text('select = ["EV1", "EV2", "HYG", "EV20"]\nignore = ["EV21"]\n'
                                       '[severity]\nEV2 = "info"\n[per-file-ignores]\n"x/**" = ["HYG"]\n')
    code, out, err = lint(run_cli, repo)
    assert (code, err) == (0, "")
    assert codes(out) == [EV203, EV204, EV205]


def test_glob_regex():
    g = cfgmod.glob_regex
    assert g("*.yaml").match("a/b/c.yaml") and not g("*.yaml").match("a/b/c.yml")
    assert g("fixtures/**").match("fixtures/a/b.yaml") and not g("fixtures/**").match("src/fixtures.yaml")
    assert g("./skills/*/evals").match("skills/x/evals/cases/a.yaml")
    assert g("a/**/b.yaml").match("a/b.yaml") and g("a/**/b.yaml").match("a/x/y/b.yaml")
