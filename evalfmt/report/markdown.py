"""The Markdown report: compact enough for a pull-request comment or ``$GITHUB_STEP_SUMMARY``.

GitHub-flavoured Markdown: the verdict line, a table of comparisons and per-case tallies, the checks
that do not tell the arms apart, trigger scores with each MISS / FALSE-FIRE, efficiency, the trend,
and the rows inside a ``<details>`` block. Every value from a receipt goes through :func:`md`:
invisible characters shown (``text.visible``), newlines flattened, cut to a length, ``& < >`` written
as entities (GitHub renders raw HTML, so a ``<script>`` or ``<details>`` in a task stays text) and the
Markdown specials backslash-escaped (``| * _ ` [ ] ~ $ \\``), so a value cannot break a table, start a
link or a math span.
"""

from __future__ import annotations

import re

from . import text as t
from .model import CaseTally, Report, Row, Run, SkillReport

#: characters of a value in a table cell, and in a list item
CELL = 120
ITEM = 300
#: rows listed inside <details> (the rest are counted, not listed: a comment holds 65,536 characters)
MAX_ROWS = 200

_SPECIAL = re.compile(r"([\\`*_\[\]|~$#!])")


def md(value: object, limit: int = CELL) -> str:
    """A receipt value as inline Markdown text."""
    s = t.cut(t.one_line(t.visible(value)), limit)
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _SPECIAL.sub(r"\\\1", s)


def code(value: object, limit: int = CELL, table: bool = False) -> str:
    """A receipt value as an inline code span (check names): literal inside, so only the fence
    (longer than any run of backticks in the value) and, in a table cell, GFM's pipe need care."""
    s = t.cut(t.one_line(t.visible(value)), limit)
    if table:
        s = s.replace("|", "\\|")
    if not s.strip():
        return md(value, limit) or "—"
    longest = max((len(m) for m in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or (s.startswith(" ") and s.endswith(" ")) else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def render_markdown(report: Report) -> str:
    out: list[str] = []
    for skill in report.skills:
        _skill(out, skill)
    return "\n".join(out).rstrip("\n") + "\n"


def _skill(out: list[str], skill: SkillReport) -> None:
    run = skill.latest
    w = out.append
    w(f"### evalfmt report: {md(skill.skill)}")
    w("")
    main = run.main
    if main is not None:
        w(f"**{run.verdict}**{md(run.status_suffix)} {md(main.line, ITEM)}")
    elif run.triggers_only:
        w(f"**{run.verdict}** (triggers only: no agent sessions were compared)")
    else:
        w(f"**{run.verdict}**{md(run.status_suffix)}")
    w("")
    facts = [f"{run.status}, {run.scored_rows}/{run.expected_rows} rows scored", f"run {md(run.run_id)}"]
    k = next((v for label, v in run.facts if label == "repetitions (k)"), None)
    model = next((v for label, v in run.facts if label == "model"), None)
    if k:
        facts.append(f"k={md(k)}")
    if model:
        facts.append(md(model))
    w(" · ".join(facts))
    if run.attribution:
        w("")
        w(f"Why: {md(run.attribution, ITEM)}")
    for line in run.skips:
        w("")
        w(md(line, ITEM))
    w("")
    if len(run.comparisons) > 1:
        w("| comparison | W | L | T | net lift |")
        w("|---|--:|--:|--:|---|")
        for c in run.comparisons:
            w(f"| {md(c.name)} | {c.win} | {c.loss} | {c.tie} | {md(c.line)} |")
        w("")
    _tallies(out, run)
    _read_first(out, run)
    _triggers(out, run)
    _efficiency(out, run)
    if len(skill.runs) > 1:
        _trend(out, skill)
    _rows(out, run)


def _tallies(out: list[str], run: Run) -> None:
    if not run.tallies:
        return
    w = out.append
    opps = list(run.tallies)
    head = " | ".join(f"vs {md(o)} W / L / T" for o in opps)
    w(f"| case | {head} |")
    w("|---|" + "---|" * len(opps))
    cases: dict[tuple[str, bool], dict[str, CaseTally]] = {}
    for o in opps:
        for c in run.tallies[o]:
            cases.setdefault((c.case, c.suite), {})[o] = c
    for (case, suite), by in cases.items():
        cells = []
        for o in opps:
            tally = by.get(o)
            if tally is None:
                cells.append("")
                continue
            cell = f"{tally.win} / {tally.loss} / {tally.tie}"
            if tally.unscored:
                cell += f" ({tally.unscored} not scored)"
            cells.append(cell)
        w(f"| {md(case)}{' (suite)' if suite else ''} | " + " | ".join(cells) + " |")
    w("")


def _read_first(out: list[str], run: Run) -> None:
    if not run.rows:
        return
    w = out.append
    failed, passed = run.failed_in_both, run.passed_in_both
    w(f"**Failed in both arms** (probably broken): {len(failed) if failed else 'none'}")
    for c in failed:
        every = "every row" if c.both_failed == c.rows else f"{c.both_failed} of {c.rows} rows"
        why = f" — {md(c.detail)}" if c.detail else ""
        w(f"- {code(c.check)} in {md(c.case)}: {every}{why}")
    w("")
    w(f"**Passed in both arms on every row** (cannot decide a row): {len(passed) if passed else 'none'}")
    for c in passed:
        w(f"- {code(c.check)} in {md(c.case)}")
    w("")


def _triggers(out: list[str], run: Run) -> None:
    tr = run.triggers
    if tr is None:
        return
    w = out.append
    counts = " ".join(f"{k}={v}" for k, v in (("tp", tr.tp), ("fn", tr.fn), ("fp", tr.fp), ("tn", tr.tn))
                      if v is not None)
    w(f"**Triggers**: recall {t.pct(tr.recall)} · precision {t.pct(tr.precision)}" + (f" ({counts})" if counts else ""))
    for p in tr.misses:
        w(f"- MISS: {md(p, ITEM)}")
    for p in tr.false_fires:
        w(f"- FALSE-FIRE: {md(p, ITEM)}")
    w("")


def _efficiency(out: list[str], run: Run) -> None:
    if not any(a.turns is not None or a.duration_ms is not None or a.cost_usd is not None or a.score is not None
               or a.runs_total for a in run.arms):
        return
    w = out.append
    w("| arm | turns | time | cost | check score | case-runs passed |")
    w("|---|--:|--:|--:|--:|--:|")
    for a in run.arms:
        runs = "n/a" if a.runs_passed is None or a.runs_total is None else f"{a.runs_passed}/{a.runs_total}"
        w(f"| {md(a.arm)} | {t.turns(a.turns)} | {t.seconds(a.duration_ms)} | {md(t.dollars(a.cost_usd))} | "
          f"{t.pct(a.score)} | {runs} |")
    w("")


def _trend(out: list[str], skill: SkillReport) -> None:
    w = out.append
    w(f"**Trend** ({len(skill.runs)} runs, oldest first)")
    w("")
    w("| run | verdict | status | net lift (vs baseline) | recall | precision |")
    w("|---|---|---|---|--:|--:|")
    for r in skill.runs:
        m = r.main
        recall = t.pct(r.triggers.recall) if r.triggers else "—"
        precision = t.pct(r.triggers.precision) if r.triggers else "—"
        w(f"| {md(r.run_id)} | {r.verdict} | {r.status} {r.scored_rows}/{r.expected_rows} | "
          f"{md(m.line) if m else '—'} | {recall} | {precision} |")
    w("")


def _rows(out: list[str], run: Run) -> None:
    if not run.rows:
        return
    w = out.append
    w(f"<details><summary>Rows ({len(run.rows)})</summary>")
    w("")
    w("| case | rep | vs | outcome | reason | candidate failed | opponent failed |")
    w("|---|--:|---|---|---|---|---|")
    for r in run.rows[:MAX_ROWS]:
        w(_row(r))
    if len(run.rows) > MAX_ROWS:
        w("")
        w(f"{len(run.rows) - MAX_ROWS} more rows are in the receipt and the HTML report.")
    w("")
    w("</details>")
    w("")


def _row(r: Row) -> str:
    outcome = r.outcome if r.scored else "not scored"
    reason = md(r.reason) if r.reason else "—"
    if r.own_detail and not r.scored:
        reason += f": {md(r.own_detail)}"
    case = md(r.case) + (" (suite)" if r.suite else "")
    return (f"| {case} | {r.repetition} | {md(r.opponent)} | {outcome} | {reason} | "
            f"{_cell(r.candidate)} | {_cell(r.other)} |")


def _cell(cell) -> str:
    if cell.dead:
        return "dead arm" + (f": {md(cell.error)}" if cell.error else "")
    if not cell.failed:
        return "—"
    return "<br>".join(code(f.check, table=True) for f in cell.failed)
