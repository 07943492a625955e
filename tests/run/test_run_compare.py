"""Arm comparison: the six row rules, dead arms, repetitions, status, the command judge, receipts,
and compare's exit code for each verdict."""

from __future__ import annotations

import json
import os
import pathlib
import sys
import time

import pytest
from conftest import check_golden
from runhelp import make_skill, write_stream

from evalfmt import api
from evalfmt.errors import EvalfmtError
from evalfmt.run import judges
from evalfmt.run.compare import compare

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden" / "run"

CASES = {
    "uses-log": "task: Write notes.\nchecks:\n  - command_matching: 'git log'\n",
    "says-hello": "task: Greet.\nchecks:\n  - transcript_mentions: hello\n",
    "judged": "task: Explain.\nchecks:\n  - transcript_mentions: because\njudge: The clearer explanation wins.\n",
}
SUITE = ("task: Review.\ncases:\n  - name: finds-a\n    checks: [{transcript_mentions: BUG_A}]\n"
         "  - name: omits-d\n    checks: [{transcript_omits: DISTRACTOR}]\n")


def setup_arms(tmp_path, candidate: dict, baseline: dict, k: int = 1, suite: bool = False):
    skill = make_skill(tmp_path / "lib", "notes", CASES, suite=SUITE if suite else None)
    arms = {}
    for arm, spec in (("candidate", candidate), ("baseline", baseline)):
        root = tmp_path / "runs" / arm
        root.mkdir(parents=True)
        for unit, kw in spec.items():
            for rep in range(1, k + 1):
                if kw is None:
                    continue
                folder = root / unit / str(rep) if k > 1 else root / unit
                write_stream(folder / "transcript.jsonl", **kw)
        arms[arm] = str(root)
    return skill, arms


def evalset(skill):
    (s,) = api.read(str(skill)).sets
    return s


GOOD = {"uses-log": {"bash": ["git log --oneline"]}, "says-hello": {"texts": ["hello"]}, "judged": {"texts": ["because"]}}
BAD = {"uses-log": {"bash": ["ls"]}, "says-hello": {"texts": ["hi"]}, "judged": {"texts": ["because"]}}


def test_rows_by_checks_and_ties(tmp_path):
    skill, arms = setup_arms(tmp_path, GOOD, BAD)
    cmp = compare(evalset(skill), arms)
    assert [(r.case, r.outcome, r.reason) for r in cmp.rows] == [
        ("judged", "tie", "judge-not-configured"), ("says-hello", "win", "checks"), ("uses-log", "win", "checks")]
    t = cmp.comparisons["baseline"]
    assert (t.win, t.loss, t.tie) == (2, 0, 1)
    assert cmp.verdict == "PASS" and cmp.status == "complete" and (cmp.expected_rows, cmp.scored_rows) == (3, 3)
    assert cmp.attribution() == "2 wins on checks; 1 tie (1 judge-not-configured)"


def test_dead_arms_are_left_out_of_the_counts(tmp_path):
    cand = dict(GOOD, judged=None)  # missing transcript
    base = dict(BAD)
    skill, arms = setup_arms(tmp_path, cand, base)
    (pathlib.Path(arms["baseline"]) / "uses-log" / "transcript.jsonl").write_text("garbage\n")  # unreadable
    cmp = compare(evalset(skill), arms)
    reasons = {r.case: r.reason for r in cmp.rows}
    assert reasons == {"judged": "candidate-run-failed", "says-hello": "checks", "uses-log": "opponent-run-failed"}
    assert (cmp.expected_rows, cmp.scored_rows, cmp.status) == (3, 1, "partial")
    assert cmp.comparisons["baseline"].n == 1


def test_both_dead_and_failed_status(tmp_path):
    skill, arms = setup_arms(tmp_path, {}, {})
    cmp = compare(evalset(skill), arms)
    assert {r.reason for r in cmp.rows} == {"both-arms-failed"}
    assert cmp.status == "failed" and cmp.verdict == "NEUTRAL"


def test_repetitions_and_suite_rows(tmp_path):
    cand = dict(GOOD, suite={"texts": ["found BUG_A"]})
    base = dict(GOOD, suite={"texts": ["found nothing, DISTRACTOR"]})
    skill, arms = setup_arms(tmp_path, cand, base, k=2, suite=True)
    cmp = compare(evalset(skill), arms)
    assert cmp.k == 2
    assert cmp.expected_rows == (3 + 2) * 2
    suite_rows = [(r.case, r.repetition, r.outcome) for r in cmp.rows if r.unit == "suite"]
    assert suite_rows == [("finds-a", 1, "win"), ("omits-d", 1, "win"), ("finds-a", 2, "win"), ("omits-d", 2, "win")]
    assert cmp.suite_ran and cmp.to_json()["comparisons"]["baseline"]["sign_p"] == 1.0  # suite rows are not independent
    assert cmp.comparisons["baseline"].sign_p < 1.0  # the plain sign test, before terum's suite rule


JUDGE = """import json, sys
d = json.load(sys.stdin)
mode = sys.argv[1]
if mode == "fail":
    sys.exit(3)
if mode == "garbage":
    print("no idea"); sys.exit(0)
if mode == "first":
    print(json.dumps({"winner": "A", "reason": "A first"})); sys.exit(0)
print(json.dumps({"winner": "A" if "CLEAR" in d["a"] else "B", "reason": "clearer"}))
"""


@pytest.mark.parametrize("mode, outcome, reason", [
    ("content", "win", "judge"), ("first", "tie", "judge-split"), ("fail", "tie", "judge-error"),
    ("garbage", "tie", "judge-unparseable")])
def test_command_judge_asked_twice_with_a_and_b_swapped(tmp_path, mode, outcome, reason):
    cand = dict(GOOD, judged={"texts": ["because CLEAR"]})
    skill, arms = setup_arms(tmp_path, cand, GOOD)
    script = tmp_path / "judge.py"
    script.write_text(JUDGE)
    judge = judges.make("command", f"{sys.executable} {script} {mode}")
    cmp = compare(evalset(skill), arms, judge=judge)
    row = next(r for r in cmp.rows if r.case == "judged")
    assert (row.outcome, row.reason) == (outcome, reason)


def test_judge_sees_task_rubric_and_the_transcript_tails(tmp_path):
    seen = []

    class Spy:
        name = "spy"
        configured = True

        def ask(self, task, rubric, a, b):
            seen.append((task, rubric, a, b))
            return judges.Answer("tie", "even")

    cand = dict(GOOD, judged={"texts": ["because " + "x" * 7000 + "END"]})
    skill, arms = setup_arms(tmp_path, cand, GOOD)
    cmp = compare(evalset(skill), arms, judge=Spy())
    assert len(seen) == 2
    task, rubric, a, b = seen[0]
    assert (task, rubric) == ("Explain.", "The clearer explanation wins.")
    assert len(a) == 6000 and a.endswith("END") and seen[1][3] == a  # swapped on the second ask
    assert next(r for r in cmp.rows if r.case == "judged").reason == "judge"


def run_compare(run_cli, tmp_path, cand, base, *extra):
    skill, arms = setup_arms(tmp_path, cand, base)
    return run_cli("compare", str(skill), "--arm", f"candidate={arms['candidate']}", "--arm",
                   f"baseline={arms['baseline']}", *extra)


@pytest.mark.parametrize("cand, base, verdict, code", [(GOOD, BAD, "PASS", 0), (GOOD, GOOD, "NEUTRAL", 0), (BAD, GOOD, "FAIL", 1)])
def test_compare_exit_code_per_verdict(run_cli, tmp_path, cand, base, verdict, code):
    rc, out, err = run_compare(run_cli, tmp_path, cand, base, "--format", "json")
    assert (rc, err) == (code, "")
    assert json.loads(out)["verdict"] == verdict


def test_require_pass_makes_neutral_exit_1(run_cli, tmp_path):
    rc, out, _ = run_compare(run_cli, tmp_path, GOOD, GOOD, "--require-pass")
    assert rc == 1 and "verdict: NEUTRAL" in out


def test_compare_text_and_receipt_golden(run_cli, tmp_path):
    receipt = tmp_path / "receipt.json"
    rc, out, err = run_compare(run_cli, tmp_path, GOOD, BAD, "--receipt", str(receipt), "--run-id", "20260101T000000Z")
    assert (rc, err) == (0, "")
    check_golden(GOLDEN / "compare.txt", out)
    data = json.loads(receipt.read_text())
    data["provenance"]["timestamp"] = "<now>"
    check_golden(GOLDEN / "receipt.json", json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def test_compare_json_shape(run_cli, tmp_path):
    rc, out, _ = run_compare(run_cli, tmp_path, GOOD, BAD, "--format", "json")
    data = json.loads(out)
    assert list(data) == ["rows", "comparisons", "verdict", "status", "expected_rows", "scored_rows"]
    assert list(data["rows"][0]) == ["case", "repetition", "opponent", "outcome", "reason"]
    assert list(data["comparisons"]["baseline"]) == ["win", "loss", "tie", "net_lift", "sign_p"]


def test_compare_usage_errors(run_cli, tmp_path):
    rc, out, err = run_cli("compare", str(tmp_path), "--arm", "candidate")
    assert rc == 2 and err.startswith("evalfmt: --arm takes NAME=RUNS_DIR")
    skill, arms = setup_arms(tmp_path, GOOD, BAD)
    rc, out, err = run_cli("compare", str(skill), "--arm", f"candidate={arms['candidate']}")
    assert rc == 2 and "at least one opponent" in err


def test_terum_example_5w_1l_3t_end_to_end(run_cli, tmp_path):
    cases = {f"c{i}": f"task: t{i}\nchecks:\n  - transcript_mentions: ok{i}\n" for i in range(9)}
    skill = make_skill(tmp_path / "lib", "five", cases, triggers="should_trigger: [go]\nshould_not_trigger: [stop]\n")
    # candidate passes c0-c4 and c6-c7; baseline passes c5 (the loss), c6, c7 (ties) and neither passes c8 (tie)
    cand_pass = {0, 1, 2, 3, 4, 6, 7}
    base_pass = {5, 6, 7}
    for arm, passing in (("candidate", cand_pass), ("baseline", base_pass)):
        for i in range(9):
            write_stream(tmp_path / "runs" / arm / f"c{i}" / "transcript.jsonl", texts=[f"ok{i}" if i in passing else "no"])
    sel = tmp_path / "sel.jsonl"
    sel.write_text('{"prompt": "go", "selected": ["five"]}\n{"prompt": "stop", "error": "timeout"}\n')
    receipt = tmp_path / "r.json"
    rc, out, err = run_cli("compare", str(skill), "--arm", f"candidate={tmp_path / 'runs' / 'candidate'}",
                           "--arm", f"baseline={tmp_path / 'runs' / 'baseline'}", "--selections", str(sel),
                           "--receipt", str(receipt))
    assert (rc, err) == (0, "")
    assert "candidate-vs-baseline: +44% net lift (5W / 1L / 3T over 9 comparisons, sign test p=0.219)\n" in out
    assert "verdict: PASS\n" in out and "why: 5 wins on checks; 1 loss on checks; 3 ties (3 checks-equal-no-judge)\n" in out
    assert out.endswith("triggers: recall=1.00 precision=1.00 (tp=1 fn=0 fp=0 tn=0)\n")
    data = json.loads(receipt.read_text())
    assert data["comparisons"]["candidate-vs-baseline"] == {"win": 5, "loss": 1, "tie": 3, "net_lift": 4 / 9, "sign_p": 0.21875}
    assert data["triggers"]["tp"] == 1 and data["triggers"]["tn"] == 0
    assert data["rows"][5]["arms"]["candidate"]["failed_checks"] == ["transcript_mentions:ok5"]


def test_dead_marker_makes_a_dead_arm_with_its_reason(tmp_path):
    skill, arms = setup_arms(tmp_path, GOOD, BAD)
    marker = pathlib.Path(arms["baseline"]) / "says-hello" / "dead.txt"
    marker.write_text("agent timed out after 10 minutes\nmore\n")
    cmp = compare(evalset(skill), arms)
    row = next(r for r in cmp.rows if r.case == "says-hello")
    assert (row.reason, row.detail, row.scored) == ("opponent-run-failed", "agent timed out after 10 minutes", False)


def test_sign_test_is_pinned_when_the_suite_has_rows_even_if_every_suite_session_died(tmp_path):
    """terum pins p at 1.0 for any receipt containing suite rows; rows of dead suite sessions count."""
    skill, arms = setup_arms(tmp_path, dict(GOOD, suite=None), dict(BAD, suite=None), suite=True)
    cmp = compare(evalset(skill), arms)
    assert [r.reason for r in cmp.rows if r.unit == "suite"] == ["both-arms-failed", "both-arms-failed"]
    assert cmp.comparisons["baseline"].sign_p == 0.5  # 2W / 0L over the cases
    assert cmp.to_json()["comparisons"]["baseline"]["sign_p"] == 1.0
    # the printed line recomputes p from W and L (terum's printer); only the receipt's sign_p is pinned
    assert cmp.report_lines()[2] == ("candidate-vs-baseline: +67% net lift (2W / 0L / 1T over 3 comparisons, "
                                     "sign test p=0.500)")


def test_command_judge_timeout_kills_what_it_started(tmp_path):
    pidfile = tmp_path / "child.pid"
    script = tmp_path / "judge.sh"
    script.write_text(f"#!/bin/sh\nsleep 30 >/dev/null 2>&1 &\necho $! > {pidfile}\nwait\n")
    script.chmod(0o755)
    answer = judges.CommandJudge(str(script), timeout=0.5).ask("t", "r", "a", "b")
    assert (answer.winner, answer.failure, answer.reason) == (None, "judge-error", "judge command timed out after 0.5 s")
    child = int(pidfile.read_text())
    for _ in range(50):
        try:
            with open(f"/proc/{child}/stat") as fh:
                if fh.read().split(") ", 1)[1].startswith("Z"):
                    break
        except OSError:
            break
        time.sleep(0.1)
    else:
        os.kill(child, 9)
        pytest.fail("the judge's background child outlived the timeout")


def test_command_judge_template_errors_are_usage_errors():
    with pytest.raises(EvalfmtError, match="needs --judge-command"):
        judges.make("command", None)
    with pytest.raises(EvalfmtError, match="--judge-command: cannot split"):
        judges.make("command", "judge 'unbalanced")


def test_suite_run_prints_recomputed_p_and_dead_candidate_rows_say_why(run_cli, tmp_path):
    """4W / 0L / 2T with a suite: the receipt pins sign_p at 1.0, the printed line (text and the receipt's
    summary_lines) says p=0.125; a dead candidate's row shows its error, not the baseline's failed checks."""
    cases = dict(CASES, both="task: Both.\nchecks:\n  - transcript_mentions: fine\n",
                 gone="task: Gone.\nchecks:\n  - transcript_mentions: here\n")
    skill = make_skill(tmp_path / "lib", "notes", cases, suite=SUITE)
    cand = dict(GOOD, both={"texts": ["fine"]}, suite={"texts": ["found BUG_A"]})
    base = dict(BAD, both={"texts": ["fine"]}, gone={"texts": ["nope"]}, suite={"texts": ["found nothing, DISTRACTOR"]})
    for arm, spec in (("candidate", cand), ("baseline", base)):
        for unit, kw in spec.items():
            write_stream(tmp_path / "runs" / arm / unit / "transcript.jsonl", **kw)
    dead = tmp_path / "runs" / "candidate" / "gone"
    dead.mkdir(parents=True)
    (dead / "dead.txt").write_text("agent exited 3: Error: not logged in\n")
    receipt = tmp_path / "receipt.json"
    rc, out, err = run_cli("compare", str(skill), "--arm", f"candidate={tmp_path / 'runs' / 'candidate'}",
                           "--arm", f"baseline={tmp_path / 'runs' / 'baseline'}", "--receipt", str(receipt),
                           "--run-id", "20260101T000000Z")
    assert (rc, err) == (0, "")
    assert "gone vs baseline: tie (candidate-run-failed) — agent exited 3: Error: not logged in\n" in out
    assert "candidate-vs-baseline: +67% net lift (4W / 0L / 2T over 6 comparisons, sign test p=0.125)\n" in out
    check_golden(GOLDEN / "compare-suite.txt", out)
    data = json.loads(receipt.read_text())
    assert data["comparisons"]["candidate-vs-baseline"]["sign_p"] == 1.0
    assert data["summary_lines"]["candidate-vs-baseline"].endswith("sign test p=0.125)")
    data["provenance"]["timestamp"] = "<now>"
    data["content_digest"] = "<digest>"
    check_golden(GOLDEN / "receipt-suite.json", json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def test_both_dead_row_names_both_errors(tmp_path):
    skill, arms = setup_arms(tmp_path, dict(GOOD, judged=None), dict(BAD, judged=None))
    row = next(r for r in compare(evalset(skill), arms).rows if r.case == "judged")
    assert row.reason == "both-arms-failed"
    assert row.detail.startswith("candidate: missing: ") and "; baseline: missing: " in row.detail
