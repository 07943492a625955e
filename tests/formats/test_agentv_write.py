"""agentv writer: current names, comments kept over an existing file, losses named, and round trips
(agentv -> IR -> agentv on the real files, a hypothesis property, and terum <-> agentv)."""

from __future__ import annotations

import os
import pathlib
import string
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, ROOT, check_golden, conformance_files, conformance_id
from evalfmt import api, ir
from evalfmt.formats import agentv, terum
from strategies import terum_evalset

GOLDEN = ROOT / "tests" / "golden" / "formats" / "agentv"
EVAL_FILES = conformance_files("agentv-4.42.4/inputs/**/*.yaml")


def roundtrip(tmp_path: pathlib.Path, evalset: ir.EvalSet) -> tuple[ir.EvalSet, str]:
    written = agentv.write(evalset)
    (text,) = written.files.values()
    path = tmp_path / "EVAL.yaml"
    path.write_text(text, encoding="utf-8")
    (back,) = agentv.read(str(path)).sets
    return back, text


def content(es: ir.EvalSet) -> dict:
    data = ir.content(es)
    data.pop("source", None)
    return data


# -------------------------------------------------------------------------------- real files


@pytest.mark.conformance
@pytest.mark.parametrize("path", EVAL_FILES, ids=conformance_id)
def test_conformance_agentv_ir_agentv_is_lossless(path, tmp_path):
    (evalset,) = agentv.read(str(path)).sets
    written = agentv.write(evalset)
    inlined = evalset.hints.get("inlined")
    assert [loss.what for loss in written.losses] == ([] if not evalset.cases or not inlined else
                                                      [f"tests read from '{inlined[0]}' are written inline"])
    back, _ = roundtrip(tmp_path, evalset)
    assert content(back) == content(evalset)


@pytest.mark.conformance
@pytest.mark.parametrize("path", EVAL_FILES, ids=conformance_id)
def test_conformance_written_over_itself_keeps_comments_and_order(path):
    original = path.read_text(encoding="utf-8")
    (evalset,) = agentv.read(str(path)).sets
    (text,) = agentv.write(evalset, existing={"EVAL.yaml": original}).files.values()
    assert _visible(text) == _visible(original)


def _visible(text: str) -> list[str]:
    """Every non-blank line, comments included. ruamel's round trip changes only invisible things: it
    empties whitespace-only lines (dropping one inside a comment block) and writes ``key: null`` as
    ``key:``."""
    return [line.rstrip().replace(": null", ":") for line in text.split("\n") if line.strip()]


def test_existing_file_keeps_comments_and_key_order(tmp_path):
    original = textwrap.dedent("""\
        # Library trigger tests.
        description: old description   # shown in reports
        tests:
          # the main case
          - input: "Write release notes."   # input before id, on purpose
            id: notes
            assertions:
              - skill: release-notes   # skill first
                type: skill-trigger
        """)
    path = tmp_path / "EVAL.yaml"
    path.write_text(original)
    (evalset,) = agentv.read(str(path)).sets
    evalset.description = "new description"
    evalset.cases[0].checks[0].should_trigger = False
    (text,) = agentv.write(evalset, existing={"EVAL.yaml": original}).files.values()
    assert text == textwrap.dedent("""\
        # Library trigger tests.
        description: new description   # shown in reports
        tests:
          # the main case
          - input: "Write release notes."   # input before id, on purpose
            id: notes
            assertions:
              - skill: release-notes   # skill first
                type: skill-trigger
                should_trigger: false
        """)


def test_key_order_of_a_fresh_write_follows_the_source(tmp_path):
    path = tmp_path / "EVAL.yaml"
    path.write_text("tests:\n  - input: go\n    id: a\n    assertions:\n      - value: x\n        type: contains\n"
                    "description: at the end\n")
    (evalset,) = agentv.read(str(path)).sets
    (text,) = agentv.write(evalset).files.values()
    assert text == ("tests:\n  - input: go\n    id: a\n    assertions:\n      - value: x\n        type: contains\n"
                    "description: at the end\n")


def test_legacy_names_are_written_with_the_current_names(tmp_path):
    path = tmp_path / "EVAL.yaml"
    path.write_text(textwrap.dedent("""\
        evalcases:
          - id: a
            input: go
            expected_outcome: says hi
            assert:
              - type: code_judge
                command: [node, g.js]
              - type: contains_any
                value: [x, y]
        assert:
          - type: is_json
        """))
    (evalset,) = agentv.read(str(path)).sets
    written = agentv.write(evalset)
    assert written.losses == []
    check_golden(GOLDEN / "legacy-names.EVAL.yaml", written.files["EVAL.yaml"])


# ------------------------------------------------------------------------------------ losses


def test_terum_kinds_and_fields_are_written_with_their_losses_named():
    case = ir.Case(name="notes", input="Write notes.", bucket="explicit", setup="git init", requires=["git"],
                   files={"a.txt": "x"}, timeout_minutes=5.0, max_turns=20,
                   span=ir.Span(file="evals/cases/notes.yaml", line=1),
                   checks=[ir.TranscriptMentions(text="v1.4.0", span=ir.Span(file="evals/cases/notes.yaml", line=9)),
                           ir.NoCommandMatching(pattern="git push")])
    written = agentv.write(ir.EvalSet(format="terum", cases=[case]))
    check_golden(GOLDEN / "terum-case.EVAL.yaml", written.files["EVAL.yaml"])
    assert [loss.format() for loss in written.losses] == [
        "kept: evals/cases/notes.yaml:9: agentv has no built-in 'transcript_mentions' check: written as the custom "
        "assertion type 'transcript-mentions', which agentv runs only with a grader in "
        ".agentv/assertions/transcript-mentions.ts",
        "kept: tests[0].assertions[1]: agentv has no built-in 'no_command_matching' check: written as the custom "
        "assertion type 'no-command-matching', which agentv runs only with a grader in "
        ".agentv/assertions/no-command-matching.ts",
        "kept: evals/cases/notes.yaml:1: agentv does not create 'files' in the workspace (kept as metadata.terum.files)",
        "kept: evals/cases/notes.yaml:1: agentv does not run 'setup' (kept as metadata.terum.setup; agentv's "
        "workspace hooks are the nearest equivalent)",
        "kept: evals/cases/notes.yaml:1: agentv does not probe 'requires' (kept as metadata.terum.requires)",
        "kept: evals/cases/notes.yaml:1: agentv does not apply 'timeout_minutes' (kept as "
        "metadata.terum.timeout_minutes)",
        "kept: evals/cases/notes.yaml:1: agentv does not apply 'max_turns' (kept as metadata.terum.max_turns)",
    ]


def test_terum_skill_folder_converts_to_agentv_with_suite_and_triggers():
    (evalset,) = api.read(str(FIXTURES / "library" / "release-notes")).sets
    written = agentv.write(evalset)
    check_golden(GOLDEN / "release-notes.EVAL.yaml", written.files["EVAL.yaml"])


# --------------------------------------------------------------------------- property test

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
nonblank = text.filter(lambda s: s.strip() != "")
ids = st.text(string.ascii_lowercase + string.digits + "-_.:", min_size=1, max_size=10).filter(lambda s: s.strip())
number = st.one_of(st.integers(0, 10_000).map(float), st.floats(0, 1e6, allow_nan=False, allow_infinity=False))
common = st.fixed_dictionaries({}, optional={
    "name": ids, "weight": number, "required": st.booleans() | st.floats(0.01, 1.0), "min_score": st.floats(0, 1),
    "negate": st.booleans()})
extra_val = st.recursive(st.none() | st.booleans() | st.integers(-5, 5) | text,
                         lambda c: st.lists(c, max_size=3) | st.dictionaries(ids, c, max_size=3), max_leaves=6)
check_extra = st.dictionaries(st.sampled_from(["cwd", "description", "config", "x_note"]), extra_val, max_size=2)


def _check(model, **fields):
    return st.builds(lambda c, e, f: model(**c, **f, extra=e), common, check_extra, st.fixed_dictionaries(fields))


checks = st.one_of(
    _check(ir.SkillTrigger, skill=st.none() | ids, should_trigger=st.none() | st.booleans()),
    _check(ir.Contains, value=text), _check(ir.Icontains, value=text), _check(ir.StartsWith, value=text),
    _check(ir.EndsWith, value=text), _check(ir.ContainsAny, values=st.lists(text, max_size=3)),
    _check(ir.IcontainsAll, values=st.lists(text, max_size=3)),
    _check(ir.Regex, value=st.sampled_from(["a+", "^x$", r"\d{2}", "(foo|bar)"]), flags=st.none() | st.just("i")),
    _check(ir.Equals, value=st.none() | text | st.integers(-5, 5) | st.booleans()), _check(ir.IsJson),
    _check(ir.LlmGrader, prompt=st.none() | text),
    _check(ir.LlmGrader, template=st.fixed_dictionaries({"command": st.lists(ids, min_size=1, max_size=2)},
                                                        optional={"config": st.dictionaries(ids, extra_val, max_size=2)})),
    _check(ir.Rubrics, criteria=st.lists(nonblank | st.fixed_dictionaries(
        {"id": ids, "outcome": text}), max_size=3)),
    st.builds(lambda c, e, f: ir.CodeGrader(**c, **f, extra=e), common,
              st.dictionaries(st.just("target"), extra_val, max_size=1),  # (its other keys are its config)
              st.fixed_dictionaries({"command": st.none() | text | st.lists(text, max_size=3),
                                     "script": st.none() | text | st.lists(text, max_size=2), "cwd": st.none() | text,
                                     "config": st.none() | st.dictionaries(st.sampled_from(["level", "x_note"]),
                                                                           extra_val, min_size=1, max_size=2)})),
    _check(ir.ToolTrajectory, mode=st.none() | st.sampled_from(["any_order", "in_order"]),
           expected=st.none() | st.lists(st.fixed_dictionaries({"tool": ids}), max_size=2),
           minimums=st.none() | st.dictionaries(ids, st.integers(0, 5), max_size=2)),
    _check(ir.Latency, threshold=st.none() | number), _check(ir.Cost, budget=st.none() | number), _check(ir.TokenUsage, max_total=st.none() | number, max_output=st.none() | number),
    _check(ir.TranscriptMentions, text=text), _check(ir.CommandMatching, pattern=st.sampled_from(["git (log|tag)", "^make"])),
    _check(ir.FileAbsent, path=ids), _check(ir.CommandSucceeds, command=text),
    st.builds(lambda t, e: ir.Opaque(type=t, raw={"type": t, **e}, origin="agentv"),
              st.sampled_from(["my-grader", "other-grader"]), check_extra),
    nonblank.map(lambda s: ir.Rubrics(criteria=[s], hints={"shorthand": "string"})),
    st.builds(lambda c, e, s: ir.Rubrics(**c, criteria=[s], extra=e, hints={"criteria": "text"}), common, check_extra,
              text),
    _check(ir.FieldAccuracy, fields=st.none() | st.lists(st.fixed_dictionaries({"path": ids}), max_size=2),
           aggregation=st.none() | st.sampled_from(["all_or_nothing", "weighted_average"])),
    st.builds(lambda c, e, f: ir.ExecutionMetrics(**c, **f, extra=e, unknown=list(e) or None), common, check_extra,
              st.fixed_dictionaries({"max_tool_calls": st.none() | number, "max_cost_usd": st.none() | number})),
    _check(ir.Rubric, criteria=st.none() | text, value=st.none() | text), _check(ir.InlineAssert),
)
aggregators = st.none() | st.builds(
    lambda f, e: ir.Aggregator(**f, extra=e),
    st.fixed_dictionaries({}, optional={"type": st.sampled_from(["weighted_average", "threshold", "code-grader"]),
                                        "weights": st.dictionaries(ids, number, max_size=2), "threshold": number,
                                        "path": text, "prompt": text}),
    st.dictionaries(st.sampled_from(["x_note", "mode"]), extra_val, max_size=1))
checks = checks | st.builds(lambda c, e, m, a: ir.Composite(**c, extra=e, members=m, aggregator=a), common,
                            check_extra, st.none() | st.lists(checks, max_size=3), aggregators)
part = st.builds(lambda t, v: ir.ContentPart(type=t, value=v), st.sampled_from(["text", "file", "image"]), text)
message = st.builds(lambda r, c: ir.Message(role=r, content=c), st.sampled_from(["system", "user", "assistant"]),
                    text | st.lists(part, min_size=1, max_size=3))
inputs = text | st.lists(message, min_size=1, max_size=3)
test_extra = st.dictionaries(st.sampled_from(["conversation_id", "execution", "vars", "x-owner"]), extra_val, max_size=2)


@st.composite
def cases(draw, name):
    return ir.Case(
        name=name, input=draw(inputs), checks=draw(st.lists(checks, max_size=4)), judge=draw(st.none() | text),
        expected_output=draw(st.none() | text | st.lists(st.fixed_dictionaries({"role": st.just("assistant"),
                                                                                 "content": text}), max_size=2)),
        input_files=draw(st.none() | st.lists(ids, max_size=2)),
        metadata=draw(st.none() | st.dictionaries(st.sampled_from(["owner", "priority"]), extra_val, min_size=1)),
        bucket=draw(st.none() | st.sampled_from(ir.BUCKETS)), setup=draw(st.none() | text),
        timeout_minutes=draw(st.none() | st.floats(0.5, 120)), max_turns=draw(st.none() | st.integers(1, 50)),
        extra=draw(test_extra))


@st.composite
def agentv_sets(draw):
    names = draw(st.lists(ids, max_size=4, unique=True))
    return ir.EvalSet(
        format="agentv", name=draw(st.none() | ids), description=draw(st.none() | text),
        tags=draw(st.none() | st.lists(ids, max_size=3)), input=draw(st.none() | inputs),
        checks=draw(st.lists(checks, max_size=2)), cases=[draw(cases(n)) for n in names],
        extra=draw(st.dictionaries(st.sampled_from(["execution", "workspace", "version"]), extra_val, max_size=2)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(evalset=agentv_sets())
def test_reading_what_the_writer_wrote_gives_the_same_ir(tmp_path_factory, evalset):
    back, text = roundtrip(tmp_path_factory.mktemp("rt"), evalset)
    assert ir.same(ir.replace(back, source=None), evalset), text
    assert agentv.write(back).files["EVAL.yaml"] == text


# --------------------------------------------------------------------------- terum <-> agentv


def comparable(es: ir.EvalSet) -> dict:
    """Tasks, prompts, checks and terum fields: what both formats hold."""
    data = ir.content(es)
    for key in ("source", "skill", "format", "hints"):
        data.pop(key, None)

    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "hints"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    data = strip(data)
    if data.get("triggers") is not None and not data["triggers"]["prompts"]:
        del data["triggers"]  # no prompts: nothing to keep (the writer names the loss)
    return data


def write_terum(root: str, files: dict[str, str]) -> None:
    os.makedirs(os.path.join(root, "evals"), exist_ok=True)
    with open(os.path.join(root, "SKILL.md"), "w") as fh:
        fh.write("---\nname: demo\ndescription: d\n---\n")
    for rel, body in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(body)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(evalset=terum_evalset())
def test_terum_to_agentv_to_terum_keeps_every_task_prompt_and_check(tmp_path_factory, evalset):
    tmp = tmp_path_factory.mktemp("x")
    as_agentv, _ = roundtrip(tmp, evalset)
    back_terum = terum.write(as_agentv)
    root = str(tmp / "demo")
    write_terum(root, back_terum.files)
    (final,) = api.read(root).sets
    assert comparable(final) == comparable(evalset)


def test_agentv_to_terum_to_agentv_keeps_tasks_prompts_and_terum_checks(tmp_path):
    source = tmp_path / "EVAL.yaml"
    source.write_text(textwrap.dedent("""\
        tests:
          - id: notes
            input: Write release notes since v1.4.0.
            criteria: Groups the changes.
            assertions:
              - type: transcript-mentions
                value: v1.4.0
              - type: no-command-matching
                value: git\\s+push
          - id: fires
            input: Draft the release notes.
            assertions:
              - type: skill-trigger
                skill: demo
          - id: quiet
            input: What time is it?
            assertions:
              - type: skill-trigger
                skill: demo
                should_trigger: false
        """))
    (first,) = agentv.read(str(source)).sets
    as_terum = terum.write(first)
    root = str(tmp_path / "demo")
    write_terum(root, as_terum.files)
    (mid,) = api.read(root).sets
    back, _ = roundtrip(tmp_path, mid)
    assert [(c.name, c.input, c.judge, [ch.label() for ch in c.checks]) for c in back.cases] == [
        ("notes", "Write release notes since v1.4.0.", "Groups the changes.",
         ["transcript_mentions:v1.4.0", "no_command_matching:git\\s+push"])]
    # the trigger-only tests come back as trigger prompts of the skill (their ids were terum's loss)
    assert [(p.text, p.should_trigger) for p in back.triggers.prompts] == [
        ("Draft the release notes.", True), ("What time is it?", False)]
    assert back.triggers.skill == "demo"
