"""Differential test: evalfmt's agentv layout against the real ``agentv transpile`` (agentv@4.42.4 from
npm, installed into .cache/node/agentv/ by ``make test``), on the conformance inputs, the quirk inputs
and 200 EVAL.yaml files generated with hypothesis. Compared: the files written (byte for byte), the
exit code, and stderr (``Error:``/``Warning:`` lines against evalfmt's ``evalfmt:`` lines).

Skipped, saying why, only where node or npm is absent."""

from __future__ import annotations

import pathlib

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from agentv_real import run_many, unavailable
from conftest import ROOT, conformance_files
from evalfmt import yamlrt
from gen_evalyaml import eval_document
from quirks import QUIRKS
from test_agentv_layout import QUIRK_GOLDEN, expected_of, transpile_cli

pytestmark = [pytest.mark.node, pytest.mark.slow]
GENERATED = 200

_why = unavailable()
if _why:
    pytestmark.append(pytest.mark.skip(reason=_why))


def compare(run_cli, tmp_path: pathlib.Path, sources: list[pathlib.Path]) -> list[str]:
    """Run both tools on every source; the differences, one line each."""
    jobs = [(src, tmp_path / "agentv" / f"{i:04d}") for i, src in enumerate(sources)]
    real = run_many(jobs)
    diffs = []
    for i, ((src, _), theirs) in enumerate(zip(jobs, real)):
        ours = transpile_cli(run_cli, src, tmp_path / "evalfmt" / f"{i:04d}")
        if ours != theirs:
            what = [name for name, a, b in zip(("exit code", "stderr", "files"), ours, theirs) if a != b]
            diffs.append(f"{src}: {', '.join(what)} differ: evalfmt {ours!r} agentv {theirs!r}")
    return diffs


@pytest.mark.conformance
def test_conformance_inputs_against_the_real_cli(run_cli, tmp_path):
    sources = conformance_files("agentv-4.42.4/inputs/**/*.yaml")
    assert len(sources) == 19
    assert compare(run_cli, tmp_path, sources) == []


def test_quirk_goldens_are_still_what_the_real_cli_writes(tmp_path):
    jobs = []
    for name, text in QUIRKS.items():
        src = tmp_path / name / "EVAL.yaml"
        src.parent.mkdir()
        src.write_text(text, encoding="utf-8")
        jobs.append((src, tmp_path / name / "out"))
    real = run_many(jobs)
    assert dict(zip(QUIRKS, real)) == {name: expected_of(QUIRK_GOLDEN / name) for name in QUIRKS}


def test_generated_eval_yaml_files_against_the_real_cli(run_cli, tmp_path):
    docs: list[str] = []

    @settings(max_examples=GENERATED, derandomize=True, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(eval_document())
    def collect(doc):
        docs.append(yamlrt.dump(doc))

    collect()
    assert len(docs) >= 200
    sources = []
    for i, text in enumerate(docs):
        src = tmp_path / "gen" / f"{i:04d}" / "EVAL.yaml"
        src.parent.mkdir(parents=True)
        src.write_text(text, encoding="utf-8")
        sources.append(src)
    diffs = compare(run_cli, tmp_path, sources)
    identical = len(sources) - len(diffs)
    (ROOT / ".cache").mkdir(exist_ok=True)
    (ROOT / ".cache" / "differential-agentv.txt").write_text(
        f"{len(sources)} generated EVAL.yaml files, {identical} identical\n" + "".join(d + "\n" for d in diffs))
    assert diffs == [], f"{len(diffs)} of {len(sources)} differ; first: {diffs[0][:2000]}"
