"""Escaping: every value a report takes from eval files or transcripts renders as text.

The hostile receipt (tools/make_receipts.py) puts tags, quotes, ampersands, very long text,
right-to-left text, bidi controls and Markdown specials into case and check names, check details,
arm errors, row details, trigger prompts, the skill name and the model. The HTML must build no element
from them and show each as text; the Markdown must keep every table's shape and let no raw HTML
through. A property test does the same with arbitrary strings.
"""

from __future__ import annotations

import copy
import html.parser
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reporthelp import ROOT, receipt

from evalfmt.report import model
from evalfmt.report.html import render_html
from evalfmt.report.markdown import render_markdown
from evalfmt.report.text import cut, visible

#: every element the HTML renderer writes itself
ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "h3", "h4", "p", "section", "div",
                "span", "strong", "table", "thead", "tbody", "tr", "th", "td", "ul", "li", "code", "bdi", "svg", "text",
                "g", "rect", "line", "polyline", "circle", "dl", "dt", "dd", "footer", "i"}
#: raw HTML the Markdown renderer writes itself
ALLOWED_MD_HTML = {"<details>", "</details>", "<summary>", "</summary>", "<br>"}

SCRIPT = "<script>document.body.setAttribute('data-pwned','1')</script>"
IMG = '"><img src=x onerror="document.title=\'pwned\'">'


class Page(html.parser.HTMLParser):
    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.data: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        self.data.append(data)

    @property
    def text(self) -> str:
        return "".join(self.data)


def assert_safe_html(page_text: str) -> Page:
    page = Page(page_text)
    tags = {t for t, _ in page.tags}
    assert tags <= ALLOWED_TAGS, f"elements the renderer never writes: {tags - ALLOWED_TAGS}"
    assert [t for t, _ in page.tags].count("style") == 1
    for tag, attrs in page.tags:
        for name, value in attrs:
            assert not name.startswith("on"), f"event handler attribute {name} on <{tag}>"
            assert not (value or "").strip().lower().startswith("javascript:")
    assert not re.search(r"<\s*(script|img|iframe|object|embed|link|base)\b", page_text, re.I)
    return page


def strip_code_spans(line: str) -> str:
    line = line.replace("\\\\", "").replace("\\`", "")
    return re.sub(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", "", line)


def assert_safe_markdown(text: str) -> None:
    lines = text.split("\n")
    for line in lines:
        rest = strip_code_spans(line)
        for tag in ALLOWED_MD_HTML:
            rest = rest.replace(tag, "")
        assert "<" not in rest, f"raw HTML in markdown line: {line[:200]!r}"
    # every table keeps its shape: as many unescaped pipes on each line as in its header
    block: list[str] = []
    for line in lines + [""]:
        if line.startswith("|"):
            block.append(line)
            continue
        if block:
            counts = {len(re.findall(r"(?<!\\)(?:\\\\)*\|", strip_code_spans_keep_pipes(b))) for b in block}
            assert len(counts) == 1, f"table rows differ in cells: {block[0][:80]!r}"
            block = []


def strip_code_spans_keep_pipes(line: str) -> str:
    # inside a table an escaped pipe stays escaped inside a code span too (GFM), so count on the raw line
    return line.replace("\\\\", "")


@pytest.fixture(scope="module")
def hostile():
    return model.build([model.load(str(ROOT / receipt("hostile")))])


def test_hostile_html_builds_no_element_and_shows_every_string(hostile):
    out = render_html(hostile)
    page = assert_safe_html(out)
    text = page.text
    data = json.loads((ROOT / receipt("hostile")).read_text(encoding="utf-8"))
    for value in [data["skill_name"], data["provenance"]["model"], *data["triggers"]["misses"], *data["triggers"]["false_fires"],
                  *(r["case"] for r in data["rows"])]:
        shown = cut(visible(value), 600)
        assert shown in text, f"not shown as text: {value[:80]!r}"
    assert SCRIPT in text and IMG in text
    # bidi controls are shown, not obeyed; right-to-left letters are kept
    assert "\u202e" not in out and "[U+202E]evil[U+202C]" in text and "שחרור גרסה" in text
    # very long text is cut, saying how much
    assert "more characters)" in text and max(len(d) for d in page.data) < 5000


def test_hostile_markdown_keeps_tables_and_lets_no_html_through(hostile):
    out = render_markdown(hostile)
    assert_safe_markdown(out)
    assert "&lt;script&gt;document.body.setAttribute('data-pwned','1')&lt;/script&gt;" in out
    assert "\\| pipe \\| \\*star\\* \\_under\\_ \\`tick\\` \\[link\\](javascript:alert(1)) \\# h" in out
    # a prompt holding blank lines and a <details> stays on its list line
    assert "- FALSE-FIRE: \\| a \\| b \\| new paragraph &lt;details&gt;&lt;summary&gt;x&lt;/summary&gt;\n" in out
    assert "\u202e" not in out and "\\[U+202E\\]evil\\[U+202C\\]" in out
    assert max(len(line) for line in out.split("\n")) < 2000


def test_markdown_code_span_fences_outgrow_backticks():
    from evalfmt.report.markdown import code

    assert code("a`b") == "``a`b``"
    assert code("``x") == "``` ``x ```"
    assert code("a|b") == "`a|b`" and code("a|b", table=True) == "`a\\|b`"


# ------------------------------------------------------------------------------------- property

BASE = json.loads((ROOT / receipt("partial")).read_text(encoding="utf-8"))
texts = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=texts, check=texts, detail=texts, prompt=texts, skill=texts, error=texts)
def test_any_string_renders_as_text(case, check, detail, prompt, skill, error):
    data = copy.deepcopy(BASE)
    data["skill_name"] = skill
    data["skill_id"] = None
    row = data["rows"][1]  # changelog-untouched: a win with a failed baseline check
    row["case"] = case
    arm = row["arms"]["baseline"]
    arm["failed_checks"] = [check]
    arm["checks"][2]["check"] = check
    arm["checks"][2]["detail"] = detail
    data["rows"][2]["arms"]["baseline"]["error"] = error
    data["triggers"] = {"recall": 0.5, "precision": 1.0, "tp": 1, "fn": 1, "fp": 0, "tn": 1,
                        "misses": [prompt], "false_fires": [prompt]}
    report = model.build([model.Receipt("r.json", data)])

    page = assert_safe_html(render_html(report))
    for value in (case, check, detail, prompt, skill, error):
        assert visible(value) in page.text

    assert_safe_markdown(render_markdown(report))
