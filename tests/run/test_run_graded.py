"""agentv's graded deterministic assertions (tool-trajectory, token-usage, execution-metrics,
field-accuracy) scored from the session; model graders and code reported as not scored, never passed."""

from __future__ import annotations

import pytest

from evalfmt import api
from evalfmt.run import checks
from evalfmt.run.session import Session, ToolCall

HEAD = "tests:\n  - id: a\n    input: hi\n    expected_output: {total: 10, date: '2024-01-05', name: x}\n    assertions:\n"


def score(tmp_path, assertion: str, result: str = "", calls=(("Read", {"file_path": "a"}), ("Bash", {"command": "ls"})),
          tokens=(500, 200)):
    (tmp_path / "EVAL.yaml").write_text(HEAD + assertion)
    case = api.read(str(tmp_path / "EVAL.yaml")).sets[0].cases[0]
    s = Session("test")
    s.blocks = [ToolCall(str(i), n, inp) for i, (n, inp) in enumerate(calls)]
    s.result = result
    s.input_tokens, s.output_tokens = tokens
    s.num_turns, s.cost_usd, s.duration_ms = 3, 0.02, 4000
    (r,) = checks.score_case(case, s).checks
    return r.passed, r.detail


@pytest.mark.parametrize("assertion, passed, detail", [
    ("      - {type: tool-trajectory, mode: any_order, minimums: {Read: 2, Bash: 1}}\n", False,
     "score 0.50 (needs 1.00): Read called 1 time(s) (minimum 2)"),
    ("      - {type: tool-trajectory, mode: any_order, minimums: {Read: 2}, min_score: 0}\n", True,
     "score 0.00 (needs 0.00): Read called 1 time(s) (minimum 2)"),
    ("      - {type: tool-trajectory, mode: in_order, expected: [{tool: Read}, {tool: Bash, args: {command: ls}}]}\n",
     True, "score 1.00 (needs 1.00): 2 of 2 expected calls in order"),
    ("      - {type: tool-trajectory, mode: in_order, expected: [{tool: Bash}, {tool: Read}]}\n", False,
     "score 0.50 (needs 1.00): 1 of 2 expected calls in order; next missing: Read"),
    ("      - {type: tool-trajectory, mode: in_order, expected: [{tool: Bash, args: {command: pwd}}]}\n", False,
     "score 0.00 (needs 1.00): 0 of 1 expected calls in order; next missing: Bash"),
    ("      - {type: tool-trajectory, mode: exact, expected: [{tool: Read}]}\n", False,
     "score 0.50 (needs 1.00): 1 of 2 positions match (calls: Read, Bash)"),
    ("      - {type: tool-trajectory, mode: exact, expected: [{tool: Read}, {tool: Bash}], negate: true}\n", False,
     "negated: score 1.00 (needs 1.00): 2 of 2 positions match (calls: Read, Bash)"),
    ("      - {type: tool-trajectory, mode: sideways, expected: [{tool: Read}]}\n", False,
     "malformed check: unknown tool-trajectory mode 'sideways'"),
    ("      - {type: token-usage, max_total: 600}\n", False, "score 0.00 (needs 1.00): max_total 700 > 600"),
    ("      - {type: token-usage, max_input: 500, max_output: 500}\n", True, "score 1.00 (needs 1.00): within every limit"),
    ("      - {type: execution-metrics, max_tool_calls: 1, max_cost_usd: 1}\n", False,
     "score 0.50 (needs 1.00): max_tool_calls 2 > 1"),
    ("      - {type: execution-metrics, max_tool_calls: 5, exploration_ratio: 0.5}\n", None,
     "not scored: unknown threshold(s) exploration_ratio"),
    ("      - type: field-accuracy\n        fields: [{path: total, match: numeric_tolerance, tolerance: 0.5}, "
     "{path: date, match: date}, {path: name}]\n", False, "score 0.67 (needs 1.00): fields missed: name"),
    ("      - type: field-accuracy\n        min_score: 0.6\n        fields: [{path: total, match: numeric_tolerance, "
     "tolerance: 0.5}, {path: date, match: date}, {path: name}]\n", True, "score 0.67 (needs 0.60): fields missed: name"),
    ("      - {type: llm-grader, prompt: Is it right?}\n", None, "not scored: needs a judge"),
    ("      - {type: rubrics, criteria: [polite]}\n", None, "not scored: needs a judge"),
    ("      - {type: code-grader, command: [python, grade.py]}\n", None,
     "not scored: code graders run only under evalfmt run (they execute a program)"),
])
def test_graded_assertions(tmp_path, assertion, passed, detail):
    result = '```json\n{"total": 10.3, "date": "2024-01-05T10:00:00Z", "name": "y"}\n```'
    assert score(tmp_path, assertion, result) == (passed, detail)


def test_field_accuracy_on_output_that_is_not_json(tmp_path):
    assert score(tmp_path, "      - {type: field-accuracy, fields: [{path: total}]}\n", "no json here") == (
        False, "score 0.00 (needs 1.00): the final output is not JSON")


def test_token_usage_without_recorded_tokens_fails_and_says_so(tmp_path):
    assert score(tmp_path, "      - {type: token-usage, max_total: 10}\n", tokens=(None, None)) == (
        False, "not recorded in the session: max_total")


def test_claude_code_result_usage_is_read(tmp_path):
    from evalfmt.run.transcripts import read_session

    t = tmp_path / "t.jsonl"
    t.write_text('{"type":"system","subtype":"init","session_id":"s","model":"m"}\n'
                 '{"type":"result","subtype":"success","result":"ok","usage":{"input_tokens":10,'
                 '"cache_read_input_tokens":5,"output_tokens":7}}\n')
    s = read_session(str(t))
    assert (s.input_tokens, s.output_tokens) == (15, 7)
