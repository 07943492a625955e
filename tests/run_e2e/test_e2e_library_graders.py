"""Graders beyond the deterministic checks in a trigger run (``evalfmt run EVAL.yaml --skills DIR``): model
graders sent to the configured judge (``--judge command``) or reported not scored, agentv code graders run
under the run's containment, composite assertions aggregated as agentv 4.42.4 does, inline-assert reported;
with two libraries, a test's criteria go to the judge on tied rows exactly as terum's judge rubric does."""

from __future__ import annotations

import json
import pathlib
import shlex
import sys

from conftest import check_golden
from e2ehelp import AGENTS
from test_e2e_library import PICKER, SKILLS, library

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden" / "run" / "library"
JUDGE = " ".join([shlex.quote(sys.executable), shlex.quote(str(AGENTS / "fake_judge.py"))])

GRADED = """description: graded by a judge
tests:
  - id: minutes
    input: Please write the minutes of today's meeting
    assertions:
      - type: skill-trigger
        skill: notes
      - type: llm-grader
        prompt: The answer names the skill it USED
      - type: rubrics
        criteria: [Names NOTES]
  - id: silent
    input: "Deploy please PICK:none"
    assertions:
      - type: skill-trigger
        skill: deploy
        should_trigger: false
      - name: polite
        type: llm-grader
        prompt: prompts/polite.md
        min_score: 0.5
      - type: rubric
        criteria: NEVER passes
"""


def graded_folder(tmp_path: pathlib.Path) -> None:
    library(tmp_path / "skills", SKILLS)
    (tmp_path / "EVAL.yaml").write_text(GRADED)
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "polite.md").write_text("Politeness\nThe answer says PLEASE\n")


def run(run_cli, tmp_path, *extra: str):
    return run_cli("run", "EVAL.yaml", "--skills", "skills", "--out", "out", "--agent-command", PICKER,
                   "--run-id", "20260101T000000Z", *extra, cwd=str(tmp_path))


def test_model_graders_go_to_the_judge(run_cli, tmp_path):
    graded_folder(tmp_path)
    log = tmp_path / "judge.log"
    code, out, err = run(run_cli, tmp_path, "--judge", "command", "--judge-command", f"{JUDGE} log={log}")
    assert (code, err) == (1, "")
    check_golden(GOLDEN / "judged.txt", out)
    data = json.loads((tmp_path / "out" / "receipt.json").read_text())
    assert data["judge"] == "command"
    assert [(c["check"], c["passed"], c["detail"]) for s in data["sessions"] for c in s["checks"]] == [
        ("skill-trigger:notes", True, 'first-call: first tool call is Skill with skill="notes"'),
        ("llm-grader:The answer names the skill it USED", True,
         "score 1.00 (needs 1.00): judge: Please write the min / The answer names the skill it "),
        ("rubrics:Names NOTES", True, "score 1.00 (needs 1.00): judge: Please write the min / - Names NOTES"),
        ("skill-trigger:deploy", True, "first-call: no tool calls recorded (expected not to trigger)"),
        ("llm-grader:prompts/polite.md", True, "score 0.50 (needs 0.50): judge: Deploy please PICK:n / Politeness"),
        ("rubric", False, "score 0.00 (needs 1.00): judge: Deploy please PICK:n / NEVER passes"),
    ]
    # the judge got the task, the rubric (a prompt file read relative to the eval file), the output, the tail
    asks = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(a["mode"], a["task"], a["rubric"], a["output"]) for a in asks] == [
        ("grade", "Please write the minutes of today's meeting", "The answer names the skill it USED", "used notes"),
        ("grade", "Please write the minutes of today's meeting", "- Names NOTES", "used notes"),
        ("grade", "Deploy please PICK:none", "Politeness\nThe answer says PLEASE\n", "no skill"),
        ("grade", "Deploy please PICK:none", "NEVER passes", "no skill")]
    # the transcript text as a judge of rows sees it: the result, the text blocks, the tool inputs
    assert [a["transcript"] for a in asks] == ['used notes\n{"skill":"notes"}\nused notes'] * 2 + ["no skill\nno skill"] * 2


def test_without_a_judge_model_graders_are_not_scored_never_passed(run_cli, tmp_path):
    graded_folder(tmp_path)
    code, out, err = run(run_cli, tmp_path)
    assert (code, err) == (0, "")  # every scored check passed; four assertions were not scored
    assert out.splitlines()[:2] == [
        "minutes: fired notes — passed; not scored: llm-grader:The answer names the skill it USED (needs a judge), "
        "rubrics:Names NOTES (needs a judge)",
        "silent: fired no skill — passed; not scored: llm-grader:prompts/polite.md (needs a judge), rubric (needs a judge)"]
    data = json.loads((tmp_path / "out" / "receipt.json").read_text())
    assert data["judge"] == "none"
    assert [c["passed"] for s in data["sessions"] for c in s["checks"]] == [True, None, None, True, None, None]


def test_a_failing_judge_leaves_the_assertion_not_scored(run_cli, tmp_path):
    graded_folder(tmp_path)
    code, out, err = run(run_cli, tmp_path, "--judge", "command", "--judge-command", f"{JUDGE} fail")
    assert (code, err) == (0, "")  # not scored is not failed, and the judge's failure is the assertion's detail
    assert out.splitlines()[0] == (
        "minutes: fired notes — passed; not scored: llm-grader:The answer names the skill it USED (judge-error: judge "
        "command exited 3: boom), rubrics:Names NOTES (judge-error: judge command exited 3: boom)")
    code, out, err = run(run_cli, tmp_path, "--judge", "command", "--judge-command", f"{JUDGE} garbage", "--force")
    assert (code, err) == (0, "")
    assert out.splitlines()[1] == (
        "silent: fired no skill — passed; not scored: llm-grader:prompts/polite.md (judge-unparseable: judge gave no {\"score\": 0..1} or "
        "{\"passed\": true|false} answer), rubric (judge-unparseable: judge gave no {\"score\": 0..1} or "
        "{\"passed\": true|false} answer)")


CRITERIA = """tests:
  - id: minutes
    input: Please write the minutes of today's meeting
    criteria: Says which skill it used
    assertions:
      - type: contains
        value: s
  - id: review
    input: Check this change request
    criteria: Says which skill it used
    assertions:
      - type: contains
        value: s
"""


def test_two_libraries_send_tied_rows_with_criteria_to_the_judge_as_terum_does(run_cli, tmp_path):
    library(tmp_path / "a", SKILLS)
    library(tmp_path / "b", dict(SKILLS, review="Reviews pull requests and checks every change request."))
    (tmp_path / "EVAL.yaml").write_text(CRITERIA)
    args = ["run", "EVAL.yaml", "--skills", "baseline=a", "--skills", "candidate=b", "--out", "out",
            "--agent-command", PICKER, "--run-id", "20260101T000000Z"]
    code, out, err = run_cli(*args, cwd=str(tmp_path))
    rows = json.loads((tmp_path / "out" / "receipt.json").read_text())["rows"]
    assert [(r["case"], r["outcome"], r["reason"], r.get("detail")) for r in rows] == [
        ("minutes", "tie", "judge-not-configured",
         "the case has a judge rubric but no judge is configured (--judge command --judge-command CMD)"),
        ("review", "tie", "judge-not-configured",
         "the case has a judge rubric but no judge is configured (--judge command --judge-command CMD)")]
    code, out, err = run_cli(*args, "--force", "--judge", "command", "--judge-command", JUDGE, cwd=str(tmp_path))
    assert (code, err) == (0, "")
    data = json.loads((tmp_path / "out" / "receipt.json").read_text())
    assert [(r["case"], r["outcome"], r["reason"], r.get("detail")) for r in data["rows"]] == [
        ("minutes", "tie", "judge", "same"), ("review", "win", "judge", "says which skill it used")]
    assert out.splitlines()[-2] == ("candidate-vs-baseline: +50% net lift (1W / 0L / 1T over 2 comparisons, "
                                    "sign test p=1.000)")
