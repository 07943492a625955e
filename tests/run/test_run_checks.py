"""Check scoring: each terum kind at its edges, agentv assertions, malformed checks, JSON.stringify."""

from __future__ import annotations

import os
import time

import pytest
from runhelp import write_stream

from evalfmt import ir
from evalfmt import js
from evalfmt.formats.terum.reader import read_unit
from evalfmt.run.checks import NO_SANDBOX, Context, score_case, score_check
from evalfmt.run.transcripts import read_session


@pytest.fixture
def session(tmp_path):
    path = write_stream(tmp_path / "t.jsonl", texts=["I checked the CHANGELOG for Straße and İstanbul."],
                        bash=["git log --oneline v1..HEAD", "echo ٣"],
                        tools=[("Read", {"file_path": "notes.md"}, "SECRET-IN-TOOL-OUTPUT", False),
                               ("bash", {"command": "git push origin v2"}, "pushed", False),
                               ("Write", {"file_path": "out.txt", "content": "x", "n": 1.0}, "ok", False)],
                        result="Final answer: done")
    return read_session(str(path))


def one(check, session, **kw):
    return score_check(check, Context(session, **kw))


def test_transcript_checks_fold_case(session):
    assert one(ir.TranscriptMentions(text="changelog"), session).passed
    assert one(ir.TranscriptMentions(text="STRASSE"), session).passed is False  # lower-casing, not case folding
    assert one(ir.TranscriptMentions(text="straße"), session).passed
    assert one(ir.TranscriptMentions(text="FINAL ANSWER"), session).passed  # the result text is part of it
    assert one(ir.TranscriptOmits(text="changelog"), session).passed is False


def test_tool_results_are_not_in_the_transcript(session):
    assert one(ir.TranscriptMentions(text="SECRET-IN-TOOL-OUTPUT"), session).passed is False
    assert one(ir.TranscriptOmits(text="secret-in-tool-output"), session).passed


def test_tool_inputs_are_in_the_transcript_as_json_stringify_writes_them(session):
    assert one(ir.TranscriptMentions(text='{"file_path":"notes.md"}'), session).passed
    assert one(ir.TranscriptMentions(text='"n":1}'), session).passed  # 1.0 prints as 1
    assert one(ir.TranscriptMentions(text='"file_path": "notes.md"'), session).passed is False


def test_bash_commands_come_from_tools_named_exactly_bash(session):
    assert session.bash_commands() == ["git log --oneline v1..HEAD", "echo ٣"]
    assert one(ir.NoCommandMatching(pattern=r"git\s+push"), session).passed  # 'bash' (lower case) is not Bash
    assert one(ir.CommandMatching(pattern=r"git (log|describe)"), session).passed


def test_command_regex_is_ecmascript(session):
    assert one(ir.CommandMatching(pattern=r"echo \d"), session).passed is False  # \d is ASCII in ECMAScript
    assert one(ir.CommandMatching(pattern=r"HEAD$"), session).passed
    r = one(ir.CommandMatching(pattern=r"(?i)GIT"), session)
    assert r.passed is False and r.detail.startswith("malformed check: invalid group")


def test_file_read_checks_search_the_paths_the_agent_read(session):
    """On a Claude Code transcript the files read are the ``file_path`` of its Read calls (a skillgym report's
    own file reads: tests/formats/test_skillgym_report.py); the pattern is an ECMAScript search, ``negate``
    turns the outcome."""
    found = one(ir.FileReadMatching(pattern=r"notes\.md$"), session)
    assert (found.check, found.passed, found.detail) == (r"file_read_matching:notes\.md$", True, "read notes.md")
    missed = one(ir.FileReadMatching(pattern="NOTES", flags="i"), session)
    assert (missed.passed, missed.detail) == (True, "read notes.md")
    assert one(ir.FileReadMatching(pattern="out.txt"), session).detail == \
        "no file read matched /out.txt/ (1 read)"  # a Write is no read
    assert one(ir.NoFileReadMatching(pattern="notes"), session).passed is False
    assert one(ir.NoFileReadMatching(pattern=r"\.env"), session).passed
    negated = one(ir.FileReadMatching(pattern="notes", negate=True), session)
    assert (negated.passed, negated.detail) == (False, "negated: read notes.md")
    bad = one(ir.FileReadMatching(pattern="(?<n>"), session)
    assert bad.passed is False and bad.detail.startswith("malformed check: ")


def test_file_checks(tmp_path, session):
    box = tmp_path / "box"
    (box / "sub").mkdir(parents=True)
    (box / "sub" / "a.txt").write_text("a")
    (tmp_path / "outside.txt").write_text("o")
    assert one(ir.FileExists(path="sub/a.txt"), session, sandbox=str(box)).passed
    assert one(ir.FileExists(path="sub/../sub/a.txt"), session, sandbox=str(box)).passed
    assert one(ir.FileAbsent(path="nope.txt"), session, sandbox=str(box)).passed
    assert one(ir.FileExists(path=str(box / "sub" / "a.txt")), session, sandbox=str(box)).passed  # absolute, inside


@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink", "symlinked-dir"])
def test_sandbox_escapes_fail_both_file_kinds(tmp_path, session, how):
    box = tmp_path / "box"
    box.mkdir()
    (tmp_path / "outside.txt").write_text("o")
    if how == "dotdot":
        path = "../outside.txt"
    elif how == "absolute":
        path = str(tmp_path / "outside.txt")
    elif how == "symlink":
        os.symlink(tmp_path / "outside.txt", box / "link.txt")
        path = "link.txt"
    else:
        os.symlink(tmp_path, box / "up")
        path = "up/outside.txt"
    for kind in (ir.FileExists, ir.FileAbsent):
        r = one(kind(path=path), session, sandbox=str(box))
        assert (r.passed, r.detail) == (False, "path escapes the sandbox")


def test_without_a_sandbox_file_and_command_checks_fail_saying_so(session):
    for check in (ir.FileExists(path="a"), ir.FileAbsent(path="a"), ir.CommandSucceeds(command="true")):
        r = one(check, session)
        assert (r.passed, r.detail) == (False, NO_SANDBOX)


def test_command_succeeds_runs_sh_ce_in_the_sandbox(tmp_path, session):
    (tmp_path / "marker").write_text("m")
    assert one(ir.CommandSucceeds(command="test -f marker"), session, sandbox=str(tmp_path)).passed
    r = one(ir.CommandSucceeds(command="false; true"), session, sandbox=str(tmp_path))  # -e: the first failure ends it
    assert r.passed is False and r.detail.startswith("exit 1")
    r = one(ir.CommandSucceeds(command="echo boom >&2; exit 3"), session, sandbox=str(tmp_path))
    assert r.detail == "exit 3: boom"


def test_command_timeout_kills_the_whole_process_group(tmp_path, session):
    pidfile = tmp_path / "child.pid"
    cmd = f"sleep 30 & echo $! > {pidfile}; wait"
    r = one(ir.CommandSucceeds(command=cmd), session, sandbox=str(tmp_path), timeout=1.0)
    assert (r.passed, r.detail) == (False, "timed out after 1 s")
    child = int(pidfile.read_text())
    for _ in range(50):  # the background child was in the same group: it is gone
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        with open(f"/proc/{child}/stat") as fh:
            if fh.read().split()[2] == "Z":
                break
        time.sleep(0.1)
    else:
        pytest.fail("background child survived the timeout")


def test_malformed_and_unknown_checks_fail_the_arm_not_the_run(session, tmp_path):
    """As terum's reader reads them (the reader says what the engine does with each), then scored."""
    case = tmp_path / "s" / "evals" / "cases" / "a.yaml"
    case.parent.mkdir(parents=True)
    case.write_text("task: t\nchecks:\n  - transcript_mention: x\n  - [a, b]\n  - transcript_omits\n"
                    "  - transcript_mentions: [Final, answer]\n  - transcript_omits: null\n  - file_exists: {a: 1}\n")
    checks = read_unit(str(tmp_path / "s")).sets[0].cases[0].checks
    assert [(r.passed, r.detail) for r in (one(c, session) for c in checks)] == [
        (False, "unknown check kind 'transcript_mention'"),
        (False, "unrecognized check spec"),
        # a known kind without a (string) argument tests String() of it, as the engine does: 'undefined',
        # 'Final,answer' (not in the transcript), 'null', '[object Object]' (a path outside no sandbox given)
        (True, "not found in the transcript"),
        (False, "not found in the transcript"),
        (True, "not found in the transcript"),
        (False, NO_SANDBOX)]
    assert [c.runs_with for c in checks] == [None, None, "undefined", "Final,answer", "null", "[object Object]"]
    r = one(ir.CommandMatching(pattern="(unclosed"), session)
    assert r.passed is False and r.detail == "malformed check: unterminated group"
    # an opaque check another format's tool runs: not scored
    assert one(ir.Opaque(type="my-grader", raw={"type": "my-grader"}, origin="agentv"), session).passed is None


def test_case_without_checks_passes_and_all_or_nothing(session):
    assert score_case(ir.Case(name="empty"), session).passed
    assert score_case(ir.Case(name="empty"), session).score is None
    res = score_case(ir.Case(name="c", checks=[ir.TranscriptMentions(text="changelog"), ir.TranscriptMentions(text="zzz")]), session)
    assert res.passed is False and res.score == 0.5 and res.failed == ["transcript_mentions:zzz"]


def test_agentv_assertions_score_the_final_output(session):
    assert one(ir.Contains(value="Final answer"), session).passed
    assert one(ir.Contains(value="final answer"), session).passed is False
    assert one(ir.Icontains(value="FINAL ANSWER"), session).passed
    assert one(ir.StartsWith(value="  Final"), session).passed  # both sides trimmed
    assert one(ir.EndsWith(value="done"), session).passed
    assert one(ir.Equals(value=" Final answer: done\n"), session).passed
    assert one(ir.Regex(value="^final", flags="i"), session).passed
    assert one(ir.IsJson(), session).passed is False
    assert one(ir.ContainsAll(values=["Final", "done"]), session).passed
    assert one(ir.IcontainsAny(values=["nope", "DONE"]), session).passed
    assert one(ir.Contains(value="Final", negate=True), session).passed is False
    assert one(ir.Rubrics(criteria=["good"]), session).passed is None  # not scored, does not decide the case


def test_label_cuts_command_succeeds_to_60(session, tmp_path):
    r = one(ir.CommandSucceeds(command="true " + "x" * 100), session, sandbox=str(tmp_path))
    assert r.check == "command_succeeds:" + ("true " + "x" * 100)[:60]


@pytest.mark.parametrize("value, expected", [
    ({"b": 1, "2": 2, "10": 3, "a": 4}, '{"2":2,"10":3,"b":1,"a":4}'),
    ([1.0, 1e-7, 1e21, 0.000001, 2**60, 123456789012345680000.0], "[1,1e-7,1e+21,0.000001,1152921504606847000,123456789012345680000]"),
    ("a\x1f\x7f\u2028/é\"\\", '"a\\u001f\x7f\u2028/é\\"\\\\"'),
    ("\ud800", '"\\ud800"'),
    ({"command": "ls -la", "n": 3}, '{"command":"ls -la","n":3}'),
])
def test_json_stringify(value, expected):
    assert js.stringify(value) == expected


@pytest.mark.parametrize("output, valid", [
    ('{"a": [1, 2.5, null]}', True), ("1e400", True), ('"x\\ud800"', True),
    ("NaN", False), ("[1, Infinity]", False), ("-Infinity", False), ("{'a': 1}", False), ("", False),
])
def test_is_json_is_json_parse(tmp_path, output, valid):
    session = read_session(str(write_stream(tmp_path / "t.jsonl", result=output)))
    assert one(ir.IsJson(), session).passed is valid


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1].startswith("Z")
    except OSError:
        return True


def test_what_a_passing_command_left_running_is_killed(tmp_path, session):
    pidfile = tmp_path / "child.pid"
    r = one(ir.CommandSucceeds(command=f"sleep 30 >/dev/null 2>&1 & echo $! > {pidfile}"), session, sandbox=str(tmp_path))
    assert (r.passed, r.detail) == (True, "exit 0")
    child = int(pidfile.read_text())
    for _ in range(50):
        if _gone(child):
            break
        time.sleep(0.1)
    else:
        os.kill(child, 9)
        pytest.fail("a background child of command_succeeds outlived the check")
