"""The HTML page of trigger-run receipts (:mod:`triggerrun`): the per-skill report's page head, stylesheet
and verdict box, then per run the skills one library holds and another lacks, the skill scores (a row per
skill and library), misses and false fires, the confusion tables (one column order for every library), a
row per test with each library's session, and the provenance. Every value goes through :func:`html.e`."""

from __future__ import annotations

from .html import e, page_head
from .triggerrun import NONE, Library, Scores, Session, SkillLine, TestRow, TriggerRun, count, expects_text, gate
from .triggerrun import library_name, ratio, title

CSS = """.o-passed{background:var(--win)}.o-failed{background:var(--loss)}
.libdiff{background:var(--neutral-bg)}
table.grouped tbody+tbody{border-top:2px solid var(--line)}
table.tests td:nth-child(1){min-width:8em}table.tests td.arm{min-width:16em;overflow-wrap:anywhere}
td.absent{color:var(--muted)}
.fired{margin-left:6px}
"""
COUNTS = ("tp", "fn", "fp", "tn")


def render_html(runs: list[TriggerRun]) -> str:
    title = _title(runs[0]) if len(runs) == 1 else f"{len(runs)} trigger runs"
    out: list[str] = [page_head(f"evalfmt report — {e(title, 200)}", CSS)]
    w = out.append
    w(f"<h1>evalfmt report</h1>\n<p class=\"muted\">{e(_summary(runs))}</p>\n")
    for i, run in enumerate(runs, 1):
        _run(w, run, i)
    w("<footer>Rendered by evalfmt from trigger-run receipts. Verdict, net lift, skill scores and confusion "
      "counts are the receipts' own; a one-library run's PASS / FAIL counts its live sessions.</footer>\n")
    w("</main>\n</body>\n</html>\n")
    return "".join(out)


def _title(run: TriggerRun) -> str:
    text = title(run)
    return text[:1].upper() + text[1:]


def _summary(runs: list[TriggerRun]) -> str:
    if len(runs) > 1:
        return f"{len(runs)} trigger-run receipts"
    libs, tests = len(runs[0].libraries), len({r.test for r in runs[0].rows})
    return (f"1 trigger-run receipt, {libs} librar{'ies' if libs != 1 else 'y'}, "
            f"{tests} test{'s' if tests != 1 else ''}")


def _run(w, run: TriggerRun, index: int) -> None:
    w(f"<section class=\"trigger-run\" id=\"t{index}\">\n<h2><bdi>{e(_title(run), 400)}</bdi></h2>\n")
    where = f" ({e(run.path)})" if run.path else ""
    w(f"<p class=\"muted\">Run <span class=\"mono\">{e(run.run_id)}</span>{where}</p>\n")
    _verdict(w, run)
    _differences(w, run)
    _scores(w, run)
    _misses(w, run)
    _confusions(w, run)
    _tests(w, run)
    _facts(w, run)
    w("</section>\n")


def _verdict(w, run: TriggerRun) -> None:
    word, line = (run.verdict, run.line) if run.two else gate(run)
    cls = word if word in ("PASS", "FAIL", "NEUTRAL") else "NEUTRAL"
    w(f"<div class=\"verdict v-{cls}\" data-verdict=\"{e(word, 40)}\"><span class=\"word\">{e(word, 40)}</span>"
      f"<span class=\"line\">{e(line)}</span></div>\n")
    sessions, dead = len(run.sessions()), run.dead()
    w(f"<p>{_counted(run, sessions - dead, sessions)} · {run.tests_line()}")
    if dead:
        w(f" · <span class=\"bad\">{dead} dead session{'s' if dead != 1 else ''}</span>")
    w("</p>\n")


def _counted(run: TriggerRun, live: int, sessions: int) -> str:
    """Rows scored of a comparison (both sessions live), sessions live of one library."""
    if run.two:
        scored = run.scored()
        return (f"<strong data-scored=\"{scored}\" data-expected=\"{len(run.rows)}\">{scored} of {len(run.rows)}"
                "</strong> rows scored (both libraries' sessions live)")
    return f"<strong data-live=\"{live}\">{live} of {sessions}</strong> sessions live"


def _differences(w, run: TriggerRun) -> None:
    if not run.differences:
        return
    head = "The libraries differ" if len(run.libraries) > 1 else "Skills the tests expect that the library lacks"
    w(f"<div class=\"panel libdiff\">\n<h4>{head}</h4>\n<ul>\n")
    for d in run.differences:
        where = f"in {_names(d.present)}, not in {_names(d.absent)}" if d.present else f"not in {_names(d.absent)}"
        tests = (f" — tests that expect it: {', '.join(f'<bdi>{e(t)}</bdi>' for t in d.tests)}" if d.tests
                 else " — no test expects it")
        w(f"<li><code><bdi>{e(d.skill)}</bdi></code>: {where}{tests}</li>\n")
    w("</ul>\n<p class=\"muted\">A library without a skill cannot fire it: its tests that expect the skill miss "
      "there.</p>\n</div>\n")


def _names(libs: tuple[Library, ...]) -> str:
    return " or ".join(f"<bdi>{e(library_name(lib))}</bdi>" for lib in libs)


def _scores(w, run: TriggerRun) -> None:
    if not run.skills:
        return
    many = len(run.scores) > 1
    w(f"<h3>Skill scores</h3>\n<table class=\"scores{' grouped' if many else ''}\"><thead><tr><th>skill</th>"
      + ("<th>library</th>" if many else "")
      + "".join(f"<th class=\"num\">{h}</th>" for h in ("recall", "precision", "F1", "fire rate", *COUNTS))
      + "</tr></thead>\n")
    rows = ["".join(_score_row(skill, sc, j, len(run.scores)) for j, sc in enumerate(run.scores))
            for skill in run.skills]
    w("".join(f"<tbody>\n{r}</tbody>\n" for r in rows) if many else "<tbody>\n" + "".join(rows) + "</tbody>\n")
    w("</table>\n<p class=\"muted\">Per skill over the tests that name it: recall tp/(tp+fn), precision "
      "tp/(tp+fp), F1, and the fire rate over the live sessions of its should-trigger tests.</p>\n")


def _score_row(skill: str, sc: Scores, j: int, many: int) -> str:
    """One skill's scores in one library: the skill's cell spans its libraries' rows."""
    tag = _absent_tag(sc.library, skill)
    if many == 1:
        return f"<tr><td><bdi>{e(skill)}</bdi>{tag}</td>{_score_cells(sc.skills.get(skill))}</tr>\n"
    head = f"<td rowspan=\"{many}\"><bdi>{e(skill)}</bdi></td>" if j == 0 else ""
    return (f"<tr>{head}<td>{e(library_name(sc.library))}{tag}</td>"
            f"{_score_cells(sc.skills.get(skill))}</tr>\n")


def _absent_tag(lib: Library, skill: str) -> str:
    return "" if lib.holds(skill) else "<span class=\"tag\">not in library</span>"


def _score_cells(s: SkillLine | None) -> str:
    if s is None:
        return "<td class=\"absent\" colspan=\"8\">not scored in this library</td>"
    return ("".join(f"<td class=\"num\">{ratio(x)}</td>" for x in (s.recall, s.precision, s.f1, s.fire_rate))
            + "".join(f"<td class=\"num\">{count(c)}</td>" for c in s.counts))


def _misses(w, run: TriggerRun) -> None:
    w("<h3>Misses and false fires</h3>\n<div class=\"panel triggers\">\n")
    for sc in run.scores:
        items = sc.misses()
        missed = sum(1 for kind, _, _ in items if kind == "MISS")
        name = f"{e(library_name(sc.library))}: " if len(run.scores) > 1 else ""
        w(f"<h4>{name}{missed} missed (should have fired), {len(items) - missed} fired falsely</h4>\n")
        w("<ul class=\"misses\">\n" + "".join(
            f"<li><span class=\"mono bad\">{kind}:</span> <code><bdi>{e(skill)}</bdi></code> <bdi>{e(test)}</bdi>"
            "</li>\n" for kind, skill, test in items) + "</ul>\n" if items else "<p class=\"muted\">none</p>\n")
    w("</div>\n")


def _confusions(w, run: TriggerRun) -> None:
    rows = run.confusion_rows()
    if not rows:
        return
    cols = [*run.skills, NONE]
    order = ", in the same order for every library" if len(run.scores) > 1 else ""
    lacks = "; — where the library does not hold the skill" if run.lacks() else ""
    w("<h3>Confusion (sessions)</h3>\n<p class=\"muted\">Rows: the skill a test expects (<code>(none)</code>: "
      f"none). Columns: the skill that fired{order}{lacks}.</p>\n")
    for sc in run.scores:
        if len(run.scores) > 1:
            w(f"<h4>{e(library_name(sc.library))}</h4>\n")
        w("<table class=\"confusion\"><thead><tr><th>expected \\ fired</th>"
          + "".join(f"<th class=\"num\"><bdi>{e(c)}</bdi></th>" for c in cols) + "</tr></thead><tbody>\n")
        for r in rows:
            w(f"<tr><th><bdi>{e(r)}</bdi></th>" + "".join(_confusion_cell(sc, r, c) for c in cols) + "</tr>\n")
        w("</tbody></table>\n")


def _confusion_cell(sc: Scores, row: str, col: str) -> str:
    n = sc.confusion.get(row, {}).get(col, 0)
    if not n and col != NONE and not sc.library.holds(col):
        return "<td class=\"num absent\">—</td>"
    return f"<td class=\"num\">{n}</td>"


def _tests(w, run: TriggerRun) -> None:
    if not run.rows:
        return
    head = "<th>outcome</th><th>reason</th>" if run.two else ""
    many = len(run.libraries) > 1
    arms = "".join(f"<th>{e(library_name(lib))}</th>" if many else "<th>session</th>" for lib in run.libraries)
    w(f"<h3>Tests ({run.tests_line(short=True)})</h3>\n<div class=\"scroll\"><table class=\"tests\"><thead><tr>"
      f"<th>test</th><th class=\"num\">rep</th><th>expects</th>{head}{arms}</tr></thead><tbody>\n")
    for r in run.rows:
        _test_row(w, run, r)
    w("</tbody></table></div>\n")


def _test_row(w, run: TriggerRun, r: TestRow) -> None:
    decided = ""
    if run.two:
        outcome, label = (r.outcome, r.outcome) if r.scored else ("dead", "not scored")
        detail = f"<div class=\"detail\"><bdi>{e(r.detail)}</bdi></div>" if r.detail else ""
        decided = (f"<td><span class=\"o o-{outcome}\">{label}</span></td>"
                   f"<td>{e(r.reason) or '—'}{detail}</td>")
    cells = "".join(f"<td class=\"arm\">{_session(r.sessions.get(lib.arm))}</td>" for lib in run.libraries)
    w(f"<tr class=\"test-row\" data-test=\"{e(r.test, 200)}\" data-outcome=\"{r.state}\">"
      f"<td><bdi>{e(r.test)}</bdi></td><td class=\"num\">{r.repetition}</td><td>{e(expects_text(r.expect))}</td>"
      f"{decided}{cells}</tr>\n")


def _session(s: Session | None) -> str:
    if s is None:
        return "<span class=\"muted\">no session recorded</span>"
    badge = f"<span class=\"o o-{s.outcome}\" data-session=\"{s.outcome}\">{s.outcome}</span>"
    if s.dead:
        return badge + (f" <bdi>{e(s.error)}</bdi>" if s.error else "")
    fired = ", ".join(f"<code><bdi>{e(f)}</bdi></code>" for f in s.fired) or "no skill"
    return f"{badge}<span class=\"fired\">fired {fired}</span>{_checks(s)}"


def _checks(s: Session) -> str:
    """The checks a session failed (with their details), and those not scored (with why)."""
    out = "<ul class=\"checks\">" + "".join(_check(f.check, f.detail) for f in s.failed) + "</ul>" if s.failed else ""
    return out + "".join(f"<div class=\"detail\">not scored: <code><bdi>{e(c.check)}</bdi></code> "
                         f"({e(c.detail.removeprefix('not scored: '))})</div>" for c in s.unscored)


def _check(check: str, detail: str) -> str:
    more = f"<div class=\"detail\"><bdi>{e(detail)}</bdi></div>" if detail else ""
    return f"<li><code><bdi>{e(check)}</bdi></code>{more}</li>"


def _facts(w, run: TriggerRun) -> None:
    facts = list(run.facts)
    for lib in run.libraries:
        skills = "the receipt does not list them" if lib.skills is None else ", ".join(lib.skills) or "none"
        facts.append(("library" if lib.arm == "library" else f"library {lib.arm}", f"{lib.folder or '?'} ({skills})"))
    facts += [(f"compared: {arm}", what) for arm, what in run.compared]
    w("<h3>Provenance</h3>\n<dl class=\"facts\">" + "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in facts)
      + "</dl>\n")
