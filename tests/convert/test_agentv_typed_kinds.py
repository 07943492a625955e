"""agentv's composite, execution-metrics, field-accuracy, rubric and inline-assert (and rubrics criteria given as
one string) are typed kinds (issue 25 item 2): the IR holds what the executor needs in typed fields, an
agentv file holding them writes back byte for byte, and another format loses them in the words it used for
the opaque checks they were (each kind's Verbatim entry, with the class's origin: agentv)."""

from __future__ import annotations

import json

import pytest

AGENTV = """tests:
  - id: a
    input: go
    criteria: c
    assertions:
      - name: gate
        type: composite
        assertions:
          - type: contains
            value: salt
          - name: tone
            type: rubric
            criteria: polite
        aggregator:
          type: threshold
          threshold: 0.5
          note: kept
      - type: execution-metrics
        max_tool_calls: 3
        max_ratio: 0.5
      - type: field-accuracy
        fields:
          - path: total
        aggregation: all_or_nothing
      - type: rubric
        value: polite
      - type: inline-assert
        fn: check
      - type: rubrics
        criteria: one text
        min_score: 0.5
"""

SHOWN = ("kind", "name", "members", "aggregator", "max_tool_calls", "unknown", "fields", "aggregation", "criteria",
         "value", "min_score", "extra")


def _shown(check: dict) -> dict:
    out = {k: check[k] for k in SHOWN if k in check}
    if "members" in out:
        out["members"] = [_shown(m) for m in out["members"]]
    if "aggregator" in out:
        out["aggregator"] = {k: v for k, v in out["aggregator"].items() if k not in ("span", "hints")}
    return out


def test_the_ir_holds_them_in_typed_fields(run_cli, tmp_path):
    src = tmp_path / "EVAL.yaml"
    src.write_text(AGENTV, encoding="utf-8")
    rc, out, err = run_cli("convert", str(src), "--to", "ir")
    assert rc == 0, err
    checks = json.loads(out)["sets"][0]["cases"][0]["checks"]
    assert [_shown(c) for c in checks] == [
        {"kind": "composite", "name": "gate", "members": [
            {"kind": "contains", "value": "salt", "extra": {}},
            {"kind": "rubric", "name": "tone", "criteria": "polite", "extra": {}}],
         "aggregator": {"type": "threshold", "threshold": 0.5, "extra": {"note": "kept"}}, "extra": {}},
        {"kind": "execution-metrics", "max_tool_calls": 3.0, "unknown": ["max_ratio"], "extra": {"max_ratio": 0.5}},
        {"kind": "field-accuracy", "fields": [{"path": "total"}], "aggregation": "all_or_nothing", "extra": {}},
        {"kind": "rubric", "value": "polite", "extra": {}},
        {"kind": "inline-assert", "extra": {"fn": "check"}},
        {"kind": "rubrics", "criteria": ["one text"], "min_score": 0.5, "extra": {}},
    ]


def test_written_back_byte_for_byte(run_cli, tmp_path):
    src = tmp_path / "EVAL.yaml"
    src.write_text(AGENTV, encoding="utf-8")
    rc, out, err = run_cli("convert", str(src), "--to", "agentv")
    assert (rc, err, out) == (0, "", AGENTV)


#: what each format's writer said of these checks when they were opaque (the words they keep)
LOST = {
    "terum": ["lost: {src}:6: agentv check 'composite' (terum has no such check kind)",
              "lost: {src}:18: agentv check 'execution-metrics' (terum has no such check kind)",
              "lost: {src}:21: agentv check 'field-accuracy' (terum has no such check kind)",
              "lost: {src}:25: agentv check 'rubric' (terum has no such check kind)",
              "lost: {src}:27: agentv check 'inline-assert' (terum has no such check kind)"],
    "promptfoo": ["lost: {src}:6: agentv check 'composite' (no promptfoo equivalent)",
                  "lost: {src}:18: agentv check 'execution-metrics' (no promptfoo equivalent)",
                  "lost: {src}:21: agentv check 'field-accuracy' (no promptfoo equivalent)",
                  "lost: {src}:25: agentv check 'rubric' (no promptfoo equivalent)",
                  "lost: {src}:27: agentv check 'inline-assert' (no promptfoo equivalent)"],
    "skillgym": [f"lost: {{src}}:{line}: check '{kind}' of 'a' (skillgym has no equivalent: agentv code)"
                 for line, kind in ((6, "composite"), (18, "execution-metrics"), (21, "field-accuracy"),
                                    (25, "rubric"), (27, "inline-assert"))],
    "agent-skills": [f"lost: {{src}}:{line}: check '{kind}' became the expectation sentence \"Passes the agentv "
                     f"check '{kind}'\" (a model grades it; nothing checks it mechanically)"
                     for line, kind in ((6, "composite"), (18, "execution-metrics"), (21, "field-accuracy"),
                                        (25, "rubric"), (27, "inline-assert"))],
}


@pytest.mark.parametrize("target", list(LOST))
def test_another_format_loses_them_in_the_words_of_an_opaque_check(run_cli, tmp_path, target):
    src = tmp_path / "EVAL.yaml"
    src.write_text(AGENTV, encoding="utf-8")
    rc, _, err = run_cli("convert", str(src), "--to", target, "-o", str(tmp_path / "out"))
    assert rc == 0, err
    lost = [line.removeprefix("evalfmt: ") for line in err.splitlines()
            if any(f"'{k}" in line for k in ("composite", "execution-metrics", "field-accuracy", "rubric'",
                                             "inline-assert"))]
    assert lost == [line.format(src=src) for line in LOST[target]]
