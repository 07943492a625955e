"""promptfoo: reading the real configs, writing back over them, conversions to and from promptfoo and
skill-creator on the conformance files (golden outputs), and a round-trip property."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CONFORMANCE, ROOT, check_golden, conformance_files, conformance_id
from evalfmt import ir
from evalfmt.formats import agent_skills, ir_json, promptfoo, skill_creator_triggers

GOLDEN_PF = ROOT / "tests" / "golden" / "conformance" / "promptfoo"
GOLDEN_SC = ROOT / "tests" / "golden" / "conformance" / "skill-creator"
GOLDEN = ROOT / "tests" / "golden" / "promptfoo"
CONFIGS = conformance_files("promptfoo/*.yaml")
SKILL_CREATOR = conformance_files("skill-creator/*.json")


def portable(text: str) -> str:
    return text.replace(str(CONFORMANCE), "$CONFORMANCE")


def losses_text(losses) -> str:
    return "".join(portable(loss.format()) + "\n" for loss in losses)


def strip(data):
    if isinstance(data, dict):
        return {k: strip(v) for k, v in data.items() if k not in ("hints", "span", "source")}
    if isinstance(data, list):
        return [strip(v) for v in data]
    return data


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


# ------------------------------------------------------------------------------------- reading


@pytest.mark.conformance
@pytest.mark.parametrize("path", CONFIGS, ids=conformance_id)
def test_conformance_golden_ir(path):
    assert promptfoo.detect(str(path))
    result = promptfoo.read(str(path))
    check_golden(GOLDEN_PF / (path.name + ".ir.json"), portable(ir_json.dumps(result.sets)))
    check_golden(GOLDEN_PF / (path.name + ".diagnostics.txt"),
                 "".join(portable(d.format()) + f" [{d.severity}]\n" for d in result.diagnostics))


@pytest.mark.conformance
def test_skill_used_and_rubrics_map_onto_checks():
    (bloc,) = promptfoo.read(str(CONFORMANCE / "promptfoo" / "vgv-ai-flutter-plugin_evals_tests_bloc.yaml")).sets
    first, *_, last = bloc.cases
    assert first.name == "bloc-writes-sealed-events-and-states"
    assert first.input.startswith("Write a LoginBloc for email and password authentication")
    trigger = first.checks[0]
    assert (trigger.kind, trigger.skill, trigger.should_trigger, trigger.weight) == \
        ("skill-trigger", "vgv-ai-flutter-plugin:bloc", None, 3)
    assert [c.kind for c in first.checks] == ["skill-trigger"] + ["regex"] * 5 + ["code", "rubrics", "rubrics"]
    assert last.checks[0].should_trigger is False
    assert [(c.kind, c.negate) for c in last.checks[1:3]] == [("regex", True), ("regex", True)]
    (comparison,) = promptfoo.read(str(CONFORMANCE / "promptfoo" /
                                       "promptfoo_examples_claude-agent-sdk_skill-comparison_promptfooconfig.yaml")).sets
    assert [c.kind for c in comparison.checks] == ["skill-trigger", "code"]  # defaultTest.assert
    assert comparison.cases[0].input == "Review src/auth.ts for password handling security issues."
    assert comparison.cases[0].extra == {"vars": {"expectedIssues": ["weak-password-hash", "timing-unsafe-compare"]}}


@pytest.mark.conformance
@pytest.mark.parametrize("path", CONFIGS, ids=conformance_id)
def test_written_back_over_the_config_byte_for_byte(path):
    (evalset,) = promptfoo.read(str(path)).sets
    text = path.read_text(encoding="utf-8")
    written = promptfoo.write(evalset, existing={path.name: text})
    assert written.losses == []
    assert written.files == {path.name: text}


@pytest.mark.conformance
@pytest.mark.parametrize("path", CONFIGS, ids=conformance_id)
def test_read_of_write_is_identity(path, tmp_path):
    (evalset,) = promptfoo.read(str(path)).sets
    written = promptfoo.write(evalset)
    assert written.losses == []
    for name, text in written.files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (back,) = promptfoo.read(str(tmp_path / path.name)).sets
    assert strip(ir.content(back)) == strip(ir.content(evalset))


def test_test_file_detection(tmp_path):
    tests = tmp_path / "bloc.yaml"
    tests.write_text("- description: a\n  vars:\n    prompt: hi\n  assert:\n    - type: contains\n      value: x\n")
    config = tmp_path / "eval.yaml"
    config.write_text("prompts:\n  - '{{prompt}}'\ntests:\n  - vars:\n      prompt: hi\n")
    agentv_tests = tmp_path / "cases.yaml"
    agentv_tests.write_text("- id: a\n  input: hi\n  assertions:\n    - type: contains\n      value: x\n")
    assert promptfoo.detect(str(tests)) and promptfoo.detect(str(config))
    assert not promptfoo.detect(str(agentv_tests))


def test_diagnostics(tmp_path):
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(
        "prompts:\n  - '{{prompt}}'\n"
        "tests:\n"
        "  - vars: [1]\n"
        "    assert: {type: contains}\n"
        "  - description: b\n"
        "    assert:\n"
        "      - value: x\n"
        "      - type: 3\n"
        "  - file://missing.yaml\n"
        "  - 7\n"
        "  - description: ''\n"
        "  - description: [x]\n"
    )
    result = promptfoo.read(str(path))
    assert [d.format().replace(str(tmp_path) + "/", "") + f" [{d.severity}]" for d in result.diagnostics] == [
        "promptfooconfig.yaml:4:11: EV102 'vars' must be a mapping (or paths of vars files), not a list [error]",
        "promptfooconfig.yaml:5:13: EV102 'assert' must be a list of assertions, not a mapping [error]",
        "promptfooconfig.yaml:8:9: EV103 an assertion needs a 'type' [error]",
        "promptfooconfig.yaml:9:15: EV102 'type' must be a string, not a number [error]",
        "promptfooconfig.yaml:10:5: EV107 tests file 'file://missing.yaml' does not exist: its tests are not read "
        "[warning]",
        "promptfooconfig.yaml:11:5: EV102 a test must be a mapping with vars and assert, not a number [error]",
        "promptfooconfig.yaml:12:18: EV102 'description' is blank: describe the test, or remove the key [error]",
        "promptfooconfig.yaml:13:18: EV102 'description' must be a string, not a list [error]",
    ]
    # what was read is written back
    (evalset,) = result.sets
    text = promptfoo.write(evalset).files["promptfooconfig.yaml"]
    assert text == ("prompts:\n  - '{{prompt}}'\ntests:\n  - vars:\n      - 1\n    assert:\n      type: contains\n"
                    "  - description: b\n    assert:\n      - value: x\n      - type: 3\n  - file://missing.yaml\n  - 7\n"
                    "  - description: ''\n  - description:\n      - x\n")


# ------------------------------------------------------------------------------------ converting


@pytest.mark.conformance
@pytest.mark.parametrize("path", SKILL_CREATOR, ids=conformance_id)
def test_skill_creator_to_promptfoo(path):
    reader = agent_skills if agent_skills.detect(str(path)) else skill_creator_triggers
    (evalset,) = reader.read(str(path)).sets
    written = promptfoo.write(evalset)
    ((name, text),) = written.files.items()
    assert name == "promptfooconfig.yaml"
    check_golden(GOLDEN_SC / (path.stem + ".promptfooconfig.yaml"), text)
    check_golden(GOLDEN_SC / (path.stem + ".promptfoo.losses.txt"), losses_text(written.losses))


@pytest.mark.conformance
@pytest.mark.parametrize("path", SKILL_CREATOR, ids=conformance_id)
def test_skill_creator_to_promptfoo_and_back(path, tmp_path):
    reader = agent_skills if agent_skills.detect(str(path)) else skill_creator_triggers
    (evalset,) = reader.read(str(path)).sets
    out = tmp_path / "promptfooconfig.yaml"
    out.write_text(promptfoo.write(evalset).files["promptfooconfig.yaml"], encoding="utf-8")
    (back,) = promptfoo.read(str(out)).sets
    if evalset.triggers is not None:
        expected = [(p.text, p.should_trigger) for p in evalset.triggers.prompts]
        got = [(c.input, c.checks[0].expects_trigger) for c in back.cases]
        assert got == expected
        assert {c.checks[0].skill for c in back.cases} == {evalset.triggers.skill}
    else:
        assert [(c.name, c.input) for c in back.cases] == [(c.name, c.input) for c in evalset.cases]
        for src, got in zip(evalset.cases, back.cases):
            assert [x for c in got.checks for x in c.criteria] == [x for c in src.checks for x in c.criteria]
        # promptfoo back to skill-creator gives the same evals.json up to what promptfoo could not hold
        again = json.loads(agent_skills.write(back).files["evals.json"])
        original = json.loads(path.read_text(encoding="utf-8"))
        for a, b in zip(again["evals"], original["evals"]):
            spelling = "assertions" if "assertions" in b else "expectations"
            assert (a["prompt"], a["expectations"]) == (b["prompt"], b[spelling])


@pytest.mark.conformance
@pytest.mark.parametrize("path", CONFIGS, ids=conformance_id)
def test_promptfoo_to_skill_creator(path):
    result = promptfoo.read(str(path))
    (evalset,) = result.sets
    written = agent_skills.write(evalset)
    check_golden(GOLDEN_PF / (path.name + ".evals.json"), written.files["evals.json"])
    check_golden(GOLDEN_PF / (path.name + ".skill-creator.losses.txt"), losses_text(written.losses))


def test_fixtures_to_promptfoo(run_cli):
    for src, name in [("fixtures/library/release-notes", "from-terum-release-notes"),
                      ("fixtures/agentv/EVAL.yaml", "from-agentv-fixture"),
                      ("fixtures/skillgym/array-suite.ts", "from-skillgym-array-suite")]:
        code, out, err = run_cli("convert", src, "--to", "promptfoo")
        assert code == 0, err
        check_golden(GOLDEN / (name + ".yaml"), out)
        check_golden(GOLDEN / (name + ".losses.txt"), err)


def test_command_checks_as_trajectory_step_count():
    evalset = ir.EvalSet(format="terum", cases=[ir.Case(name="a", input="go", checks=[
        ir.CommandMatching(pattern=r"git push"),
        ir.NoCommandMatching(pattern=r"^rm -rf"),
        ir.CommandMatching(pattern=r"git (push|tag)"),
    ])])
    written = promptfoo.write(evalset)
    assert written.files["promptfooconfig.yaml"] == (
        "prompts:\n  - '{{prompt}}'\nproviders:\n  - anthropic:claude-agent-sdk\ntests:\n  - description: a\n"
        "    vars:\n      prompt: go\n    assert:\n"
        "      - type: trajectory:step-count\n        value:\n          type: command\n          pattern: '*git push*'\n"
        "          min: 1\n"
        "      - type: trajectory:step-count\n        value:\n          type: command\n          pattern: rm -rf*\n"
        "          max: 0\n")
    assert [loss.what for loss in written.losses] == [
        "check 'command_matching:git (push|tag)' (promptfoo's trajectory:step-count takes a case-insensitive glob; "
        "this regex has no faithful glob)"]


MODEL_GRADED_AND_CODE = """\
prompts: ['{{q}}']
providers: [echo]
tests:
  - description: graded
    vars: {q: hi}
    assert:
      - {type: g-eval, value: clear, threshold: 0.7, metric: m}
      - {type: factuality, value: {fact: 1}}
      - {type: llm-rubric, value: [a, b]}
      - {type: answer-relevance, negate: true, weight: heavy}
      - {type: not-g-eval, value: clear}
      - {type: javascript, value: output.length > 1, threshold: 0.5}
      - {type: python}
"""


def test_model_graded_and_code_assertions_are_typed_checks(tmp_path):
    """promptfoo's model-graded types and its code types read into their own kinds (issue 25: a closed IR), are
    written back byte for byte, and other formats lose them in the words of a check only promptfoo runs."""
    (tmp_path / "promptfooconfig.yaml").write_text(MODEL_GRADED_AND_CODE, encoding="utf-8")
    (evalset,) = promptfoo.read(str(tmp_path / "promptfooconfig.yaml")).sets
    checks = evalset.cases[0].checks
    assert [(c.kind, c.label()) for c in checks] == [
        ("model-graded", "g-eval"), ("model-graded", "factuality"), ("model-graded", "llm-rubric"),
        ("model-graded", "answer-relevance"), ("opaque", "not-g-eval"), ("code", "javascript"), ("code", "python")]
    geval, fact, rubric, relevance, _, js, py = checks
    assert (geval.grader, geval.value, geval.min_score, geval.extra) == ("g-eval", "clear", 0.7, {"metric": "m"})
    assert (fact.value, rubric.value) == ({"fact": 1}, ["a", "b"])
    assert (relevance.negate, relevance.weight, relevance.extra) == (True, None, {"weight": "heavy"})
    assert (js.language, js.source, js.extra, py.source) == ("javascript", "output.length > 1", {"threshold": 0.5}, None)
    written = promptfoo.write(evalset, existing={"promptfooconfig.yaml": MODEL_GRADED_AND_CODE})
    assert (written.files["promptfooconfig.yaml"], written.losses) == (MODEL_GRADED_AND_CODE, [])
    from evalfmt.formats import agentv, skillgym, terum

    named = ("'g-eval'", "(g-eval)", "'python'", "(python)")
    lost = {name: [loss.what for loss in fmt.write(evalset).losses if any(n in loss.what for n in named)]
            for name, fmt in (("terum", terum), ("agentv", agentv), ("skillgym", skillgym),
                              ("agent-skills", agent_skills))}
    assert lost == {
        "terum": ["promptfoo check 'g-eval' (terum has no such check kind)",
                  "promptfoo check 'python' (terum has no such check kind)"],
        "agentv": ["agentv cannot run this promptfoo check (g-eval)", "agentv cannot run this promptfoo check (python)"],
        "skillgym": ["check 'g-eval' of 'graded' (skillgym has no equivalent: promptfoo code)",
                     "check 'python' of 'graded' (skillgym has no equivalent: promptfoo code)"],
        "agent-skills": ["check 'g-eval' became the expectation sentence \"Passes the promptfoo check 'g-eval'\" (a model "
                         "grades it; nothing checks it mechanically)",
                         "check 'python' became the expectation sentence \"Passes the promptfoo check 'python'\" (a model "
                         "grades it; nothing checks it mechanically)"]}


# ------------------------------------------------------------------------------------ property

TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=20)
NAME = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zs")), min_size=1, max_size=12)
CHECKS = st.one_of(
    st.builds(ir.Contains, value=TEXT, negate=st.sampled_from([None, True])),
    st.builds(ir.Icontains, value=TEXT),
    st.builds(ir.Regex, value=TEXT, negate=st.sampled_from([None, True])),
    st.builds(ir.StartsWith, value=TEXT),
    st.builds(ir.Equals, value=TEXT),
    st.builds(ir.IsJson),
    st.builds(ir.ContainsAll, values=st.lists(TEXT, max_size=3)),
    st.builds(ir.SkillTrigger, skill=NAME.filter(lambda s: s.strip() == s), should_trigger=st.sampled_from([None, False]),
              weight=st.sampled_from([None, 3])),
    st.builds(ir.Rubrics, criteria=st.lists(TEXT, min_size=1, max_size=1)),
    st.builds(ir.CommandMatching, pattern=st.from_regex(r"[a-z][a-z -]{0,10}", fullmatch=True)),
    st.builds(ir.Latency, threshold=st.sampled_from([1000.0, 2500.5])),
    st.builds(ir.ModelGraded, grader=st.sampled_from(["g-eval", "factuality", "context-recall"]),
              value=st.one_of(st.none(), TEXT), min_score=st.sampled_from([None, 0.5]),
              negate=st.sampled_from([None, True])),
    st.builds(ir.Code, language=st.sampled_from(["javascript", "python", "webhook"]), source=TEXT),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.builds(ir.Case, name=NAME.filter(lambda s: not s.startswith("test-")), input=TEXT,
                          checks=st.lists(CHECKS, max_size=4)), min_size=1, max_size=4))
def test_round_trip_property(cases):
    import tempfile

    evalset = ir.EvalSet(format="ir", cases=cases)
    written = promptfoo.write(evalset)
    assert written.losses == []
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/promptfooconfig.yaml"
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(written.files["promptfooconfig.yaml"])
        result = promptfoo.read(path)
    assert result.diagnostics == []
    (back,) = result.sets
    assert [strip(ir.content(c)) for c in back.cases] == \
        [strip(ir.content(c)) | {"extra": {}} for c in evalset.cases]


def test_convert_to_a_file_puts_referenced_tests_files_beside_it(run_cli, tmp_path):
    """-o FILE names the config; the tests files its file:// entries name are written beside it (they
    used to be written over FILE, losing the config)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "promptfooconfig.yaml").write_text("prompts:\n  - '{{prompt}}'\ntests:\n  - file://more.yaml\n"
                                              "  - vars:\n      prompt: inline\n")
    (src / "more.yaml").write_text("- vars:\n    prompt: from more\n")
    out = tmp_path / "out" / "config.yaml"
    code, _, err = run_cli("convert", str(src / "promptfooconfig.yaml"), "--to", "promptfoo", "-o", str(out))
    assert (code, err) == (0, "evalfmt: wrote 2 files\n")
    assert sorted(p.name for p in out.parent.iterdir()) == ["config.yaml", "more.yaml"]
    assert out.read_text() == (src / "promptfooconfig.yaml").read_text()
    assert (out.parent / "more.yaml").read_text() == (src / "more.yaml").read_text()


def test_a_config_without_tests_runs_its_prompts_once(tmp_path):
    """(promptfoo's ``getInitialTests``: no tests and no scenarios is one test with no vars)"""
    written = promptfoo.write(ir.EvalSet(format="ir", cases=[]))
    (tmp_path / "promptfooconfig.yaml").write_text(written.files["promptfooconfig.yaml"])
    (back,) = promptfoo.read(str(tmp_path / "promptfooconfig.yaml")).sets
    assert [(c.name, c.input) for c in back.cases] == [("test-1", "")]
