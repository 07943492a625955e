"""End to end: ``evalfmt run`` with a fake stream-json agent (tests/run_agents/fake_agent.py) that acts
differently when the skill is staged: both arms, staging, dropped and skipped cases, dead arms,
the unattended note and placeholders, --k/--jobs, re-scoring with compare, replay, plugins."""

from __future__ import annotations

import os
import stat

import pytest
from e2ehelp import agent_command, load, make_skill, record, rows, tree

SKILL_BODY = "!skill notes\n!say The notes skill says SKILL_USED\n!write notes.md :: made by the skill\n"
CASES = {
    "a-wins": "task: |\n  !say hello\nchecks:\n  - transcript_mentions: SKILL_USED\n  - file_exists: notes.md\n",
    "b-loses": "task: |\n  !say hello\nchecks:\n  - transcript_omits: SKILL_USED\n",
    "c-ties": "task: |\n  !say hello\nchecks:\n  - transcript_mentions: hello\n",
}
SUITE = ("task: |\n  !say ALPHA\ncases:\n  - name: says-alpha\n    checks: [{transcript_mentions: ALPHA}]\n"
         "  - name: used-skill\n    checks: [{transcript_mentions: SKILL_USED}]\n")
ROWS = [
    ("a-wins", 1, "baseline", "win", "checks"),
    ("b-loses", 1, "baseline", "loss", "checks"),
    ("c-ties", 1, "baseline", "tie", "checks-equal-no-judge"),
    ("says-alpha", 1, "baseline", "tie", "checks-equal-no-judge"),
    ("used-skill", 1, "baseline", "win", "checks"),
]


@pytest.fixture
def notes(tmp_path):
    return make_skill(tmp_path / "lib", "notes", CASES, body=SKILL_BODY, suite=SUITE,
                      extra_files={"fixtures/answers.txt": "the answer key\n", "scripts/helper.sh": "echo help\n"})


def run(run_cli, skill, out, *args, cmd=None):
    return run_cli("run", str(skill), "--agent-command", cmd or agent_command(), "--out", str(out), "--quiet", *args)


def compare_json(run_cli, skill, out, *args):
    code, stdout, stderr = run_cli("compare", str(skill), "--arm", f"candidate={out}/candidate",
                                   "--arm", f"baseline={out}/baseline", "--format", "json", *args)
    assert stderr == ""
    return code, __import__("json").loads(stdout)


# ------------------------------------------------------------------------------- both arms


def test_both_arms_rows_layout_and_receipt(run_cli, notes, tmp_path):
    out = tmp_path / "out"
    code, stdout, stderr = run(run_cli, notes, out)
    assert (code, stderr) == (0, "")
    lines = stdout.splitlines()
    assert lines[:5] == [
        "a-wins vs baseline: win (checks) — baseline failed transcript_mentions:SKILL_USED, file_exists:notes.md",
        "b-loses vs baseline: loss (checks) — candidate failed transcript_omits:SKILL_USED",
        "c-ties vs baseline: tie (checks-equal-no-judge)",
        "says-alpha vs baseline: tie (checks-equal-no-judge)",
        "used-skill vs baseline: win (checks) — baseline failed transcript_mentions:SKILL_USED",
    ]
    assert lines[5] == "verdict: NEUTRAL"
    assert lines[7] == "candidate-vs-baseline: +20% net lift (2W / 1L / 2T over 5 comparisons, sign test p=1.000)"
    assert lines[-1] == f"receipt: {out}/receipt.json"
    # the layout compare reads
    assert sorted(os.listdir(out)) == ["baseline", "candidate", "plan.json", "receipt.json"]
    for arm in ("candidate", "baseline"):
        assert sorted(os.listdir(out / arm)) == ["a-wins", "b-loses", "c-ties", "suite"]
        assert sorted(os.listdir(out / arm / "a-wins")) == ["run.json", "sandbox", "score.json", "stderr.log", "transcript.jsonl"]
    # the candidate got the skill without evals/ and fixtures/; the baseline got nothing
    assert tree(out / "candidate" / "a-wins" / "sandbox") == [
        ".claude", ".claude/skills", ".claude/skills/notes", ".claude/skills/notes/SKILL.md",
        ".claude/skills/notes/scripts", ".claude/skills/notes/scripts/helper.sh", "notes.md"]
    assert tree(out / "baseline" / "a-wins" / "sandbox") == []
    receipt = load(out / "receipt.json")
    assert rows(receipt) == ROWS
    assert receipt["comparisons"] == {"candidate-vs-baseline": {"win": 2, "loss": 1, "tie": 2, "net_lift": 0.2,
                                                                "sign_p": 1.0}}
    assert (receipt["verdict"], receipt["execution_status"], receipt["expected_rows"], receipt["scored_rows"]) == \
        ("NEUTRAL", "complete", 5, 5)
    assert (receipt["environment_skips"], receipt["dropped_cases"], receipt["interrupted"]) == ({}, {}, False)
    assert receipt["case_runs"] == {"candidate": {"passed": 4, "total": 5}, "baseline": {"passed": 3, "total": 5}}
    assert receipt["provenance"]["runner"] == "command"
    assert receipt["provenance"]["arm_skill_lists"] == {"candidate": ["notes"], "baseline": []}
    assert receipt["skill_name"] == "notes"
    run_json = load(out / "candidate" / "a-wins" / "run.json")
    assert (run_json["arm"], run_json["case"], run_json["skill_staged"], run_json["dead"], run_json["exit_code"]) == \
        ("candidate", "a-wins", "notes", None, 0)


def test_compare_over_the_layout_gives_the_same_rows_and_counts(run_cli, notes, tmp_path):
    out = tmp_path / "out"
    code, stdout, _ = run(run_cli, notes, out, "--format", "json")
    assert code == 0
    data = __import__("json").loads(stdout)
    assert (data.pop("environment_skips"), data.pop("dropped_cases"), data.pop("interrupted")) == ({}, {}, False)
    ccode, again = compare_json(run_cli, notes, out)
    assert ccode == 0
    assert again == data
    receipt = load(out / "receipt.json")
    assert rows(again) == rows(receipt) == ROWS
    assert again["comparisons"]["baseline"] == receipt["comparisons"]["candidate-vs-baseline"]
    assert (again["expected_rows"], again["scored_rows"], again["status"], again["verdict"]) == \
        (receipt["expected_rows"], receipt["scored_rows"], receipt["execution_status"], receipt["verdict"])


def test_k3_jobs2_gives_the_same_rows_as_jobs1(run_cli, notes, tmp_path):
    import json

    results = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}"
        code, stdout, stderr = run(run_cli, notes, out, "--k", "3", "--jobs", jobs, "--format", "json")
        assert (code, stderr) == (0, "")
        results[jobs] = (json.loads(stdout), load(out / "receipt.json"))
        assert sorted(os.listdir(out / "candidate" / "suite")) == ["1", "2", "3"]
    (one, r1), (two, r2) = results["1"], results["2"]
    assert one == two
    cases, suite = ROWS[:3], ROWS[3:]
    assert rows(one) == ([(c, rep, o, w, why) for c, _, o, w, why in cases for rep in (1, 2, 3)]
                         + [(c, rep, o, w, why) for rep in (1, 2, 3) for c, _, o, w, why in suite])
    assert one["comparisons"]["baseline"] == {"win": 6, "loss": 3, "tie": 6, "net_lift": 0.2, "sign_p": 1.0}
    for key in ("comparisons", "arm_scores", "per_case", "case_runs", "efficiency", "rows", "expected_rows",
                "scored_rows", "verdict", "attribution"):
        assert r1[key] == r2[key], key
    # and compare over the k=3 layout agrees
    assert compare_json(run_cli, notes, tmp_path / "out2")[1] == {k: v for k, v in two.items()
                                                                    if k not in ("environment_skips", "dropped_cases",
                                                                                 "interrupted")}


# ----------------------------------------------------------------------------------- staging


def test_staging_order_fixture_files_setup_skill(run_cli, tmp_path):
    case = (
        "task: |\n  !say ok\n"
        "fixture: ../fixtures/repo\n"
        "files:\n"
        "  bin/tool: \"#!/bin/sh\\necho tool\\n\"\n"
        "  run.sh: \"echo run\\n\"\n"
        "  notes/a.txt: plain\n"
        "  data.txt: overwritten by files\n"
        "setup: |\n"
        "  grep -q 'overwritten by files' data.txt\n"
        "  test -x bin/tool && test -x run.sh && test ! -x notes/a.txt\n"
        "  test ! -e .claude\n"
        "  echo \"$CLAUDE_PROJECT_DIR\" > setup-env.txt\n"
        "checks:\n"
        "  - file_exists: setup-env.txt\n"
        "  - command_succeeds: test -L inner/link && test \"$(cat inner/link)\" = 'overwritten by files'\n"
        "  - file_absent: escape\n"
    )
    skill = make_skill(tmp_path / "lib", "stager", {"seeded": case}, body="Just a skill.\n",
                       extra_files={"evals/fixtures/repo/data.txt": "from the fixture\n",
                                    "scripts/evals/kept.txt": "not top-level: staged\n",
                                    "fixtures/hidden.txt": "never staged\n"})
    repo = skill / "evals" / "fixtures" / "repo"
    (repo / "inner").mkdir()
    os.symlink("../data.txt", repo / "inner" / "link")
    os.symlink("/etc/hostname", repo / "escape")
    out = tmp_path / "out"
    code, stdout, stderr = run(run_cli, skill, out, cmd=agent_command("--record"))
    assert (code, stderr) == (0, "")
    assert stdout.splitlines()[0] == "seeded vs baseline: tie (checks-equal-no-judge)"
    receipt = load(out / "receipt.json")
    assert receipt["case_runs"] == {"candidate": {"passed": 1, "total": 1}, "baseline": {"passed": 1, "total": 1}}
    for arm in ("candidate", "baseline"):
        sandbox = out / arm / "seeded" / "sandbox"
        mode = lambda p, sandbox=sandbox: stat.S_IMODE(os.stat(sandbox / p).st_mode)  # noqa: E731
        assert (mode("bin/tool"), mode("run.sh")) == (0o755, 0o755)
        assert not mode("notes/a.txt") & 0o111
        assert os.readlink(sandbox / "inner" / "link") == "../data.txt"
        assert not os.path.lexists(sandbox / "escape")  # a symlink leading out of the fixture is left out
        rec = record(out / arm / "seeded")
        assert rec["env"]["CLAUDE_PROJECT_DIR"] == rec["cwd"]
        seen = rec["seen"]
        assert not [p for p in seen if "evals" in p.split("/")[:3] and not p.startswith(".claude/skills/stager/scripts")]
        assert "fixtures" not in " ".join(seen) and "hidden.txt" not in " ".join(seen)
        assert (sandbox / "setup-env.txt").read_text().strip() == rec["cwd"]
    cand = record(out / "candidate" / "seeded")["seen"]
    assert ".claude/skills/stager/SKILL.md" in cand
    assert ".claude/skills/stager/scripts/evals/kept.txt" in cand  # only the top-level evals/ is filtered
    assert not [p for p in cand if p.startswith(".claude/skills/stager/evals")]
    assert not [p for p in record(out / "baseline" / "seeded")["seen"] if p.startswith(".claude")]


def test_failing_setup_drops_the_case_and_the_receipt_says_why(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "dropper", {
        "bad-setup": "task: |\n  !say hi\nsetup: |\n  echo preparing\n  echo boom >&2\n  exit 3\nchecks:\n  - transcript_mentions: hi\n",
        "good": "task: |\n  !say hi\nchecks:\n  - transcript_mentions: hi\n",
    })
    out = tmp_path / "out"
    code, stdout, stderr = run(run_cli, skill, out)
    assert (code, stderr) == (0, "")
    assert stdout.splitlines()[:2] == [
        "bad-setup vs baseline: tie (both-arms-failed) — case dropped (setup): setup failed: exit 3: boom",
        "good vs baseline: tie (checks-equal-no-judge)",
    ]
    assert "dropped: bad-setup (setup): setup failed: exit 3: boom" in stdout.splitlines()
    receipt = load(out / "receipt.json")
    assert receipt["dropped_cases"] == {"bad-setup": {"kind": "setup", "detail": "setup failed: exit 3: boom"}}
    assert (receipt["execution_status"], receipt["expected_rows"], receipt["scored_rows"]) == ("partial", 2, 1)
    for arm in ("baseline", "candidate"):
        folder = out / arm / "bad-setup"
        assert (folder / "dead.txt").read_text() == "case dropped (setup): setup failed: exit 3: boom\n"
        assert not (folder / "transcript.jsonl").exists()  # no agent ran
    assert "boom" in (out / "baseline" / "bad-setup" / "setup.log").read_text()
    assert receipt["rows"][0]["arms"]["candidate"]["error"] == "case dropped (setup): setup failed: exit 3: boom"


def test_unsafe_files_path_is_refused_before_anything_is_written(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "unsafe", {
        "escape": "task: hi\nfixture: ../fixtures/repo\nfiles:\n  ok.txt: fine\n  ../../outside.txt: gotcha\n",
    }, extra_files={"evals/fixtures/repo/data.txt": "x\n"})
    out = tmp_path / "out"
    code, stdout, _ = run(run_cli, skill, out)
    assert code == 1  # nothing could be scored
    receipt = load(out / "receipt.json")
    assert receipt["dropped_cases"]["escape"]["kind"] == "staging"
    assert receipt["dropped_cases"]["escape"]["detail"].startswith("unsafe file path '../../outside.txt'")
    assert os.listdir(out / "baseline" / "escape" / "sandbox") == []  # not even the fixture
    assert not (tmp_path / "outside.txt").exists() and not (out / "outside.txt").exists()


def test_missing_required_tool_is_an_environment_skip(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "needy", {
        "needs-tools": ("task: |\n  !say hi\nrequires: [sh, evalfmt-no-such-tool-9, 'python3:json', "
                        "'python3:evalfmt_no_such_module']\nchecks:\n  - transcript_mentions: hi\n"),
        "plain": "task: |\n  !say hi\nchecks:\n  - transcript_mentions: hi\n",
    })
    out = tmp_path / "out"
    code, stdout, _ = run(run_cli, skill, out)
    assert code == 0
    receipt = load(out / "receipt.json")
    assert receipt["environment_skips"] == {"needs-tools": ["evalfmt-no-such-tool-9", "python3:evalfmt_no_such_module"]}
    assert (receipt["execution_status"], receipt["expected_rows"], receipt["scored_rows"]) == ("partial", 2, 1)
    assert rows(receipt)[0] == ("needs-tools", 1, "baseline", "tie", "both-arms-failed")
    assert "environment skip: needs-tools (missing evalfmt-no-such-tool-9, python3:evalfmt_no_such_module)" in stdout
    for arm in ("baseline", "candidate"):
        assert sorted(os.listdir(out / arm / "needs-tools")) == ["dead.txt"]  # no session at all
        assert (out / arm / "needs-tools" / "dead.txt").read_text() == \
            "environment skip: missing evalfmt-no-such-tool-9, python3:evalfmt_no_such_module\n"


# --------------------------------------------------------------------------------- dead arms


def test_agent_past_timeout_minutes_is_killed_and_a_dead_arm(run_cli, tmp_path):
    body = "!bash sleep 300 >/dev/null 2>&1 & echo $! > sleeper.pid\n!stderr about to hang\n!sleep 60\n"
    skill = make_skill(tmp_path / "lib", "hangs", {
        "slow": "task: |\n  !say hi\ntimeout_minutes: 0.02\nchecks:\n  - transcript_mentions: hi\n",
    }, body=body)
    out = tmp_path / "out"
    code, stdout, _ = run(run_cli, skill, out)
    assert stdout.splitlines()[0] == "slow vs baseline: tie (candidate-run-failed) — agent timed out after 1.2 s; stderr: about to hang"
    assert code == 1  # the only row is not scored
    folder = out / "candidate" / "slow"
    assert (folder / "dead.txt").read_text() == "agent timed out after 1.2 s; stderr: about to hang\n"
    assert load(folder / "run.json")["timed_out"] is True
    assert (folder / "stderr.log").read_text() == "about to hang\n"
    assert '"name": "Bash"' in (folder / "transcript.jsonl").read_text()  # what it printed is kept
    pid = int((folder / "sandbox" / "sleeper.pid").read_text())
    assert _gone(pid), "the agent's background process outlived its timeout"
    assert not (out / "baseline" / "slow" / "dead.txt").exists()


def _gone(pid: int) -> bool:
    import time

    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:  # a zombie that init has not reaped yet counts as gone
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().split(") ", 1)[1].startswith("Z"):
                    return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


def test_non_zero_exit_is_a_dead_arm(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "crashy", {
        "crash": "task: |\n  !say partial\n  !stderr fatal: out of tokens\n  !exit 3\nchecks:\n  - transcript_mentions: partial\n",
    })
    out = tmp_path / "out"
    code, stdout, _ = run(run_cli, skill, out)
    assert code == 1
    # the dead arm says why: the last lines of the agent's stderr, in the text output and dead.txt
    assert stdout.splitlines()[0] == ("crash vs baseline: tie (both-arms-failed) — "
                                      "agent exited 3; stderr: fatal: out of tokens")
    for arm in ("baseline", "candidate"):
        assert (out / arm / "crash" / "dead.txt").read_text() == "agent exited 3; stderr: fatal: out of tokens\n"
        assert load(out / arm / "crash" / "run.json")["exit_code"] == 3
    assert load(out / "receipt.json")["execution_status"] == "failed"


FAKE_CLAUDE = """#!{python}
import sys
mode = {mode!r}
if mode == "login":
    print("starting", file=sys.stderr)
    print("Error: not logged in", file=sys.stderr)
    print("Run claude login first", file=sys.stderr)
    sys.exit(1)
print("Hello, I did the task in plain text.")
"""


def fake_claude(tmp_path, mode):
    prog = tmp_path / "bin" / "claude"
    prog.parent.mkdir(parents=True, exist_ok=True)
    prog.write_text(FAKE_CLAUDE.format(python=__import__("sys").executable, mode=mode))
    prog.chmod(0o755)
    return prog


def test_dead_agent_quotes_the_last_lines_of_stderr_in_text_receipt_and_report(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "login", {"one": "task: Do it.\nchecks:\n  - transcript_mentions: done\n"})
    out = tmp_path / "out"
    code, stdout, _ = run(run_cli, skill, out, cmd=f"{fake_claude(tmp_path, 'login')} -p {{task}} "
                                                   "--output-format stream-json --verbose")
    assert code == 1
    why = "agent exited 1; stderr: starting | Error: not logged in | Run claude login first"
    assert stdout.splitlines()[0] == f"one vs baseline: tie (both-arms-failed) — {why}"
    receipt = load(out / "receipt.json")
    assert receipt["rows"][0]["arms"]["candidate"]["error"] == why
    code, md, err = run_cli("report", str(out / "receipt.json"), "--format", "markdown")
    assert (code, err) == (0, "") and "Error: not logged in" in md


def test_claude_without_stream_json_names_the_flags_it_needs(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "plain", {"one": "task: Do it.\nchecks:\n  - transcript_mentions: done\n"})
    out = tmp_path / "out"
    code, stdout, _ = run(run_cli, skill, out, cmd=f"{fake_claude(tmp_path, 'plain')} -p {{task}}")
    assert code == 1
    line = stdout.splitlines()[0]
    assert line.startswith("one vs baseline: tie (both-arms-failed) — ")
    assert line.endswith("transcript.jsonl: not a transcript evalfmt recognises (known: claude-code-session, "
                         "claude-code-stream-json, skillgym-report); Claude Code prints a transcript evalfmt reads only "
                         "with --output-format stream-json --verbose: add --output-format stream-json --verbose "
                         "to --agent-command")
    assert (out / "candidate" / "one" / "dead.txt").read_text().endswith("to --agent-command\n")


def test_unknown_agent_with_unreadable_stdout_is_told_what_evalfmt_reads(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "plain", {"one": "task: Do it.\nchecks:\n  - transcript_mentions: done\n"})
    prog = fake_claude(tmp_path, "plain").rename(tmp_path / "bin" / "myagent")
    code, stdout, _ = run(run_cli, skill, tmp_path / "out", cmd=f"{prog} {{task}}")
    assert code == 1
    assert stdout.splitlines()[0].endswith(
        "not a transcript evalfmt recognises (known: claude-code-session, claude-code-stream-json, skillgym-report); "
        "make the agent print one of the known transcripts on stdout, or register a session source for its output "
        "(docs/scoring.md)")


# ------------------------------------------------------------------------ the agent's command


def test_task_with_shell_metacharacters_is_one_argument_and_never_runs(run_cli, tmp_path):
    task = ("Say hi; touch INJECTED && echo $(touch INJECTED2) `touch INJECTED3` | tee OUT > OUT2 "
            "'single' \"double\" * ~ {model} {note} \\ $HOME\nsecond line & touch INJECTED4")
    skill = make_skill(tmp_path / "lib", "meta", {"meta": "task: " + __import__("json").dumps(task) + "\n"})
    out = tmp_path / "out"
    code, _, stderr = run(run_cli, skill, out, cmd=agent_command("--record"))
    assert stderr == ""
    for arm in ("baseline", "candidate"):
        rec = record(out / arm / "meta")
        assert rec["argv"] == ["--record", task]
        names = os.listdir(out / arm / "meta" / "sandbox")
        assert not [n for n in names if n.startswith(("INJECTED", "OUT"))]
    for _base, _dirs, files in os.walk(tmp_path):
        assert not [f for f in files if f.startswith("INJECTED")]


def test_placeholders_note_and_environment(run_cli, tmp_path):
    from evalfmt.run.runners import NOTE

    skill = make_skill(tmp_path / "lib", "placed", {
        "turns": "task: |\n  !say hi\nmax_turns: 7\n",
        "defaults": "task: |\n  !say hi\n",
    })
    out = tmp_path / "out"
    cmd = agent_command("--record", "--note", "{note}", "--max-turns", "{max_turns}", "--model", "{model}")
    code, _, stderr = run_cli("run", str(skill), "--agent-command", cmd, "--out", str(out), "--quiet",
                              "--model", "model-x", "--env", "FAKE_AGENT_EXTRA=yes",
                              env={"EVALFMT_SECRET_PROBE": "leaked"})
    assert (code, stderr) == (0, "")
    rec = record(out / "candidate" / "turns")
    assert rec["options"] == {"note": NOTE, "max_turns": "7", "model": "model-x", "claude": {}}
    assert record(out / "baseline" / "defaults")["options"]["max_turns"] == "200"
    assert rec["evalfmt_env"] == []  # evalfmt's own variables never reach the agent
    assert rec["env"]["EVALFMT_SECRET_PROBE"] is None
    assert rec["env"]["FAKE_AGENT_EXTRA"] == "yes"
    assert rec["env"]["CLAUDE_PROJECT_DIR"] == rec["env"]["PWD"] == rec["cwd"]
    assert "no human can answer" in NOTE
    assert load(out / "receipt.json")["provenance"]["model"] == "model-x"


@pytest.mark.parametrize("args, message", [
    (("--agent-command", "AGENT"), "give --out DIR (where the receipt and the sessions go), or --dry-run"),
    (("--out", "OUT", "--agent-command", "echo hi"), "--agent-command must pass the task: put {task} in it"),
    (("--out", "OUT", "--agent-command", "evalfmt-no-such-agent {task}"),
     "--agent-command: 'evalfmt-no-such-agent' not found on PATH"),
    (("--out", "OUT", "--agent-command", "echo 'unbalanced {task}"), "--agent-command: cannot split"),
    (("--out", "OUT", "--agent-command", "echo {model} {task}"), "--agent-command uses {model}: give --model NAME"),
    (("--out", "OUT"), "the command runner needs --agent-command TEMPLATE"),
    (("--out", "OUT", "--runner", "nope"), "unknown runner 'nope'"),
    (("--out", "OUT", "--runner", "replay"), "the replay runner needs --replay-from DIR"),
    (("--out", "OUT", "--agent-command", "AGENT", "--case", "missing"), "no case named 'missing'"),
    (("--out", "OUT", "--agent-command", "AGENT", "--env", "NOEQUALS"), "--env takes KEY=VALUE, not 'NOEQUALS'"),
    (("--out", "OUT", "--agent-command", "AGENT", "--selections", "SEL"),
     "NOTES: --selections given but the skill has no trigger prompts"),
])
def test_usage_errors_exit_2_with_one_line(run_cli, notes, tmp_path, args, message):
    (tmp_path / "sel.jsonl").write_text('{"prompt": "p", "selected": []}\n')
    subst = {"OUT": str(tmp_path / "out"), "AGENT": agent_command(), "SEL": str(tmp_path / "sel.jsonl")}
    message = message.replace("NOTES", str(notes))
    code, stdout, stderr = run_cli("run", str(notes), *(subst.get(a, a) for a in args))
    assert code == 2 and stdout == ""
    assert stderr.startswith("evalfmt: " + message) and stderr.count("\n") == 1
    assert not (tmp_path / "out" / "candidate").exists()


def test_selections_are_scored_into_the_receipt(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "notes", {"c-ties": CASES["c-ties"]},
                       triggers="should_trigger: [take notes, write it down]\nshould_not_trigger: [deploy]\n")
    sel = tmp_path / "sel.jsonl"
    sel.write_text('{"prompt": "take notes", "selected": ["notes"]}\n{"prompt": "write it down", "selected": []}\n'
                   '{"prompt": "deploy", "selected": ["notes"]}\n')
    out = tmp_path / "out"
    # a selections file that cannot be read stops the run before any session runs
    code, _, stderr = run(run_cli, skill, out, "--selections", str(tmp_path / "missing.jsonl"))
    assert (code, stderr) == (2, f"evalfmt: {tmp_path / 'missing.jsonl'}: cannot read selections: No such file or directory\n")
    assert not out.exists()
    code, stdout, stderr = run(run_cli, skill, out, "--selections", str(sel))
    assert (code, stderr) == (0, "")
    assert stdout.splitlines()[-4:-1] == ["triggers: recall=0.50 precision=0.50 (tp=1 fn=1 fp=1 tn=0)",
                                          "MISS: write it down", "FALSE-FIRE: deploy"]
    assert load(out / "receipt.json")["triggers"] == {"recall": 0.5, "precision": 0.5, "tp": 1, "fn": 1, "fp": 1,
                                                      "tn": 0, "misses": ["write it down"], "false_fires": ["deploy"]}


@pytest.mark.parametrize("name, extra", [("a", {"extra_files": {"evals/cases/a.yml": "task: hi\n"}}),
                                         ("suite", {"suite": SUITE})])
def test_two_cases_with_one_folder_name_are_refused(run_cli, tmp_path, name, extra):
    skill = make_skill(tmp_path / "lib", "notes", {name: "task: hi\n"}, **extra)  # a.yaml + a.yml; suite.yaml + the suite
    out = tmp_path / "out"
    code, stdout, stderr = run(run_cli, skill, out)
    assert (code, stdout) == (2, "")
    assert stderr.startswith(f"evalfmt: two cases are named '{name}' (") and stderr.endswith("rename one\n")
    assert not out.exists()


def test_out_in_the_skill_folder_is_never_staged_with_the_skill(run_cli, notes):
    code, _, stderr = run(run_cli, notes, notes, "--case", "c-ties")  # --out is the skill folder itself
    assert (code, stderr) == (0, "")
    staged = notes / "candidate" / "c-ties" / "sandbox" / ".claude" / "skills" / "notes"
    assert sorted(os.listdir(staged)) == ["SKILL.md", "scripts"]  # not the baseline's session, run just before


def test_out_holding_a_run_needs_force(run_cli, notes, tmp_path):
    out = tmp_path / "out"
    assert run(run_cli, notes, out, "--case", "c-ties")[0] == 0
    code, _, stderr = run(run_cli, notes, out, "--case", "c-ties")
    assert code == 2
    assert stderr == (f"evalfmt: --out {out} already holds a run (candidate, baseline, receipt.json, plan.json); "
                      "give --force to replace it or --resume to continue it\n")
    (out / "keep.txt").write_text("mine")
    assert run(run_cli, notes, out, "--case", "c-ties", "--force")[0] == 0
    assert (out / "keep.txt").read_text() == "mine"
    assert sorted(os.listdir(out / "candidate")) == ["c-ties"]


def test_progress_plain_lines_when_stderr_is_not_a_terminal(run_cli, notes, tmp_path):
    code, _, stderr = run_cli("run", str(notes), "--agent-command", agent_command(), "--out", str(tmp_path / "o"),
                              "--case", "a-wins", "--case", "b-loses")
    assert code == 0
    lines = stderr.splitlines()
    assert len(lines) == 5
    assert lines[0].startswith("[1/4 0:0") and lines[0].split("] ", 1)[1].startswith("baseline a-wins #1: failed (")
    assert lines[1].split("] ", 1)[1].startswith("candidate a-wins #1: passed (")
    assert lines[4].startswith("ran 4/4 sessions in ")
    assert lines[4].endswith(": candidate 1/2 passed · baseline 1/2 passed")
    assert "\x1b" not in stderr


def test_progress_redraws_one_line_on_a_terminal():
    import io

    from evalfmt.run.compare import ArmRun
    from evalfmt.run.checks import CaseResult, CheckResult
    from evalfmt.run.execute import Progress, SessionResult

    buf = io.StringIO()
    p = Progress(2, stream=buf, tty=True)
    ok = ArmRun("candidate", "x", 1, results=[CaseResult("x", [CheckResult("k", "k", True, "")])])
    p.session(SessionResult("candidate", "x", 1, run=ok, seconds={"total": 0.1}))
    p.line("x: dropped (setup): boom")
    p.finish()
    text = buf.getvalue()
    assert text.startswith("\r\x1b[K[1/2] candidate 1/1 passed · baseline 0/0 passed · 0:00")
    assert "\r\x1b[Kx: dropped (setup): boom\n" in text
    assert text.endswith("\r\x1b[Kran 1/2 sessions in 0:00: candidate 1/1 passed · baseline 0/0 passed\n")


# ------------------------------------------------------------------------------ replay, plugins


def test_replay_runner_rescoring_a_recorded_run(run_cli, notes, tmp_path):
    first = tmp_path / "first"
    assert run(run_cli, notes, first)[0] == 0
    again = tmp_path / "again"
    code, stdout, stderr = run_cli("run", str(notes), "--runner", "replay", "--replay-from", str(first),
                                   "--out", str(again), "--quiet", "--format", "json")
    assert (code, stderr) == (0, "")
    assert rows(__import__("json").loads(stdout)) == ROWS
    rec = load(again / "candidate" / "a-wins" / "run.json")
    assert (rec["runner"], rec["info"]["sandbox"]) == ("replay", "recorded")
    assert load(again / "receipt.json")["provenance"]["replay_from"] == str(first)


def test_replay_overlay_and_missing_sessions(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "overlaid", {
        "wrote": "task: hi\nfiles:\n  base.txt: staged\nchecks:\n  - file_exists: base.txt\n  - file_exists: agent.txt\n",
    })
    rec = tmp_path / "recorded"
    for arm in ("candidate",):
        folder = rec / arm / "wrote"
        (folder / "sandbox.overlay").mkdir(parents=True)
        (folder / "sandbox.overlay" / "agent.txt").write_text("written by the agent")
        (folder / "transcript.jsonl").write_text('{"type":"result","result":"done","num_turns":1}\n')
    out = tmp_path / "out"
    code, stdout, _ = run_cli("run", str(skill), "--runner", "replay", "--replay-from", str(rec), "--out", str(out),
                              "--quiet")
    assert stdout.splitlines()[0] == (f"wrote vs baseline: tie (opponent-run-failed) — replay: no recorded session at "
                                      f"{rec}/baseline/wrote")
    assert sorted(os.listdir(out / "candidate" / "wrote" / "sandbox")) == [".claude", "agent.txt", "base.txt"]
    assert load(out / "receipt.json")["rows"][0]["arms"]["candidate"]["passed"] is True


def test_runner_plugin_from_an_entry_point(run_cli, tmp_path, monkeypatch):
    import importlib.metadata as md

    real = md.entry_points

    def fake(**kw):
        if kw.get("group") == "evalfmt.runners":
            return [md.EntryPoint("echo", "e2ehelp:make_echo", "evalfmt.runners")]
        return real(**kw)

    monkeypatch.setattr(md, "entry_points", fake)
    skill = make_skill(tmp_path / "lib", "plug", {"arm": "task: hi\nchecks:\n  - transcript_mentions: from candidate\n"})
    out = tmp_path / "out"
    code, stdout, stderr = run_cli("run", str(skill), "--runner", "echo", "--out", str(out), "--quiet")
    assert (code, stderr) == (0, "")
    assert stdout.splitlines()[0] == "arm vs baseline: win (checks) — baseline failed transcript_mentions:from candidate"


@pytest.mark.parametrize("command, group, kind", [("run", "evalfmt.runners", "runner"),
                                                  ("triggers", "evalfmt.selectors", "selector")])
def test_a_plugin_that_fails_to_load_is_named_when_asked_for(run_cli, tmp_path, monkeypatch, command, group, kind):
    skill = make_skill(tmp_path / "lib", "notes", {"c-ties": CASES["c-ties"]}, triggers="should_trigger: [go]\n")
    import importlib.metadata as md

    real = md.entry_points

    def fake(**kw):
        if kw.get("group") == group:
            return [md.EntryPoint("broken", "evalfmt_no_such_module_9:make", group)]
        return real(**kw)

    monkeypatch.setattr(md, "entry_points", fake)
    option = "--runner" if command == "run" else "--selector"
    extra = ("--out", str(tmp_path / "out")) if command == "run" else ()
    code, stdout, stderr = run_cli(command, str(skill), option, "broken", *extra)
    assert (code, stdout) == (2, "")
    assert stderr == (f"evalfmt: {kind} 'broken' failed to load: ModuleNotFoundError: "
                      f"No module named 'evalfmt_no_such_module_9' (entry point 'broken = "
                      f"evalfmt_no_such_module_9:make' in group '{group}')\n")


@pytest.mark.skipif(__import__("shutil").which("git") is None, reason="git is not installed")
def test_recorded_release_notes_sessions_replay_to_the_live_rows(run_cli, tmp_path):
    from conftest import FIXTURES, ROOT

    skill = FIXTURES / "library" / "release-notes"
    live, replayed = tmp_path / "live", tmp_path / "replayed"
    code, stdout, _ = run_cli("run", str(skill), "--agent-command", agent_command(), "--out", str(live), "--quiet",
                              "--format", "json")
    assert code == 0
    code, again, _ = run_cli("run", str(skill), "--runner", "replay", "--replay-from",
                             str(ROOT / "fixtures" / "sessions" / "release-notes"), "--out", str(replayed), "--quiet",
                             "--format", "json")
    assert code == 0
    import json

    first, second = json.loads(stdout), json.loads(again)
    assert first == second
    assert rows(first) == [
        ("breaking-change-first", 1, "baseline", "tie", "judge-not-configured"),
        ("changelog-untouched", 1, "baseline", "win", "checks"),
        ("no-tag-push", 1, "baseline", "win", "checks"),
        ("notes-since-last-tag", 1, "baseline", "tie", "checks-equal-no-judge"),
        ("feature-sso-login", 1, "baseline", "tie", "checks-equal-no-judge"),
        ("fix-pool-leak", 1, "baseline", "tie", "checks-equal-no-judge"),
        ("perf-layout-cache", 1, "baseline", "tie", "checks-equal-no-judge"),
        ("distractor-reverted-toggle", 1, "baseline", "win", "checks"),
    ]
    assert (first["verdict"], first["comparisons"]["baseline"]["win"], first["comparisons"]["baseline"]["tie"]) == \
        ("PASS", 3, 5)


def test_a_session_whose_skill_list_contradicts_its_arm_is_reported(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "leaky", {"one": "task: |\n  !say hi\n"})
    # the baseline sandbox gets a skill of the same name through setup: the agent reports it
    (skill / "evals" / "cases" / "one.yaml").write_text(
        "task: |\n  !say hi\nsetup: mkdir -p .claude/skills/leaky && echo x > .claude/skills/leaky/SKILL.md\n")
    out = tmp_path / "out"
    code, _, stderr = run(run_cli, skill, out)
    assert code == 0
    assert stderr == "evalfmt: warning: baseline one #1: the agent reported skills [leaky], which include 'leaky'\n"
    assert load(out / "receipt.json")["contamination"] == [
        {"arm": "baseline", "case": "one", "repetition": 1, "skills": ["leaky"]}]


def test_terum_equivalent_claude_template_drives_a_fake_claude(run_cli, tmp_path):
    """The documented template, run against a program named `claude` (the fake agent): the note
    arrives through --append-system-prompt, and the receipt records `claude --version`."""
    import re
    import sys

    from conftest import ROOT

    from evalfmt.run.runners import NOTE

    bindir = tmp_path / "bin"
    bindir.mkdir()
    claude = bindir / "claude"
    claude.write_text(f"#!/bin/sh\nexec {sys.executable} {ROOT}/tests/run_agents/fake_agent.py --record \"$@\"\n")
    claude.chmod(0o755)
    text = (ROOT / "docs" / "running.md").read_text(encoding="utf-8")
    template = re.search(r"--agent-command '(claude -p \{task\}\n.*?)'\n", text, re.S).group(1)
    skill = make_skill(tmp_path / "lib", "cc", {"one": "task: |\n  !say hi\nmax_turns: 9\nchecks:\n  - transcript_mentions: hi\n"})
    out = tmp_path / "out"
    code, _, stderr = run_cli("run", str(skill), "--agent-command", template, "--model", "sonnet", "--out", str(out),
                              "--quiet", env={"PATH": f"{bindir}:{os.environ['PATH']}"})
    assert (code, stderr) == (0, "")
    rec = record(out / "candidate" / "one")
    assert rec["options"]["note"] == NOTE
    assert (rec["options"]["max_turns"], rec["options"]["model"]) == ("9", "sonnet")
    assert rec["options"]["claude"] == {"-p": True, "--output-format": "stream-json", "--verbose": True,
                                        "--permission-mode": "acceptEdits",
                                        "--allowedTools": "Bash Read Write Edit Glob Grep",
                                        "--setting-sources": "project", "--strict-mcp-config": True}
    receipt = load(out / "receipt.json")
    assert receipt["provenance"]["cc_version"] == "2.0.0 (fake Claude Code)"
    assert receipt["provenance"]["model"] == "sonnet"


def test_run_skill_is_the_library_entry_of_run(run_cli, tmp_path):
    """``evalfmt.run.run_skill(RunRequest)`` does what ``evalfmt run`` does, without the CLI: the same rows
    and verdict, and a receipt the receipt model reads back."""
    from conftest import FIXTURES, ROOT

    import evalfmt
    from evalfmt.receipt import Receipt
    from evalfmt.run import RunRequest, run_skill

    skill = FIXTURES / "library" / "release-notes"
    recorded = ROOT / "fixtures" / "sessions" / "release-notes"
    code, stdout, _ = run_cli("run", str(skill), "--runner", "replay", "--replay-from", str(recorded),
                              "--out", str(tmp_path / "cli"), "--quiet", "--format", "json")
    result = evalfmt.read(str(skill), "terum")
    outcome = run_skill(RunRequest(skill_dir=str(skill), sets=result.sets, documents=result.documents,
                                   out=str(tmp_path / "lib"), runner="replay", replay_from=str(recorded), quiet=True))
    import json

    assert outcome.comparison is not None and outcome.run is not None
    data = outcome.comparison.to_json()
    data.update(environment_skips=outcome.run.skips, dropped_cases=outcome.run.drops,
                interrupted=outcome.run.interrupted)
    assert json.loads(stdout) == json.loads(json.dumps(data))
    assert code == (1 if outcome.comparison.verdict == "FAIL" else 0)
    assert outcome.receipt_path == str(tmp_path / "lib" / "receipt.json")
    receipt = Receipt.load(outcome.receipt_path)
    assert receipt.verdict == outcome.comparison.verdict and receipt.provenance["runner"] == "replay"
