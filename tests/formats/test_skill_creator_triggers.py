"""skill-creator-triggers: golden IR of the real trigger sets, byte-exact round trips, detection by
structure under the several file names, diagnostics, and a hypothesis round-trip property."""

from __future__ import annotations

import json
import pathlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CONFORMANCE, ROOT, check_golden, conformance_files, conformance_id
from evalfmt import ir
from evalfmt.formats import detect, ir_json, skill_creator_triggers as sct

GOLDEN = ROOT / "tests" / "golden" / "conformance" / "skill-creator"
TRIGGER_SETS = conformance_files("skill-creator/*trigger*.json")


def ir_snapshot(sets):
    return ir_json.dumps(sets).replace(str(CONFORMANCE), "$CONFORMANCE")


@pytest.mark.conformance
@pytest.mark.parametrize("path", TRIGGER_SETS, ids=conformance_id)
def test_conformance_golden_ir(path):
    assert detect(str(path)).name == "skill-creator-triggers"
    result = sct.read(str(path))
    assert result.diagnostics == []
    (evalset,) = result.sets
    assert len(evalset.triggers.should) == 10 and len(evalset.triggers.should_not) == 10
    check_golden(GOLDEN / (path.name + ".ir.json"), ir_snapshot(result.sets))


@pytest.mark.conformance
@pytest.mark.parametrize("path", TRIGGER_SETS, ids=conformance_id)
def test_conformance_writes_back_byte_for_byte(path):
    (evalset,) = sct.read(str(path)).sets
    written = sct.write(evalset)
    assert written.losses == []
    assert written.files == {path.name: path.read_text(encoding="utf-8")}


@pytest.mark.parametrize("name", ["trigger-eval.json", "trigger-evals.json", "trigger_evals.json", "eval_set.json",
                                  "pdf_trigger-eval.json", "pdf_trigger-evals.json", "anything.json"])
def test_detected_by_structure_under_any_name(tmp_path, name):
    path = tmp_path / name
    path.write_text('[{"query": "make a pdf", "should_trigger": true}]\n')
    assert detect(str(path)).name == "skill-creator-triggers"


def test_skill_from_a_prefixed_name(tmp_path):
    for name, skill in [("pdf_trigger-eval.json", "pdf"), ("pdf-tools_trigger_evals.json", "pdf-tools"),
                        ("trigger-eval.json", None), ("eval_set.json", None)]:
        path = tmp_path / name
        path.write_text('[{"query": "q", "should_trigger": true}]\n')
        assert sct.read(str(path)).sets[0].triggers.skill == skill, name


def test_not_detected(tmp_path):
    for name, text in [("a.json", '[{"prompt": "x", "selected": []}]'), ("b.json", '{"query": "x", "should_trigger": true}'),
                       ("c.yaml", '- query: x\n  should_trigger: true\n')]:
        path = tmp_path / name
        path.write_text(text)
        assert not sct.detect(str(path)), name


def test_skill_from_the_folder(tmp_path):
    skill = tmp_path / "pdf-tools"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: pdf-tools\ndescription: x\n---\n")
    path = skill / "evals" / "eval_set.json"
    path.write_text('[{"query": "q", "should_trigger": false}]\n')
    (evalset,) = sct.read(str(path)).sets
    assert evalset.triggers.skill == "pdf-tools"
    assert evalset.skill.name == "pdf-tools"
    assert sct.write(evalset).files == {"eval_set.json": '[\n  {\n    "query": "q",\n    "should_trigger": false\n  }\n]\n'}


MALFORMED = """[
  {"query": "a", "should_trigger": "yes"},
  {"should_trigger": true},
  {"query": 3, "should_trigger": false, "note": "x"},
  "plain",
  {"query": "", "should_trigger": false, "shuold_trigger": true}
]
"""


def test_malformed_diagnostics(tmp_path):
    path = tmp_path / "trigger-eval.json"
    path.write_text(MALFORMED)
    result = sct.read(str(path))
    got = [d.format().replace(str(tmp_path) + "/", "") + f" [{d.severity}]" for d in result.diagnostics]
    assert got == [
        "trigger-eval.json:2:36: EV102 'should_trigger' must be a boolean, not a string [error]",
        "trigger-eval.json:3:3: EV103 missing required key 'query' (the user request) [error]",
        "trigger-eval.json:4:13: EV102 'query' must be a string, not a number [error]",
        "trigger-eval.json:4:41: EV101 unknown key 'note' (it is kept, but skill-creator ignores it) [warning]",
        "trigger-eval.json:5:3: EV102 a trigger item must be a mapping with 'query' and 'should_trigger', not a string [error]",
        "trigger-eval.json:6:42: EV101 unknown key 'shuold_trigger' (did you mean 'should_trigger'?) [warning]",
    ]
    (evalset,) = result.sets
    written = sct.write(evalset)
    data = json.loads(written.files["trigger-eval.json"])
    assert data == [
        {"query": "a", "should_trigger": "yes"},
        {"query": "", "should_trigger": True},
        {"query": 3, "should_trigger": False, "note": "x"},
        "plain",
        {"query": "", "should_trigger": False, "shuold_trigger": True},
    ]


def test_not_a_list(tmp_path):
    path = tmp_path / "eval_set.json"
    path.write_text('{"query": "x"}')
    result = sct.read(str(path))
    assert [d.format().replace(str(tmp_path) + "/", "") for d in result.diagnostics] == [
        "eval_set.json:1:1: EV102 a trigger eval set must be a list of {query, should_trigger} items, not a mapping"]
    assert sct.write(result.sets[0]).files == {"eval_set.json": '{\n  "query": "x"\n}\n'}


def test_cases_are_losses():
    evalset = ir.EvalSet(format="terum", cases=[ir.Case(name="a", span=ir.Span(file="evals/cases/a.yaml"))],
                         triggers=ir.TriggerSet(prompts=[ir.TriggerPrompt(text="x", should_trigger=True)]))
    written = sct.write(evalset)
    assert written.files == {"trigger-evals.json": '[\n  {\n    "query": "x",\n    "should_trigger": true\n  }\n]\n'}
    assert [loss.format() for loss in written.losses] == [
        "lost: evals/cases/a.yaml:1: case 'a' (a trigger eval set holds only queries; write cases with --to agent-skills)"]


TEXT = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40).filter(lambda s: s.strip())


@st.composite
def trigger_sets(draw):
    prompts = draw(st.lists(st.builds(ir.TriggerPrompt, text=TEXT, should_trigger=st.booleans()), max_size=8))
    hints = {"file_name": draw(st.sampled_from(["trigger-eval.json", "eval_set.json", "x_trigger-evals.json"]))}
    if prompts and draw(st.booleans()):
        hints["style"] = "lines"
    skill = "x" if hints["file_name"].startswith("x_") else None  # <skill>_trigger-evals.json names its skill
    return ir.EvalSet(format="skill-creator-triggers", triggers=ir.TriggerSet(skill=skill, prompts=prompts, hints=hints))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(trigger_sets())
def test_round_trip_property(tmp_path: pathlib.Path, evalset):
    written = sct.write(evalset)
    assert written.losses == []
    if not evalset.triggers.prompts:  # an empty list would not read back as a trigger set: not written
        assert (written.files, written.nothing) == ({}, "no trigger prompts to write (a skill-creator trigger set "
                                                        "holding none would be an empty list)")
        return
    ((name, text),) = written.files.items()
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = sct.read(str(path))
    assert result.diagnostics == []
    (back,) = result.sets
    assert ir.same(ir.replace(back, source=None), evalset)
    assert sct.write(back).files == written.files
