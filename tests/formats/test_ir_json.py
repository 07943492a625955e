"""The ``ir`` format: evalfmt's own JSON, an exact inverse of the IR (spans included)."""

from __future__ import annotations

import pathlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CONFORMANCE, conformance_files, conformance_id
from evalfmt import ir
from evalfmt.formats import agent_skills, detect, ir_json, skill_creator_triggers

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False, allow_infinity=False) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
SPAN = st.none() | st.builds(ir.Span, file=TEXT, line=st.integers(1, 10_000), column=st.integers(1, 500))
EXTRA = st.dictionaries(TEXT, JSON, max_size=2)

CHECKS = st.one_of(
    st.builds(ir.TranscriptMentions, text=TEXT, span=SPAN, extra=EXTRA),
    st.builds(ir.NoCommandMatching, pattern=TEXT, weight=st.none() | st.floats(0, 10)),
    st.builds(ir.FileAbsent, path=TEXT),
    st.builds(ir.CommandSucceeds, command=TEXT, name=st.none() | TEXT),
    st.builds(ir.SkillTrigger, skill=st.none() | TEXT, should_trigger=st.none() | st.booleans()),
    st.builds(ir.IcontainsAll, values=st.lists(TEXT, max_size=3), negate=st.none() | st.booleans()),
    st.builds(ir.Regex, value=TEXT, flags=st.none() | st.sampled_from(["i", "gm"]), hints=EXTRA),
    st.builds(ir.Equals, value=JSON),
    st.builds(ir.Rubrics, criteria=st.lists(TEXT | st.dictionaries(TEXT, TEXT, max_size=2), max_size=3)),
    st.builds(ir.CodeGrader, command=st.none() | TEXT | st.lists(TEXT, max_size=2)),
    st.builds(ir.ToolTrajectory, mode=st.none() | TEXT, expected=st.none() | st.lists(JSON, max_size=2)),
    st.builds(ir.Opaque, type=st.none() | TEXT, raw=JSON, origin=st.none() | st.just("skillgym")),
)
MESSAGES = st.lists(st.builds(ir.Message, role=st.sampled_from(["user", "assistant"]),
                              content=TEXT | st.lists(st.builds(ir.ContentPart, type=st.just("text"), value=TEXT),
                                                      max_size=2)), max_size=2)
CASES = st.builds(
    ir.Case, name=TEXT, span=SPAN, input=st.none() | TEXT | MESSAGES, checks=st.lists(CHECKS, max_size=3),
    judge=st.none() | TEXT, expected_output=JSON, files=st.none() | st.dictionaries(TEXT, TEXT, max_size=2),
    bucket=st.none() | st.sampled_from(ir.BUCKETS), timeout_minutes=st.none() | st.floats(0.5, 120),
    tags=st.none() | st.lists(TEXT, max_size=2), timeout_ms=st.none() | st.integers(1, 10**7),
    expected_fail=st.none() | st.booleans(), extra=EXTRA, hints=EXTRA,
)
SUITES = st.builds(ir.Suite, input=st.none() | TEXT,
                   entries=st.lists(st.builds(ir.SuiteEntry, name=TEXT, checks=st.lists(CHECKS, max_size=2)), max_size=2))
TRIGGERS = st.builds(ir.TriggerSet, skill=st.none() | TEXT,
                     prompts=st.lists(st.builds(ir.TriggerPrompt, text=TEXT, should_trigger=st.booleans()), max_size=3))
SETS = st.builds(
    ir.EvalSet, format=st.sampled_from(["terum", "agentv", "skillgym"]), span=SPAN, source=st.none() | TEXT,
    skill=st.none() | st.builds(ir.SkillInfo, name=TEXT), name=st.none() | TEXT, cases=st.lists(CASES, max_size=3),
    suite=st.none() | SUITES, triggers=st.none() | TRIGGERS, checks=st.lists(CHECKS, max_size=1), extra=EXTRA,
)


def write_read(tmp_path: pathlib.Path, evalset: ir.EvalSet):
    ((name, text),) = ir_json.write(evalset).files.items()
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return ir_json.read(str(path)), text, path


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(SETS)
def test_exact_inverse(tmp_path, evalset):
    result, text, path = write_read(tmp_path, evalset)
    assert result.diagnostics == []
    (back,) = result.sets
    assert ir.dump(back) == ir.dump(evalset)  # spans included
    assert ir_json.write(back).files == {"evalset.ir.json": text}
    assert detect(str(path)).name == "ir"


@pytest.mark.conformance
@pytest.mark.parametrize("path", conformance_files("skill-creator/*.json"), ids=conformance_id)
def test_conformance_sets_survive_the_ir(tmp_path, path):
    reader = agent_skills if agent_skills.detect(str(path)) else skill_creator_triggers
    (evalset,) = reader.read(str(path)).sets
    result, _, _ = write_read(tmp_path, evalset)
    assert ir.dump(result.sets[0]) == ir.dump(evalset)
    # and the original format writes the same bytes from the IR read back
    assert reader.write(result.sets[0]).files == reader.write(evalset).files


@pytest.mark.conformance
def test_inspect_json_reads_back_with_from_ir(run_cli, tmp_path):
    src = str(CONFORMANCE / "skill-creator" / "xcode-disk-cleanup_evals.json")
    code, out, err = run_cli("inspect", src, "--format", "json")
    assert (code, err) == (0, "")
    path = tmp_path / "inspected.json"
    path.write_text(out)
    (evalset,) = agent_skills.read(src).sets
    assert out == ir_json.write(evalset).files["evalset.ir.json"]
    assert ir.dump(ir_json.read(str(path)).sets[0]) == ir.dump(evalset)


BAD = """{
  "evalfmt_ir": 1,
  "sets": [
    {
      "format": "terum",
      "cases": [
        {"name": "a", "checks": [{"kind": "transcript_mention", "text": "x"}]},
        {"checks": [{"kind": "command_matching"}]},
        {"name": "c", "timeout_ms": "soon", "tgas": ["x"]}
      ]
    }
  ],
  "note": 1
}
"""


def test_diagnostics_point_at_the_value(tmp_path):
    path = tmp_path / "bad.ir.json"
    path.write_text(BAD)
    result = ir_json.read(str(path))
    assert result.sets == []
    assert [d.format().replace(str(tmp_path) + "/", "") for d in result.diagnostics] == [
        "bad.ir.json:13:3: EV101 unknown key 'note': remove it",
        "bad.ir.json:7:43: EV104 unknown check kind 'transcript_mention' at cases.0.checks.0 "
        "(did you mean 'transcript_mentions'?)",
        "bad.ir.json:8:9: EV103 missing required field 'name' at cases.1.name",
        "bad.ir.json:8:21: EV103 missing required field 'pattern' at cases.1.checks.0.pattern",
        "bad.ir.json:9:37: EV102 input should be a valid integer, unable to parse string as an integer "
        "at cases.2.timeout_ms (found a string)",
        "bad.ir.json:9:45: EV101 unknown IR field 'tgas' at cases.2.tgas (did you mean 'tags'?)",
    ]


@pytest.mark.parametrize("text, message", [
    ('{"evalfmt_ir": 2, "sets": []}',
     "1:16: EV100 IR version 2 is not supported (this evalfmt reads version 1): convert it with the evalfmt that wrote it"),
    ('{"evalfmt_ir": "1", "sets": []}', "1:16: EV102 'evalfmt_ir' must be an integer (the IR version), not a string"),
    ('{"evalfmt_ir": 1}', "1:1: EV103 missing required key 'sets' (a list of eval sets)"),
    ('{"evalfmt_ir": 1, "sets": {}}', "1:27: EV102 'sets' must be a list, not a mapping"),
    ('{"evalfmt_ir": 1, "sets": [}', "1:28: EV100 invalid JSON: unexpected character, expected a JSON value"),
])
def test_header_errors(tmp_path, text, message):
    path = tmp_path / "x.json"
    path.write_text(text)
    result = ir_json.read(str(path))
    assert [d.format().replace(str(path) + ":", "") for d in result.diagnostics] == [message]
