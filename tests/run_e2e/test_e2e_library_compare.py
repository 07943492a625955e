"""``evalfmt compare EVAL --runs`` over trigger runs: the two libraries of one run, or library A's run vs
library B's (a changed SKILL.md description), with the run's own arithmetic (per-skill recall, precision,
F1, fire rate, confusion tables, terum's rows, verdict, net lift and the sign test p recomputed in the
printed line); a trigger run mixed with a terum run's folder, or runs of other tests, is refused in one line."""

from __future__ import annotations

import json
import pathlib

from conftest import check_golden
from e2ehelp import agent_command, make_skill
from test_e2e_library import EVAL_YAML, PICKER, SKILLS, library

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden" / "run" / "library"
CHANGED = dict(SKILLS, review="Reviews pull requests and checks every change request.")
LIFT_YAML = "tests:\n" + "".join(
    f"  - id: {name}\n    input: {text}\n    assertions:\n      - type: skill-trigger\n        skill: {skill}\n"
    for name, text, skill in [("minutes", "Please write the minutes of today's meeting", "notes"),
                              ("ship", "Ship the service to production now", "deploy"),
                              ("cr-1", "Look at this change request", "review"),
                              ("cr-2", "Another change request here", "review"),
                              ("cr-3", "Please handle this change request", "review"),
                              ("cr-4", "One more change request", "review")])


def one_library_runs(run_cli, tmp_path, text: str = LIFT_YAML, k: str = "1") -> None:
    library(tmp_path / "a", SKILLS)
    library(tmp_path / "b", CHANGED)
    (tmp_path / "EVAL.yaml").write_text(text)
    for name in ("a", "b"):
        code, _, err = run_cli("run", "EVAL.yaml", "--skills", name, "--out", f"run-{name}", "--agent-command", PICKER,
                               "--k", k, "--run-id", "20260101T000000Z", "--quiet", cwd=str(tmp_path))
        assert err == ""


def test_compare_two_library_runs_gates_a_description_change(run_cli, tmp_path):
    one_library_runs(run_cli, tmp_path)
    code, out, err = run_cli("compare", "EVAL.yaml", "--runs", "baseline=run-a", "--runs", "candidate=run-b",
                             "--receipt", "cmp.json", "--run-id", "20260102T000000Z", cwd=str(tmp_path))
    assert (code, err) == (0, "")
    assert out.splitlines()[-3:] == [
        "verdict: PASS",
        "candidate-vs-baseline: +67% net lift (4W / 0L / 2T over 6 comparisons, sign test p=0.125)",
        "receipt: cmp.json"]
    check_golden(GOLDEN / "compare-ab.txt", out)
    data = json.loads((tmp_path / "cmp.json").read_text())
    check_golden(GOLDEN / "compare-ab.json", json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    assert data["compared"] == {"baseline": {"run": "run-a", "library": "library", "run_id": "20260101T000000Z"},
                                "candidate": {"run": "run-b", "library": "library", "run_id": "20260101T000000Z"}}
    code, printed, _ = run_cli("compare", "EVAL.yaml", "--runs", "baseline=run-a", "--runs", "candidate=run-b",
                               "--run-id", "20260102T000000Z", "--format", "json", cwd=str(tmp_path))
    assert json.loads(printed) == data  # --format json prints the receipt
    # the same through --arm, naming each run's library folder
    code, again, err = run_cli("compare", "EVAL.yaml", "--arm", "baseline=run-a/library", "--arm",
                               "candidate=run-b/library", "--receipt", "cmp.json", cwd=str(tmp_path))
    assert (code, again) == (0, out)
    # a FAIL the other way round: exit 1
    code, out, err = run_cli("compare", "EVAL.yaml", "--runs", "baseline=run-b", "--runs", "candidate=run-a",
                             cwd=str(tmp_path))
    assert code == 1 and out.splitlines()[-2:] == [
        "verdict: FAIL", "candidate-vs-baseline: -67% net lift (0W / 4L / 2T over 6 comparisons, sign test p=0.125)"]


def test_compare_over_one_run_of_two_libraries_says_what_the_run_said(run_cli, tmp_path):
    library(tmp_path / "a", SKILLS)
    library(tmp_path / "b", CHANGED)
    (tmp_path / "EVAL.yaml").write_text(EVAL_YAML.replace('"Review this change PICK:notes"', "Check this change request"))
    code, ran, _ = run_cli("run", "EVAL.yaml", "--skills", "baseline=a", "--skills", "candidate=b", "--out", "out",
                           "--agent-command", PICKER, cwd=str(tmp_path))
    code, out, err = run_cli("compare", "EVAL.yaml", "--runs", "out", cwd=str(tmp_path))
    assert (code, err) == (0, "")
    assert out.splitlines() == ran.splitlines()[:-1]  # all but the run's receipt line
    check_golden(GOLDEN / "ab.txt", out + "receipt: out/receipt.json\n")


def test_a_trigger_run_mixed_with_a_terum_run_is_refused(run_cli, tmp_path):
    one_library_runs(run_cli, tmp_path)
    skill = make_skill(tmp_path / "lib", "notes", {"a": "task: t\nchecks:\n  - transcript_mentions: done\n"})
    code, _, err = run_cli("run", str(skill), "--agent-command", agent_command(), "--out", "terum", "--quiet",
                           cwd=str(tmp_path))
    code, out, err = run_cli("compare", "EVAL.yaml", "--runs", "baseline=run-a", "--arm", "candidate=terum/candidate",
                             cwd=str(tmp_path))
    assert (code, out, err) == (2, "", "evalfmt: --runs baseline=run-a is a trigger run's folder and --arm "
                                       "candidate=terum/candidate is not: a trigger run compares only with another "
                                       "trigger run of the same eval set (see 'evalfmt compare --help')\n")
    code, out, err = run_cli("compare", "EVAL.yaml", "--runs", "run-a", cwd=str(tmp_path))
    assert (code, err) == (2, "evalfmt: --runs run-a is a trigger run over one library (library): compare two with "
                              "--runs baseline=RUN_A --runs candidate=RUN_B (see 'evalfmt compare --help')\n")


def test_runs_of_other_tests_or_another_k_are_refused(run_cli, tmp_path):
    one_library_runs(run_cli, tmp_path)
    (tmp_path / "OTHER.yaml").write_text(LIFT_YAML.replace("cr-4", "cr-9"))
    code, out, err = run_cli("compare", "OTHER.yaml", "--runs", "baseline=run-a", "--runs", "candidate=run-b",
                             cwd=str(tmp_path))
    assert (code, err) == (2, "evalfmt: the trigger run run-a ran other tests than OTHER.yaml holds (not run: cr-9; "
                              "not in the eval set: cr-4)\n")
    code, _, _ = run_cli("run", "EVAL.yaml", "--skills", "b", "--out", "run-b", "--agent-command", PICKER, "--k", "2",
                         "--force", "--quiet", cwd=str(tmp_path))
    code, out, err = run_cli("compare", "EVAL.yaml", "--runs", "baseline=run-a", "--runs", "candidate=run-b",
                             cwd=str(tmp_path))
    assert (code, err) == (2, "evalfmt: the trigger runs differ in k (baseline 1, candidate 2): compare runs made "
                              "with the same --k\n")


AUDIT = dict(CHANGED, audit="Audits dependencies and licences.")
DIFFER_YAML = "tests:\n" + "".join(
    f"  - id: {name}\n    input: {text}\n    assertions:\n      - type: skill-trigger\n        skill: {skill}\n"
    for name, text, skill in [("minutes", "Please write the minutes of today's meeting", "notes"),
                              ("ship", "Ship the service to production now", "deploy"),
                              ("cr-1", "Look at this change request", "review"),
                              ("cr-2", "Another change request here", "review"),
                              ("cr-3", "Please handle this change request", "review"),
                              ("deps", "Check the dependencies of this project", "audit")])


def test_report_of_two_runs_whose_libraries_differ(run_cli, tmp_path):
    """Library b adds ``audit`` (and rewords ``review``): the report names the skill b holds and a lacks,
    gives a row per test with each library's session and failed checks, and puts the confusion columns in
    one order for both libraries (the receipt's own tables list them in another order per library)."""
    library(tmp_path / "a", SKILLS)
    library(tmp_path / "b", AUDIT)
    (tmp_path / "EVAL.yaml").write_text(DIFFER_YAML)
    for name in ("a", "b"):
        run_cli("run", "EVAL.yaml", "--skills", name, "--out", f"run-{name}", "--agent-command", PICKER,
                "--run-id", "20260101T000000Z", "--quiet", cwd=str(tmp_path))
    code, _, err = run_cli("compare", "EVAL.yaml", "--runs", "baseline=run-a", "--runs", "candidate=run-b",
                           "--receipt", "cmp.json", "--run-id", "20260102T000000Z", cwd=str(tmp_path))
    assert (code, err) == (0, "")
    data = json.loads((tmp_path / "cmp.json").read_text())
    check_golden(GOLDEN / "compare-libraries.json", json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    assert [list(data["scores"][arm]["confusion"]["deploy"]) for arm in ("baseline", "candidate")] == [
        ["deploy", "notes", "review", "audit", "(none)"], ["audit", "deploy", "notes", "review", "(none)"]]

    code, md, err = run_cli("report", "cmp.json", "--format", "markdown", cwd=str(tmp_path))
    assert (code, err) == (0, "")
    check_golden(GOLDEN / "compare-libraries.md", md)
    lines = md.splitlines()
    assert lines[:3] == ["### evalfmt report: trigger run, candidate (b) vs baseline (a)", "",
                         "**PASS** +67% net lift (4W / 0L / 2T over 6 comparisons, sign test p=0.125)"]
    assert "> - `audit`: in candidate (b), not in baseline (a) — tests that expect it: deps" in lines
    assert [x for x in lines if x.startswith("| expected")] == [
        "| expected \\\\ fired | audit | deploy | notes | review | (none) |"] * 2
    assert "| audit | baseline (a) (not in library) | 0.00 | n/a | n/a | 0.00 | 0 | 1 | 0 | 0 |" in lines
    assert ("| deps | 1 | audit | win | checks | passed, fired audit | failed, fired no skill: "
            "`skill-trigger:audit` |") in lines

    code, page, err = run_cli("report", "cmp.json", cwd=str(tmp_path))
    assert (code, err) == (0, "")
    check_golden(GOLDEN / "compare-libraries.html", page)
    heads = list(page.split("<table class=\"confusion\"><thead>")[1:])
    assert len(heads) == 2 and heads[0].split("</thead>")[0] == heads[1].split("</thead>")[0]
    assert ("<li><code><bdi>audit</bdi></code>: in <bdi>candidate (b)</bdi>, not in <bdi>baseline (a)</bdi> — tests "
            "that expect it: <bdi>deps</bdi></li>") in page
    assert page.count("<tr class=\"test-row\"") == 6
    assert ('<div class="verdict v-PASS" data-verdict="PASS"><span class="word">PASS</span><span class="line">+67% '
            'net lift (4W / 0L / 2T over 6 comparisons, sign test p=0.125)</span></div>') in page
