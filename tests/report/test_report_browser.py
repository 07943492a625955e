"""The HTML report in a real headless Chromium: the DOM it builds holds the verdict and every row, a
hostile receipt builds no element from its strings, and screenshots (light and dark) are saved under
pytest's tmp dir and checked to be drawn in the colour scheme asked for.

Chromium is Debian's ``chromium`` (scripts/ci-chromium.sh installs it on CI); ``$EVALFMT_CHROMIUM``
names another binary. The test skips, saying why, only when no chromium can be found. The machines
have no network, so Chromium runs with everything that phones home turned off and a fresh profile.
"""

from __future__ import annotations

import html.parser
import json
import os
import pathlib
import re
import shutil
import struct
import subprocess
import zlib

import pytest
from reporthelp import ROOT, receipt

from evalfmt.report import render


def find_chromium() -> str | None:
    explicit = os.environ.get("EVALFMT_CHROMIUM")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium not found (install it with scripts/ci-chromium.sh, or set EVALFMT_CHROMIUM)",
)

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
         "--disable-extensions", "--hide-scrollbars", "--mute-audio"]


def chromium(tmp_path: pathlib.Path, page: pathlib.Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    cmd = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args, page.as_uri()]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180, cwd=tmp_path)
    except subprocess.TimeoutExpired:  # a hang is a failure, never a skip
        pytest.fail(f"chromium did not finish within 180 s: {' '.join(cmd)}")
    assert proc.returncode == 0, f"chromium exited {proc.returncode}: {proc.stderr[-2000:]}"
    return proc


class Dom(html.parser.HTMLParser):
    """The elements of a dumped DOM: tag names with attributes, and the text."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def find(self, tag: str, **attrs: str) -> list[dict]:
        return [a for t, a in self.elements if t == tag and all(a.get(k.rstrip("_").replace("_", "-")) == v for k, v in attrs.items())]

    def classes(self, tag: str, cls: str) -> list[dict]:
        return [a for t, a in self.elements if t == tag and cls in (a.get("class") or "").split()]


def write_page(tmp_path: pathlib.Path, name: str, receipts: list[str]) -> pathlib.Path:
    page = tmp_path / f"{name}.html"
    page.write_text(render([str(ROOT / receipt(r)) for r in receipts], "html"), encoding="utf-8")
    return page


def test_dom_holds_verdict_status_and_rows(tmp_path):
    page = write_page(tmp_path, "trend", ["release-notes-1", "release-notes-2", "release-notes-3"])
    dom = Dom(chromium(tmp_path, page, "--dump-dom").stdout)
    latest = json.loads((ROOT / receipt("release-notes-3")).read_text())

    verdicts = dom.classes("div", "verdict")
    assert [v.get("data-verdict") for v in verdicts] == [latest["verdict"]] == ["PASS"]
    assert "+44% net lift (8W / 1L / 7T over 16 comparisons, sign test p=0.039)" in "".join(dom.text)
    status = dom.classes("span", "status")
    assert [s.get("data-status") for s in status] == ["complete"]
    scored = dom.find("strong", data_scored="32", data_expected="32")
    assert len(scored) == 1

    rows = dom.classes("tr", "row")
    assert len(rows) == len(latest["rows"]) == 32
    assert [r.get("data-outcome") for r in rows] == [r["outcome"] for r in latest["rows"]]
    # one chart per opponent, a trend chart, and no element the page did not write itself
    assert len(dom.classes("svg", "chart")) == 2
    assert len(dom.classes("svg", "trend-chart")) == 1
    assert not dom.find("script") and not dom.find("img") and not dom.find("link")


def test_partial_run_in_the_dom(tmp_path):
    page = write_page(tmp_path, "partial", ["partial"])
    dom = Dom(chromium(tmp_path, page, "--dump-dom").stdout)
    assert [s.get("data-status") for s in dom.classes("span", "status")] == ["partial"]
    assert dom.find("strong", data_scored="6", data_expected="8")
    assert len(dom.find("tr", class_="row unscored", data_scored="false")) == 2


def test_hostile_strings_build_no_element(tmp_path):
    page = write_page(tmp_path, "hostile", ["hostile"])
    out = chromium(tmp_path, page, "--dump-dom").stdout
    dom = Dom(out)
    # the hostile receipt's strings would add a script, an img, a style, and set attributes if parsed
    assert not dom.find("script")
    assert not dom.find("img")
    assert len(dom.find("style")) == 1
    assert all(not k.startswith("on") for _, attrs in dom.elements for k in attrs)
    body = dom.find("body")
    assert body == [{}], f"the body gained attributes: {body}"
    titles = "".join(dom.text)
    assert "pwned" not in dom.find("title") and "document.title='pwned'" in titles
    assert "<script>document.body.setAttribute('data-pwned','1')</script>" in titles
    assert "\u202e" not in titles and "[U+202E]evil[U+202C]" in titles
    assert len(dom.classes("tr", "row")) == 32


def png_rows(path: pathlib.Path, last: int | None = None) -> tuple[list[bytearray], int]:
    """The pixel rows (up to row ``last``) of an 8-bit RGB(A) PNG and its bytes per pixel (enough of a
    decoder for Chromium's screenshots)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and colour in (2, 6), f"unexpected PNG format (depth {depth}, colour type {colour})"
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    rows = []
    for row in range(height if last is None else last + 1):
        start = row * (stride + 1)
        ftype, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return rows, bpp


def png_pixel(path: pathlib.Path, x: int, y: int) -> tuple[int, int, int]:
    """One pixel of an 8-bit RGB(A) PNG."""
    rows, bpp = png_rows(path, y)
    return tuple(rows[y][x * bpp:x * bpp + 3])  # type: ignore[return-value]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshot_in_light_and_dark(tmp_path, scheme):
    page = write_page(tmp_path, "trend", ["release-notes-1", "release-notes-2", "release-notes-3"])
    shot = tmp_path / f"report-{scheme}.png"
    extra = ["--force-dark-mode"] if scheme == "dark" else []
    chromium(tmp_path, page, *extra, "--window-size=1200,2400", f"--screenshot={shot}")
    assert shot.is_file() and shot.stat().st_size > 10_000, "no screenshot written"
    background = png_pixel(shot, 4, 4)
    luminance = sum(background) / 3
    if scheme == "light":
        assert luminance > 230, f"light page background is {background}"
    else:
        assert luminance < 40, f"dark page background is {background}"
    print(f"screenshot ({scheme}): {shot}")


def test_prints_to_pdf(tmp_path):
    page = write_page(tmp_path, "trend", ["release-notes-1", "release-notes-2", "release-notes-3"])
    pdf = tmp_path / "report.pdf"
    chromium(tmp_path, page, "--no-pdf-header-footer", f"--print-to-pdf={pdf}")
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-")
    pages = len(re.findall(rb"/Type\s*/Page(?!s)", data))
    assert pages >= 2, f"{pages} page(s) printed"


TRIGGER_RECEIPTS = ROOT / "tests" / "golden" / "run" / "library"


class ConfusionHeads(html.parser.HTMLParser):
    """The header cells of each confusion table of a dumped DOM, as text."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tables: list[list[str]] = []
        self.where: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        if tag == "table" and "confusion" in (dict(attrs).get("class") or "").split():
            self.tables.append([])
            self.where = ["table"]
        elif self.where and tag in ("thead", "th"):
            self.where.append(tag)
            if self.where[-2:] == ["thead", "th"]:
                self.tables[-1].append("")

    def handle_endtag(self, tag):
        if self.where and self.where[-1] == tag:
            self.where.pop()

    def handle_data(self, data):
        if self.where[-2:] == ["thead", "th"]:
            self.tables[-1][-1] += data


@pytest.mark.parametrize("name", ["receipt", "compare-libraries"])
def test_trigger_run_report_in_the_dom(tmp_path, name):
    """A trigger run's page (one library; two that differ) in Chromium: one verdict box, a row per test and
    repetition in the receipt's order, every confusion table with the same columns, the note on the skill
    one library lacks, and no element the page did not write itself."""
    path = TRIGGER_RECEIPTS / f"{name}.json"
    data = json.loads(path.read_text())
    page = tmp_path / f"{name}.html"
    page.write_text(render([str(path)], "html"), encoding="utf-8")
    out = chromium(tmp_path, page, "--dump-dom").stdout
    dom = Dom(out)
    verdicts = dom.classes("div", "verdict")
    assert [v.get("data-verdict") for v in verdicts] == [data.get("verdict", "FAIL")]
    rows = dom.classes("tr", "test-row")
    tests = list(dict.fromkeys((s["test"], s["repetition"]) for s in data["sessions"]))
    assert [r.get("data-test") for r in rows] == [t for t, _ in tests]
    outcomes = ([r["outcome"] for r in data["rows"]] if "rows" in data
                else ["passed" if s["passed"] else "failed" for s in data["sessions"]])
    assert [r.get("data-outcome") for r in rows] == outcomes
    heads = ConfusionHeads(out).tables
    assert len(heads) == len(data["scores"]) and all(h == heads[0] for h in heads)
    assert heads[0][-1] == "(none)" and heads[0][1:-1] == sorted(heads[0][1:-1])
    assert len(dom.classes("div", "libdiff")) == (1 if name == "compare-libraries" else 0)
    assert not dom.find("script") and not dom.find("img") and not dom.find("link")


#: --pass-bg and --neutral-bg of the stylesheet (evalfmt/report/html.py), light and dark
TRIGGER_COLOURS = {"light": {"pass": (0xda, 0xfb, 0xe1), "note": (0xff, 0xf8, 0xc5)},
                   "dark": {"pass": (0x12, 0x36, 0x1f), "note": (0x3a, 0x2e, 0x05)}}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_trigger_run_screenshot_in_light_and_dark(tmp_path, scheme):
    page = tmp_path / "compare-libraries.html"
    page.write_text(render([str(TRIGGER_RECEIPTS / "compare-libraries.json")], "html"), encoding="utf-8")
    shot = tmp_path / f"trigger-{scheme}.png"
    extra = ["--force-dark-mode"] if scheme == "dark" else []
    chromium(tmp_path, page, *extra, "--window-size=1280,2000", f"--screenshot={shot}")
    assert shot.is_file() and shot.stat().st_size > 10_000, "no screenshot written"
    rows, bpp = png_rows(shot)
    luminance = sum(rows[4][12:15]) / 3
    assert luminance > 230 if scheme == "light" else luminance < 40, f"{scheme} page background is {luminance}"
    # down the right edge of the content (main is 1100 px wide, centred): the PASS box, then the note panel
    x = (1280 + 1100) // 2 - 30
    column = [tuple(r[x * bpp:x * bpp + 3]) for r in rows]
    drawn = {name: sum(1 for px in column if all(abs(a - b) <= 3 for a, b in zip(px, rgb)))
             for name, rgb in TRIGGER_COLOURS[scheme].items()}
    assert drawn["pass"] > 40 and drawn["note"] > 40, f"{scheme}: rows drawn in each colour at x={x}: {drawn}"
    first = {name: next(i for i, px in enumerate(column) if all(abs(a - b) <= 3 for a, b in zip(px, rgb)))
             for name, rgb in TRIGGER_COLOURS[scheme].items()}
    assert first["pass"] < first["note"] < 600, f"{scheme}: the verdict box and the note start at {first}"
    print(f"screenshot ({scheme}): {shot}")
