"""Issue 13: the conversion matrix (docs/conversions.md) is generated from the writers' loss tables
and checked against real conversions of sample files of every format, so the docs cannot drift."""

from __future__ import annotations

import pytest

from conftest import FIXTURES, ROOT
from evalfmt import api
from evalfmt.formats import matrix
from evalfmt.formats.losses import FEATURES, features_of

SAMPLES = ROOT / "tests" / "convert" / "samples"
#: our own files of each format that, together, use every feature the format's reader produces
SOURCES = {
    "terum": [FIXTURES / "library" / "release-notes", FIXTURES / "library" / "csv-summary", SAMPLES / "terum" / "kitchen"],
    "agentv": [FIXTURES / "agentv" / "EVAL.yaml", SAMPLES / "agentv" / "kitchen.EVAL.yaml"],
    "agent-skills": [SAMPLES / "agent-skills" / "evals" / "evals.json"],
    "skill-creator-triggers": [SAMPLES / "skill-creator-triggers" / "trigger-evals.json"],
    "skillgym": [FIXTURES / "skillgym" / "array-suite.ts", FIXTURES / "skillgym" / "record-suite.ts"],
    "promptfoo": [SAMPLES / "promptfoo" / "promptfooconfig.yaml"],
}


def test_the_docs_are_generated_from_the_tables():
    text = (ROOT / "docs" / "conversions.md").read_text(encoding="utf-8")
    assert text == matrix.render(), "docs/conversions.md is stale: python -m evalfmt.formats.matrix > docs/conversions.md"


def test_every_source_and_target_is_in_the_matrix():
    assert set(SOURCES) == set(matrix.SOURCE_FEATURES) == set(matrix.WRITERS)
    for feats in matrix.SOURCE_FEATURES.values():
        assert set(feats) <= set(FEATURES)


@pytest.mark.parametrize("source", list(SOURCES))
def test_the_samples_use_exactly_the_features_the_matrix_lists(source):
    used: set[str] = set()
    for path in SOURCES[source]:
        for es in api.read(str(path)).sets:
            used |= features_of(es)
    assert sorted(used) == sorted(matrix.SOURCE_FEATURES[source])


# a format converted to itself loses nothing: each format's round-trip tests cover those pairs
@pytest.mark.parametrize("source, target", [(s, t) for s in SOURCES for t in matrix.WRITERS if s != t])
def test_real_conversions_report_what_the_matrix_says(source, target):
    from evalfmt.formats import get

    writer = get(target).write
    for path in SOURCES[source]:
        for es in api.read(str(path)).sets:
            present = features_of(es)
            losses = writer(es).losses
            keys = [x.feature for x in losses]
            tab = matrix.table(target).rules
            for loss in losses:  # every record comes from a rule that applies to this source
                rule = tab[loss.feature]
                assert rule.sources is None or source in rule.sources, (loss.feature, loss.format())
                assert (rule.kept is None) == loss.lost
            if any(k == "set.checks" for k in keys):  # a lost set-level check reports the kinds it holds
                keys.extend(f for f in present if f.startswith("check."))
            for key, rule in tab.items():  # every unconditional rule of a feature the file uses is reported
                feature = key.split("/")[0]
                if rule.when or feature not in present or (rule.sources and source not in rule.sources):
                    continue
                assert any(k.split("/")[0] in (feature, rule.covered_by) for k in keys), (str(path), target, key)
