"""One spec per check kind (evalfmt/ir/kinds/, issue 25): every IR check class has a spec, every spec has an
entry for every format (a shape of that format, or the reason the format cannot hold the kind), its fields
name fields the class has, and its sentence and scoring function work on a sample of the kind. A new kind
without its spec, an entry or a sample here fails."""

from __future__ import annotations

import typing

import pytest

from evalfmt import ir
from evalfmt.formats.losses import FEATURES
from evalfmt.ir import kinds
from evalfmt.ir.kinds import spec as specmod

#: one check of every kind, as a reader would build it
SAMPLES: dict[str, ir.CheckBase] = {
    "transcript_mentions": ir.TranscriptMentions(text="Done"),
    "transcript_omits": ir.TranscriptOmits(text="Error"),
    "command_matching": ir.CommandMatching(pattern="^git commit"),
    "no_command_matching": ir.NoCommandMatching(pattern="rm -rf"),
    "file_exists": ir.FileExists(path="notes.md"),
    "file_absent": ir.FileAbsent(path="tmp.txt"),
    "command_succeeds": ir.CommandSucceeds(command="test -s notes.md"),
    "file_read_matching": ir.FileReadMatching(pattern=r"SKILL\.md$"),
    "no_file_read_matching": ir.NoFileReadMatching(pattern=r"\.env$", flags="i"),
    "skill-trigger": ir.SkillTrigger(skill="notes"),
    "contains": ir.Contains(value="Done"),
    "icontains": ir.Icontains(value="done"),
    "starts-with": ir.StartsWith(value="Dear"),
    "ends-with": ir.EndsWith(value="."),
    "contains-any": ir.ContainsAny(values=["a", "b"]),
    "contains-all": ir.ContainsAll(values=["a", "b"]),
    "icontains-any": ir.IcontainsAny(values=["A"]),
    "icontains-all": ir.IcontainsAll(values=["A"]),
    "regex": ir.Regex(value="^Do", flags="i"),
    "equals": ir.Equals(value="42"),
    "is-json": ir.IsJson(),
    "llm-grader": ir.LlmGrader(prompt="Is it polite?"),
    "rubrics": ir.Rubrics(criteria=["polite", {"outcome": "short"}]),
    "rubric": ir.Rubric(criteria="polite"),
    "model-graded": ir.ModelGraded(grader="g-eval", value="clear", min_score=0.5),
    "code-grader": ir.CodeGrader(command=["python3", "grade.py"]),
    "code": ir.Code(language="javascript", source="output.length > 3"),
    "composite": ir.Composite(members=[ir.Contains(value="Done"), ir.LlmGrader(prompt="Is it polite?")],
                              aggregator=ir.Aggregator(type="llm-grader")),
    "tool-trajectory": ir.ToolTrajectory(mode="in_order", expected=[{"tool": "Read"}, "Bash"]),
    "latency": ir.Latency(threshold=1000),
    "cost": ir.Cost(budget=0.5),
    "token-usage": ir.TokenUsage(max_total=100),
    "execution-metrics": ir.ExecutionMetrics(max_tool_calls=5, max_tokens=100),
    "field-accuracy": ir.FieldAccuracy(fields=[{"path": "a"}]),
    "inline-assert": ir.InlineAssert(),
    "opaque": ir.Opaque(type="custom", origin="agentv", raw={"type": "custom"}),
}

SHAPES = {"terum": specmod.Terum, "agentv": specmod.Agentv, "promptfoo": specmod.Promptfoo,
          "skillgym": specmod.Skillgym, "agent_skills": specmod.AgentSkills}


def problems(spec: object) -> list[str]:
    """What a spec lacks or gets wrong (empty for a complete, consistent one)."""
    out: list[str] = []
    if not isinstance(spec, kinds.KindSpec):
        return [f"{spec!r} is no KindSpec"]
    if spec.cls.__dataclass_fields__["kind"].default != spec.kind:
        out.append(f"{spec.kind}: its class is tagged {spec.cls.__dataclass_fields__['kind'].default!r}")
    if not spec.description.strip():
        out.append(f"{spec.kind}: no description")
    if spec.feature not in FEATURES:
        out.append(f"{spec.kind}: feature {spec.feature!r} is no row of the conversion matrix")
    if spec.looks_at not in typing.get_args(specmod.Looks) or spec.asserts not in typing.get_args(specmod.Asserts):
        out.append(f"{spec.kind}: looks_at/asserts {spec.looks_at!r}/{spec.asserts!r} not among the known")
    if not isinstance(spec.graded, bool) or not callable(spec.score) or not callable(spec.sentence):
        out.append(f"{spec.kind}: graded, score or sentence missing")
    fields = set(ir.field_names(spec.cls))
    for fmt, shape in SHAPES.items():
        entry = getattr(spec, fmt, None)
        if not isinstance(entry, (shape, specmod.Absent, specmod.Verbatim)):
            out.append(f"{spec.kind}: no {fmt} entry (a {shape.__name__}, Absent or Verbatim), got {entry!r}")
            continue
        named = [f.field for f in entry.fields] if isinstance(entry, specmod.Agentv) else \
            [entry.field] if isinstance(entry, (specmod.Terum, specmod.Promptfoo, specmod.AgentSkills)) \
            and entry.field else []
        named += [entry.into] if isinstance(entry, specmod.Promptfoo) and entry.into else []
        out += [f"{spec.kind}: its {fmt} entry names '{n}', no field of {spec.cls.__name__}" for n in named
                if n not in fields]
    out += [f"{spec.kind}: its paths name '{n}', no field of {spec.cls.__name__}" for n in spec.paths if n not in fields]
    if spec.opposite is not None and (spec.opposite not in kinds.SPECS
                                      or kinds.SPECS[spec.opposite].opposite != spec.kind):
        out.append(f"{spec.kind}: its opposite {spec.opposite!r} does not name it back")
    return out


def test_the_formats_are_the_entries():
    assert tuple(SHAPES) == kinds.FORMATS


def test_every_check_class_has_a_spec_in_the_schema_order():
    assert list(kinds.SPECS) == [c.__dataclass_fields__["kind"].default for c in ir.CHECK_CLASSES]
    assert [s.cls for s in kinds.SPECS.values()] == list(ir.CHECK_CLASSES)
    union = typing.get_args(typing.get_args(ir.Check)[0])
    assert set(union) == set(ir.CHECK_CLASSES), "the Check union of evalfmt.ir lists every kind's class"


@pytest.mark.parametrize("kind", list(kinds.SPECS))
def test_every_kind_has_every_entry(kind):
    assert problems(kinds.SPECS[kind]) == []


def test_the_check_sees_a_missing_entry():
    """The completeness check can fail: a spec without a skillgym entry, one naming a field its class lacks."""
    broken = kinds.SPECS["contains"]._replace(skillgym=None,
                                              promptfoo=specmod.Promptfoo("contains", form="threshold", field="nope"))
    assert problems(broken) == [
        "contains: its promptfoo entry names 'nope', no field of Contains",
        "contains: no skillgym entry (a Skillgym, Absent or Verbatim), got None"]
    with pytest.raises(TypeError):  # a spec cannot leave a format out: no entry has a default
        kinds.KindSpec(kind="x", cls=ir.Contains, description="x", feature="check.output", looks_at="output",
                       asserts="presence", graded=False, score=lambda c, e: (True, ""), sentence=str,
                       terum=specmod.Absent("x"), agentv=specmod.Absent("x"), promptfoo=specmod.Absent("x"))


def test_every_kind_has_a_sample():
    assert list(SAMPLES) == list(kinds.SPECS)
    assert all(type(SAMPLES[k]) is kinds.SPECS[k].cls for k in SAMPLES)


class _Session:
    final_output = 'Done. {"a": 1}'
    tool_calls = [type("Call", (), {"name": "Read", "input": {}})()]
    input_tokens, output_tokens, cost_usd, duration_ms, num_turns = 10, 20, 0.1, 500.0, 2

    def transcript_contains(self, needle: str) -> bool:
        return needle in self.final_output.lower()

    def bash_commands(self) -> list[str]:
        return ["git commit -m x"]


class _Evidence:
    """A session and means that answer the same thing every time (what each kind does with them is tested
    against real sessions in tests/run)."""

    session = _Session()
    expected = {"a": 1}
    detection = "first-call"
    criteria = None
    runs_programs = False

    def first_match(self, pattern, flags, texts):
        return 0 if texts else None

    def path_exists(self, path):
        return path == "notes.md"

    def sandbox_command(self, command):
        return True, "exit 0"

    def skill_detected(self, skill):
        return True, "Skill call"

    def file_reads(self):
        return []

    def prompt_text(self, prompt, check):
        return prompt, ""

    def model_grade(self, check, rubric, why):
        return None, "not scored: needs a judge"

    def program_grade(self, check):
        return None, "not scored: code graders run only under evalfmt run (they execute a program)"

    def result(self, check):
        outcome = kinds.spec_of(check).score(check, self)
        return outcome[0], outcome[1], getattr(outcome, "score", None)

    def run_program(self, check, command, payload, cwd):
        raise AssertionError("no program runs here")

    def score_as(self, kind, argument):
        return True, f"{kind} on {argument}"


@pytest.mark.parametrize("kind", list(kinds.SPECS))
def test_each_kind_scores_and_says_its_sentence(kind):
    spec, check = kinds.SPECS[kind], SAMPLES[kind]
    assert kinds.spec_of(check) is spec
    passed, detail = spec.score(check, _Evidence())
    assert passed in (True, False, None) and isinstance(detail, str) and detail
    assert isinstance(spec.sentence(check), str) and spec.sentence(check)
    assert (passed is None) == spec.graded, "with no judge and no program, exactly the graded kinds are not scored"
