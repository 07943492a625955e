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
