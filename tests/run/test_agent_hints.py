"""A dead agent says why: the stderr tail quoted in the reason, and the fix for a known agent whose
stdout is not a transcript evalfmt reads."""

from __future__ import annotations

from evalfmt.run import agent_hints


def test_stderr_tail_keeps_the_last_three_non_empty_lines_on_one_line(tmp_path):
    log = tmp_path / "stderr.log"
    log.write_text("a\n\nb\n  c   with   spaces \n\n d\n")
    assert agent_hints.stderr_tail(str(log)) == "b | c with spaces | d"
    assert agent_hints.with_stderr("agent exited 3", str(log)) == "agent exited 3; stderr: b | c with spaces | d"


def test_stderr_tail_cuts_long_lines_reads_only_the_end_and_tolerates_a_missing_file(tmp_path):
    log = tmp_path / "stderr.log"
    log.write_bytes(b"x" * 100_000 + b"\n" + b"y" * 500 + b"\xff\n")
    tail = agent_hints.stderr_lines(str(log))
    assert len(tail[-1]) == agent_hints.TAIL_CHARS and tail[-1].endswith("…")
    assert agent_hints.with_stderr("agent exited 1", str(tmp_path / "none.log")) == "agent exited 1"
    (tmp_path / "empty.log").write_text("\n\n")
    assert agent_hints.with_stderr("agent exited 1", str(tmp_path / "empty.log")) == "agent exited 1"


def test_claude_code_is_told_the_flags_it_lacks():
    hint = agent_hints.transcript_hint(["/usr/bin/claude", "-p", "x", "--output-format", "json"])
    assert hint.endswith(": add --output-format stream-json --verbose to --agent-command")
    hint = agent_hints.transcript_hint(["claude", "-p", "x", "--output-format=stream-json"])
    assert hint.endswith(": add --verbose to --agent-command")
    hint = agent_hints.transcript_hint(["npx", "@anthropic-ai/claude-code", "-p", "x", "--output-format",
                                        "stream-json", "--verbose"])
    assert "the command has them" in hint


def test_an_unknown_agent_is_told_how_to_add_a_reader():
    assert agent_hints.known_agent(["codex", "exec"]) is None
    assert agent_hints.transcript_hint(None).startswith("make the agent print one of the known transcripts")
