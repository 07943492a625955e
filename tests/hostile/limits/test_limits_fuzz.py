"""Fuzzing (issue 11): a hostile mutation of a seed file of each reader, and of each command family
(validate/lint, inspect/convert, transpile, score), must keep the CLI's promises: exit 0, 1 or 2, no
traceback or internal error, one-line errors or diagnostics on stderr, nothing written outside the
output folder (see ``fuzzkit``). The seeds are ours, in ``seeds/``; the budget is a dozen examples a
test with a fixed seed (``EVALFMT_FUZZ_EXAMPLES`` for more)."""

from __future__ import annotations

import json

import pytest
from fuzzkit import FUZZ, HOSTILE_SCALARS, Scratch, dump, load_seed, mutated, spliced
from hypothesis import given
from hypothesis import strategies as st

#: reader -> (the seed tree to copy, the files of it that may be mutated, the path given to evalfmt)
READERS = {
    "terum": ("terum/sample", ["terum/sample/evals/cases/notes.yaml", "terum/sample/evals/suite.yaml",
                               "terum/sample/evals/triggers.yaml", "terum/sample/SKILL.md"], "terum/sample"),
    "agentv": ("agentv/EVAL.yaml", ["agentv/EVAL.yaml"], "agentv/EVAL.yaml"),
    "agent-skills": ("agent-skills/sample", ["agent-skills/sample/evals/evals.json"],
                     "agent-skills/sample/evals/evals.json"),
    "skill-creator-triggers": ("skill-creator-triggers/sample",
                               ["skill-creator-triggers/sample/evals/sample_trigger-evals.json"],
                               "skill-creator-triggers/sample/evals/sample_trigger-evals.json"),
    "skillgym": ("skillgym/suite.ts", ["skillgym/suite.ts"], "skillgym/suite.ts"),
    "promptfoo": ("promptfoo/promptfooconfig.yaml", ["promptfoo/promptfooconfig.yaml"], "promptfoo/promptfooconfig.yaml"),
    "ir": ("ir/sample.ir.json", ["ir/sample.ir.json"], "ir/sample.ir.json"),
}
TARGETS = ["ir", "terum", "agentv", "agent-skills", "skill-creator-triggers", "skillgym", "promptfoo"]
SCORE_ENV = {"EVALFMT_REGEX_TIMEOUT": "0.1"}


@st.composite
def ts_text(draw, text: str):
    """A skillgym suite with string or number literals replaced by hostile ones, objects nested
    deep, or a snippet spliced in."""
    import re

    literals = [m.span() for m in re.finditer(r'"[^"\n]*"|`[^`]*`|\b\d[\d_]*\b', text)]
    for _ in range(draw(st.integers(0, 3))):
        start, end = draw(st.sampled_from(literals))
        value = draw(st.sampled_from(HOSTILE_SCALARS))
        literal = json.dumps(value) if isinstance(value, str) else str(value).lower() if value is not None else "null"
        text = text[:start] + literal + text[end:]
        literals = [m.span() for m in re.finditer(r'"[^"\n]*"|`[^`]*`|\b\d[\d_]*\b', text)] or [(0, 0)]
    if draw(st.booleans()):
        at = text.find("tags:")
        depth = draw(st.sampled_from([50, 95, 200]))
        if at >= 0:
            text = text[:at] + "deep: " + "{a: " * depth + "1" + "}" * depth + ", " + text[at:]
    return draw(spliced(text))


@st.composite
def document(draw, reader: str):
    """(path of the mutated file, its new text) for one of the reader's seed files."""
    _tree, files, _given = READERS[reader]
    rel = draw(st.sampled_from(files))
    if rel.endswith(".ts"):
        return rel, draw(ts_text(_seed_text(rel)))
    if rel.endswith(".md"):
        return rel, draw(spliced(_seed_text(rel)))
    kind = "json" if rel.endswith(".json") else "yaml"
    data = draw(mutated(load_seed(rel)))
    return rel, draw(spliced(dump(data, kind)))


def _seed_text(rel: str) -> str:
    from limitkit import SEEDS

    return (SEEDS / rel).read_text(encoding="utf-8")


def scratch_with(reader: str, doc: tuple[str, str]) -> tuple[Scratch, str]:
    s = Scratch()
    tree, _files, given_path = READERS[reader]
    s.copy(tree)
    s.write(*doc)
    return s, given_path


# ------------------------------------------------------------------------------------ per reader


def _reader_test(reader: str, doc) -> None:
    s, path = scratch_with(reader, doc)
    try:
        s.run("validate", "--from", reader, path)
        s.run("inspect", "--format", "json", "--from", reader, path)
    finally:
        s.close()


@pytest.mark.parametrize("reader", sorted(READERS))
@FUZZ
@given(data=st.data())
def test_fuzz_reader(reader, data):
    _reader_test(reader, data.draw(document(reader)))


# ------------------------------------------------------------------------------ per command family

any_document = st.sampled_from(sorted(READERS)).flatmap(lambda r: st.tuples(st.just(r), document(r)))


@FUZZ
@given(any_document)
def test_fuzz_validate_and_lint(reader_doc):
    reader, doc = reader_doc
    s, path = scratch_with(reader, doc)
    try:
        s.run("validate", path)
        s.run("lint", "--isolated", "--from", reader, path)
        s.run("lint", "--isolated", "--diff", "--format", "json", path)
    finally:
        s.close()


@FUZZ
@given(any_document, st.sampled_from(TARGETS))
def test_fuzz_inspect_and_convert(reader_doc, target):
    reader, doc = reader_doc
    s, path = scratch_with(reader, doc)
    try:
        s.run("inspect", "--from", reader, path)
        s.run("convert", "--from", reader, path, "--to", target, "-o", "out/" + ("x.json" if target == "ir" else "x"))
        s.run("convert", "--from", reader, path, "--to", target, "--strict", "-o", "out/strict")
    finally:
        s.close()


@FUZZ
@given(st.sampled_from(["agentv", "terum", "skill-creator-triggers", "agent-skills", "promptfoo", "ir"])
       .flatmap(lambda r: st.tuples(st.just(r), document(r))), st.sampled_from(["seed", "agentv"]))
def test_fuzz_transpile(reader_doc, layout):
    reader, doc = reader_doc
    s, path = scratch_with(reader, doc)
    try:
        s.run("transpile", "--from", reader, path, "-d", "out", "--layout", layout)
        s.run("transpile", "--from", reader, path, "-d", "out", "--check")
    finally:
        s.close()


@st.composite
def transcript(draw):
    """The seed session with hostile records: values replaced, deep nesting, lines cut or not JSON."""
    lines = [json.loads(line) for line in _seed_text("transcripts/session.jsonl").splitlines()]
    out = []
    for rec in lines:
        if draw(st.integers(0, 3)) == 0:
            rec = draw(mutated(rec))
        out.append(json.dumps(rec, ensure_ascii=False))
    extra = draw(st.sampled_from(["", '{"type":"user","x":' + "[" * 5000 + "]" * 5000 + "}",
                                  "not json at all", '{"type": "assistant", "message": {"content": "' + "x" * 3000 + '"}}',
                                  json.dumps({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "d",
                                              "name": "Bash", "input": {"command": "ls", "deep": [[[[[[1]]]]]] * 3}}]}})]))
    if extra:
        out.insert(draw(st.integers(0, len(out))), extra)
    return draw(spliced("\n".join(out) + "\n"))


@FUZZ
@given(st.sampled_from(["terum", "agentv", "agent-skills", "skillgym", "promptfoo", "ir"])
       .flatmap(lambda r: st.tuples(st.just(r), document(r))), transcript())
def test_fuzz_score(reader_doc, session):
    reader, doc = reader_doc
    s, path = scratch_with(reader, doc)
    if reader == "terum":
        path = "terum/sample/evals/cases/notes.yaml"
    s.write("session.jsonl", session)
    try:
        s.run("score", "--from", reader, path, "--transcript", "session.jsonl", env=SCORE_ENV)
        s.run("score", "--from", reader, path, "--transcript", "session.jsonl", "--format", "json",
              "--trigger-detection", "any-call", env=SCORE_ENV)
    finally:
        s.close()
