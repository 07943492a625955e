"""A trigger run's receipt is read as data: values of the wrong type show nothing (or `?` for a count),
markup in a count is never written out, and the report never fails with a traceback."""

from __future__ import annotations

import json
import pathlib

import pytest

GOLDEN_RECEIPT = pathlib.Path(__file__).resolve().parents[1] / "golden" / "run" / "library" / "receipt.json"


def _hostile(tmp_path) -> pathlib.Path:
    data = json.loads(GOLDEN_RECEIPT.read_text())
    deploy = data["scores"]["library"]["skills"][0]
    deploy.update(misses=5, false_fires="abc", tp="<img src=x onerror=alert(1)>\n| x |", fn=None)
    data["scores"]["library"]["skills"][1]["misses"] = {"a": 1}
    path = tmp_path / "receipt.json"
    path.write_text(json.dumps(data, indent=2))
    return path


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_wrong_types_in_a_trigger_run_receipt_show_nothing_and_no_markup(run_cli, tmp_path, fmt):
    path = _hostile(tmp_path)
    code, out, err = run_cli("report", str(path), "--format", fmt)
    assert (code, err) == (0, "")
    assert "<img" not in out and "onerror" not in out
    assert "MISS: deploy" not in out and "FALSE-FIRE: deploy" not in out and "MISS: notes" not in out
    if fmt == "markdown":
        assert "| deploy | 0.50 | 1.00 | 0.67 | 0.50 | ? | ? | 0 | 1 |" in out.splitlines()
    else:
        assert ('<td class="num">?</td><td class="num">?</td><td class="num">0</td><td class="num">1</td>'
                in out)
