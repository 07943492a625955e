"""The one receipt model (evalfmt/receipt.py): every receipt evalfmt wrote reads back identically (the
document, and the bytes for evalfmt's own), its generated JSON Schema and its checks accept and refuse
the same documents, and run and compare write through it."""

from __future__ import annotations

import json

import jsonschema
import pytest
from reporthelp import RECEIPTS, ROOT
from test_report_cli import MUTATIONS

from evalfmt.receipt import Receipt, ReceiptError, check

#: evalfmt's own receipts (terum-style.json was written by another serializer: same document, other bytes)
OURS = (sorted(p for p in RECEIPTS.glob("*.json") if p.name != "terum-style.json")
        + [ROOT / "tests/golden/run/receipt.json"])
ALL = sorted(RECEIPTS.glob("*.json")) + [ROOT / "tests/golden/run/receipt.json"]


def schema_validator() -> jsonschema.Draft202012Validator:
    schema = json.loads((ROOT / "schemas" / "receipt.schema.json").read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_receipts_read_back_identically(path):
    raw = path.read_bytes()
    receipt = Receipt.load(str(path))
    assert receipt.to_json() == json.loads(raw)
    assert list(receipt.to_json()) == list(json.loads(raw))  # the same key order
    if path in OURS:
        assert receipt.dumps() == raw
    assert schema_validator().is_valid(json.loads(raw))


def test_fields_are_typed_and_unknown_ones_kept():
    data = json.loads((RECEIPTS / "partial.json").read_text("utf-8"))
    data["a_future_field"] = {"x": [1]}
    receipt = Receipt.from_json(data)
    assert (receipt.verdict, receipt.execution_status) == ("PASS", "partial")
    assert (receipt.expected_rows, receipt.scored_rows) == (8, 6)
    assert receipt.comparisons["candidate-vs-baseline"]["win"] == 3
    assert receipt.extra == {"a_future_field": {"x": [1]}}
    assert list(receipt.to_json())[-1] == "a_future_field" and receipt.to_json() == data


@pytest.mark.parametrize("mutate, message", [m[1:] for m in MUTATIONS], ids=[m[0] for m in MUTATIONS])
def test_the_schema_refuses_what_the_model_refuses(mutate, message):
    data = json.loads((RECEIPTS / "release-notes-3.json").read_text("utf-8"))
    mutate(data)
    assert check(data) == message
    with pytest.raises(ReceiptError, match="^r.json: "):
        Receipt.from_json(data, "r.json")
    assert not schema_validator().is_valid(data)


@pytest.mark.parametrize("data, message", [
    ({"schema_version": 2, "verdict": "PASS", "execution_status": "complete", "expected_rows": 0, "scored_rows": 0,
      "comparisons": {}, "skill_name": "s", "environment_skips": "x"},
     "field 'environment_skips' must be a list, not a string"),
    ({"schema_version": 2, "verdict": "PASS", "execution_status": "complete", "expected_rows": 0, "scored_rows": 0,
      "comparisons": {}, "skill_name": "s", "case_runs": {"candidate": {"passed": 1}}},
     "field 'case_runs.candidate' must be an object with integer 'passed' and 'total'"),
    ({"schema_version": 2, "verdict": "PASS", "execution_status": "complete", "expected_rows": 0, "scored_rows": 0,
      "comparisons": {}, "skill_name": "s", "triggers": []},
     "field 'triggers' must be an object or null, not a list"),
    ({"schema_version": 2, "verdict": "PASS", "execution_status": "complete", "expected_rows": 0, "scored_rows": 0,
      "comparisons": {}, "skill_name": "s", "rows": [{"case": "a", "repetition": 1, "opponent": "baseline",
                                                      "outcome": "win", "reason": "checks",
                                                      "arms": {"candidate": {"checks": [{"check": "c", "passed": 1}]}}}]},
     "field 'rows[0].arms.candidate.checks[0].passed' must be true, false or null, not 1"),
    ({"schema_version": 2, "verdict": "PASS", "execution_status": "complete", "expected_rows": 0, "scored_rows": 0,
      "comparisons": {"candidate-vs-baseline": {"win": 0, "loss": 0, "tie": 0, "net_lift": "x"}}, "skill_id": 7},
     "field 'comparisons.candidate-vs-baseline.net_lift' must be a number, not 'x'"),
])
def test_messages_of_the_other_fields(data, message):
    assert check(data) == message
    assert not schema_validator().is_valid(data)


def test_compare_writes_its_receipt_through_the_model(run_cli, tmp_path, monkeypatch):
    """A receipt the model refuses is never written (an internal error, exit 2), not a file the report
    cannot read."""
    from evalfmt.run import receipt as receipt_mod

    real = receipt_mod.build

    def broken(*args, **kwargs):
        data = real(*args, **kwargs)
        data["verdict"] = "MAYBE"
        return data

    monkeypatch.setattr(receipt_mod, "build", broken)
    skill = ROOT / "fixtures" / "library" / "release-notes"
    runs = ROOT / "fixtures" / "sessions" / "release-notes"
    target = tmp_path / "receipt.json"
    code, out, err = run_cli("compare", str(skill), "--arm", f"candidate={runs}/candidate", "--arm",
                             f"baseline={runs}/baseline", "--receipt", str(target))
    assert (code, out) == (2, "")
    assert err == ("evalfmt: the receipt evalfmt built: field 'verdict' must be one of PASS, NEUTRAL, FAIL, "
                   "not 'MAYBE'\n")
    assert not target.exists()


def test_a_receipt_written_by_compare_is_read_by_report(run_cli, tmp_path):
    skill = ROOT / "fixtures" / "library" / "release-notes"
    runs = ROOT / "fixtures" / "sessions" / "release-notes"
    target = tmp_path / "receipt.json"
    code, _, _ = run_cli("compare", str(skill), "--arm", f"candidate={runs}/candidate", "--arm",
                         f"baseline={runs}/baseline", "--receipt", str(target))
    assert code in (0, 1)
    raw = target.read_bytes()
    assert Receipt.load(str(target)).dumps() == raw
    assert schema_validator().is_valid(json.loads(raw))
    assert run_cli("report", str(target), "--format", "markdown")[0] == 0


def test_a_document_without_a_path_is_named_receipt():
    with pytest.raises(ReceiptError, match="^receipt: not a receipt: the top level is a list, not an object$"):
        Receipt.from_json([])


def test_put_places_a_new_field_where_evalfmt_writes_it():
    data = json.loads((RECEIPTS / "partial.json").read_text("utf-8"))
    receipt = Receipt.from_json(data)
    receipt.put("dropped_cases", {"x": {"kind": "setup", "detail": "d"}})
    receipt.put("environment_skips", {})
    receipt.put("verdict", "FAIL")
    receipt.put("interrupted", False)
    receipt.put("later", 1)
    keys = list(receipt.to_json())
    assert keys[keys.index("arm_scores") + 1:keys.index("arm_scores") + 4] == ["environment_skips", "dropped_cases",
                                                                               "per_case"]
    assert keys[-3:] == ["rows", "interrupted", "later"] and receipt.to_json()["verdict"] == "FAIL"
    assert keys.index("verdict") == list(data).index("verdict")
    assert Receipt.from_json(json.loads(receipt.dumps())).to_json() == receipt.to_json()
