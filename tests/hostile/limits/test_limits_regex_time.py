"""Author-supplied regexes run within a time budget (issue 11.7): a catastrophic pattern ends as a
``check timed out`` result in score, compare and run, never a hang. The budget is
``EVALFMT_REGEX_TIMEOUT`` seconds (default 5); these tests set it low."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest
from limitkit import agent_command, make_skill, write_stream

from evalfmt.ecmaregex import EcmaRegexError
from evalfmt.run import regex_deadline
from evalfmt.run.regex_deadline import RegexTimeout, first_match

#: exponential backtracking in every backtracking engine (JavaScript's included) on a 40-character
#: word followed by a character that makes the match fail
CATASTROPHIC = r"^(\w+\s?)+$"
SUBJECT = "a" * 40 + "!"
TIMED_OUT = ("check timed out: the regex ran longer than 0.2 s (a catastrophic pattern?); "
             "EVALFMT_REGEX_TIMEOUT sets the limit")
ENV = {"EVALFMT_REGEX_TIMEOUT": "0.2"}


def test_first_match_finds_and_times_out():
    assert first_match(r"git\s+log", "", ["ls", "git  log -1", "git log"]) == 1
    assert first_match("PUSH", "i", ["git push"]) == 0
    assert first_match("tag", "", ["ls"]) is None
    with pytest.raises(RegexTimeout) as exc:
        first_match(CATASTROPHIC, "", ["ok!", SUBJECT], seconds=0.2)
    assert str(exc.value) == TIMED_OUT
    with pytest.raises(EcmaRegexError):
        first_match("(", "", ["x"], seconds=0.2)


def test_the_timer_is_gone_after_a_check():
    import signal

    before = signal.getsignal(signal.SIGALRM)
    with pytest.raises(RegexTimeout):
        first_match(CATASTROPHIC, "", [SUBJECT], seconds=0.2)
    first_match("a", "", ["a"], seconds=0.2)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is before


def test_outside_the_main_thread_a_child_process_keeps_the_budget():
    """A library caller's thread cannot use the timer: the match runs in a process killed at the deadline."""
    out: dict = {}

    def work():
        out["hit"] = first_match(r"git\s+log", "", ["ls", "git log"], seconds=5)
        try:
            first_match(CATASTROPHIC, "", [SUBJECT], seconds=0.3)
        except RegexTimeout as exc:
            out["timeout"] = str(exc)
        try:
            first_match("(?<n>a)\\k<m>", "u", ["a"], seconds=5)
        except EcmaRegexError as exc:
            out["error"] = exc.message

    t = threading.Thread(target=work)
    t.start()
    t.join(120)
    assert out == {"hit": 1, "timeout": TIMED_OUT.replace("0.2 s", "0.3 s"),
                   "error": out.get("error")} and out["error"]


@pytest.mark.parametrize("raw", ["0", "-1", "five", "nan", "inf"])
def test_a_bad_budget_is_a_one_line_error(run_cli, tmp_path, raw):
    skill = make_skill(tmp_path / "lib", "notes", {"a": f"task: t\nchecks:\n  - command_matching: '{CATASTROPHIC}'\n"})
    transcript = write_stream(tmp_path / "t.jsonl", bash=[SUBJECT])
    assert run_cli("score", str(skill / "evals/cases/a.yaml"), "--transcript", str(transcript),
                   env={"EVALFMT_REGEX_TIMEOUT": raw}) == (
        2, "", f"evalfmt: EVALFMT_REGEX_TIMEOUT must be a number of seconds greater than 0 (like 5 or 0.5), "
               f"not '{raw}'\n")


def test_score_terum_command_matching_times_out(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "notes", {
        "a": f"task: t\nchecks:\n  - command_matching: '{CATASTROPHIC}'\n  - no_command_matching: '{CATASTROPHIC}'\n"
             "  - command_matching: 'aaa'\n"})
    transcript = write_stream(tmp_path / "t.jsonl", bash=[SUBJECT])
    code, out, err = run_cli("score", str(skill / "evals/cases/a.yaml"), "--transcript", str(transcript),
                             "--format", "json", env=ENV)
    assert (code, err) == (1, "")
    assert json.loads(out)["cases"][0]["checks"] == [
        {"check": f"command_matching:{CATASTROPHIC}", "passed": False, "detail": TIMED_OUT},
        {"check": f"no_command_matching:{CATASTROPHIC}", "passed": False, "detail": TIMED_OUT},
        {"check": "command_matching:aaa", "passed": True, "detail": f"matched by Bash command: {SUBJECT}"},
    ]


def test_score_agentv_regex_assertion_times_out(run_cli, tmp_path):
    evals = tmp_path / "EVAL.yaml"
    evals.write_text("tests:\n  - id: t1\n    input: hi\n    assertions:\n"
                     f"      - type: regex\n        value: '{CATASTROPHIC}'\n", encoding="utf-8")
    transcript = write_stream(tmp_path / "t.jsonl", result=SUBJECT)
    code, out, err = run_cli("score", str(evals), "--transcript", str(transcript), "--format", "json", env=ENV)
    assert (code, err) == (1, "")
    assert json.loads(out)["cases"][0]["checks"] == [
        {"check": f"regex:{CATASTROPHIC}", "passed": False, "detail": TIMED_OUT}]


def test_compare_reports_the_timeout_in_both_arms(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "notes", {"a": f"task: t\nchecks:\n  - command_matching: '{CATASTROPHIC}'\n"})
    for arm in ("candidate", "baseline"):
        write_stream(tmp_path / "runs" / arm / "a" / "transcript.jsonl", bash=[SUBJECT])
    receipt = tmp_path / "receipt.json"
    code, out, err = run_cli("compare", str(skill), "--arm", f"candidate={tmp_path}/runs/candidate",
                             "--arm", f"baseline={tmp_path}/runs/baseline", "--receipt", str(receipt), env=ENV)
    assert (code, err) == (0, "")
    assert out.startswith(f"a vs baseline: tie (checks-equal-no-judge) — candidate failed command_matching:{CATASTROPHIC}; "
                          f"baseline failed command_matching:{CATASTROPHIC}\n")
    assert _receipt_details(receipt) == {("a", "candidate"): [TIMED_OUT], ("a", "baseline"): [TIMED_OUT]}


def _receipt_details(path) -> dict:
    rows = json.loads(path.read_text(encoding="utf-8"))["rows"]
    return {(r["case"], arm): [c["detail"] for c in res["checks"]] for r in rows for arm, res in r["arms"].items()}


def test_run_reports_the_timeout(run_cli, tmp_path):
    """``run`` with an agent that runs the fatal command: every arm's check ends timed out."""
    skill = make_skill(tmp_path / "lib", "notes", {
        "a": f"task: |\n  !bash echo {SUBJECT}\nchecks:\n  - command_matching: '{CATASTROPHIC}'\n"})
    out = tmp_path / "out"
    code, stdout, stderr = run_cli("run", str(skill), "--agent-command", agent_command(), "--out", str(out),
                                   "--quiet", env=ENV)
    assert (code, stderr) == (0, "")
    assert _receipt_details(out / "receipt.json") == {("a", "candidate"): [TIMED_OUT], ("a", "baseline"): [TIMED_OUT]}


def test_score_in_a_fresh_process_ends(tmp_path):
    """The whole CLI, as a user runs it: the process ends with the timeout result (the subprocess
    timeout only keeps a regression from hanging the suite)."""
    skill = make_skill(tmp_path / "lib", "notes", {"a": f"task: t\nchecks:\n  - command_matching: '{CATASTROPHIC}'\n"})
    transcript = write_stream(tmp_path / "t.jsonl", bash=[SUBJECT])
    proc = subprocess.run([sys.executable, "-m", "evalfmt", "score", str(skill / "evals/cases/a.yaml"),
                           "--transcript", str(transcript)], capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, **ENV})
    assert (proc.returncode, proc.stderr) == (1, "")
    assert f"FAIL command_matching:{CATASTROPHIC}: {TIMED_OUT}\n" in proc.stdout


def test_default_budget():
    assert regex_deadline.budget() == 5.0
