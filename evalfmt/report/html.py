"""The HTML report: one self-contained page (inline CSS and SVG, no script, nothing fetched).

Plain Python string building, no template engine: the page is a handful of fixed blocks and every
value from a receipt goes through :func:`e` (``text.visible`` then ``html.escape`` with quotes), the
only way a value reaches the page. A Content-Security-Policy meta tag (``default-src 'none'``) forbids
scripts and network fetches as a second line of defence. Light and dark colours follow
``prefers-color-scheme``; ``@media print`` drops the backgrounds. Output is deterministic.
"""

from __future__ import annotations

import html as _html

from . import text as t
from .model import Report, Row, Run, SkillReport

#: characters of a value shown before it is cut (a page must stay readable with a 1 MB check detail)
LIMIT = 600
#: characters of a case name inside a chart label
LABEL = 30

CSS = """
:root{color-scheme:light dark;--bg:#ffffff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--panel:#f6f8fa;
--win:#1a7f37;--loss:#cf222e;--tie:#818b98;--dead:#d1d9e0;--pass-bg:#dafbe1;--fail-bg:#ffebe9;--neutral-bg:#fff8c5;
--accent:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--panel:#151b23;
--win:#3fb950;--loss:#f85149;--tie:#9198a1;--dead:#3d444d;--pass-bg:#12361f;--fail-bg:#3d1417;--neutral-bg:#3a2e05;
--accent:#4493f8}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
main{max-width:1100px;margin:0 auto;padding:24px 20px 48px}
h1{font-size:1.5rem;margin:0 0 4px}h2{font-size:1.3rem;margin:36px 0 8px;padding-top:12px;border-top:2px solid var(--line)}
h3{font-size:1.05rem;margin:28px 0 8px}
p{margin:6px 0}.muted{color:var(--muted)}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.88em}
code{overflow-wrap:anywhere}
.verdict{display:flex;flex-wrap:wrap;align-items:baseline;gap:12px;padding:14px 18px;border-radius:8px;
border:1px solid var(--line);margin:12px 0}
.verdict .word{font-size:1.7rem;font-weight:700;letter-spacing:.04em}
.verdict .line{font-size:1.1rem;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.v-PASS{background:var(--pass-bg)}.v-PASS .word{color:var(--win)}
.v-FAIL{background:var(--fail-bg)}.v-FAIL .word{color:var(--loss)}
.v-NEUTRAL{background:var(--neutral-bg)}
.status{display:inline-block;padding:1px 8px;border-radius:10px;border:1px solid var(--line);font-size:.85rem}
.status-partial,.status-failed{border-color:var(--loss);color:var(--loss);font-weight:600}
table{border-collapse:collapse;width:100%;margin:8px 0;font-size:.9rem}
th,td{text-align:left;vertical-align:top;padding:5px 8px;border-bottom:1px solid var(--line)}
th{background:var(--panel);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td{overflow-wrap:break-word}
.scroll{overflow-x:auto}
table.rows td:nth-child(1){min-width:11em}table.rows td:nth-child(5){min-width:9em}
table.rows td:nth-child(6),table.rows td:nth-child(7){min-width:14em;overflow-wrap:anywhere}
.o{display:inline-block;white-space:nowrap;min-width:3.2em;text-align:center;padding:0 6px;border-radius:4px;font-weight:600;color:#fff}
.o-win{background:var(--win)}.o-loss{background:var(--loss)}.o-tie{background:var(--tie)}
.o-dead{background:var(--dead);color:var(--fg)}
tr.unscored td{color:var(--muted)}
ul.checks{margin:0;padding-left:1.1em}ul.checks li{margin:0}
.detail{color:var(--muted);font-size:.85em}
.tag{display:inline-block;font-size:.72rem;padding:0 5px;border:1px solid var(--line);border-radius:4px;
color:var(--muted);margin-left:4px;vertical-align:1px}
.panel{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:10px 16px;margin:8px 0}
.panel h4{margin:4px 0 6px;font-size:.95rem}
.panel ul{margin:4px 0 8px;padding-left:1.2em}
.ok{color:var(--win)}.bad{color:var(--loss)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;font-size:.85rem;color:var(--muted)}
dl.facts dt{font-weight:600}dl.facts dd{margin:0;overflow-wrap:anywhere}
svg{display:block;max-width:100%;height:auto}
svg text{fill:var(--fg);font:12px system-ui,sans-serif}
svg .axis{stroke:var(--line)}svg .band{stroke:var(--muted);stroke-dasharray:4 3}
svg .b-win{fill:var(--win)}svg .b-loss{fill:var(--loss)}svg .b-tie{fill:var(--tie)}svg .b-dead{fill:var(--dead)}
svg .trend{fill:none;stroke:var(--accent);stroke-width:2}
svg .pt-PASS{fill:var(--win)}svg .pt-FAIL{fill:var(--loss)}svg .pt-NEUTRAL{fill:var(--tie)}
svg text.muted{fill:var(--muted)}
.legend span{display:inline-block;margin-right:14px;font-size:.85rem}
.legend i{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:4px;vertical-align:-1px}
.sw-win{background:var(--win)}.sw-loss{background:var(--loss)}.sw-tie{background:var(--tie)}.sw-dead{background:var(--dead)}
.nowrap{white-space:nowrap}
footer{margin-top:40px;font-size:.8rem;color:var(--muted)}
@media print{
:root{--bg:#fff;--fg:#000;--muted:#444;--panel:#fff}
body{font-size:11pt}main{max-width:none;padding:0}
.verdict,.panel,.o,.legend i,svg{-webkit-print-color-adjust:exact;print-color-adjust:exact}
tr,.panel,.verdict,svg{break-inside:avoid}h2,h3{break-after:avoid}
}
"""

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"


def e(value: object, limit: int = LIMIT) -> str:
    """A receipt value as HTML text (or an attribute value): invisible characters shown, cut, escaped."""
    return _html.escape(t.cut(t.visible(value), limit), quote=True)


def page_head(title: str, extra_css: str = "") -> str:
    """A report page up to its ``<main>``: the policy, the stylesheet (and ``extra_css``, a report's own rules)
    and ``title`` (HTML, escaped by the caller)."""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<meta name=\"color-scheme\" content=\"light dark\">\n"
            "<meta name=\"generator\" content=\"evalfmt report\">\n"
            f"<title>{title}</title>\n<style>{CSS}{extra_css}</style>\n</head>\n<body>\n<main>\n")


def render_html(report: Report) -> str:
    out: list[str] = [page_head(f"evalfmt report — {e(report.title, 200)}")]
    w = out.append
    runs = sum(len(s.runs) for s in report.skills)
    w(f"<h1>evalfmt report</h1>\n<p class=\"muted\">{runs} receipt{'s' if runs != 1 else ''}, "
      f"{len(report.skills)} skill{'s' if len(report.skills) != 1 else ''}</p>\n")
    for i, skill in enumerate(report.skills, 1):
        _skill(w, skill, i)
    w("<footer>Rendered by evalfmt from receipts (schema_version 2). Verdict, counts, net lift, trigger scores and "
      "efficiency are the receipts' own; per-case tallies and the check lists are counted from their rows.</footer>\n")
    w("</main>\n</body>\n</html>\n")
    return "".join(out)


def _skill(w, skill: SkillReport, index: int) -> None:
    run = skill.latest
    sid = f"s{index}"
    w(f"<section class=\"skill\" id=\"{sid}\" data-skill=\"{e(skill.skill, 200)}\">\n")
    w(f"<h2><bdi>{e(skill.skill, 200)}</bdi></h2>\n")
    if len(skill.runs) > 1:
        w(f"<p class=\"muted\">Latest of {len(skill.runs)} runs: <span class=\"mono\">{e(run.run_id)}</span>"
          f" ({e(run.path)}). The trend across runs is below.</p>\n")
    else:
        w(f"<p class=\"muted\">Run <span class=\"mono\">{e(run.run_id)}</span> ({e(run.path)})</p>\n")
    _verdict(w, run)
    _read_first(w, run)
    _chart(w, run, sid)
    _triggers(w, run)
    _efficiency(w, run)
    if len(skill.runs) > 1:
        _trend(w, skill, sid)
    _rows(w, run)
    _facts(w, run)
    w("</section>\n")


def _verdict(w, run: Run) -> None:
    main = run.main
    w(f"<div class=\"verdict v-{run.verdict}\" data-verdict=\"{run.verdict}\">"
      f"<span class=\"word\">{run.verdict}</span>")
    if main is not None:
        w(f"<span class=\"line\">{e(main.line)}</span>")
    elif run.triggers_only:
        w("<span class=\"line\">triggers only: no agent sessions were compared</span>")
    w("</div>\n")
    status = run.status
    w(f"<p><span class=\"status status-{status}\" data-status=\"{status}\">{status}</span> "
      f"<strong data-scored=\"{run.scored_rows}\" data-expected=\"{run.expected_rows}\">{run.scored_rows} of "
      f"{run.expected_rows}</strong> expected rows scored")
    if run.status_suffix:
        w(f" <span class=\"bad\">{e(run.status_suffix.strip())}</span>")
    w("</p>\n")
    if run.attribution:
        w(f"<p>Why: <bdi>{e(run.attribution)}</bdi></p>\n")
    if len(run.comparisons) > 1:
        w("<table class=\"comparisons\"><thead><tr><th>comparison</th><th class=\"num\">wins</th>"
          "<th class=\"num\">losses</th><th class=\"num\">ties</th><th>net lift</th></tr></thead><tbody>\n")
        for c in run.comparisons:
            w(f"<tr><td>{e(c.name)}</td><td class=\"num\">{c.win}</td><td class=\"num\">{c.loss}</td>"
              f"<td class=\"num\">{c.tie}</td><td class=\"mono\">{e(c.line)}</td></tr>\n")
        w("</tbody></table>\n<p class=\"muted\">The verdict is banded on candidate-vs-baseline.</p>\n")
    for line in run.skips:
        w(f"<p class=\"muted\">{e(line)}</p>\n")


def _read_first(w, run: Run) -> None:
    if not run.rows:
        return
    w("<h3>Read first: checks that do not tell the arms apart</h3>\n<div class=\"panel read-first\">\n")
    failed, passed = run.failed_in_both, run.passed_in_both
    w(f"<h4 class=\"bad\">Failed in both arms ({len(failed)}): probably broken, or asking for what neither arm can "
      f"do</h4>\n")
    if failed:
        w("<ul class=\"failed-both\">\n")
        for c in failed:
            every = "every row" if c.both_failed == c.rows else f"{c.both_failed} of {c.rows} rows"
            why = f" <span class=\"detail\">— {e(c.detail)}</span>" if c.detail else ""
            w(f"<li><code><bdi>{e(c.check)}</bdi></code> in <bdi>{e(c.case)}</bdi>: {every}{why}</li>\n")
        w("</ul>\n")
    else:
        w("<p class=\"muted\">none</p>\n")
    w(f"<h4>Passed in both arms on every row ({len(passed)}): they cannot decide a row</h4>\n")
    if passed:
        w("<ul class=\"passed-both\">\n")
        for c in passed:
            w(f"<li><code><bdi>{e(c.check)}</bdi></code> in <bdi>{e(c.case)}</bdi> ({c.rows} "
              f"row{'s' if c.rows != 1 else ''})</li>\n")
        w("</ul>\n")
    else:
        w("<p class=\"muted\">none</p>\n")
    w("<p class=\"muted\">Counted over rows where both arms ran. A check passed in both arms on every row may still "
      "be needed as a floor; the writing-good-evals guide says to read these before trusting the "
      "verdict.</p>\n</div>\n")


def _chart(w, run: Run, sid: str) -> None:
    if not run.tallies:
        return
    w("<h3>Wins, losses and ties per case</h3>\n<p class=\"legend\"><span><i class=\"sw-win\"></i>win</span>"
      "<span><i class=\"sw-loss\"></i>loss</span><span><i class=\"sw-tie\"></i>tie</span>"
      "<span><i class=\"sw-dead\"></i>not scored (an arm died)</span></p>\n")
    for opp, tallies in run.tallies.items():
        most = max((c.total for c in tallies), default=1) or 1
        label_w, bar_w, row_h, top = 230, 430, 24, 22
        width = label_w + bar_w + 190
        height = top + row_h * len(tallies) + 6
        title = f"candidate vs {opp}: wins, losses and ties per case"
        w(f"<svg class=\"chart\" id=\"{sid}-chart-{e(opp, 60)}\" role=\"img\" viewBox=\"0 0 {width} {height}\" "
          f"width=\"{width}\" height=\"{height}\" xmlns=\"http://www.w3.org/2000/svg\"><title>{e(title)}</title>\n")
        w(f"<text x=\"0\" y=\"14\" font-weight=\"600\">candidate vs {e(opp, 60)}</text>\n")
        for i, c in enumerate(tallies):
            y = top + i * row_h
            name = t.visible(c.case)
            label = name if len(name) <= LABEL else name[: LABEL - 1] + "…"
            suffix = " (suite)" if c.suite else ""
            w(f"<g class=\"case\"><title>{e(c.case)}{suffix}: {c.win} win, {c.loss} loss, {c.tie} tie, "
              f"{c.unscored} not scored</title>\n")
            w(f"<text x=\"{label_w - 8}\" y=\"{y + 15}\" "
              f"text-anchor=\"end\">{_html.escape(label, quote=True)}</text>\n")
            x = float(label_w)
            for cls, n in (("win", c.win), ("loss", c.loss), ("tie", c.tie), ("dead", c.unscored)):
                if not n:
                    continue
                seg = bar_w * n / most
                w(f"<rect class=\"b-{cls}\" x=\"{x:.1f}\" y=\"{y + 3}\" width=\"{seg:.1f}\" height=\"{row_h - 8}\"/>\n")
                x += seg
            counts = f"{c.win}W {c.loss}L {c.tie}T" + (f" · {c.unscored} not scored" if c.unscored else "")
            w(f"<text class=\"muted\" x=\"{x + 6:.1f}\" y=\"{y + 15}\">{counts}</text></g>\n")
        w("</svg>\n")


def _triggers(w, run: Run) -> None:
    tr = run.triggers
    if tr is None:
        return
    w("<h3>Triggers</h3>\n<div class=\"panel triggers\">\n")
    w(f"<p><strong>recall</strong> <span class=\"mono\" data-recall>{t.pct(tr.recall)}</span>"
      f"{_frac(tr.tp, (tr.tp or 0) + (tr.fn or 0) if tr.tp is not None and tr.fn is not None else None)}"
      f" · <strong>precision</strong> <span class=\"mono\" data-precision>{t.pct(tr.precision)}</span>"
      f"{_frac(tr.tp, (tr.tp or 0) + (tr.fp or 0) if tr.tp is not None and tr.fp is not None else None)}</p>\n")
    counts = " ".join(f"{k}={v}" for k, v in (("tp", tr.tp), ("fn", tr.fn), ("fp", tr.fp), ("tn", tr.tn))
                      if v is not None)
    if counts:
        w(f"<p class=\"muted mono\">{counts}</p>\n")
    for label, cls, items, none in (("Missed (should have fired)", "misses", tr.misses, "no misses"),
                                    ("Fired falsely (should not have fired)", "false-fires", tr.false_fires,
                                     "no false fires")):
        w(f"<h4>{label}: {len(items)}</h4>\n")
        if items:
            w(f"<ul class=\"{cls}\">\n")
            prefix = "MISS" if cls == "misses" else "FALSE-FIRE"
            for p in items:
                w(f"<li><span class=\"mono bad\">{prefix}:</span> <bdi>{e(p)}</bdi></li>\n")
            w("</ul>\n")
        else:
            w(f"<p class=\"muted\">{none}</p>\n")
    w("</div>\n")


def _frac(num, den) -> str:
    return "" if num is None or den is None else f" <span class=\"muted\">({num}/{den})</span>"


def _efficiency(w, run: Run) -> None:
    if not any(a.turns is not None or a.duration_ms is not None or a.cost_usd is not None or a.score is not None
               or a.runs_total for a in run.arms):
        return
    w("<h3>Efficiency per arm</h3>\n<table class=\"efficiency\"><thead><tr><th>arm</th><th class=\"num\">turns</th>"
      "<th class=\"num\">time</th><th class=\"num\">cost</th><th class=\"num\">check score</th>"
      "<th class=\"num\">case-runs passed</th></tr></thead><tbody>\n")
    for a in run.arms:
        runs = "n/a" if a.runs_passed is None or a.runs_total is None else f"{a.runs_passed}/{a.runs_total}"
        w(f"<tr><td>{e(a.arm)}</td><td class=\"num\">{t.turns(a.turns)}</td><td "
          f"class=\"num\">{t.seconds(a.duration_ms)}</td>"
          f"<td class=\"num\">{t.dollars(a.cost_usd)}</td><td class=\"num\">{t.pct(a.score)}</td>"
          f"<td class=\"num\">{runs}</td></tr>\n")
    w("</tbody></table>\n<p class=\"muted\">Means over each arm's live sessions; n/a where the sessions did not "
      "record it. Check score: the mean fraction of checks passed.</p>\n")


def _trend(w, skill: SkillReport, sid: str) -> None:
    runs = skill.runs
    w(f"<h3>Trend across {len(runs)} runs</h3>\n")
    width, height, left, right, top, bottom = 760, 236, 64, 64, 16, 52
    plot_w, plot_h = width - left - right, height - top - bottom

    def y_of(lift: float) -> float:
        return top + plot_h * (1 - (max(-1.0, min(1.0, lift)) + 1) / 2)

    def x_of(i: int) -> float:
        return left + (plot_w / 2 if len(runs) == 1 else plot_w * i / (len(runs) - 1))

    w(f"<svg class=\"trend-chart\" id=\"{sid}-trend\" role=\"img\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" "
      f"height=\"{height}\" xmlns=\"http://www.w3.org/2000/svg\"><title>net lift (candidate vs baseline) per "
      f"run</title>\n")
    for lift, label in ((1.0, "+100%"), (1 / 3, "+33% PASS"), (0.0, "0%"), (-1 / 3, "−33% FAIL"), (-1.0, "−100%")):
        y = y_of(lift)
        cls = "band" if abs(lift) < 0.5 and lift != 0 else "axis"
        w(f"<line class=\"{cls}\" x1=\"{left}\" x2=\"{width - right}\" y1=\"{y:.1f}\" y2=\"{y:.1f}\"/>"
          f"<text class=\"muted\" x=\"{left - 6}\" y=\"{y + 4:.1f}\" text-anchor=\"end\">{label.split()[0]}</text>\n")
    points = []
    for i, r in enumerate(runs):
        m = r.main
        if m is not None:
            points.append((x_of(i), y_of(m.net_lift), r, m))
    if len(points) > 1:
        w("<polyline class=\"trend\" points=\"" + " ".join(f"{x:.1f},{y:.1f}" for x, y, _, _ in points) + "\"/>\n")
    for x, y, r, m in points:
        w(f"<circle class=\"pt-{r.verdict}\" cx=\"{x:.1f}\" cy=\"{y:.1f}\" r=\"5\"><title>{e(r.run_id)}: {r.verdict} "
          f"{e(m.line)}</title></circle>\n")
    for i, r in enumerate(runs):
        w(f"<text class=\"muted\" x=\"{x_of(i):.1f}\" y=\"{height - 22}\" "
          f"text-anchor=\"middle\">{e(_short_run(r.run_id), 40)}"
          f"</text><text x=\"{x_of(i):.1f}\" y=\"{height - 8}\" text-anchor=\"middle\">{r.verdict}</text>\n")
    w("</svg>\n")
    w("<table class=\"trend\"><thead><tr><th>run</th><th>verdict</th><th>status</th><th>net lift (candidate vs "
      "baseline)</th>"
      "<th class=\"num\">recall</th><th class=\"num\">precision</th><th>skill digest</th></tr></thead><tbody>\n")
    prev = None
    for r in runs:
        m = r.main
        line = e(m.line) if m else "—"
        recall = t.pct(r.triggers.recall) if r.triggers else "—"
        precision = t.pct(r.triggers.precision) if r.triggers else "—"
        digest = r.content_digest.split(":")[-1][:12] if r.content_digest else ""
        changed = " <span class=\"tag\">changed</span>" if prev is not None and digest and digest != prev else ""
        prev = digest or prev
        w(f"<tr><td class=\"mono nowrap\">{e(r.run_id)}</td><td "
          f"class=\"nowrap\"><strong>{r.verdict}</strong></td><td>{e(r.status)} "
          f"{r.scored_rows}/{r.expected_rows}</td><td class=\"mono\">{line}</td><td class=\"num\">{recall}</td>"
          f"<td class=\"num\">{precision}</td><td class=\"mono\">{e(digest)}{changed}</td></tr>\n")
    w("</tbody></table>\n")


def _short_run(run_id: str) -> str:
    # 20250315T143000Z -> 2025-03-15 14:30
    if len(run_id) == 16 and run_id[8] == "T" and run_id.endswith("Z") and run_id[:8].isdigit():
        return f"{run_id[:4]}-{run_id[4:6]}-{run_id[6:8]} {run_id[9:11]}:{run_id[11:13]}"
    return run_id


def _rows(w, run: Run) -> None:
    if not run.rows:
        return
    w(f"<h3>Rows ({len(run.rows)})</h3>\n<div class=\"scroll\"><table class=\"rows\"><thead><tr><th>case</th><th "
      f"class=\"num\">rep</th>"
      "<th>opponent</th><th>outcome</th><th>reason</th><th>candidate failed</th><th>opponent "
      "failed</th></tr></thead><tbody>\n")
    for r in run.rows:
        _row(w, r)
    w("</tbody></table></div>\n")


def _row(w, r: Row) -> None:
    cls = "row" + ("" if r.scored else " unscored")
    outcome = r.outcome if r.scored else "dead"
    label = r.outcome if r.scored else "not scored"
    suite = "<span class=\"tag\">suite</span>" if r.suite else ""
    reason = e(r.reason) if r.reason else "<span class=\"muted\">—</span>"
    if r.own_detail:
        reason += f"<div class=\"detail\"><bdi>{e(r.own_detail)}</bdi></div>"
    w(f"<tr class=\"{cls}\" data-outcome=\"{e(r.outcome)}\" data-scored=\"{'true' if r.scored else 'false'}\">"
      f"<td><bdi>{e(r.case)}</bdi>{suite}</td><td class=\"num\">{r.repetition}</td><td>{e(r.opponent)}</td>"
      f"<td><span class=\"o o-{outcome}\">{label}</span></td><td>{reason}</td>"
      f"<td>{_cell(r.candidate)}</td><td>{_cell(r.other)}</td></tr>\n")


def _cell(cell) -> str:
    if cell.dead:
        why = f": <bdi>{e(cell.error)}</bdi>" if cell.error else ""
        return f"<span class=\"bad\">dead arm</span>{why}"
    if not cell.failed:
        return "<span class=\"muted\">—</span>" if cell.passed is not False else ""
    items = []
    for f in cell.failed:
        detail = f"<div class=\"detail\"><bdi>{e(f.detail)}</bdi></div>" if f.detail else ""
        items.append(f"<li><code><bdi>{e(f.check)}</bdi></code>{detail}</li>")
    return "<ul class=\"checks\">" + "".join(items) + "</ul>"


def _facts(w, run: Run) -> None:
    if not run.facts:
        return
    w("<h3>Provenance</h3>\n<dl class=\"facts\">")
    for label, value in run.facts:
        w(f"<dt>{e(label)}</dt><dd>{e(value)}</dd>")
    w("</dl>\n")
