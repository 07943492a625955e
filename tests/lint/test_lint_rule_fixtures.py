"""Every rule has a fixture (tests/fixtures_lint/<CODE>[-variant].yaml) with a failing and a passing
example: the failing one gives exactly the expected lines (path:line:col: CODE message) and exits 1
exactly when one of them is an error; the passing one gives nothing and exits 0.

An expected line ending in ``...`` is compared up to there (EV105's wording comes from the ECMAScript
regex module, not from the linter)."""

from __future__ import annotations

import pathlib

import pytest
import yaml

from evalfmt.lint.registry import registry
from lintkit import lint_spec  # noqa: F401 - a fixture

FIXTURES_LINT = pathlib.Path(__file__).resolve().parents[1] / "fixtures_lint"
SPECS = sorted(FIXTURES_LINT.glob("*.yaml"))


def _doc(path: pathlib.Path) -> dict:
    return yaml.safe_load(path.read_text("utf-8"))


def _codes(path: pathlib.Path) -> list[str]:
    return _doc(path).get("select") or [path.stem.split("-")[0]]


def _matches(expected: str, actual: str) -> bool:
    return actual.startswith(expected[:-3]) if expected.endswith("...") else actual == expected


@pytest.mark.parametrize("side", ["fail", "pass"])
@pytest.mark.parametrize("spec_path", SPECS, ids=[p.stem for p in SPECS])
def test_fixture(spec_path, side, lint_spec):  # noqa: F811 - the fixture imported above
    spec = _doc(spec_path)[side]
    code, lines, err = lint_spec(spec, _codes(spec_path))
    expected = spec["expect"]
    assert err == ""
    assert len(lines) == len(expected), "\n".join(lines)
    for want, got in zip(expected, lines):
        assert _matches(want, got), f"expected {want!r}\n     got {got!r}"
    if side == "pass":
        assert expected == [] and code == 0
    else:
        assert expected, "a failing example must fail"
        severities = {registry().get(line.split(": ", 1)[1].split(" ", 1)[0]).severity for line in lines}
        assert code == (1 if "error" in severities else 0)


def test_every_rule_has_a_fixture():
    covered = {c for p in SPECS for c in _codes(p)}
    missing = [r.code for r in registry() if r.origin == "evalfmt" and r.code not in covered]
    assert missing == []
