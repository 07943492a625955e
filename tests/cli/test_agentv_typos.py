"""AgentV typos that silently drop tests are errors in every command of the gate (issue 12 item 2):
a near miss of a known key (`assertion:` for `assertions:`), a near miss of an assertion type
(`type: skill-triger`) and a test agentv skips (EV502) fail validate and lint, and stop the seed layout of
transpile (nothing written, exit 1); an unknown key close to no known key stays a warning. Before,
all three were warnings: validate and lint exited 0 and transpile rewrote evals.json without the test.
The agentv layout writes what `agentv transpile` writes from such a file (issue 24 item 5: it refuses
only what agentv refuses; the quirk tests in tests/transpile/ hold agentv's own output for these shapes)."""

from __future__ import annotations

import textwrap

import pytest

ASSERTION_TYPO = """\
tests:
  - id: notes
    input: Write the release notes since v1.4.0.
    assertion:
      - type: skill-trigger
        skill: release-notes
  - id: commit
    input: Draft a commit message.
    assertions:
      - type: skill-trigger
        skill: commit-message
"""
TYPE_TYPO = """\
tests:
  - id: notes
    input: Write the release notes since v1.4.0.
    assertions:
      - type: skill-triger
        skill: release-notes
"""
SKIPPED = """\
tests:
  - id: notes
    input: Write the release notes since v1.4.0.
  - id: commit
    input: Draft a commit message.
    assertions:
      - type: skill-trigger
        skill: commit-message
"""
FAR_KEY = """\
tests:
  - id: notes
    input: Write the release notes since v1.4.0.
    owner: release-team
    assertions:
      - type: skill-trigger
        skill: release-notes
"""

EV101 = "EVAL.yaml:4:5: EV101 unknown key 'assertion' (did you mean 'assertions'?); agentv ignores it"
EV502_NOTES = ("EVAL.yaml:2:5: EV502 agentv skips test 'notes' silently: it has no criteria, expected_output, "
               "assertions or turns; add one")
EV104 = ("EVAL.yaml:5:15: EV104 unknown assertion type 'skill-triger' (did you mean 'skill-trigger'?); agentv runs "
         "it as a custom assertion, and none named 'skill-triger' was found in .agentv/assertions/")
EXPECTED = {
    "assertion": (ASSERTION_TYPO, [EV502_NOTES, EV101]),
    "type": (TYPE_TYPO, [EV104]),
    "skipped": (SKIPPED, [EV502_NOTES]),
}


def write(tmp_path, text):
    (tmp_path / "EVAL.yaml").write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.mark.parametrize("case", list(EXPECTED))
def test_validate_refuses(run_cli, tmp_path, case):
    text, lines = EXPECTED[case]
    write(tmp_path, text)
    n = len(lines)
    assert run_cli("validate", "EVAL.yaml", cwd=str(tmp_path)) == (
        1, "".join(line + "\n" for line in lines) + f"{n} error{'s' if n > 1 else ''}, 0 warnings in 1 file\n", "")


@pytest.mark.parametrize("case", list(EXPECTED))
def test_lint_refuses(run_cli, tmp_path, case):
    text, lines = EXPECTED[case]
    write(tmp_path, text)
    code, out, err = run_cli("lint", "--quiet", "--select", "EV1,EV5", "--ignore", "EV504", "EVAL.yaml",
                             cwd=str(tmp_path))
    assert (code, out, err) == (1, "".join(line + "\n" for line in lines), "")


@pytest.mark.parametrize("case", ["assertion", "type"])
@pytest.mark.parametrize("check", [False, True])
def test_transpile_refuses_and_writes_nothing(run_cli, tmp_path, case, check):
    text, lines = EXPECTED[case]
    write(tmp_path, text)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    code, out, err = run_cli("transpile", *(["--check"] if check else []), "EVAL.yaml", cwd=str(tmp_path))
    assert (code, out) == (1, "")
    errs = [line[len("evalfmt: "):] for line in err.splitlines()]
    assert [line for line in errs if line.startswith("EVAL.yaml:")] == lines
    assert errs[-1] == f"{len(lines)} error{'s' if len(lines) > 1 else ''}; nothing written"
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


@pytest.mark.parametrize("case", ["assertion", "type"])
def test_transpile_agentv_layout_writes_what_agentv_writes(run_cli, tmp_path, case):
    """agentv transpile 4.42.4 writes these files (the test with the typo has no trigger: it joins the
    dominant skill); so does the agentv layout, and ``--check`` then finds them up to date."""
    text, _ = EXPECTED[case]
    write(tmp_path, text)
    assert run_cli("transpile", "--layout", "agentv", "EVAL.yaml", cwd=str(tmp_path)) == (
        0, "", "evalfmt: wrote ./evals.json\n")
    skill = "commit-message" if case == "assertion" else "_no-skill"
    assert f'"skill_name": "{skill}"' in (tmp_path / "evals.json").read_text()
    assert run_cli("transpile", "--layout", "agentv", "--check", "EVAL.yaml", cwd=str(tmp_path)) == (0, "", "")


def test_transpile_agentv_layout_still_writes_a_test_agentv_skips(run_cli, tmp_path):
    """agentv transpile writes a test without criteria or assertions into evals.json (it is skipped only
    when agentv runs the eval), so the agentv layout keeps writing what agentv writes; the seed layout,
    like validate and lint, refuses it."""
    write(tmp_path, SKIPPED)
    code, out, err = run_cli("transpile", "--layout", "agentv", "EVAL.yaml", cwd=str(tmp_path))
    assert (code, out, err) == (0, "", "evalfmt: wrote ./evals.json\n")
    code, out, err = run_cli("transpile", "EVAL.yaml", cwd=str(tmp_path))
    assert code == 1 and err.splitlines()[0] == f"evalfmt: {EV502_NOTES}"


def test_a_key_close_to_nothing_stays_a_warning(run_cli, tmp_path):
    write(tmp_path, FAR_KEY)
    warning = "EVAL.yaml:4:5: EV101 unknown key 'owner'; agentv ignores it"
    assert run_cli("validate", "EVAL.yaml", cwd=str(tmp_path)) == (0, f"{warning}\n0 errors, 1 warning in 1 file\n", "")
    code, out, err = run_cli("transpile", "--layout", "agentv", "EVAL.yaml", cwd=str(tmp_path))
    assert (code, err) == (0, "evalfmt: wrote ./evals.json\n")
    code, out, err = run_cli("transpile", "EVAL.yaml", cwd=str(tmp_path))
    assert (code, err) == (0, "evalfmt: wrote .agentv/skills/release-notes/evals.json\n")


def test_terum_keeps_its_semantics(run_cli, tmp_path):
    """terum's unknown keys and check kinds were errors already, near miss or not (the engine ignores a
    key silently and fails an unknown kind in every arm): unchanged."""
    (tmp_path / "s" / "evals" / "cases").mkdir(parents=True)
    (tmp_path / "s" / "SKILL.md").write_text("---\nname: s\ndescription: Does s.\n---\n")
    (tmp_path / "s" / "evals" / "cases" / "a.yaml").write_text(
        "task: Do s.\nowner: me\nchecks:\n  - transcript_mentionz: s\n")
    code, out, err = run_cli("validate", "s", cwd=str(tmp_path))
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        "s/evals/cases/a.yaml:2:1: EV101 unknown key 'owner'; the engine ignores it silently",
        "s/evals/cases/a.yaml:4:5: EV104 unknown check kind 'transcript_mentionz' (did you mean "
        "'transcript_mentions'?); the engine fails the arm with \"unknown check kind 'transcript_mentionz'\"",
        "2 errors, 0 warnings in 1 file",
    ]
