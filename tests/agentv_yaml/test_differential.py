"""Differential test: evalfmt's reading of agentv files against agentv's own YAML parser (the ``yaml``
npm package agentv 4.42.4 depends on, called as agentv calls it: ``parse(text, {merge: true})``), in one
Node process for the whole session. For every text: both accept or both refuse; a refusal is at the
same line and column (where the package gives one); an accepted text gives the same data.

Texts: the agentv conformance files (read in place), our hand-written corpus (corpus.py), and YAML
edge cases generated with hypothesis (gen_yaml.py: multi-line flow scalars, flow collections over
several lines, tabs, anchors and aliases, merge keys, duplicate keys, odd indentation, document
markers, long keys, control characters), plus documents in the plain subset with small edits.

Skipped, saying why, only where node or npm is absent."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import conformance_files
from corpus import CORPUS
from gen_yaml import document, plain_document, soup
from yaml_js import YamlJs, differences, unavailable

pytestmark = [pytest.mark.node]

_why = unavailable()
if _why:
    pytestmark.append(pytest.mark.skip(reason=_why))


@pytest.fixture(scope="module")
def yaml_js():
    js = YamlJs()
    yield js
    js.close()


def test_the_package_is_the_one_agentv_uses(yaml_js):
    yaml_js.parse(["a: 1\n"])
    assert yaml_js.version == "2.9.1", (
        f"agentv's yaml is now {yaml_js.version}: evalfmt models 2.9.1; review evalfmt/npmyaml against its changes")


def test_hand_written_corpus(yaml_js):
    texts = list(CORPUS.values())
    assert differences(texts, yaml_js.parse(texts)) == []


@pytest.mark.conformance
def test_conformance_agentv_files(yaml_js):
    paths = conformance_files("agentv-4.42.4/**/*.yaml", "agentv-4.42.4/**/*.yml")
    assert len(paths) >= 19
    texts = [p.read_text(encoding="utf-8") for p in paths]
    results = yaml_js.parse(texts)
    assert differences(texts, results) == []
    assert all(r["ok"] for r in results)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_generated_edge_cases(yaml_js, r):
    """Each example is a batch (one round trip to Node): documents with edge cases, punctuation soup,
    and documents in the plain subset with small edits."""
    texts = [document(r) for _ in range(10)] + [soup(r) for _ in range(10)] + [plain_document(r, 2) for _ in range(10)]
    assert differences(texts, yaml_js.parse(texts)) == []
