"""``evalfmt score`` on the real conformance transcripts (golden text and JSON) and its exit codes."""

from __future__ import annotations

import json
import pathlib

import pytest
from conftest import CONFORMANCE, check_golden
from runhelp import make_skill, write_stream

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden" / "run" / "score"

SKILL_CASE = """task: Greet like a pirate.
checks:
  - transcript_mentions: ahoy
  - transcript_omits: Launching skill
  - no_command_matching: 'rm\\s+-rf'
  - command_matching: 'git (diff|log)'
  - file_exists: greeting.txt
"""

RUNS = {
    "skill-call": ("session-jsonl/spotter_ae4a77f8_skill-call_excerpt_lines73-110.jsonl", "hex-docs-search"),
    "failed-skill-call": ("session-jsonl/spotter_8463c716_failed-skill-call_excerpt_lines319-323.jsonl", "commit"),
    "tool-heavy": ("session-jsonl/spotter_tool_heavy.jsonl", "spotter"),
    "stream-non-json-line": ("stream-json/waza_claudeFixtureStream.ndjson", "pirate-greeter"),
}


def relative(text: str) -> str:
    return text.replace(str(CONFORMANCE), "<conformance>")


@pytest.mark.conformance
@pytest.mark.parametrize("name", list(RUNS))
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_score_conformance_golden(run_cli, tmp_path, name, fmt):
    rel, _skill = RUNS[name]
    skill = make_skill(tmp_path / "lib", "pirate", {"greet": SKILL_CASE})
    rc, out, err = run_cli("score", str(skill / "evals" / "cases" / "greet.yaml"), "--transcript",
                           str(CONFORMANCE / "claude-code" / rel), "--format", fmt)
    assert err == "" and rc == 1  # file_exists without --sandbox always fails, saying so
    check_golden(GOLDEN / f"{name}.{'txt' if fmt == 'text' else 'json'}", relative(out))


@pytest.mark.conformance
@pytest.mark.parametrize("name", list(RUNS))
@pytest.mark.parametrize("mode", ["first-call", "any-call", "skill-used"])
def test_skill_trigger_modes_on_conformance(run_cli, tmp_path, name, mode):
    rel, skill_name = RUNS[name]
    from evalfmt import ir
    from evalfmt.run.checks import score_case
    from evalfmt.run.transcripts import read_session

    s = read_session(str(CONFORMANCE / "claude-code" / rel))
    res = score_case(ir.Case(name="t", checks=[ir.SkillTrigger(skill=skill_name)]), s, detection=mode)
    expected = {("skill-call", "first-call"): True, ("skill-call", "any-call"): True, ("skill-call", "skill-used"): True,
                ("failed-skill-call", "first-call"): True, ("failed-skill-call", "any-call"): True,
                ("failed-skill-call", "skill-used"): False, ("stream-non-json-line", "first-call"): True,
                ("stream-non-json-line", "any-call"): True, ("stream-non-json-line", "skill-used"): True}
    assert res.passed is expected.get((name, mode), False)


def test_score_passes_with_sandbox_and_exit_0(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "pirate", {"greet": "task: Greet.\nchecks:\n  - file_exists: greeting.txt\n"
                                                             "  - command_succeeds: grep -q Ahoy greeting.txt\n"
                                                             "  - transcript_mentions: AHOY\n"})
    box = tmp_path / "box"
    box.mkdir()
    (box / "greeting.txt").write_text("Ahoy")
    t = write_stream(tmp_path / "t.jsonl", texts=["ahoy"])
    rc, out, err = run_cli("score", str(skill / "evals" / "cases" / "greet.yaml"), "--transcript", str(t),
                           "--sandbox", str(box), "--format", "json")
    assert (rc, err) == (0, "")
    assert json.loads(out) == {"cases": [{"name": "greet", "passed": True, "checks": [
        {"check": "file_exists:greeting.txt", "passed": True, "detail": "exists"},
        {"check": "command_succeeds:grep -q Ahoy greeting.txt", "passed": True, "detail": "exit 0"},
        {"check": "transcript_mentions:AHOY", "passed": True, "detail": "found in the transcript"}]}]}


def test_score_suite_scores_every_entry_and_case_picks_one(run_cli, tmp_path):
    suite = "task: Review.\ncases:\n  - name: a\n    checks: [{transcript_mentions: BUG_A}]\n  - name: b\n    checks: [{transcript_mentions: BUG_B}]\n"
    skill = make_skill(tmp_path / "lib", "rev", {"one": "task: x\n", "two": "task: y\n"}, suite=suite)
    t = write_stream(tmp_path / "t.jsonl", texts=["found bug_a"])
    rc, out, _ = run_cli("score", str(skill / "evals" / "suite.yaml"), "--transcript", str(t), "--format", "json")
    assert rc == 1 and [(c["name"], c["passed"]) for c in json.loads(out)["cases"]] == [("a", True), ("b", False)]
    rc, out, err = run_cli("score", str(skill), "--transcript", str(t))
    assert rc == 2 and "pick one with --case NAME" in err
    rc, out, err = run_cli("score", str(skill), "--transcript", str(t), "--case", "one", "--format", "json")
    assert (rc, json.loads(out)) == (0, {"cases": [{"name": "one", "passed": True, "checks": []}]})
    rc, out, err = run_cli("score", str(skill), "--transcript", str(t), "--case", "b", "--format", "json")
    assert rc == 1 and json.loads(out)["cases"][0]["name"] == "b"


def test_score_errors_are_one_line_exit_2(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "p", {"c": "task: x\n"})
    case = str(skill / "evals" / "cases" / "c.yaml")
    rc, out, err = run_cli("score", case, "--transcript", str(tmp_path / "nope.jsonl"))
    assert (rc, err) == (2, f"evalfmt: {tmp_path / 'nope.jsonl'}: no such transcript\n")
    t = write_stream(tmp_path / "t.jsonl", texts=["x"])
    rc, out, err = run_cli("score", case, "--transcript", str(t), "--trigger-detection", "last-call")
    assert rc == 2 and err.startswith("evalfmt: unknown trigger detection 'last-call'")
    rc, out, err = run_cli("score", case, "--transcript", str(t), "--timeout", "-1")
    assert (rc, out) == (2, "") and err.startswith("evalfmt: Invalid value for '--timeout': -1.0 is not in the range x>0")


def test_score_applies_a_promptfoo_default_test_assert_to_every_case(run_cli, tmp_path):
    """promptfoo runs ``defaultTest.assert`` on every test, before its own: the set's checks every case gets
    are scored whatever the format (they were scored for agentv's file-level assertions only)."""
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text("prompts: ['{{q}}']\nproviders: [echo]\ndefaultTest:\n  assert:\n    - type: contains\n"
                      "      value: ahoy\ntests:\n  - vars: {q: hi}\n    assert:\n      - type: icontains\n"
                      "        value: done\n", encoding="utf-8")
    transcript = write_stream(tmp_path / "t.jsonl", texts=["hello"], result="done")
    rc, out, err = run_cli("score", str(config), "--transcript", str(transcript))
    assert (rc, err) == (1, "")
    assert out.splitlines()[1:] == ["FAIL test-1 (1/2 checks passed)",
                                    '  FAIL contains:ahoy: expected: output contains "ahoy"',
                                    '  ok   icontains:done: output contains "done" (case-insensitive)']
