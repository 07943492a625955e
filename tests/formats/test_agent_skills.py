"""agent-skills (skill-creator evals.json): golden IR of the real files, exact round trips, diagnostics,
and a hypothesis round-trip property."""

from __future__ import annotations

import json
import pathlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CONFORMANCE, ROOT, check_golden, conformance_files, conformance_id
from evalfmt import ir
from evalfmt.formats import agent_skills, get, ir_json

GOLDEN = ROOT / "tests" / "golden" / "conformance" / "skill-creator"
EVALS = conformance_files("skill-creator/*_evals.json")
AGENTV_EVALS = conformance_files("agentv-4.42.4/expected/**/evals.json")


def ir_snapshot(sets: list[ir.EvalSet]) -> str:
    """The IR as the ``ir`` format writes it, with the conformance folder's location made portable."""
    return ir_json.dumps(sets).replace(str(CONFORMANCE), "$CONFORMANCE")


def same(a: ir.EvalSet, b: ir.EvalSet) -> bool:
    """Same content, wherever each was read from."""
    return ir.same(ir.replace(a, source=None), ir.replace(b, source=None))


def write_read(tmp_path: pathlib.Path, evalset: ir.EvalSet, name: str = "evals.json") -> tuple:
    written = agent_skills.write(evalset)
    (text,) = written.files.values()
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return agent_skills.read(str(path)), written, text


@pytest.mark.conformance
@pytest.mark.parametrize("path", EVALS, ids=conformance_id)
def test_conformance_golden_ir(path):
    assert agent_skills.detect(str(path))
    result = agent_skills.read(str(path))
    assert result.diagnostics == []
    check_golden(GOLDEN / (path.name + ".ir.json"), ir_snapshot(result.sets))


@pytest.mark.conformance
@pytest.mark.parametrize("path", EVALS + AGENTV_EVALS, ids=conformance_id)
def test_conformance_writes_back_byte_for_byte(path, tmp_path):
    result = agent_skills.read(str(path))
    assert [d for d in result.diagnostics if d.severity == "error"] == []
    back, written, text = write_read(tmp_path, result.sets[0])
    assert written.losses == []
    assert text == path.read_text(encoding="utf-8")
    assert same(back.sets[0], result.sets[0])


@pytest.mark.conformance
def test_assertions_spelling_is_kept_and_documented_spelling_is_the_default():
    (edgegap,) = agent_skills.read(str(CONFORMANCE / "skill-creator/edgegap-unity_evals.json")).sets
    case = edgegap.cases[0]
    assert case.hints == {"id": 1, "expectations_key": "assertions"}
    assert case.checks[0].kind == "rubrics" and len(case.checks[0].criteria) == 13
    # From another format the writer uses the documented spelling.
    foreign = ir.replace(edgegap, format="terum")
    foreign.cases = [ir.replace(c, hints={}) for c in edgegap.cases]
    text = agent_skills.write(foreign).files["evals.json"]
    data = json.loads(text)
    assert all("expectations" in e and "assertions" not in e for e in data["evals"])


@pytest.mark.conformance
def test_name_and_id():
    (xcode,) = agent_skills.read(str(CONFORMANCE / "skill-creator/xcode-disk-cleanup_evals.json")).sets
    assert [c.name for c in xcode.cases] == ["low-space-audit", "installer-and-old-xcode",
                                             "simulators-and-archives", "stale-beta-platforms"]
    assert [c.hints["id"] for c in xcode.cases] == [1, 2, 3, 4]
    assert xcode.cases[0].input_files == []


def test_detect(tmp_path):
    good = tmp_path / "evals.json"
    good.write_text('{"skill_name": "x", "evals": []}\n')
    seed = tmp_path / "seed.json"
    seed.write_text('{"tests": [{"id": "a", "input": "b", "should_trigger": true}]}\n')
    yaml = tmp_path / "evals.yaml"
    yaml.write_text("skill_name: x\nevals: []\n")
    assert agent_skills.detect(str(good))
    assert not agent_skills.detect(str(seed))
    assert not agent_skills.detect(str(yaml))
    assert get("agent-skills").detect is agent_skills.detect


MALFORMED = """{
  "skill_name": 3,
  "evals": [
    {"id": 1, "prompt": "a", "expectatons": ["x"], "files": "f.txt"},
    {"id": "two", "prompt": 5, "expectations": ["ok", 7], "should_trigger": "yes"},
    {"prompt": "", "expectations": [], "assertions": ["b"]},
    "not an eval",
    {"id": 1, "prompt": "dup", "id": 9},
    {"id": 9, "prompt": "again"}
  ],
  "version": 2
}
"""


def test_malformed_diagnostics(tmp_path):
    path = tmp_path / "evals.json"
    path.write_text(MALFORMED)
    result = agent_skills.read(str(path))
    got = [d.format().replace(str(tmp_path) + "/", "") + f" [{d.severity}]" for d in result.diagnostics]
    assert got == [
        "evals.json:8:32: EV114 duplicate key 'id' (first at line 8; the later value wins): remove one [error]",
        "evals.json:2:17: EV102 'skill_name' must be a string, not a number [error]",
        "evals.json:11:3: EV101 unknown key 'version' (it is kept, but skill-creator ignores it) [warning]",
        "evals.json:4:61: EV102 'files' must be a list of paths, not a string [error]",
        "evals.json:4:30: EV101 unknown key 'expectatons' (did you mean 'expectations'?) [warning]",
        "evals.json:5:12: EV102 'id' must be an integer, not a string [error]",
        "evals.json:5:29: EV102 'prompt' must be a string, not a number [error]",
        "evals.json:5:77: EV102 'should_trigger' must be a boolean, not a string [error]",
        "evals.json:5:55: EV102 'expectations' must be a list of sentences (strings), not a number [error]",
        "evals.json:6:5: EV103 missing required key 'id' (a unique integer) [error]",
        "evals.json:6:16: EV103 'prompt' is blank: write the task to run [error]",
        "evals.json:6:40: EV101 both 'expectations' and 'assertions' given: merge them into 'expectations' [error]",
        "evals.json:7:5: EV102 an eval must be a mapping with 'id' and 'prompt', not a string [error]",
        "evals.json:9:12: EV115 duplicate eval id 9 (eval number 5 of the list has it too): give each eval its own "
        "id [error]",
    ]
    (evalset,) = result.sets
    assert evalset.extra == {"skill_name": 3, "version": 2}
    assert [c.name for c in evalset.cases] == ["1", "two", "3", "4", "9", "9"]
    assert evalset.cases[0].extra == {"files": "f.txt", "expectatons": ["x"]}
    assert evalset.cases[1].extra == {"id": "two", "prompt": 5, "should_trigger": "yes", "expectations": ["ok", 7]}
    # Whatever was read writes back: wrong-typed values and unknown keys are put back unchanged.
    back, written, text = write_read(tmp_path, evalset, "again.json")
    assert json.loads(text) == json.loads(MALFORMED)
    assert same(back.sets[0], evalset)


def test_blank_or_wrong_typed_name(tmp_path):
    path = tmp_path / "evals.json"
    path.write_text('{"skill_name": "s", "evals": [{"id": 1, "name": "", "prompt": "a"},\n'
                    '                              {"id": 2, "name": 5, "prompt": "b"}]}\n')
    result = agent_skills.read(str(path))
    assert [(d.line, d.column, d.code, d.message) for d in result.diagnostics] == [
        (1, 49, "EV102", "'name' is blank: give the eval a name, or remove the key"),
        (2, 49, "EV102", "'name' must be a string, not a number")]


def test_invalid_json_is_ev100(tmp_path):
    path = tmp_path / "evals.json"
    path.write_text('{"skill_name": "x",\n  "evals": [}\n')
    result = agent_skills.read(str(path))
    assert [(d.line, d.column, d.code) for d in result.diagnostics] == [(2, 13, "EV100")]
    assert result.sets == []


def test_foreign_checks_become_sentences_and_losses():
    span = ir.Span(file="evals/cases/a.yaml", line=3, column=5)
    evalset = ir.EvalSet(format="terum", skill=ir.SkillInfo(name="demo"), cases=[
        ir.Case(name="a", input="do it", judge="is it good?", bucket="explicit", span=span, checks=[
            ir.TranscriptMentions(text="foo", span=span),
            ir.SkillTrigger(skill="demo", should_trigger=False),
            ir.Rubrics(criteria=["clear"]),
        ]),
    ])
    written = agent_skills.write(evalset)
    assert written.files["evals.json"] == (
        '{\n  "skill_name": "demo",\n  "evals": [\n    {\n      "id": 1,\n      "name": "a",\n'
        '      "prompt": "do it",\n      "should_trigger": false,\n      "expectations": [\n'
        '        "The transcript mentions \'foo\'",\n        "clear",\n        "is it good?"\n      ]\n    }\n  ]\n}\n'
    )
    assert [loss.format() for loss in written.losses] == [
        "lost: evals/cases/a.yaml:3: check 'transcript_mentions:foo' became the expectation sentence "
        "\"The transcript mentions 'foo'\" (a model grades it; nothing checks it mechanically)",
        "kept: evals/cases/a.yaml:3: judge rubric (kept as the last expectation)",
        "lost: evals/cases/a.yaml:3: bucket",
    ]


# ------------------------------------------------------------------------------ property tests

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
PROMPT = TEXT.filter(lambda s: s.strip() != "")
NAME = st.from_regex(r"[a-z][a-z0-9-]{0,15}", fullmatch=True)


@st.composite
def agent_skills_sets(draw) -> ir.EvalSet:
    """EvalSets holding only what an evals.json holds, with the hints its reader records."""
    skill = draw(NAME)
    ids = draw(st.lists(st.integers(0, 10_000), unique=True, max_size=5))
    cases = []
    for ident in ids:
        hints: dict = {"id": ident}
        name = draw(st.one_of(st.just(str(ident)), NAME.filter(lambda n, i=ident: n != str(i))))
        if name == str(ident) and draw(st.booleans()):
            hints["name_key"] = True
        checks: list = []
        if draw(st.booleans()):
            checks.append(ir.SkillTrigger(skill=skill, should_trigger=draw(st.booleans())))
        criteria = draw(st.lists(TEXT, max_size=4))
        if criteria:
            checks.append(ir.Rubrics(criteria=criteria))
        elif draw(st.booleans()):
            hints["empty_expectations"] = True
        if (criteria or hints.get("empty_expectations")) and draw(st.booleans()):
            hints["expectations_key"] = "assertions"
        cases.append(ir.Case(
            name=name, input=draw(PROMPT), checks=checks,
            expected_output=draw(st.none() | TEXT),
            input_files=draw(st.none() | st.lists(TEXT, max_size=3)),
            hints=hints,
        ))
    return ir.EvalSet(format="agent-skills", skill=ir.SkillInfo(name=skill), cases=cases)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(agent_skills_sets())
def test_round_trip_property(tmp_path, evalset):
    back, written, text = write_read(tmp_path, evalset)
    assert written.losses == []
    assert back.diagnostics == []
    assert same(back.sets[0], evalset)
    assert agent_skills.write(back.sets[0]).files["evals.json"] == text


@st.composite
def foreign_sets(draw) -> ir.EvalSet:
    """Cases as other formats hold them: whatever the writer cannot carry must be named as a loss."""
    check = st.one_of(
        st.builds(ir.TranscriptMentions, text=TEXT),
        st.builds(ir.CommandMatching, pattern=TEXT),
        st.builds(ir.Contains, value=TEXT),
        st.builds(ir.Regex, value=TEXT, flags=st.none() | st.just("i")),
        st.builds(ir.Rubrics, criteria=st.lists(TEXT, min_size=1, max_size=2)),
    )
    cases = draw(st.lists(st.builds(
        ir.Case, name=NAME, input=TEXT, checks=st.lists(check, max_size=3),
        bucket=st.none() | st.just("explicit"), setup=st.none() | TEXT,
    ), max_size=3, unique_by=lambda c: c.name))
    return ir.EvalSet(format="terum", skill=ir.SkillInfo(name="s"), cases=cases)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(foreign_sets())
def test_foreign_sets_name_every_loss(tmp_path, evalset):
    back, written, _ = write_read(tmp_path, evalset)
    (read_back,) = back.sets
    assert [c.input for c in read_back.cases] == [c.input for c in evalset.cases]
    expected_losses = []
    for src, dst in zip(evalset.cases, read_back.cases):
        assert dst.name == src.name
        sentences = []
        for check in src.checks:
            if check.kind == "rubrics":
                sentences.extend(check.criteria)
            else:
                sentences.append(agent_skills.sentence(check))
                expected_losses.append(f"check '{check.label()}' became the expectation sentence "
                                       f"{sentences[-1]!r} (a model grades it; nothing checks it mechanically)")
        if src.setup is not None:
            expected_losses.append("setup")
        if src.bucket is not None:
            expected_losses.append("bucket")
        assert [x for c in dst.checks for x in c.criteria] == sentences
    assert [loss.what for loss in written.losses] == expected_losses
