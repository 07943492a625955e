"""Issue 24 item 9: conversions a user can keep. An EVAL.yaml whose skill-trigger tests name several
skills becomes one terum skill folder (or one skill-creator trigger set) per skill, keeping every
skill's prompts (terum kept the first skill's only; skill-creator-triggers wrote nothing); terum files
written where no SKILL.md is say that evalfmt will not read them."""

from __future__ import annotations

import json

from conftest import FIXTURES

LIBRARY_EVAL = str(FIXTURES / "agentv" / "EVAL.yaml")
SKILLS = ("release-notes", "commit-message", "code-review")


def test_a_multi_skill_eval_yaml_becomes_one_terum_skill_per_skill(run_cli, tmp_path):
    out = tmp_path / "lib"
    code, stdout, err = run_cli("convert", LIBRARY_EVAL, "--to", "terum", "-o", str(out))
    assert (code, stdout) == (0, "")
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert files == ["code-review/evals/cases/review-before-commit.yaml", "code-review/evals/triggers.yaml",
                     "commit-message/evals/cases/commit-staged.yaml", "commit-message/evals/triggers.yaml",
                     "release-notes/evals/cases/notes-since-tag.yaml", "release-notes/evals/triggers.yaml"]
    triggers = {s: (out / s / "evals" / "triggers.yaml").read_text() for s in SKILLS}
    assert triggers == {
        "release-notes": "should_trigger:\n  - Write release notes for everything since v1.4.0.\n"
                         "should_not_trigger:\n  - What time is it in Tokyo?\n",
        "commit-message": "should_not_trigger:\n  - What time is it in Tokyo?\n",
        "code-review": "should_trigger:\n  - Review my uncommitted diff for bugs before I commit.\n",
    }
    lines = err.splitlines()
    assert lines[0] == (f"evalfmt: lost: {LIBRARY_EVAL}:46: test 'plain-answer' names no skill (one skill folder "
                        "is written per skill the tests name: release-notes, commit-message, code-review)")
    assert f"evalfmt: lost: {LIBRARY_EVAL}:21: skill-trigger for 'commit-message' in test 'commit-staged' (its " \
           "input is not a plain prompt)" in lines
    assert not any("holds prompts for" in line for line in lines)  # no skill's prompts dropped for another's
    assert lines[-4:] == ["evalfmt: wrote 6 files"] + [
        f"evalfmt: warning: {out / s} has no SKILL.md, so evalfmt does not read its evals/ and terum has no skill "
        f"to run them with: add {out / s / 'SKILL.md'}, or convert into the skill's folder" for s in SKILLS]
    for s in SKILLS:  # in skill folders, every prompt is read back, for its own skill
        (out / s / "SKILL.md").write_text(f"---\nname: {s}\ndescription: The {s} skill.\n---\nBody.\n")
    code, _, err = run_cli("convert", LIBRARY_EVAL, "--to", "terum", "-o", str(out))
    assert code == 0 and "warning" not in err and err.endswith("evalfmt: wrote 0 files (6 unchanged)\n")
    code, text, _ = run_cli("inspect", str(out))
    assert code == 0
    assert [line.strip() for line in text.splitlines() if "triggers for" in line] == [
        "triggers for code-review: 1 should trigger, 0 should not",
        "triggers for commit-message: 0 should trigger, 1 should not",
        "triggers for release-notes: 1 should trigger, 1 should not"]


def test_a_multi_skill_eval_yaml_becomes_a_trigger_set_per_skill(run_cli, tmp_path):
    out = tmp_path / "sets"
    code, _, err = run_cli("convert", LIBRARY_EVAL, "--to", "skill-creator-triggers", "-o", str(out))
    assert code == 0, err
    sets = {s: json.loads((out / s / "trigger-evals.json").read_text()) for s in SKILLS}
    assert sets == {
        "release-notes": [{"query": "Write release notes for everything since v1.4.0.", "should_trigger": True},
                          {"query": "What time is it in Tokyo?", "should_trigger": False}],
        "commit-message": [{"query": "What time is it in Tokyo?", "should_trigger": False}],
        "code-review": [{"query": "Review my uncommitted diff for bugs before I commit.", "should_trigger": True}],
    }
    assert f"evalfmt: lost: {LIBRARY_EVAL}:27: test id 'review-before-commit', its criteria and its 1 other " \
           "check (it became a query)\n" in err
    assert f"evalfmt: lost: {LIBRARY_EVAL}:16: case 'commit-staged' (its input is not a plain prompt; write " \
           "cases with --to agent-skills)\n" in err
    assert err.endswith("evalfmt: wrote 3 files\n")


def test_a_one_skill_trigger_eval_yaml_is_that_skills_trigger_set(run_cli, tmp_path):
    """It converted to nothing: 'no trigger prompts to write'."""
    src = tmp_path / "EVAL.yaml"
    src.write_text("tests:\n"
                   "  - id: fires\n    input: Write the release notes\n"
                   "    assertions:\n      - type: skill-trigger\n        skill: release-notes\n"
                   "  - id: quiet\n    input: What time is it?\n"
                   "    assertions:\n      - type: skill-trigger\n        skill: release-notes\n"
                   "        should_trigger: false\n")
    code, out, err = run_cli("convert", str(src), "--to", "skill-creator-triggers")
    assert (code, json.loads(out)) == (0, [{"query": "Write the release notes", "should_trigger": True},
                                           {"query": "What time is it?", "should_trigger": False}])
    assert err == (f"evalfmt: lost: {src}:2: test id 'fires' (it became a query)\n"
                   f"evalfmt: lost: {src}:7: test id 'quiet' (it became a query)\n")
