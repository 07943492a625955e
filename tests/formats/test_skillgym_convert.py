"""Conversions through skillgym: terum -> skillgym -> terum and agentv -> skillgym keep what a skillgym
suite can hold, and the loss report names the rest (golden outputs, run through the CLI)."""

from __future__ import annotations

import pytest

from conftest import CONFORMANCE, ROOT, check_golden, conformance_files, conformance_id
from evalfmt import api, ir
from evalfmt.formats import get
from evalfmt.formats.skillgym import reader as skillgym_read
from evalfmt.formats.skillgym import writer as skillgym_write

GOLDEN = ROOT / "tests" / "golden" / "skillgym"
CHECK_LOSS = "check '"


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def convert_cli(run_cli, src: str) -> tuple[str, str]:
    code, out, err = run_cli("convert", src, "--to", "skillgym")
    assert code == 0, err
    return out, err


def test_terum_to_skillgym_golden(run_cli):
    out, err = convert_cli(run_cli, "fixtures/library/release-notes")
    check_golden(GOLDEN / "from-terum-release-notes.ts", out)
    check_golden(GOLDEN / "from-terum-release-notes.losses.txt", err)


def test_terum_to_skillgym_to_terum_keeps_what_skillgym_holds():
    (terum_set,) = api.read("fixtures/library/release-notes").sets
    written = skillgym_write.write(terum_set)
    (text,) = written.files.values()
    (back,) = skillgym_read.read_text_as("suite.ts", text).sets
    again = get("terum").write(back)
    held = ("transcript_mentions", "transcript_omits", "command_matching", "no_command_matching")
    source_cases = list(terum_set.cases) + [ir.Case(name=e.name, checks=e.checks) for e in terum_set.suite.entries]
    by_name = {c.name: c for c in back.cases}
    for case in source_cases:
        kept = [ir.content(c) for c in case.checks if c.kind in held]
        assert [strip(ir.content(c)) for c in by_name[case.name].checks] == [strip(k) for k in kept], case.name
        assert by_name[case.name].input == (case.input or terum_set.suite.input)
    # every check skillgym cannot hold is named in the loss report
    lost_checks = [c for case in source_cases for c in case.checks if c.kind not in held]
    check_losses = [loss.what for loss in written.losses if loss.what.startswith(CHECK_LOSS)]
    assert [w.split("'")[1] for w in check_losses] == [c.label() for c in lost_checks]
    # and terum writes the cases back with the checks that came through
    assert sorted(again.files) == sorted(f"evals/cases/{c.name}.yaml" for c in source_cases)


def strip(data):
    if isinstance(data, dict):
        return {k: strip(v) for k, v in data.items() if k not in ("hints", "span")}
    if isinstance(data, list):
        return [strip(v) for v in data]
    return data


def test_agentv_to_skillgym_golden(run_cli):
    out, err = convert_cli(run_cli, "fixtures/agentv/EVAL.yaml")
    check_golden(GOLDEN / "from-agentv-fixture.ts", out)
    check_golden(GOLDEN / "from-agentv-fixture.losses.txt", err)


AGENTV_INPUTS = conformance_files("agentv-4.42.4/inputs/**/*.yaml")


@pytest.mark.conformance
@pytest.mark.parametrize("path", AGENTV_INPUTS, ids=conformance_id)
def test_agentv_conformance_to_skillgym(path):
    result = api.read(str(path))
    for i, evalset in enumerate(result.sets):
        written = skillgym_write.write(evalset)
        (text,) = written.files.values()
        name = path.relative_to(CONFORMANCE / "agentv-4.42.4" / "inputs").as_posix().replace("/", "__")
        check_golden(GOLDEN / "agentv" / (name + (f".{i}" if i else "") + ".ts"), text)
        losses = "".join(loss.format().replace(str(CONFORMANCE), "$CONFORMANCE") + "\n" for loss in written.losses)
        check_golden(GOLDEN / "agentv" / (name + (f".{i}" if i else "") + ".losses.txt"), losses)
        back = skillgym_read.read_text_as("suite.ts", text)
        assert back.diagnostics == []
        (read_back,) = back.sets
        # each check of each test either came through as a check or is named as a loss
        set_checks = len(evalset.checks)
        for case, got in zip(evalset.cases, read_back.cases):
            lost = [l for l in written.losses if l.what.startswith(CHECK_LOSS) and f" of '{case.name}' (" in l.what]
            assert len(got.checks) + len(lost) == len(case.checks) + set_checks, case.name
