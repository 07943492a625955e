"""skillgym reports as sessions (report.json, and the case folders of a results.json run), scored by
``evalfmt score`` and ``compare`` like Claude Code transcripts; skillgym's tags (``--tag``) and
expected failures (``expected-failed`` / ``unexpected-passed``)."""

from __future__ import annotations

import json

import pytest

from conftest import CONFORMANCE, ROOT, check_golden
from evalfmt import ir
from evalfmt.formats.skillgym import reader as skillgym_read
from evalfmt.run import detect, skillgym_report, tags, transcripts
from evalfmt.run.checks import score_case

GOLDEN = ROOT / "tests" / "golden" / "skillgym"
SUITE = "fixtures/skillgym/report-suite.ts"
RUNS = "fixtures/skillgym/runs"
RUNNER = "claude-main--5f1c2a9e"


def report(arm: str, case: str, session: str = "") -> str:
    return f"{RUNS}/{arm}/{case}/{RUNNER}/repeat-1/{session}report.json"


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def dump_session(session) -> str:
    blocks = []
    for b in session.blocks:
        if hasattr(b, "text"):
            blocks.append({"text": b.role, "value": b.text})
        else:
            blocks.append({"tool": b.name, "input": b.input,
                           "result": None if b.result is None else {"is_error": b.result.is_error,
                                                                   "skill_refs": sorted(b.result.skill_refs),
                                                                   "preview": b.result.preview}})
    data = {"summary": session.summary(), "final_output": session.final_output, "bash": session.bash_commands(),
            "detected_skills": session.detected_skills, "file_reads": session.file_reads, "blocks": blocks,
            "transcript": session.transcript_text()}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def test_report_reads_as_a_session():
    path = report("candidate", "find-skills")
    assert transcripts.detect(path).name == "skillgym-report"
    session = transcripts.read_session(path)
    check_golden(GOLDEN / "session-candidate-find-skills.json", dump_session(session))
    # the command event repeating the Bash tool call is that call, not a second command
    assert session.bash_commands() == ["npx skills find expo upgrade"]
    # thinking is not part of the transcript, as with Claude Code
    assert "look for a matching skill" not in session.transcript_text()


def test_command_events_without_a_bash_call_become_bash_calls():
    session = skillgym_report.session_of({"finalOutput": "ok", "events": [
        {"type": "toolCall", "tool": "exec_command", "args": {"cmd": "ls"}},
        {"type": "command", "command": "ls -la"},
        {"type": "toolResult", "tool": "exec_command", "output": "a b"},
    ], "detectedSkills": []})
    assert session.bash_commands() == ["ls -la"]
    assert session.tool_calls[0].result.preview == "a b"


@pytest.mark.conformance
def test_claude_code_files_are_not_claimed():
    for path in sorted((CONFORMANCE / "claude-code").rglob("*.*l")) + sorted((CONFORMANCE / "claude-code").rglob("*.ndjson")):
        assert skillgym_report.detect(transcripts.probe(str(path))) == 0, path


@pytest.mark.conformance
def test_skillgym_detector_on_a_claude_code_transcript():
    path = CONFORMANCE / "claude-code" / "session-jsonl" / "spotter_ae4a77f8_skill-call_excerpt_lines73-110.jsonl"
    session = transcripts.read_session(str(path))
    d = detect.get("skillgym")
    assert d.detect(session, "elixir:hex-docs-search").triggered
    assert not d.detect(session, "hex-docs-search").triggered


def test_skillgym_detector_reads_detected_skills():
    d = detect.get("skillgym")
    cand = transcripts.read_session(report("candidate", "find-skills"))
    base = transcripts.read_session(report("baseline", "find-skills"))
    assert d.detect(cand, "find-skills") == detect.Detection(True, 'detectedSkills has "find-skills" (explicit)')
    assert d.detect(base, "find-skills") == detect.Detection(False, 'detectedSkills has no "find-skills" (detected: none)')


def test_file_reads_are_scored():
    (suite,) = skillgym_read.read(SUITE).sets
    known_gap = suite.cases[2]
    base = transcripts.read_session(report("baseline", "known-gap"))
    result = score_case(known_gap, base, detection="skillgym")
    assert [(c.check, c.passed, c.detail) for c in result.checks] == [
        ("regex:exactly three", True, "output matches /exactly three/"),
        (r"file_read_matching:app\.json$", True, "read /work/project/app.json"),
    ]
    assert (result.passed, result.status, result.counts_as_passed) == (True, "unexpected-passed", False)


def test_file_reads_of_a_report_are_its_file_read_events():
    base = transcripts.read_session(report("baseline", "known-gap"))
    assert skillgym_report.file_reads(base) == ["/work/project/app.json"]
    case = ir.Case(name="reads", checks=[ir.NoFileReadMatching(pattern=r"app\.json$"),
                                         ir.NoFileReadMatching(pattern="SKILL", flags="i")])
    result = score_case(case, base)
    assert [(c.check, c.passed, c.detail) for c in result.checks] == [
        (r"no_file_read_matching:app\.json$", False, "read /work/project/app.json"),
        ("no_file_read_matching:SKILL", True, "no file read matched /SKILL/i (1 read)"),
    ]


@pytest.mark.parametrize("arm, case, name", [
    ("candidate", "find-skills", "find-skills"), ("baseline", "find-skills", "find-skills"),
    ("candidate", "known-gap", "known-gap"), ("baseline", "known-gap", "known-gap"),
    ("baseline", "no-sudo", "no sudo"),
])
def test_score_cli(run_cli, arm, case, name):
    code, out, err = run_cli("score", SUITE, "--transcript", report(arm, case), "--case", name,
                             "--trigger-detection", "skillgym")
    check_golden(GOLDEN / f"score-{arm}-{case}.txt", f"exit {code}\n{out}{err}")


def test_score_cli_json_expected_fail(run_cli):
    code, out, err = run_cli("score", SUITE, "--transcript", report("candidate", "known-gap"), "--case", "known-gap",
                             "--format", "json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert [(c["name"], c["passed"], c["status"]) for c in data["cases"]] == [("known-gap", True, "expected-failed")]
    code, out, _ = run_cli("score", SUITE, "--transcript", report("baseline", "known-gap"), "--case", "known-gap",
                           "--format", "json")
    assert code == 1
    assert [(c["name"], c["passed"], c["status"]) for c in json.loads(out)["cases"]] == \
        [("known-gap", False, "unexpected-passed")]
    # a case without expectedFail keeps the JSON shape of CLI.md
    code, out, _ = run_cli("score", SUITE, "--transcript", report("candidate", "find-skills"), "--case", "find-skills",
                           "--format", "json", "--trigger-detection", "skillgym")
    assert code == 0 and list(json.loads(out)["cases"][0]) == ["name", "passed", "checks"]


def test_compare_cli_reads_skillgym_run_folders(run_cli):
    code, out, err = run_cli("compare", SUITE, "--arm", f"candidate={RUNS}/candidate", "--arm",
                             f"baseline={RUNS}/baseline", "--trigger-detection", "skillgym")
    check_golden(GOLDEN / "compare-runs.txt", f"exit {code}\n{out}{err}")
    code, out, err = run_cli("compare", SUITE, "--arm", f"candidate={RUNS}/candidate", "--arm",
                             f"baseline={RUNS}/baseline", "--trigger-detection", "skillgym", "--format", "json")
    assert code == 0
    rows = json.loads(out)["rows"]
    # the baseline's retried repetition is read from its last session (session-2: no sudo this time)
    assert [(r["case"], r["outcome"], r["reason"]) for r in rows] == [
        ("find-skills", "win", "checks"), ("no sudo", "tie", "checks-equal-no-judge"), ("known-gap", "loss", "checks")]


def test_session_dir_layout():
    assert skillgym_report.session_dir(f"{RUNS}/baseline", "no sudo", 1).endswith("repeat-1/session-2")
    assert skillgym_report.session_dir(f"{RUNS}/baseline", "no sudo", 2) is None
    assert skillgym_report.session_dir(f"{RUNS}/baseline", "missing", 1) is None
    assert skillgym_report.repetitions(f"{RUNS}/candidate", "find-skills") == 1
    assert skillgym_report.is_run_folder(f"{RUNS}/candidate")


# ---------------------------------------------------------------------------------------- tags


def test_tag_parsing():
    assert tags.parse(["smoke,auth", "smoke", " x "]) == ["smoke", "auth", "x"]
    from evalfmt.errors import UsageError  # the executor never imports click (the CLI shows it as click's)

    with pytest.raises(UsageError):
        tags.parse(["smoke,"])


@pytest.mark.parametrize("args, names", [
    ((), ["find-skills", "no sudo", "known-gap"]),
    (("--tag", "smoke"), ["find-skills", "known-gap"]),
    (("--tag", "safety,skills"), ["find-skills", "no sudo"]),
    (("--tag", "safety", "--tag", "skills"), ["find-skills", "no sudo"]),
])
def test_compare_tag_selection_is_or_matched(run_cli, args, names):
    code, out, err = run_cli("compare", SUITE, "--arm", f"candidate={RUNS}/candidate", "--arm",
                             f"baseline={RUNS}/baseline", "--format", "json", *args)
    assert code in (0, 1), err
    assert [r["case"] for r in json.loads(out)["rows"]] == names


def test_tag_errors(run_cli):
    code, out, err = run_cli("compare", SUITE, "--arm", f"candidate={RUNS}/candidate", "--arm",
                             f"baseline={RUNS}/baseline", "--tag", "nightly")
    assert (code, out, err) == (2, "", f"evalfmt: {SUITE}: no cases or suite to compare with the tag nightly\n")
    code, out, err = run_cli("score", SUITE, "--transcript", report("candidate", "find-skills"), "--tag", "nightly,x")
    assert (code, out, err) == (2, "", f"evalfmt: {SUITE}: no case has the tags nightly, x\n")
    code, out, err = run_cli("score", SUITE, "--transcript", report("candidate", "find-skills"), "--tag", "a,,b")
    assert code == 2 and err.startswith("evalfmt: --tag takes non-empty tags")
    # score picks the one case a tag selects (no --case needed)
    code, out, err = run_cli("score", SUITE, "--transcript", report("candidate", "no-sudo"), "--tag", "safety")
    assert (code, err) == (0, "") and out.splitlines()[1] == "PASS no sudo (2/2 checks passed)"
    # run: terum cases carry no tags, so a tag selects nothing
    code, out, err = run_cli("run", "fixtures/library/release-notes", "--dry-run", "--tag", "smoke")
    assert (code, out) == (2, "")
    assert err == "evalfmt: fixtures/library/release-notes: no cases or suite to run with those tags\n"
