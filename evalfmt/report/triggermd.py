"""The Markdown summary of trigger-run receipts (:mod:`triggerrun`), with the HTML page's content: the
verdict line, the skills one library holds and another lacks, the skill scores (a row per skill and
library), each MISS and FALSE-FIRE, the confusion tables (one column order for every library) and the
tests inside ``<details>``. Every value goes through :func:`markdown.md` or :func:`markdown.code`."""

from __future__ import annotations

from .markdown import ITEM, MAX_ROWS, code, md
from .triggerrun import NONE, Scores, Session, TestRow, TriggerRun, count, expects_text, gate, library_name, ratio
from .triggerrun import title


def render_markdown(runs: list[TriggerRun]) -> str:
    out: list[str] = []
    for run in runs:
        _run(out, run)
    return "\n".join(out).rstrip("\n") + "\n"


def _run(out: list[str], run: TriggerRun) -> None:
    word, line = (run.verdict, run.line) if run.two else gate(run)
    out += [f"### evalfmt report: {md(title(run, ', '), ITEM)}", "", f"**{md(word)}** {md(line, ITEM)}", "",
            _status(run), ""]
    _differences(out, run)
    _scores(out, run)
    _misses(out, run)
    _confusions(out, run)
    _tests(out, run)


def _status(run: TriggerRun) -> str:
    sessions, dead = len(run.sessions()), run.dead()
    live = f"{sessions - dead}/{sessions} sessions live"
    facts = [f"{run.scored()}/{len(run.rows)} rows scored" if run.two else live, run.tests_line()]
    if dead:
        facts.append(f"{dead} dead session{'s' if dead != 1 else ''}")
    facts.append(f"run {md(run.run_id)}")
    short = {"repetitions (k)": "k", "run id": ""}
    return " · ".join(facts + [f"{md(short.get(k, k))}={md(v)}" for k, v in run.facts if short.get(k, k)])


def _differences(out: list[str], run: TriggerRun) -> None:
    if not run.differences:
        return
    head = "The libraries differ" if len(run.libraries) > 1 else "Skills the tests expect that the library lacks"
    out.append(f"> **{head}** (a library without a skill cannot fire it: its tests that expect the skill miss there)")
    for d in run.differences:
        absent = " or ".join(md(library_name(lib)) for lib in d.absent)
        present = " or ".join(md(library_name(lib)) for lib in d.present)
        where = f"in {present}, not in {absent}" if d.present else f"not in {absent}"
        tests = f"tests that expect it: {', '.join(md(t) for t in d.tests)}" if d.tests else "no test expects it"
        out.append(f"> - {code(d.skill)}: {where} — {tests}")
    out.append("")


def _scores(out: list[str], run: TriggerRun) -> None:
    if not run.skills:
        return
    many = len(run.scores) > 1
    out.append("| skill | " + ("library | " if many else "") + "recall | precision | F1 | fire rate | "
               "tp | fn | fp | tn |")
    out.append("|---|" + ("---|" if many else "") + "---:|" * 8)
    for skill in run.skills:
        for sc in run.scores:
            tag = "" if sc.library.holds(skill) else " (not in library)"
            lib = f"{md(library_name(sc.library))}{tag} | " if many else ""
            name = md(skill) + ("" if many else tag)
            out.append(f"| {name} | {lib}{_score_cells(sc, skill)} |")
    out.append("")


def _score_cells(sc: Scores, skill: str) -> str:
    s = sc.skills.get(skill)
    if s is None:
        return " | ".join(["—"] * 8)
    return " | ".join([*(ratio(x) for x in (s.recall, s.precision, s.f1, s.fire_rate)), *(count(c) for c in s.counts)])


def _misses(out: list[str], run: TriggerRun) -> None:
    lines = []
    for sc in run.scores:
        prefix = f"[{md(library_name(sc.library))}] " if len(run.scores) > 1 else ""
        lines += [f"- {prefix}{kind}: {md(skill)} {md(test)}" for kind, skill, test in sc.misses()]
    out += [*lines, ""] if lines else ["No misses and no false fires.", ""]


def _confusions(out: list[str], run: TriggerRun) -> None:
    rows = run.confusion_rows()
    if not rows:
        return
    cols = [*run.skills, NONE]
    order = ", in one order for every library" if len(run.scores) > 1 else ""
    lacks = "; — where the library does not hold the skill" if run.lacks() else ""
    out += [f"Confusion (sessions; rows: expected skill, columns: fired skill{order}{lacks}):", ""]
    for sc in run.scores:
        if len(run.scores) > 1:
            out += [f"**{md(library_name(sc.library))}**", ""]
        out += ["| expected \\\\ fired | " + " | ".join(md(c) for c in cols) + " |", "|---|" + "---:|" * len(cols)]
        out += [f"| {md(r)} | " + " | ".join(_confusion_cell(sc, r, c) for c in cols) + " |" for r in rows]
        out.append("")


def _confusion_cell(sc: Scores, row: str, col: str) -> str:
    n = sc.confusion.get(row, {}).get(col, 0)
    return "—" if not n and col != NONE and not sc.library.holds(col) else str(n)


def _tests(out: list[str], run: TriggerRun) -> None:
    if not run.rows:
        return
    arms = " | ".join(md(library_name(lib)) for lib in run.libraries) if len(run.libraries) > 1 else "session"
    decided = "outcome | reason | " if run.two else ""
    out += [f"<details><summary>Tests ({run.tests_line(short=True)})</summary>", "",
            f"| test | rep | expects | {decided}{arms} |",
            "|---|--:|---|" + ("---|---|" if run.two else "") + "---|" * len(run.libraries)]
    out += [_test_row(run, r) for r in run.rows[:MAX_ROWS]]
    if len(run.rows) > MAX_ROWS:
        out += ["", f"{len(run.rows) - MAX_ROWS} more tests are in the receipt and the HTML report."]
    out += ["", "</details>", ""]


def _test_row(run: TriggerRun, r: TestRow) -> str:
    decided = ""
    if run.two:
        reason = (md(r.reason) or "—") + (f": {md(r.detail)}" if r.detail else "")
        decided = f"{md(r.outcome) if r.scored else 'not scored'} | {reason} | "
    cells = " | ".join(_session(r.sessions.get(lib.arm)) for lib in run.libraries)
    return f"| {md(r.test)} | {r.repetition} | {md(expects_text(r.expect))} | {decided}{cells} |"


def _session(s: Session | None) -> str:
    if s is None:
        return "no session recorded"
    if s.dead:
        return "dead" + (f": {md(s.error)}" if s.error else "")
    fired = ", ".join(md(f) for f in s.fired) or "no skill"
    failed = ": " + "<br>".join(code(f.check, table=True) for f in s.failed) if s.failed else ""
    return f"{s.outcome}, fired {fired}{failed}" + "".join(
        f"<br>not scored: {code(c.check, table=True)} ({md(c.detail.removeprefix('not scored: '))})"
        for c in s.unscored)
