"""Differential test (issue 26 item 1): what evalfmt reads of a promptfoo config against promptfoo 0.123.1's own
expansion of it (``promptfoo eval -r echo``: each rendered prompt, each test's assertions), for every config
of our corpus (``promptfoo_corpus.py``).

For each config, the multiset of (rendered input, assertions) pairs evalfmt reads (one IR case per test,
var combination and prompt; the assertions are the set's and the case's checks written back as promptfoo
assertions) equals promptfoo's, except the runs evalfmt does not render, each of which must carry an EV103
finding that names why (a JavaScript prompt, ``transformVars``). docs/promptfoo.md lists the corpus and
what is not rendered: checked here, so it cannot drift.

Skipped, saying why, only where node or npm is absent."""

from __future__ import annotations

import collections
import json
import pathlib
import re

import pytest

from conftest import ROOT
from evalfmt import api
from evalfmt.formats.promptfoo import reader, writer
from promptfoo_corpus import CORPUS
from promptfoo_real import node_version, run_many, unavailable, version

pytestmark = [pytest.mark.node, pytest.mark.slow]
_why = unavailable()
if _why:
    pytestmark.append(pytest.mark.skip(reason=_why))


def _write(root: pathlib.Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


def _key(asserts: list) -> str:
    """Assertions as comparable text (JavaScript has one number type: 2.0 is 2)."""
    def js(v):
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, list):
            return [js(x) for x in v]
        if isinstance(v, dict):
            return {k: js(x) for k, x in v.items()}
        return v
    return json.dumps(js(asserts), sort_keys=True, ensure_ascii=False)


def ours(config: pathlib.Path) -> tuple[list[tuple[str, str]], list[str], list[str]]:
    """(rendered input, assertions) per case evalfmt reads; the names of the cases it does not render; the
    EV103 findings."""
    result = api.read(str(config))
    (evalset,) = result.sets
    w = writer._W(evalset)
    set_asserts = writer._assertions(w, list(evalset.checks), "checks")
    rendered, unrendered = [], []
    for case in evalset.cases:
        if case.input is None:
            unrendered.append(case.name)
            continue
        asserts = set_asserts + writer._assertions(w, list(case.checks), case.name)
        rendered.append((reader.chat_text(case.input), _key(asserts)))
    findings = [d.message for d in result.diagnostics if d.code == "EV103"]
    return rendered, unrendered, findings


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    folders = []
    for name, files in CORPUS.items():
        _write(root / name, files)
        folders.append(root / name)
    return root, dict(zip(CORPUS, run_many(folders)))


#: configs promptfoo refuses, and the error evalfmt reports for each
REFUSED = {
    "refused-prompt": "{config}:2:5: EV107 there are no prompts in 'Use the skill.\\n{{{{request}}}}' (a backslash "
                      "makes promptfoo read it as a file path, and no such file exists)",
    "refused-prompt-object": "{config}:4:5: EV102 a prompt object needs a 'label' or an 'id' (promptfoo refuses "
                             "this one)",
}


def test_the_real_tools_are_the_pinned_ones():
    assert version() == "0.123.1"
    assert node_version().startswith("v22.")


@pytest.mark.parametrize("name", list(CORPUS))
def test_evalfmt_reads_what_promptfoo_expands(real, name):
    root, outcomes = real
    outcome = outcomes[name]
    config = root / name / "promptfooconfig.yaml"
    if outcome["rows"] is None:  # promptfoo refuses the config: so does evalfmt
        assert name in REFUSED, f"promptfoo wrote no output (exit {outcome['rc']}): {outcome['stderr']}"
        errors = [d.format() for d in api.read(str(config)).diagnostics if d.severity == "error"]
        assert errors == [REFUSED[name].format(config=config)]
        return
    assert name not in REFUSED
    theirs = collections.Counter((r["prompt"], _key(r["assert"])) for r in outcome["rows"] if r["prompt"] is not None)
    failed = sum(1 for r in outcome["rows"] if r["prompt"] is None)  # (a render error in promptfoo)
    rendered, unrendered, findings = ours(config)
    assert len(rendered) + len(unrendered) == len(outcome["rows"])
    left = theirs - collections.Counter(rendered)
    assert collections.Counter(rendered) - theirs == collections.Counter()
    assert sum(left.values()) + failed == len(unrendered)
    if unrendered:
        assert findings, f"{name}: {len(unrendered)} cases not rendered without a finding"


def test_docs_list_the_corpus_and_what_is_not_rendered(real):
    root, _ = real
    doc = (ROOT / "docs" / "promptfoo.md").read_text(encoding="utf-8")
    section = doc.split("### Checked against promptfoo 0.123.1", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"^- `([\w-]+)`", section, re.M) == list(CORPUS)
    not_read = doc.split("### Not read", 1)[1].split("\n#", 1)[0]
    for name in CORPUS:
        for finding in ours(root / name / "promptfooconfig.yaml")[2]:
            what = re.match(r"not rendered: (a JavaScript prompt function|options\.transformVars|[^(:']+)", finding)
            assert what and what.group(1).strip() in not_read, f"docs/promptfoo.md does not name: {finding}"
