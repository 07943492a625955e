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


TEST_ID = "<script>document.body.setAttribute('data-pwned','1')</script> | `x` | \u202eevil\u202c"
SKILL = '"><img src=x onerror="document.title=\'pwned\'"> | *a* [l](u)'
FOLDER = "</style><script>x</script>"


def test_hostile_names_in_a_trigger_run_stay_text(tmp_path):
    """A test id, a skill name and a library folder full of markup, pipes, Markdown specials and a bidi
    override: the page builds no element from them and shows each as text; every Markdown table keeps its
    shape and no raw HTML gets through."""
    from test_report_escaping import assert_safe_html, assert_safe_markdown

    from evalfmt.report import render
    from evalfmt.report.text import visible

    text = (GOLDEN_RECEIPT.parent / "compare-libraries.json").read_text()
    text = text.replace('"deps"', json.dumps(TEST_ID)).replace('"audit"', json.dumps(SKILL))
    text = text.replace('"folder": "b"', f'"folder": {json.dumps(FOLDER)}')
    path = tmp_path / "cmp.json"
    path.write_text(text)
    page = assert_safe_html(render([str(path)], "html"))
    for value in (TEST_ID, SKILL, FOLDER):
        assert visible(value) in page.text
    assert "\u202e" not in page.text and "[U+202E]evil[U+202C]" in page.text
    md = render([str(path)], "markdown")
    assert_safe_markdown(md)
    assert "\u202e" not in md and "\\[U+202E\\]evil\\[U+202C\\]" in md  # shown, brackets escaped
