"""Properties over every writer and transpile layout, with hypothesis-generated IR (issue 13):

- item 2: every file a writer or a transpile layout produces reads back as its format (or the writer
  says why it wrote nothing);
- item 4: lint of a converted output has no structural finding the converter caused;
- item 6: a round trip through another format keeps scalar types where the middle format holds them.
"""

from __future__ import annotations

import os
import shutil
import string
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalfmt import api, ir
from evalfmt.formats import get

WRITERS = ["terum", "agentv", "agent-skills", "skill-creator-triggers", "skillgym", "promptfoo"]
MAIN = {"agentv": "EVAL.yaml", "agent-skills": "evals.json", "skill-creator-triggers": "trigger-evals.json",
        "skillgym": "suite.ts", "promptfoo": "promptfooconfig.yaml"}
SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))

words = st.text(string.ascii_letters + string.digits + " .,'-", min_size=1, max_size=24).filter(lambda s: s.strip())
names = st.text(string.ascii_lowercase + string.digits + "-", min_size=1, max_size=10).filter(
    lambda s: s[0].isalnum() and not s.endswith("-"))
paths = st.sampled_from(["NOTES.md", "out/report.txt", "a.json"])


def checks(skill: str) -> st.SearchStrategy:
    return st.one_of(
        words.map(lambda t: ir.TranscriptMentions(text=t)),
        words.map(lambda t: ir.TranscriptOmits(text=t)),
        st.sampled_from(["git (log|tag)", "^make", "npm test"]).map(lambda p: ir.CommandMatching(pattern=p)),
        st.sampled_from(["git push", "rm -rf"]).map(lambda p: ir.NoCommandMatching(pattern=p)),
        paths.map(lambda p: ir.FileExists(path=p)),
        words.map(lambda c: ir.CommandSucceeds(command="test -f " + c.split()[0])),
        words.map(lambda v: ir.Contains(value=v)),
        st.builds(lambda v, w: ir.Icontains(value=v, weight=w), words, st.sampled_from([None, 2.0, 0.5])),
        words.map(lambda v: ir.Rubrics(criteria=[v])),
        st.booleans().map(lambda b: ir.SkillTrigger(skill=skill, should_trigger=None if b else False)),
    )


@st.composite
def evalsets(draw, fmt: str | None = None) -> ir.EvalSet:
    skill = draw(names)
    case_names = draw(st.lists(names, min_size=0, max_size=3, unique=True))
    cases = []
    for n in case_names:
        drawn = draw(st.lists(checks(skill), min_size=1, max_size=3))
        trigger = [c for c in drawn if c.kind == "skill-trigger"][:1]  # two opposite ones would conflict (EV503)
        cases.append(ir.Case(
            name=n, input=draw(words), checks=[c for c in drawn if c.kind != "skill-trigger"] + trigger,
            judge=draw(st.none() | words), bucket=draw(st.none() | st.sampled_from(ir.BUCKETS)),
            timeout_minutes=draw(st.none() | st.integers(1, 120) | st.sampled_from([0.5, 2.5, 30.0])),
            max_turns=draw(st.none() | st.integers(1, 50)), timeout_ms=draw(st.none() | st.integers(1000, 600000)),
            tags=draw(st.none() | st.lists(names, min_size=1, max_size=2)),
            expected_fail=draw(st.none() | st.booleans())))
    triggers = None
    if draw(st.booleans()):
        triggers = ir.TriggerSet(skill=skill, prompts=[ir.TriggerPrompt(text=t, should_trigger=b)
                                                       for t, b in draw(st.lists(st.tuples(words, st.booleans()),
                                                                                 min_size=1, max_size=3))])
    return ir.EvalSet(format=fmt or draw(st.sampled_from(WRITERS)), skill=ir.SkillInfo(name=skill),
                      name=draw(st.none() | names), description=draw(st.none() | words), cases=cases,
                      triggers=triggers)


def _materialise(fmt: str, files: dict[str, str], root: str) -> str:
    """Write a writer's files under ``root``; the path evalfmt reads them back from."""
    folder = os.path.join(root, "skill") if fmt == "terum" else root
    if fmt == "terum":  # a skill folder (terum files outside one are not read: docs/discovery.md)
        files = {"SKILL.md": "---\nname: skill\ndescription: d\n---\n", **files}
    for rel, text in files.items():
        path = os.path.join(folder, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    return folder if fmt == "terum" else os.path.join(root, next(iter(files)))


def _read_back(path: str, fmt: str):
    result = api.read(path)
    assert [d for d in result.diagnostics if d.code == "EV100"] == []
    assert result.sets and {s.format for s in result.sets} == {fmt}, (path, fmt)
    return result


@SETTINGS
@given(evalsets())
def test_every_writer_output_reads_back(evalset):
    for fmt in WRITERS:
        written = get(fmt).write(evalset)
        if not written.files:
            assert written.nothing, fmt  # not written: the writer says why
            continue
        root = tempfile.mkdtemp()
        try:
            _read_back(_materialise(fmt, written.files, root), fmt)
        finally:
            shutil.rmtree(root)


@SETTINGS
@given(evalsets())
def test_every_transpile_layout_reads_back(evalset):
    from evalfmt.transpile import plan

    root = tempfile.mkdtemp()
    try:
        src = _materialise("agentv", get("agentv").write(evalset).files, root)
        for layout in ("seed", "agentv"):
            p = plan([src], layout, os.path.join(root, layout))
            if not p.ok:
                continue
            for path, text in p.files.items():
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(text)
                _read_back(path, "agent-skills")
    finally:
        shutil.rmtree(root)


#: findings a converter could cause: structure, deprecated spellings, trigger conflicts
CAUSED = ("EV1", "EV501", "EV502", "EV503", "EV505")


@SETTINGS
@given(evalsets())
def test_lint_of_a_converted_output_has_no_finding_the_converter_caused(evalset):
    from evalfmt.lint import lint

    for fmt in WRITERS:
        written = get(fmt).write(evalset)
        if not written.files:
            continue
        root = tempfile.mkdtemp()
        try:
            path = _materialise(fmt, written.files, root)
            found = [d.format() for d in lint([path]).diagnostics if d.code.startswith(CAUSED)]
            assert found == [], fmt
        finally:
            shutil.rmtree(root)


def _scalars(es: ir.EvalSet) -> dict:
    out = {}
    for case in es.cases:
        for f in ("timeout_minutes", "max_turns", "timeout_ms", "expected_fail"):
            v = getattr(case, f)
            if v is not None:
                out[(case.name, f)] = (type(v).__name__, v)
        seen: dict[str, int] = {}
        for c in case.checks:  # a check is known by its label (a lost check shifts the positions)
            n = seen[c.label()] = seen.get(c.label(), 0) + 1
            if c.weight is not None:
                out[(case.name, f"weight of {c.label()} #{n}")] = (type(c.weight).__name__, c.weight)
    return out


def _through(fmt: str, es: ir.EvalSet, root: str) -> ir.EvalSet | None:
    """``es`` written as ``fmt`` and read back; None when the writer wrote nothing (and said why)."""
    files = get(fmt).write(es).files
    return _read_back(_materialise(fmt, files, root), fmt).sets[0] if files else None


FIRSTS = ["terum", "agentv", "skillgym", "promptfoo"]  # the formats that hold these scalars
MIDDLES = FIRSTS + ["agent-skills"]


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(evalsets(), st.sampled_from(FIRSTS))
def test_a_round_trip_keeps_scalar_types(evalset, first):
    root = tempfile.mkdtemp()
    try:
        start = _through(first, evalset, os.path.join(root, "a"))
        if start is None:
            return
        before = _scalars(start)
        for middle in MIDDLES:
            mid = _through(middle, start, os.path.join(root, middle, "b"))
            back = mid and _through(first, mid, os.path.join(root, middle, "c"))
            if back is None:
                continue
            for key, value in _scalars(back).items():  # what came back has the type (and value) it had
                assert before.get(key) == value, (first, middle, key, before.get(key), value)
    finally:
        shutil.rmtree(root)
