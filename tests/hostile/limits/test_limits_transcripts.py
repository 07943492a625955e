"""Transcripts in bounded memory whatever their size (issue 11.10). Two limits, both in bytes and both
settable: a line longer than ``EVALFMT_TRANSCRIPT_MAX_LINE`` (8 MiB) is skipped without being read
into memory and counted; past ``EVALFMT_TRANSCRIPT_MEMORY`` (32 MiB) of agent text and tool input,
the transcript text moves to a temporary file, text blocks are no longer kept and tool calls keep
short inputs. Scoring gives the same results either way; the memory figures (a 300 MB transcript of
agent text took 937 MiB, now ~106 MiB) are measured by ``benchmarks/score_bench.py --shape text``."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from limitkit import make_skill, write_stream

from evalfmt import ir
from evalfmt.run import session as session_mod
from evalfmt.run.checks import score_case
from evalfmt.run.transcripts import read_session

CASE = "task: t\nchecks:\n  - transcript_mentions: needle\n"


def test_a_line_longer_than_the_limit_is_skipped_and_said(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "notes", {"a": CASE})
    transcript = write_stream(tmp_path / "t.jsonl", texts=["x" * 5000, "the needle"],
                              extra_lines=["not json", json.dumps({"type": "assistant", "message": {
                                  "content": [{"type": "text", "text": "needle " + "y" * 5000}]}})])
    code, out, err = run_cli("score", str(skill / "evals/cases/a.yaml"), "--transcript", str(transcript),
                             env={"EVALFMT_TRANSCRIPT_MAX_LINE": "4096"})
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == (f"transcript: {transcript} (claude-code-stream-json, 3 records, 1 non-JSON line "
                                   "skipped, 2 lines longer than the EVALFMT_TRANSCRIPT_MAX_LINE limit skipped)")
    assert out.splitlines()[1:] == ["PASS a (1/1 checks passed)", "  ok   transcript_mentions:needle: found in the transcript"]


@pytest.mark.parametrize("name", ["EVALFMT_TRANSCRIPT_MAX_LINE", "EVALFMT_TRANSCRIPT_MEMORY"])
def test_a_bad_limit_is_a_one_line_error(run_cli, tmp_path, name):
    skill = make_skill(tmp_path / "lib", "notes", {"a": CASE})
    transcript = write_stream(tmp_path / "t.jsonl", texts=["needle"])
    assert run_cli("score", str(skill / "evals/cases/a.yaml"), "--transcript", str(transcript),
                   env={name: "8MB"}) == (2, "", f"evalfmt: {name} must be a number of bytes (like 20000000), not '8MB'\n")


def test_past_the_memory_budget_the_session_keeps_tool_calls_only(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALFMT_TRANSCRIPT_MEMORY", "2000")
    long_write = {"file_path": "/r/notes.md", "content": "c" * 10_000}
    transcript = write_stream(tmp_path / "t.jsonl", texts=["t" * 3000] * 5 + ["the last answer"],
                              bash=["git log --oneline " + "v" * 5000],
                              tools=[("Write", long_write, "ok", False), ("Skill", {"skill": "notes"}, "ok", False)],
                              result=None)
    s = read_session(str(transcript))
    assert s.on_disk
    assert [type(b).__name__ for b in s.blocks] == ["ToolCall"] * 3  # text blocks are counted, not kept
    assert s.summary()["text_blocks"] == 6
    assert s.bash_commands() == ["git log --oneline " + "v" * 5000]  # a Bash command stays whole
    assert s.blocks[1].input == {"file_path": "/r/notes.md", "content": "c" * session_mod.KEEP_CHARS}
    assert s.final_output == "the last answer"
    assert s.transcript_contains("c" * 10_000) and s.transcript_contains("tt\ntt")
    assert not s.transcript_contains("absent")


SESSIONS = st.lists(st.one_of(
    st.text(alphabet="abcΣσXY \n", max_size=60).map(lambda t: ("text", t)),
    st.sampled_from(["git log", "git push --tags", "ls -la"]).map(lambda c: ("bash", c)),
    st.just(("skill", "notes")),
), max_size=25)
NEEDLES = ["ab", "ΣΣ", "σ\nx", "b\na", "git log", "\"skill\":\"notes\"", "yx yx", "c c c", "zz"]


@settings(max_examples=40, deadline=None)
@given(SESSIONS, st.sampled_from([1, 7, 64]))
def test_scoring_on_disk_gives_what_scoring_in_memory_gives(tmp_path_factory, events, chunk):
    """The same session scored with the text in memory and (a budget of 1 byte, chunks of a few
    characters, so that a match spans chunks) on disk: the same result for every check."""
    texts = ["Start"] + [t for k, t in events if k == "text"]
    bash = [t for k, t in events if k == "bash"]
    tools = [("Skill", {"skill": t}, "Launching skill", False) for k, t in events if k == "skill"]
    path = write_stream(tmp_path_factory.mktemp("s") / "t.jsonl", texts=texts, bash=bash, tools=tools, result="Done Σ")
    case = ir.Case(name="c", checks=[ir.TranscriptMentions(text=n) for n in NEEDLES]
                   + [ir.TranscriptOmits(text=n) for n in NEEDLES]
                   + [ir.CommandMatching(pattern="git (log|push)"), ir.SkillTrigger(skill="notes")])
    mp = pytest.MonkeyPatch()
    try:
        in_memory = read_session(str(path))
        mp.setenv("EVALFMT_TRANSCRIPT_MEMORY", "0")
        mp.setattr(session_mod, "CHUNK_CHARS", chunk)
        on_disk = read_session(str(path))
        assert on_disk.on_disk and not in_memory.on_disk
        for mode in ("first-call", "any-call", "skill-used"):
            a = score_case(case, in_memory, detection=mode)
            b = score_case(case, on_disk, detection=mode)
            assert [c.to_json() for c in b.checks] == [c.to_json() for c in a.checks]
        assert on_disk.tail(80) == in_memory.tail(80)
        assert on_disk.transcript_text() == in_memory.transcript_text()
    finally:
        mp.undo()
