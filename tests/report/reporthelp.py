"""Helpers of the report tests: the fixed receipts (tests/report/receipts/, made by
tools/make_receipts.py with the scoring code) and their golden renderings (tests/golden/report/)."""

from __future__ import annotations

import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
RECEIPTS = pathlib.Path(__file__).resolve().parent / "receipts"
GOLDEN = ROOT / "tests" / "golden" / "report"


def receipt(name: str) -> str:
    """A fixed receipt's path relative to the repository root (as reports print it)."""
    return f"tests/report/receipts/{name}.json"
