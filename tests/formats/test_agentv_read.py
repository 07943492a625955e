"""agentv reader: golden IR of the real EVAL.yaml files, detection, input shapes, tests paths, and one
test per diagnostic with its exact code, line and column."""

from __future__ import annotations

import json
import os
import pathlib
import textwrap

import pytest

from conftest import CONFORMANCE, ROOT, check_golden, conformance_files, conformance_id
from evalfmt import ir
from evalfmt.formats import agentv, detect

GOLDEN = ROOT / "tests" / "golden" / "conformance" / "agentv"
INPUTS = CONFORMANCE / "agentv-4.42.4" / "inputs"
EVAL_FILES = conformance_files("agentv-4.42.4/inputs/**/*.yaml")


def rc_of(path: pathlib.Path) -> str:
    rel = path.relative_to(INPUTS).with_suffix("")
    return (CONFORMANCE / "agentv-4.42.4" / "expected" / rel / "rc").read_text().strip()


def snapshot(sets: list[ir.EvalSet]) -> str:
    text = json.dumps([ir.dump(s) for s in sets], indent=2, ensure_ascii=False) + "\n"
    return text.replace(str(CONFORMANCE), "$CONFORMANCE")


def diags(text: str, tmp_path: pathlib.Path, name: str = "EVAL.yaml") -> list[tuple]:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    result = agentv.read(str(path))
    return sorted((d.code, d.line, d.column, d.severity, d.message) for d in result.diagnostics)


def read(text: str, tmp_path: pathlib.Path, name: str = "EVAL.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return agentv.read(str(path))


# ------------------------------------------------------------------------------- conformance


@pytest.mark.conformance
@pytest.mark.parametrize("path", EVAL_FILES, ids=conformance_id)
def test_conformance_golden_ir(path):
    assert detect(str(path)).name == "agentv"
    result = agentv.read(str(path))
    rel = path.relative_to(INPUTS)
    check_golden(GOLDEN / rel.parent / (rel.name + ".ir.json"), snapshot(result.sets))
    lines = "".join(d.format().replace(str(CONFORMANCE), "$CONFORMANCE") + f" [{d.severity}]\n"
                    for d in result.diagnostics)
    check_golden(GOLDEN / rel.parent / (rel.name + ".diagnostics.txt"), lines)


@pytest.mark.conformance
@pytest.mark.parametrize("path", [p for p in EVAL_FILES if rc_of(p) == "0"], ids=conformance_id)
def test_files_the_real_tool_accepts_read_without_errors(path):
    result = agentv.read(str(path))
    assert [d.format() for d in result.diagnostics if d.severity == "error"] == []
    assert result.sets[0].cases


@pytest.mark.conformance
def test_directory_discovery_example_names_the_missing_folder():
    path = INPUTS / "examples" / "showcase" / "directory-discovery" / "EVAL.yaml"
    result = agentv.read(str(path))
    assert [(d.code, d.line, d.column, d.severity) for d in result.diagnostics] == [("EV103", 4, 8, "error")]
    message = result.diagnostics[0].message
    assert message.startswith("tests path './cases/' does not exist (looked for ")
    assert message.endswith("directory-discovery/cases); create it, or list the tests inline")
    assert result.sets[0].cases == []


# --------------------------------------------------------------------------------- detection


@pytest.mark.parametrize("name,text,expected", [
    ("EVAL.yaml", "x: 1\n", True),
    ("eval.yml", "x: 1\n", True),
    ("dataset.eval.yaml", "x: 1\n", True),
    ("skill.EVAL.yaml", "x: 1\n", True),
    ("anything.yaml", "description: d\ntests:\n  - id: a\n", True),
    ("legacy.yaml", "eval_cases:\n  - id: a\n", True),
    ("old.yml", "evalcases: []\n", True),
    ("promptfooconfig.yaml", "prompts: [p]\ntests: []\n", False),
    ("config.yaml", "prompts: [p]\nproviders: [x]\ntests: []\n", False),
    ("notes.yaml", "title: t\n", False),
    ("evals.json", '{"tests": []}', False),
])
def test_detection_by_name_and_top_level_keys(tmp_path, name, text, expected):
    path = tmp_path / name
    path.write_text(text)
    assert agentv.detect(str(path)) is expected


# ------------------------------------------------------------------------------ input shapes


def test_input_shapes_string_messages_and_object_shorthand(tmp_path):
    result = read("""\
        tests:
          - id: s
            input: hello
            criteria: c
          - id: m
            criteria: c
            input:
              - role: system
                content: be brief
              - role: user
                content:
                  - type: file
                    value: a.md
                  - type: text
                    value: go
          - id: o
            criteria: c
            input: {role: user, content: hi}
          - id: c
            criteria: c
            input: {question: why}
        """, tmp_path)
    assert [d.format() for d in result.diagnostics] == []
    s, m, o, c = result.sets[0].cases
    assert s.input == "hello"
    assert [msg.role for msg in m.input] == ["system", "user"]
    assert [(p.type, p.value) for p in m.input[1].content] == [("file", "a.md"), ("text", "go")]
    assert (o.input[0].role, o.input[0].content, o.hints["input"]) == ("user", "hi", "message")
    assert (c.input[0].role, c.input[0].content, c.hints["input"]) == ("user", {"question": "why"}, "content")


def test_suite_level_input_and_assertions(tmp_path):
    result = read("""\
        input: shared context
        assertions:
          - type: contains
            value: ok
        tests:
          - id: a
            input: go
        """, tmp_path)
    es = result.sets[0]
    assert es.input == "shared context"
    assert [c.kind for c in es.checks] == ["contains"]


def test_merge_keys_are_applied_as_agentv_applies_them(tmp_path):
    result = read("""\
        x-base: &base
          criteria: from base
          input: base input
        tests:
          - <<: *base
            id: a
            input: own input
        """, tmp_path)
    (case,) = result.sets[0].cases
    assert (case.name, case.judge, case.input) == ("a", "from base", "own input")


def test_plain_string_assertion_is_a_rubric_that_writes_back_as_a_string(tmp_path):
    result = read("""\
        tests:
          - id: a
            input: go
            assertions:
              - Mentions the tag
        """, tmp_path)
    (check,) = result.sets[0].cases[0].checks
    assert isinstance(check, ir.Rubrics) and check.criteria == ["Mentions the tag"]
    assert check.hints == {"shorthand": "string"}


def test_custom_assertions_are_opaque_with_raw_and_a_composite_holds_its_members(tmp_path):
    result = read("""\
        tests:
          - id: a
            input: go
            assertions:
              - type: composite
                assertions: [{type: contains, value: x}, {type: nope, value: 1}]
                aggregator: {type: threshold, threshold: 1, note: kept}
              - type: my_custom
                threshold: 3
        """, tmp_path)
    a, b = result.sets[0].cases[0].checks
    assert isinstance(a, ir.Composite) and [ir.content(m) for m in a.members] == [
        ir.content(ir.Contains(value="x")), ir.content(ir.Opaque(type="nope", raw={"type": "nope", "value": 1},
                                                                 origin="agentv"))]
    assert ir.content(a.aggregator) == ir.content(ir.Aggregator(type="threshold", threshold=1.0,
                                                                extra={"note": "kept"}))
    assert isinstance(b, ir.Opaque) and b.raw == {"type": "my-custom", "threshold": 3}
    # what is wrong with a member is not reported (agentv reads the members only when it runs the composite)
    assert [d.code for d in result.diagnostics] == ["EV504", "EV501", "EV104", "EV504"]


def test_terum_kinds_written_as_custom_types_read_back_as_terum_checks(tmp_path):
    result = read("""\
        tests:
          - id: a
            input: go
            assertions:
              - type: transcript-mentions
                value: v1.4.0
              - type: no-command-matching
                value: 'git\\s+push'
        """, tmp_path)
    a, b = result.sets[0].cases[0].checks
    assert isinstance(a, ir.TranscriptMentions) and a.text == "v1.4.0"
    assert isinstance(b, ir.NoCommandMatching) and b.pattern == "git\\s+push"


def test_unknown_keys_and_wrong_types_stay_in_extra_in_source_order(tmp_path):
    result = read("""\
        zeta: 1
        tests:
          - id: a
            input: go
            criteria: [not, a, string]
            alpha: 2
            assertions:
              - type: contains
                value: x
                weight: heavy
        """, tmp_path)
    es = result.sets[0]
    assert es.extra == {"zeta": 1}
    case = es.cases[0]
    assert case.extra == {"criteria": ["not", "a", "string"], "alpha": 2}
    assert case.checks[0].extra == {"weight": "heavy"}


# ----------------------------------------------------------------------------- tests as a path


def test_tests_path_to_a_yaml_file(tmp_path):
    (tmp_path / "cases.yaml").write_text("- id: a\n  input: one\n  criteria: c\n- id: b\n  input: two\n  criteria: c\n")
    result = read("tests: ./cases.yaml\n", tmp_path)
    assert [d.format() for d in result.diagnostics] == []
    assert [(c.name, c.input) for c in result.sets[0].cases] == [("a", "one"), ("b", "two")]
    assert result.sets[0].cases[1].span.file.endswith("cases.yaml")
    assert result.sets[0].cases[1].span.line == 4


def test_tests_path_to_a_jsonl_file_with_positions(tmp_path):
    (tmp_path / "cases.jsonl").write_text('{"id": "a", "input": "one", "criteria": "c"}\n\n'
                                          '{"id": "a", "input": "two", "criteria": "c"}\n')
    result = read("tests: cases.jsonl\n", tmp_path)
    assert [c.input for c in result.sets[0].cases] == ["one", "two"]
    assert [(d.code, d.line, d.column) for d in result.diagnostics] == [("EV115", 3, 8)]


def test_unknown_keys_of_external_tests_are_reported_in_their_own_file(tmp_path):
    """An unknown key in a tests file, a JSONL line or a case folder points at that file, not at EVAL.yaml."""
    (tmp_path / "cases.yaml").write_text("- id: a\n  input: one\n  criteria: c\n  critera: typo\n")
    (tmp_path / "cases.jsonl").write_text('{"id": "b", "input": "x", "criteria": "c"}\n'
                                          '{"id": "c", "input": "x", "criteria": "c", "zzz": 1}\n')
    (tmp_path / "dir" / "d").mkdir(parents=True)
    (tmp_path / "dir" / "d" / "case.yaml").write_text("input: x\ncriteria: c\nextra_key: 1\n")
    result = read("tests:\n  - file://cases.yaml\n", tmp_path)
    assert [(os.path.basename(d.path), d.code, d.line, d.column, d.message) for d in result.diagnostics] == [
        ("cases.yaml", "EV101", 4, 3, "unknown key 'critera' (did you mean 'criteria'?); agentv ignores it")]
    result = read("tests: cases.jsonl\n", tmp_path)
    assert [(os.path.basename(d.path), d.code, d.line, d.column, d.message) for d in result.diagnostics] == [
        ("cases.jsonl", "EV101", 2, 44, "unknown key 'zzz'; agentv ignores it")]
    result = read("tests: dir\n", tmp_path)
    assert [(os.path.relpath(d.path, tmp_path), d.code, d.line, d.column) for d in result.diagnostics] == [
        (os.path.join("dir", "d", "case.yaml"), "EV101", 3, 1)]


def test_tests_path_to_a_folder_is_agentv_directory_discovery(tmp_path):
    cases = tmp_path / "cases"
    for name, body in [("b-second", "input: two\ncriteria: c\n"), ("a-first", "id: explicit\ninput: one\ncriteria: c\n")]:
        (cases / name).mkdir(parents=True)
        (cases / name / "case.yaml").write_text(body)
    (cases / "no-case-file").mkdir()
    (cases / "README.md").write_text("not a case")
    result = read("tests: ./cases/\n", tmp_path)
    assert [d.format() for d in result.diagnostics] == []
    assert [(c.name, c.input) for c in result.sets[0].cases] == [("explicit", "one"), ("b-second", "two")]
    assert result.sets[0].cases[1].hints["id_from_folder"] is True


def test_file_references_in_the_tests_list(tmp_path):
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "x.yaml").write_text("- id: x\n  input: from x\n  criteria: c\n")
    (tmp_path / "more" / "y.yaml").write_text("- id: y\n  input: from y\n  criteria: c\n")
    result = read("""\
        tests:
          - id: inline
            input: here
            criteria: c
          - file://more/*.yaml
          - file://missing.yaml
        """, tmp_path)
    assert [c.name for c in result.sets[0].cases] == ["inline", "x", "y"]
    ((code, line, col, sev, msg),) = [(d.code, d.line, d.column, d.severity, d.message) for d in result.diagnostics]
    assert (code, line, col, sev) == ("EV103", 6, 5, "error")
    assert msg.startswith("'file://missing.yaml' does not exist")


def test_tests_path_that_does_not_exist(tmp_path):
    assert diags("tests: nowhere.yaml\n", tmp_path) == [
        ("EV103", 1, 8, "error",
         f"tests path 'nowhere.yaml' does not exist (looked for {tmp_path}/nowhere.yaml); create it, or list the "
         "tests inline")]


# -------------------------------------------------------------------------------- diagnostics


def test_ev100_parse_error(tmp_path):
    ((code, line, col, sev, _msg),) = diags("tests: [\n", tmp_path)
    assert (code, line, sev) == ("EV100", 2, "error")


def test_ev101_unknown_keys_suggest_the_nearest(tmp_path):
    assert diags("""\
        test:
          - id: a
        tests:
          - id: a
            input: go
            criterias: c
            assertions: []
            owner: release-team
        """, tmp_path) == [
        # a near miss of a known key is an error (agentv drops what the author meant); a key close to
        # no known key stays a warning (agentv ignores extra keys by design)
        ("EV101", 1, 1, "error", "unknown key 'test' (did you mean 'tests'?); agentv ignores it"),
        ("EV101", 6, 5, "error", "unknown key 'criterias' (did you mean 'criteria'?); agentv ignores it"),
        ("EV101", 8, 5, "warning", "unknown key 'owner'; agentv ignores it"),
    ]


def test_ev102_wrong_types(tmp_path):
    assert diags("""\
        tags: 3
        tests:
          - id: a
            input: 42
            assertions:
              - type: skill-trigger
                skill: deploy
                should_trigger: "no"
          - just a string
        """, tmp_path) == [
        ("EV102", 1, 7, "error", "'tags' must be a list of strings"),
        ("EV102", 4, 12, "error", "'input' must be a string or a list of messages, not a number"),
        ("EV102", 8, 25, "error", "'should_trigger' of a skill-trigger assertion must be true or false, not a string"),
        ("EV102", 9, 5, "error", "a test must be a mapping (or a 'file://' reference), not a string"),
    ]


def test_ev103_missing_id_input_and_skill(tmp_path):
    assert diags("""\
        tests:
          - criteria: c
          - id: b
            assertions:
              - type: skill-trigger
        """, tmp_path) == [
        ("EV103", 2, 5, "error", "test '' is missing 'input'; give the prompt as a string or a list of messages"),
        ("EV103", 2, 5, "error", "test is missing 'id'; give it a unique name"),
        ("EV103", 3, 5, "error", "test 'b' is missing 'input'; give the prompt as a string or a list of messages"),
        ("EV103", 5, 9, "error",
         "skill-trigger in test 'b' has no 'skill': name the skill it should (or should not) trigger"),
    ]


def test_ev104_only_for_types_neither_built_in_nor_found_in_agentv_assertions(tmp_path):
    (tmp_path / ".agentv" / "assertions").mkdir(parents=True)
    (tmp_path / ".agentv" / "assertions" / "tone-check.ts").write_text("export default {}")
    sub = tmp_path / "evals"
    sub.mkdir()
    assert diags("""\
        tests:
          - id: a
            input: go
            assertions:
              - type: contain
                value: x
              - type: tone-check
              - type: sentiment
                criteria: upbeat
        """, sub) == [
        ("EV104", 5, 15, "error", "unknown assertion type 'contain' (did you mean 'contains'?); agentv runs it as a "
                                    "custom assertion, and none named 'contain' was found in .agentv/assertions/"),
        ("EV104", 8, 15, "warning", "unknown assertion type 'sentiment'; agentv runs it as a custom assertion, and "
                                    "none named 'sentiment' was found in .agentv/assertions/"),
        ("EV504", 5, 9, "warning", "agentv transpile writes this assertion as the placeholder 'contain assertion' in "
                                   "evals.json; state what it checks in the test's 'criteria' if the placeholder is "
                                   "not enough"),
        ("EV504", 7, 9, "warning", "agentv transpile writes this assertion as the placeholder 'tone-check assertion' "
                                   "in evals.json; state what it checks in the test's 'criteria' if the placeholder "
                                   "is not enough"),
    ]


def test_ev105_regex_that_does_not_compile_and_bad_flags(tmp_path):
    found = diags("""\
        tests:
          - id: a
            input: go
            assertions:
              - type: regex
                value: "a("
              - type: regex
                value: ok
                flags: gq
        """, tmp_path)
    assert [(c, line, col, sev) for c, line, col, sev, _ in found] == [("EV105", 6, 16, "error"),
                                                                   ("EV105", 9, 16, "error")]
    assert found[0][4].startswith("regex 'a(' is not a valid ECMAScript regex: ")
    assert found[1][4] == "invalid regex flags 'gq': use a subset of d, g, i, m, s, u, v, y, each once"


def test_ev114_duplicate_keys(tmp_path):
    assert diags("""\
        tests:
          - id: a
            input: one
            input: two
            criteria: c
        """, tmp_path) == [
        ("EV114", 4, 5, "error", "duplicate key 'input' (first at line 3); agentv refuses the file: remove one")]


def test_ev115_duplicate_test_ids(tmp_path):
    assert diags("""\
        tests:
          - id: a
            input: one
            criteria: c
          - id: a
            input: two
            criteria: c
        """, tmp_path) == [
        ("EV115", 5, 9, "error", "duplicate test id 'a' (first at line 2); ids must be unique: rename one")]


def test_ev501_legacy_names_are_read_and_reported_with_the_replacement(tmp_path):
    result = read("""\
        eval_cases:
          - id: a
            input: go
            expected_outcome: says hi
            assert:
              - type: code_grader
                command: [node, g.js]
              - type: llm-judge
                prompt: p.md
        """, tmp_path)
    found = sorted((d.code, d.line, d.column, d.message) for d in result.diagnostics)
    assert found == [
        ("EV501", 1, 1, "'eval_cases' is deprecated: use 'tests'"),
        ("EV501", 4, 5, "'expected_outcome' is deprecated: use 'criteria'"),
        ("EV501", 5, 5, "'assert' is deprecated: use 'assertions'"),
        ("EV501", 6, 15, "snake_case type 'code_grader' is deprecated: use 'code-grader'"),
        ("EV501", 8, 15, "type 'llm-judge' is deprecated: use 'llm-grader' (agentv 4.42.4 skips the assertion)"),
    ]
    assert all(d.severity == "warning" for d in result.diagnostics)
    case = result.sets[0].cases[0]
    assert case.judge == "says hi"
    assert [c.kind for c in case.checks] == ["code-grader", "llm-grader"]


def test_ev502_test_agentv_skips(tmp_path):
    assert diags("""\
        tests:
          - id: a
            input: go
          - id: b
            input: go
            criteria: "  "
        """, tmp_path) == [
        ("EV502", 2, 5, "error", "agentv skips test 'a' silently: it has no criteria, expected_output, assertions or "
                                   "turns; add one"),
    ]


def test_ev503_conflicting_skill_trigger(tmp_path):
    assert diags("""\
        tests:
          - id: a
            input: go
            assertions:
              - type: skill-trigger
                skill: deploy
              - type: skill-trigger
                skill: deploy
                should_trigger: false
        """, tmp_path) == [
        ("EV503", 7, 9, "error", "test 'a' asks skill 'deploy' both to trigger and not to trigger (should_trigger "
                                  "false here, true before); keep one")]


def test_ev504_assertions_agentv_transpile_drops_or_reduces(tmp_path):
    found = diags("""\
        tests:
          - id: a
            input: go
            assertions:
              - Mentions X
              - type: rubrics
                criteria: [a, b]
              - type: icontains-all
                value: [x]
              - type: skill_trigger
                skill: deploy
        """, tmp_path)
    assert [(line, col) for c, line, col, _, _ in found if c == "EV504"] == [(5, 9), (6, 9), (8, 9), (10, 9)]
    skill_trigger = [m for c, line, _, _, m in found if c == "EV504" and line == 10]
    assert skill_trigger == ["agentv transpile does not know the snake_case type 'skill_trigger': it writes "
                             "'skill_trigger assertion' and does not route the test; use 'skill-trigger'"]


def test_top_level_not_a_mapping(tmp_path):
    assert diags("- a\n- b\n", tmp_path) == [
        ("EV102", 1, 1, "error", "an EVAL.yaml must be a mapping with 'tests', the file is a list")]


def test_missing_tests(tmp_path):
    assert diags("description: d\n", tmp_path) == [
        ("EV103", 1, 1, "error",
         "missing 'tests': list the tests, or give the path of a file or folder that holds them")]


def test_reading_never_raises_on_hostile_shapes(tmp_path):
    for text in ["", "tests: null\n", "tests: [null, 1, [], {}]\n", "tests:\n  - id: a\n    input: [1, null]\n",
                 "tests:\n  - id: a\n    input: go\n    assertions: [null, {type: 3}, {include: x}]\n",
                 "tests:\n  - id: a\n    input: [{role: user, content: [{value: x}, 3]}]\n"]:
        path = tmp_path / "EVAL.yaml"
        path.write_text(text)
        result = agentv.read(str(path))
        assert len(result.sets) == 1
        assert os.path.exists(path)


BINARY = ("description: x\ntests:\n  - id: a\n    input: hi\n    criteria: ok\n    metadata:\n"
          "      blob: !!binary aGk=\n")
EV100_BINARY = ("EVAL.yaml:7:13: EV100 invalid YAML: a !!binary value (agentv's parser makes a byte buffer of it, which "
                "no eval file field takes); write the text itself")


@pytest.mark.parametrize("args, code", [(["validate", "--no-cache"], 1), (["lint", "--no-cache", "--isolated"], 1),
                                        (["inspect", "--format", "json"], 1), (["convert", "--to", "ir"], 1)])
def test_a_binary_value_is_refused_at_its_tag_as_terum_and_promptfoo_refuse_it(run_cli, tmp_path, args, code):
    """``!!binary`` passed validate and lint, then inspect --format json and convert --to ir ended in an
    internal error (bytes are not JSON). It is EV100 at the tag, as in the other formats' files."""
    (tmp_path / "EVAL.yaml").write_text(BINARY)
    got, out, err = run_cli(*args, "EVAL.yaml", cwd=str(tmp_path))
    assert got == code and "internal error" not in err
    assert EV100_BINARY in out + err


def test_a_binary_value_in_the_agentv_layout_is_the_buffer_agentv_sees(run_cli, tmp_path):
    """The agentv layout models agentv, whose parser reads !!binary as a Buffer: its text in a sentence."""
    (tmp_path / "EVAL.yaml").write_text("tests:\n  - id: a\n    input: hi\n    assertions:\n"
                                        "      - type: contains\n        value: !!binary aGk=\n")
    code, _, err = run_cli("transpile", "--layout", "agentv", "-o", "out", "EVAL.yaml", cwd=str(tmp_path))
    assert (code, err) == (0, "evalfmt: wrote out/evals.json\n")
    assert json.loads((tmp_path / "out" / "evals.json").read_text())["evals"][0]["assertions"] == ["Output contains 'hi'"]


def test_js_values_of_a_buffer():
    from evalfmt import js

    assert js.string(b"h\xffi") == "h\ufffdi"
    assert js.stringify({"b": b"hi"}) == '{"b":{"type":"Buffer","data":[104,105]}}'
