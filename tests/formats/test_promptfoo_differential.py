"""Differential test (issue 26 item 1): what evalfmt reads of a promptfoo config against promptfoo 0.123.1's own
expansion of it (``promptfoo eval -r echo``: each rendered prompt, each test's assertions), for every config
of our corpus (``promptfoo_corpus.py``) and for the real configs of public projects in the conformance folder
(each in a folder of its own: the vgv config with its one tests file there, ``tests/bloc.yaml``; the others
it names are missing, as promptfoo then reads them).

For each config, the multiset of (rendered input, assertions) pairs evalfmt reads (one IR case per test,
var combination and prompt; the assertions are the set's and the case's checks written back as promptfoo
assertions) equals promptfoo's, except the runs evalfmt does not render, each of which must carry an EV103
finding that names why (a JavaScript prompt, ``transformVars``). docs/promptfoo.md lists the corpus and
what is not rendered: checked here, so it cannot drift.

A config that sets ``evaluateOptions.repeat`` N: promptfoo runs each test N times, evalfmt reads it once (and
says so): each of its (prompt, assertions) pairs is promptfoo's N times over.

Skipped, saying why, only where node or npm is absent."""

from __future__ import annotations

import collections
import json
import pathlib
import re

import pytest

from conftest import CONFORMANCE, ROOT, conformance_files
from evalfmt import api
from evalfmt.formats.promptfoo import reader, writer
from promptfoo_corpus import CORPUS
import promptfoo_real
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
    findings = [d.message for d in result.diagnostics if d.code in ("EV103", "EV106")]
    return rendered, unrendered, findings


#: the real configs of the conformance folder, each with the files beside it that it names (what is there)
REAL = {
    "real-skill-comparison": {"promptfooconfig.yaml": "promptfoo/promptfoo_examples_claude-agent-sdk_skill-comparison_"
                                                      "promptfooconfig.yaml"},
    "real-skills": {"promptfooconfig.yaml": "promptfoo/promptfoo_examples_claude-agent-sdk_skills_promptfooconfig.yaml"},
    "real-vgv": {"promptfooconfig.yaml": "promptfoo/vgv-ai-flutter-plugin_evals_promptfooconfig.yaml",
                 "tests/bloc.yaml": "promptfoo/vgv-ai-flutter-plugin_evals_tests_bloc.yaml"},
}


def _real_files() -> dict[str, dict[str, str]]:
    """REAL's folders with the conformance files' texts (none where the conformance folder is absent)."""
    if not CONFORMANCE.is_dir():
        return {}
    return {name: {rel: (CONFORMANCE / src).read_text(encoding="utf-8") for rel, src in files.items()}
            for name, files in REAL.items()}


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    configs = {**CORPUS, **_real_files()}
    folders = []
    for name, files in configs.items():
        _write(root / name, files)
        folders.append(root / name)
    return root, dict(zip(configs, run_many(folders)))


#: configs promptfoo refuses, and the error evalfmt reports for each
REFUSED = {
    "refused-prompt": "{config}:2:5: EV107 there are no prompts in 'Use the skill.\\n{{{{request}}}}' (a backslash "
                      "makes promptfoo read it as a file path, and no such file exists)",
    "refused-prompt-object": "{config}:4:5: EV102 a prompt object needs a 'label' or an 'id' (promptfoo refuses "
                             "this one)",
    "refused-prompt-braces": "{config}:1:10: EV107 prompt file 'p/{{a,b}}.txt' does not exist (promptfoo stops here)",
}


def test_the_real_tools_are_the_pinned_ones():
    assert version() == "0.123.1"
    assert node_version().startswith("v22.")


def test_the_outcome_cache_key_covers_every_input(tmp_path, monkeypatch):
    """An outcome is read from the cache only for the same config, the same files it names, the same
    promptfoo and Node, and the same extraction and comparison code: a change to any runs promptfoo again."""
    _write(tmp_path, {"promptfooconfig.yaml": "prompts: [file://p.txt]\n", "p.txt": "A {{x}}\n"})
    identity = promptfoo_real.tool_identity()
    first = promptfoo_real.key(tmp_path, identity)
    (tmp_path / "p.txt").write_text("B {{x}}\n", encoding="utf-8")  # a file the config names
    second = promptfoo_real.key(tmp_path, identity)
    (tmp_path / "data.csv").write_text("x\n1\n", encoding="utf-8")  # a file it may name
    third = promptfoo_real.key(tmp_path, identity)
    assert len({first, second, third}) == 3
    monkeypatch.setattr(promptfoo_real, "node_version", lambda: "v22.0.0")
    assert promptfoo_real.key(tmp_path, promptfoo_real.tool_identity()) != third
    monkeypatch.undo()
    changed = tmp_path / "compare.py"
    changed.write_text("# another comparison\n", encoding="utf-8")
    monkeypatch.setattr(promptfoo_real, "SOURCES", (*promptfoo_real.SOURCES[:-1], changed))
    assert promptfoo_real.tool_identity() != identity


def test_a_cache_entry_is_used_only_under_its_own_key(tmp_path, monkeypatch):
    monkeypatch.setattr(promptfoo_real, "CACHE", tmp_path)
    monkeypatch.delenv("EVALFMT_PROMPTFOO_FRESH", raising=False)  # (the suite may run with it set)
    entry = {"rc": 0, "rows": [], "stderr": "", "ran": False, "key": "a" * 64, "format": promptfoo_real.ENTRY_FORMAT,
             "promptfoo": version(), "node": node_version()}
    (tmp_path / f"{'a' * 64}.json").write_text(json.dumps(entry), encoding="utf-8")
    (tmp_path / f"{'b' * 64}.json").write_text(json.dumps(entry), encoding="utf-8")  # (copied to another key)
    assert promptfoo_real.cached("a" * 64) == entry
    assert promptfoo_real.cached("b" * 64) is None
    (tmp_path / f"{'a' * 64}.json").write_text(json.dumps({**entry, "node": "v22.0.0"}), encoding="utf-8")
    assert promptfoo_real.cached("a" * 64) is None
    monkeypatch.setenv("EVALFMT_PROMPTFOO_FRESH", "1")
    (tmp_path / f"{'a' * 64}.json").write_text(json.dumps(entry), encoding="utf-8")
    assert promptfoo_real.cached("a" * 64) is None


def test_a_cached_outcome_is_what_promptfoo_gives_now(real, monkeypatch):
    """One config of the corpus run again, past the cache: the stored outcome is promptfoo's own."""
    root, outcomes = real
    monkeypatch.setenv("EVALFMT_PROMPTFOO_FRESH", "1")
    (now,) = run_many([root / "nunjucks"])
    assert now["ran"] is True
    assert now["rows"] == outcomes["nunjucks"]["rows"]


def _compare(root: pathlib.Path, name: str, outcome: dict) -> None:
    """evalfmt's reading of ``root/name/promptfooconfig.yaml`` against promptfoo's ``outcome`` (see the module
    docstring)."""
    config = root / name / "promptfooconfig.yaml"
    if outcome["rows"] is None:  # promptfoo refuses the config: so does evalfmt
        assert name in REFUSED, f"promptfoo wrote no output (exit {outcome['rc']}): {outcome['stderr']}"
        errors = [d.format() for d in api.read(str(config)).diagnostics if d.severity == "error"]
        assert errors == [REFUSED[name].format(config=config)]
        return
    assert name not in REFUSED
    repeat = _repeat(config)
    theirs = collections.Counter((r["prompt"], _key(r["assert"])) for r in outcome["rows"] if r["prompt"] is not None)
    failed = sum(1 for r in outcome["rows"] if r["prompt"] is None)  # (a render error in promptfoo)
    rendered, unrendered, findings = ours(config)
    if repeat > 1:  # (each run of promptfoo's N times, once in evalfmt, which says so)
        assert all(n % repeat == 0 for n in theirs.values()) and failed % repeat == 0
        theirs = collections.Counter({k: n // repeat for k, n in theirs.items()})
        failed //= repeat
        assert any("evaluateOptions.repeat" in f for f in findings)
    assert len(rendered) + len(unrendered) == sum(theirs.values()) + failed
    left = theirs - collections.Counter(rendered)
    assert collections.Counter(rendered) - theirs == collections.Counter()
    assert sum(left.values()) + failed == len(unrendered)
    if unrendered:
        assert findings, f"{name}: {len(unrendered)} cases not rendered without a finding"


def _repeat(config: pathlib.Path) -> int:
    data = api.read(str(config)).sets[0].extra.get("evaluateOptions")
    repeat = data.get("repeat") if isinstance(data, dict) else None
    return repeat if isinstance(repeat, int) and not isinstance(repeat, bool) else 1


@pytest.mark.parametrize("name", list(CORPUS))
def test_evalfmt_reads_what_promptfoo_expands(real, name):
    root, outcomes = real
    _compare(root, name, outcomes[name])


@pytest.mark.conformance
@pytest.mark.parametrize("name", list(REAL) if conformance_files("promptfoo/*") else [])
def test_real_configs_are_read_as_promptfoo_expands_them(real, name):
    root, outcomes = real
    _compare(root, name, outcomes[name])


#: what each finding of the corpus names (each must be in docs/promptfoo.md's "Not read", verbatim)
NOT_READ = ["a JavaScript prompt function", "options.transformVars", "which a package's function computes",
            "evaluateOptions.repeat", "a power with a fractional exponent", "a JavaScript method"]


def test_docs_list_the_corpus_and_what_is_not_rendered(real):
    root, _ = real
    doc = (ROOT / "docs" / "promptfoo.md").read_text(encoding="utf-8")
    section = doc.split("### Checked against promptfoo 0.123.1", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"^- `([\w-]+)`", section, re.M) == list(CORPUS) + list(REAL)
    not_read = " ".join(doc.split("### Not read", 1)[1].split("\n#", 1)[0].split())
    assert [what for what in NOT_READ if what not in not_read] == []
    for name in CORPUS:
        for finding in ours(root / name / "promptfooconfig.yaml")[2]:
            assert any(what in finding for what in NOT_READ), f"docs/promptfoo.md does not name: {finding}"
