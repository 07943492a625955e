"""skill-trigger detection: the three modes on the real Skill call, the failed Skill call and the
tool-heavy session, and each mode's edges."""

from __future__ import annotations

import pytest
from conftest import CONFORMANCE
from runhelp import write_stream

from evalfmt import ir
from evalfmt.errors import EvalfmtError
from evalfmt.run import detect
from evalfmt.run.checks import Context, score_check
from evalfmt.run.transcripts import read_session

SESSIONS = CONFORMANCE / "claude-code" / "session-jsonl"
MODES = ("first-call", "any-call", "skill-used")


def triggered(session, skill):
    return tuple(detect.detect(session, skill, m).triggered for m in MODES)


@pytest.mark.conformance
def test_real_skill_call():
    s = read_session(str(SESSIONS / "spotter_ae4a77f8_skill-call_excerpt_lines73-110.jsonl"))
    assert triggered(s, "hex-docs-search") == (True, True, True)  # plugin-namespaced, succeeded
    assert triggered(s, "hex-docs") == (True, True, False)  # substring rules vs the exact name
    assert triggered(s, "commit") == (False, False, False)


@pytest.mark.conformance
def test_real_failed_skill_call():
    s = read_session(str(SESSIONS / "spotter_8463c716_failed-skill-call_excerpt_lines319-323.jsonl"))
    assert triggered(s, "commit") == (True, True, False)  # the Skill call errored: not used
    assert detect.detect(s, "commit", "skill-used").evidence == 'Skill call "handgemacht:commit" failed'


@pytest.mark.conformance
def test_real_tool_heavy_session_triggers_nothing():
    s = read_session(str(SESSIONS / "spotter_tool_heavy.jsonl"))
    assert triggered(s, "spotter") == (False, False, False)
    assert detect.detect(s, "spotter", "first-call").evidence == "first tool call is Bash, not the skill"


@pytest.mark.conformance
def test_stream_json_skill_call():
    s = read_session(str(CONFORMANCE / "claude-code" / "stream-json" / "waza_claudeFixtureStream.ndjson"))
    assert triggered(s, "pirate-greeter") == (True, True, True)


def test_first_call_only_sees_the_first_tool(tmp_path):
    s = read_session(str(write_stream(tmp_path / "t.jsonl", bash=["ls"], tools=[("Skill", {"skill": "deploy"}, "ok", False)])))
    assert triggered(s, "deploy") == (False, True, True)


def test_read_rules_differ(tmp_path):
    s = read_session(str(write_stream(tmp_path / "t.jsonl", tools=[("Read", {"file_path": "/x/deploy-notes.md"}, "ok", False)])))
    assert triggered(s, "deploy") == (True, False, False)  # first-call: substring; any-call needs skills/deploy/
    s = read_session(str(write_stream(tmp_path / "u.jsonl", tools=[("read", {"file_path": ".claude/skills/deploy/SKILL.md"}, "ok", False)])))
    assert triggered(s, "deploy") == (False, True, False)  # tool names: exact for first-call, any case for any-call


def test_any_call_fires_on_tool_output_naming_the_skill_folder(tmp_path):
    s = read_session(str(write_stream(tmp_path / "t.jsonl", tools=[("Glob", {"pattern": "**/SKILL.md"}, [{"type": "text", "text": "a/.claude/skills/deploy/SKILL.md"}], False)])))
    assert triggered(s, "deploy") == (False, True, False)
    assert triggered(s, "deplo") == (False, False, False)


def test_skill_used_accepts_one_plugin_prefix_only(tmp_path):
    s = read_session(str(write_stream(tmp_path / "t.jsonl", tools=[("Skill", {"skill": "a:b:deploy"}, "ok", False)])))
    assert detect.detect(s, "deploy", "skill-used").triggered is False
    s = read_session(str(write_stream(tmp_path / "u.jsonl", tools=[("Skill", {"skill": "ops:deploy"}, "ok", False)])))
    assert detect.detect(s, "deploy", "skill-used").triggered is True


def test_should_trigger_false_inverts_and_mode_reaches_the_check(tmp_path):
    s = read_session(str(write_stream(tmp_path / "t.jsonl", bash=["ls"], tools=[("Skill", {"skill": "deploy"}, "ok", False)])))
    neg = ir.SkillTrigger(skill="deploy", should_trigger=False)
    assert score_check(neg, Context(s)).passed is True  # first-call: not triggered, as expected
    assert score_check(neg, Context(s, detection="any-call")).passed is False


def test_unknown_mode_is_a_usage_error():
    with pytest.raises(EvalfmtError, match="unknown trigger detection 'last-call'"):
        detect.get("last-call")
