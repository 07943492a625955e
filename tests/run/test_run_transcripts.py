"""Session readers: the normalised model of every real conformance transcript (golden), content
detection, skipped lines, partial messages, subagent exclusion, and streaming memory."""

from __future__ import annotations

import json
import pathlib
import tracemalloc

import pytest
from conftest import CONFORMANCE, check_golden, conformance_files, conformance_id
from runhelp import stream_lines

from evalfmt.run.claude_code import SESSION, STREAM
from evalfmt.run.session import TextBlock, ToolCall
from evalfmt.run.transcripts import SessionError, SessionSource, detect, read_session, register, sources

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden" / "run" / "sessions"
TRANSCRIPTS = conformance_files("claude-code/*/*")


def session_doc(s) -> str:
    blocks = []
    for b in s.blocks:
        if isinstance(b, TextBlock):
            blocks.append({"text": b.role, "chars": len(b.text), "start": b.text[:60]})
        else:
            r = b.result
            blocks.append({"tool": b.name, "id": b.id, "input": b.input_json()[:120],
                           "result": None if r is None else {"is_error": r.is_error, "skill_refs": sorted(r.skill_refs),
                                                             "preview": r.preview[:60]}})
    doc = {"summary": s.summary(), "final_output": s.final_output[:120], "bash": s.bash_commands(), "blocks": blocks}
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


@pytest.mark.conformance
@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[conformance_id(p) for p in TRANSCRIPTS])
def test_conformance_sessions_golden(path):
    s = read_session(str(path))
    check_golden(GOLDEN / (path.name + ".json"), session_doc(s))


@pytest.mark.conformance
def test_conformance_detection_by_content():
    cc = CONFORMANCE / "claude-code"
    assert detect(str(cc / "stream-json" / "waza_claudeFixtureStream.ndjson")).name == STREAM
    assert detect(str(cc / "stream-json" / "waza_partial-messages_toolcall.ndjson")).name == STREAM
    for p in (cc / "session-jsonl").iterdir():
        assert detect(str(p)).name == SESSION, p.name


@pytest.mark.conformance
def test_non_json_line_is_skipped_and_counted():
    s = read_session(str(CONFORMANCE / "claude-code" / "stream-json" / "waza_claudeFixtureStream.ndjson"))
    assert s.skipped_lines == 1
    assert s.records == 7
    assert [b.name for b in s.tool_calls] == ["Skill", "Write"]
    assert s.result == "Ahoy, matey!" and s.model == "claude-haiku-4-5" and s.num_turns == 3


@pytest.mark.conformance
def test_partial_messages_rebuild_the_tool_call():
    s = read_session(str(CONFORMANCE / "claude-code" / "stream-json" / "waza_partial-messages_toolcall.ndjson"))
    assert s.bash_commands() == ["/bin/ls -la"]
    assert s.cost_usd == 0.002


@pytest.mark.conformance
def test_progress_entries_are_subagent_work_not_main_agent():
    s = read_session(str(CONFORMANCE / "claude-code" / "session-jsonl" / "spotter_ae4a77f8_skill-call_excerpt_lines73-110.jsonl"))
    # the progress entries embed a subagent's WebSearch/WebFetch calls: none of them is the main agent's
    assert [b.name for b in s.tool_calls] == ["Skill", "Bash"]


def test_partial_messages_not_doubled_when_the_full_record_follows(tmp_path):
    lines = [
        {"type": "system", "subtype": "init", "session_id": "s", "model": "m"},
        {"type": "stream_event", "event": {"type": "message_start", "message": {"id": "msg1"}}},
        {"type": "stream_event", "event": {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}},
        {"type": "stream_event", "event": {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "Hel"}}},
        {"type": "stream_event", "event": {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "lo"}}},
        {"type": "stream_event", "event": {"type": "content_block_stop"}},
        {"type": "assistant", "message": {"id": "msg1", "content": [{"type": "text", "text": "Hello"}]}},
        {"type": "stream_event", "event": {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t1", "name": "Bash"}}},
        {"type": "stream_event", "event": {"type": "content_block_delta", "delta": {"type": "input_json_delta", "partial_json": "{\"command\":\"ls\"}"}}},
        {"type": "assistant", "message": {"id": "msg1", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]}},
        {"type": "stream_event", "event": {"type": "message_start", "message": {"id": "msg2"}}},
        {"type": "stream_event", "event": {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}},
        {"type": "stream_event", "event": {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "only streamed"}}},
        {"type": "result", "result": "Hello", "num_turns": 2},
    ]
    p = tmp_path / "t.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    s = read_session(str(p))
    assert [(type(b).__name__, getattr(b, "text", getattr(b, "name", None))) for b in s.blocks] == [
        ("TextBlock", "Hello"), ("ToolCall", "Bash"), ("TextBlock", "only streamed")]


def test_session_file_skips_sidechain_and_progress(tmp_path):
    entries = [
        {"type": "user", "sessionId": "x", "message": {"role": "user", "content": "typed prompt"}},
        {"type": "assistant", "sessionId": "x", "isSidechain": True,
         "message": {"id": "m0", "content": [{"type": "tool_use", "id": "s1", "name": "Bash", "input": {"command": "sidechain"}}]}},
        {"type": "progress", "data": {"message": {"message": {"content": [{"type": "tool_use", "id": "p1", "name": "Bash", "input": {"command": "sub"}}]}}}},
        {"type": "assistant", "sessionId": "x", "message": {"id": "m1", "model": "claude-x",
                                                            "content": [{"type": "tool_use", "id": "a1", "name": "Bash", "input": {"command": "main"}}]}},
        {"type": "assistant", "sessionId": "x", "message": {"id": "m2", "content": [{"type": "text", "text": "done"}]}},
    ]
    p = tmp_path / "s.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in entries) + "\n")
    s = read_session(str(p))
    assert s.source == SESSION
    assert s.bash_commands() == ["main"]
    assert s.final_output == "done" and s.result is None and s.num_turns == 2 and s.model == "claude-x"
    # a typed prompt is string content, not a text block: not in the transcript
    assert "typed prompt" not in s.transcript_text()


def test_lone_surrogate_escapes_parse_like_json_parse(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text('{"type":"system","subtype":"init"}\n'
                 '{"type":"assistant","message":{"content":[{"type":"text","text":"x\\ud800y"}]}}\n')
    s = read_session(str(p))
    assert s.skipped_lines == 0 and s.texts[0].text == "x\ud800y"


def test_lines_that_are_json_but_not_objects_are_skipped(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text("\n".join(stream_lines(bash=["ls"])[:1] + ["[1, 2]", "42", "", "   ", "{broken"] + stream_lines(bash=["ls"])[1:]) + "\n")
    s = read_session(str(p))
    assert s.skipped_lines == 3  # blank lines are not counted
    assert s.bash_commands() == ["ls"]


@pytest.mark.parametrize("newline", ["\n", ""])
def test_a_first_line_longer_than_the_probe_is_still_detected(tmp_path, newline):
    entries = [{"type": "user", "sessionId": "x", "message": {"role": "user", "content": "log: " + "x" * 100_000}},
               {"type": "assistant", "sessionId": "x", "message": {"id": "m1", "content": [{"type": "text", "text": "done"}]}}]
    p = tmp_path / "s.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in entries) + newline)
    s = read_session(str(p))
    assert (s.source, s.final_output, s.records) == (SESSION, "done", 2)
    p.write_text(json.dumps(entries[0]) + newline)  # the long line is the whole file
    assert detect(str(p)).name == SESSION


def test_a_skillgym_report_is_not_held_to_the_eval_file_size_limit(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALFMT_MAX_BYTES", "1000")  # the limit for eval assets, not for recordings
    p = tmp_path / "report.json"
    p.write_text(json.dumps({"finalOutput": "done", "events": [
        {"type": "toolCall", "tool": "Bash", "args": {"command": "ls"}},
        {"type": "toolResult", "tool": "Bash", "output": "x" * 5000}]}))
    s = read_session(str(p))
    assert (s.source, s.final_output, s.bash_commands()) == ("skillgym-report", "done", ["ls"])


def test_unreadable_transcripts(tmp_path):
    with pytest.raises(SessionError, match="no such transcript"):
        read_session(str(tmp_path / "missing.jsonl"))
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(SessionError, match="empty transcript"):
        read_session(str(tmp_path / "empty.jsonl"))
    (tmp_path / "junk.jsonl").write_text("not json\nstill not\n")
    with pytest.raises(SessionError, match="not a transcript evalfmt recognises"):
        read_session(str(tmp_path / "junk.jsonl"))


def test_a_new_source_plugs_in_without_editing_the_readers(tmp_path):
    from evalfmt.run.session import Session

    def detect_fn(probe):
        return 10 if probe.head.startswith(b"TOY") else 0

    def read_fn(path):
        s = Session(source="toy", path=path, records=1)
        s.blocks.append(ToolCall("1", "Bash", {"command": pathlib.Path(path).read_text()[4:].strip()}))
        return s

    register(SessionSource("toy", "a toy source", detect_fn, read_fn))
    try:
        p = tmp_path / "toy.txt"
        p.write_text("TOY make test\n")
        assert read_session(str(p)).bash_commands() == ["make test"]
        assert "toy" in sources()
    finally:
        from evalfmt.run import transcripts

        transcripts.unregister("toy")


def _peak_reading(path) -> tuple[int, int]:
    read_session(str(path))  # imports and caches first: measure the reading alone
    tracemalloc.start()
    try:
        s = read_session(str(path))
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert s.tool_calls
    return current, peak


def test_memory_does_not_grow_with_tool_output(tmp_path):
    """Tool results are reduced to flags and previews as they are read: twice the file, same memory."""
    big = "x" * 1_000_000
    sizes = {}
    for n in (10, 40):
        p = tmp_path / f"big{n}.jsonl"
        p.write_text("\n".join(stream_lines(tools=[("Read", {"file_path": f"f{i}"}, big, False) for i in range(n)])) + "\n")
        sizes[n] = _peak_reading(p)
    (_cur10, peak10), (cur40, peak40) = sizes[10], sizes[40]
    assert peak40 - peak10 < 1_000_000  # 30 MB more file, under 1 MB more peak
    assert cur40 < 200_000  # what the session keeps of 40 MB of output


def _subagent_file(tmp_path):
    entries = [
        {"type": "user", "sessionId": "x", "isSidechain": True, "agentId": "a1",
         "message": {"role": "user", "content": "Find the config loader"}},
        {"type": "assistant", "sessionId": "x", "isSidechain": True, "agentId": "a1",
         "message": {"id": "m1", "content": [{"type": "tool_use", "id": "t1", "name": "Bash",
                                               "input": {"command": "grep -rn ConfigLoader"}}]}},
        {"type": "assistant", "sessionId": "x", "isSidechain": True, "agentId": "a1",
         "message": {"id": "m2", "content": [{"type": "text", "text": "It is in src/config.ts"}]}},
    ]
    p = tmp_path / "agent-a1.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in entries) + "\n")
    return p


def test_a_subagent_only_session_file_says_so_instead_of_scoring_empty(tmp_path, run_cli):
    """Issue 13 item 8: a file of sidechain entries only is not an empty main-agent session."""
    p = _subagent_file(tmp_path)
    with pytest.raises(SessionError) as exc:
        read_session(str(p))
    assert str(exc.value) == (
        f"{p}: holds only subagent records (3 entries with isSidechain: true, as in "
        "<session>/subagents/agent-*.jsonl), so the main agent did nothing here: score the main session file "
        "<session>.jsonl, or score this subagent's own work with --subagent")
    case = tmp_path / "evals" / "cases" / "find.yaml"
    case.parent.mkdir(parents=True)
    (tmp_path / "SKILL.md").write_text("---\nname: finder\ndescription: d\n---\n")  # a skill's case
    case.write_text("task: Find the config loader\nchecks:\n  - command_matching: grep\n")
    code, out, err = run_cli("score", str(case), "--transcript", str(p))
    assert (code, out, err) == (2, "", f"evalfmt: {exc.value}\n")
    code, out, err = run_cli("score", str(case), "--transcript", str(p), "--subagent")
    assert (code, err) == (0, "")
    assert out.splitlines()[1:] == ["PASS find (1/1 checks passed)",
                                    "  ok   command_matching:grep: matched by Bash command: grep -rn ConfigLoader"]
    s = read_session(str(p), subagent=True)
    assert (s.final_output, s.num_turns) == ("It is in src/config.ts", 2)


def test_subagent_mode_on_a_main_agent_file_says_so(tmp_path):
    entries = [{"type": "assistant", "sessionId": "x", "message": {"id": "m1", "content": [{"type": "text", "text": "hi"}]}}]
    p = tmp_path / "s.jsonl"
    p.write_text(json.dumps(entries[0]) + "\n")
    with pytest.raises(SessionError, match="holds no subagent records"):
        read_session(str(p), subagent=True)
