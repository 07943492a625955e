"""run/graders.py and the judge's grade: what a code grader is given, how a judge's grade is read, a judge
plugin that only compares, and composite edge cases (every member not scored, negate, malformed)."""

from __future__ import annotations

import pytest

from evalfmt import api
from evalfmt.run import checks, graders, judges
from evalfmt.run.session import Session

HEAD = "tests:\n  - id: a\n    input:\n      - {role: system, content: Be brief.}\n      - role: user\n        " \
       "content: [{type: text, value: hi}, {type: file, value: notes.md}]\n    assertions:\n"


def case_of(tmp_path, assertion: str):
    (tmp_path / "EVAL.yaml").write_text(HEAD + assertion)
    return api.read(str(tmp_path / "EVAL.yaml")).sets[0].cases[0]


def session(result: str = "done") -> Session:
    s = Session("test")
    s.result = result
    return s


def test_code_grader_payload_keeps_the_messages_as_written(tmp_path):
    case = case_of(tmp_path, "      - {type: code-grader, command: [x], threshold_x: 2}\n")
    ctx = checks.Context(session(), str(tmp_path), input=case.input, run_code=True)
    payload = graders.payload_of(case.checks[0], ctx)
    assert payload["input"] == [{"role": "system", "content": "Be brief."},
                                {"role": "user", "content": [{"type": "text", "value": "hi"},
                                                             {"type": "file", "value": "notes.md"}]}]
    assert payload["config"] == {"threshold_x": 2} and payload["token_usage"] is None


@pytest.mark.parametrize("text, grade", [
    ('{"score": 0.7, "reason": "ok"}', judges.Grade(0.7, "ok")),
    ('noise {"score": 3} after', judges.Grade(1.0, "")),
    ('{"passed": false, "reason": "no"}', judges.Grade(0.0, "no")),
    ('{"winner": "A"}', judges.Grade(None, 'judge gave no {"score": 0..1} or {"passed": true|false} answer',
                                     "judge-unparseable")),
    ('{"score": "high"} {"score": 0.25}', judges.Grade(0.25, "")),
])
def test_a_grade_is_the_first_object_with_a_score_or_passed(text, grade):
    assert judges.parse_grade(text) == grade


class ComparingJudge:
    name = "pairs"
    configured = True

    def ask(self, task, rubric, a, b):  # pragma: no cover - never asked here
        return judges.Answer("A")


def test_a_judge_plugin_that_only_compares_leaves_graders_not_scored(tmp_path):
    case = case_of(tmp_path, "      - {type: llm-grader, prompt: Polite?}\n")
    (r,) = checks.score_case(case, session(), judge=ComparingJudge()).checks
    assert (r.passed, r.detail) == (None, "not scored: judge-cannot-grade: judge 'pairs' only compares two sessions "
                                          "(it has no grade method)")


@pytest.mark.parametrize("assertion, passed, detail", [
    ("      - {type: composite, assertions: [{type: llm-grader, prompt: p}, {type: rubrics, criteria: [c]}]}\n", None,
     "not scored: no member could be scored: llm-grader (needs a judge), rubrics (needs a judge)"),
    ("      - {type: composite, negate: true, assertions: [{name: d, type: contains, value: done}]}\n", False,
     "negated: score 1.00 (needs 1.00): weighted average of d 1.00 (weight 1)"),
    ("      - {type: composite, assertions: []}\n", False, "malformed check: composite needs assertions"),
    ("      - {type: composite, assertions: [{type: contains, value: x}], aggregator: {type: threshold}}\n", False,
     "malformed check: a threshold aggregator needs a threshold"),
    ("      - type: composite\n        assertions:\n          - {name: t, type: tool-trajectory, mode: any_order, "
     "minimums: {Read: 1, Bash: 1}}\n          - {name: d, type: contains, value: done}\n", False,
     "score 0.50 (needs 1.00): weighted average of t 0.00 (weight 1), d 1.00 (weight 1)"),
    ("      - {type: composite, min_score: 0.5, assertions: [{name: n, type: contains, value: done}, "
     "{type: contains, value: nope}]}\n", True,
     "score 0.50 (needs 0.50): weighted average of n 1.00 (weight 1), contains 0.00 (weight 1)"),
])
def test_composite_edges(tmp_path, assertion, passed, detail):
    (r,) = checks.score_case(case_of(tmp_path, assertion), session()).checks
    assert (r.passed, r.detail) == (passed, detail)


class GradingJudge:
    """A judge plugin that grades: 0.6 for every rubric, and remembers what it was asked."""

    name = "grading"
    configured = True

    def __init__(self):
        self.asked = []

    def ask(self, task, rubric, a, b):  # pragma: no cover - never asked here
        return judges.Answer("A")

    def grade(self, task, rubric, output, transcript):
        self.asked.append((task, rubric, output))
        return judges.Grade(0.6, "fair")


def test_promptfoo_model_graded_assertions_go_to_a_grading_plugin_with_their_threshold(tmp_path):
    (tmp_path / "promptfooconfig.yaml").write_text(
        'prompts: ["{{t}}"]\nproviders: [echo]\ntests:\n  - vars: {t: hi}\n    assert:\n'
        "      - {type: llm-rubric, value: polite, threshold: 0.6}\n      - {type: g-eval, value: clear}\n"
        "      - {type: javascript, value: 'output.length > 1'}\n")
    case = api.read(str(tmp_path)).sets[0].cases[0]
    judge = GradingJudge()
    results = checks.score_case(case, session(), judge=judge, task="hi").checks
    assert [(r.passed, r.detail) for r in results] == [
        (True, "score 0.60 (needs 0.60): judge: fair"), (False, "score 0.60 (needs 1.00): judge: fair"),
        (None, "not scored: promptfoo's javascript assertion is code evalfmt does not run")]
    assert judge.asked == [("hi", "- polite", "done"), ("hi", "g-eval: clear", "done")]


def test_agentv_rubric_texts_and_a_judge_aggregator_go_to_a_grading_plugin(tmp_path):
    """agentv's singular rubric (its criteria, else its value), rubrics criteria given as one string (one
    criterion) and a composite whose aggregator is the judge (the members' results in its prompt)."""
    case = case_of(tmp_path, "      - {type: rubric, criteria: polite}\n      - {type: rubric, value: brief, "
                             "min_score: 0.5}\n      - {type: rubric, criteria: ' '}\n"
                             "      - {type: rubrics, criteria: one text}\n"
                             "      - {type: composite, assertions: [{name: d, type: contains, value: done}], "
                             "aggregator: {type: llm-grader, prompt: 'Results: {{EVALUATOR_RESULTS_JSON}}'}}\n")
    judge = GradingJudge()
    results = checks.score_case(case, session(), judge=judge, task="hi").checks
    assert [(r.passed, r.detail) for r in results] == [
        (False, "score 0.60 (needs 1.00): judge: fair"), (True, "score 0.60 (needs 0.50): judge: fair"),
        (None, "not scored: the rubric has no criteria"), (False, "score 0.60 (needs 1.00): judge: fair"),
        (False, "score 0.60 (needs 1.00): judge: fair")]
    table = '{\n  "d": {\n    "score": 1.0,\n    "verdict": "pass",\n    "assertions": [\n      {\n        "text": ' \
            '"output contains \\"done\\"",\n        "passed": true\n      }\n    ]\n  }\n}'
    assert judge.asked == [("hi", "polite", "done"), ("hi", "brief", "done"), ("hi", "- one text", "done"),
                           ("hi", f"Results: {table}", "done")]


def test_a_code_grader_given_as_script_runs_too_and_its_cwd_is_relative_to_the_eval_file(tmp_path):
    import json
    import sys

    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "grade.py").write_text("import json, os, sys\nd = json.load(sys.stdin)\n"
                                             "print(json.dumps({'score': 0.25, 'assertions': [{'text': os.getcwd(), "
                                             "'passed': False}]}))\n")
    case = case_of(tmp_path, f"      - {{type: code-grader, script: [{json.dumps(sys.executable)}, grade.py], "
                             "cwd: g}\n")
    (r,) = checks.score_case(case, session(), str(tmp_path), run_code=True).checks
    assert (r.passed, r.detail, r.score) == (False, f"score 0.25 (needs 1.00): {tmp_path / 'g'}", 0.25)


def test_an_llm_grader_prompt_file_outside_the_repository_is_not_sent_to_the_judge(tmp_path):
    """An eval file from elsewhere names a key or a home folder's file as its prompt: it is not read; a
    prompt file inside the repository is (a symlink is judged by where it leads)."""
    import os

    (tmp_path / "secret.txt").write_text("PRIVATE KEY\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "prompts").mkdir()
    (repo / "prompts" / "polite.md").write_text("Is it polite?\n")
    os.symlink(str(tmp_path / "secret.txt"), repo / "prompts" / "link.md")
    evals = repo / "evals"
    evals.mkdir()
    assertions = "".join(f"      - {{type: llm-grader, prompt: {p}}}\n"
                         for p in ("../prompts/polite.md", "../../secret.txt", str(tmp_path / "secret.txt"),
                                   "../prompts/link.md"))
    case = case_of(evals, assertions)
    judge = GradingJudge()
    results = checks.score_case(case, session(), judge=judge, task="hi").checks
    root = os.path.realpath(repo)
    assert [(r.passed, r.detail) for r in results] == [
        (False, "score 0.60 (needs 1.00): judge: fair"),
        (None, f"not scored: the llm-grader's prompt file ../../secret.txt is outside {root}: not read"),
        (None, f"not scored: the llm-grader's prompt file {tmp_path / 'secret.txt'} is outside {root}: not read"),
        (None, f"not scored: the llm-grader's prompt file ../prompts/link.md is outside {root}: not read")]
    assert judge.asked == [("hi", "Is it polite?\n", "done")]
