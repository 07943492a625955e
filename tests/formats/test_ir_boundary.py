"""The IR's pydantic boundary (evalfmt/ir/adapter.py): what ir.dump writes is what ir.validate reads back,
and the IR's JSON Schema (the adapter's) accepts every IR file the golden tests hold."""

from __future__ import annotations

import json
import pathlib

import jsonschema
import pytest

from evalfmt import ir
from evalfmt.ir import adapter

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN_IR = sorted((ROOT / "tests" / "golden").rglob("*.ir.json"))


def _sets(path: pathlib.Path) -> list[dict]:
    """The eval sets of a golden IR file: an IR document (``{"evalfmt_ir": 1, "sets": [...]}``) or a list."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return data["sets"] if isinstance(data, dict) else data


@pytest.fixture(scope="module")
def schema() -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(adapter.json_schema())


@pytest.mark.parametrize("path", GOLDEN_IR, ids=[str(p.relative_to(ROOT / "tests" / "golden")) for p in GOLDEN_IR])
def test_golden_ir_validates_and_dumps_back_unchanged(path, schema):
    for data in _sets(path):
        schema.validate(data)
        assert _without_empty(ir.dump(ir.validate(data))) == _without_empty(data)


def _without_empty(data):
    """IR data without empty ``extra``/``hints`` (a file may leave out what defaults to empty)."""
    if isinstance(data, dict):
        return {k: _without_empty(v) for k, v in data.items() if not (k in ("extra", "hints") and v == {})}
    if isinstance(data, list):
        return [_without_empty(v) for v in data]
    return data


def test_the_schema_refuses_an_unknown_field_and_kind(schema):
    with pytest.raises(jsonschema.ValidationError):
        schema.validate({"format": "terum", "bogus": 1})
    with pytest.raises(jsonschema.ValidationError):
        schema.validate({"format": "terum", "checks": [{"kind": "nope"}]})


def test_validate_coerces_as_the_classes_do():
    """A float field given an integer is a float whether the IR comes through the boundary or a reader."""
    through = ir.validate({"format": "x", "checks": [{"kind": "latency", "threshold": 2, "weight": 1}]})
    built = ir.EvalSet(format="x", checks=[ir.Latency(threshold=2, weight=1)])
    assert through == built and ir.dump(built)["checks"][0]["threshold"] == 2.0
