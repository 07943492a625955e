"""What a report shows, read from receipts (schema_version 2, docs/receipts.md).

:func:`load` reads one receipt through the receipt model (:mod:`evalfmt.receipt`: a clear one-line
:class:`~evalfmt.receipt.ReceiptError` for one that cannot be used); :func:`build` turns loaded receipts into a
:class:`Report`: one :class:`SkillReport` per skill (receipts grouped by ``skill_id``, else ``skill_name``), its runs in
``run_id`` order, the last one shown in full and every one in the trend.

Numbers are the receipt's own (verdict, counts, net lift, trigger scores, efficiency); the net-lift
line is the receipt's ``summary_lines`` entry, or ``evalfmt.verdict.summary_line`` over the
receipt's counts when a receipt (terum's) has none. What the receipt does not hold directly is tallied
from its rows: wins / losses / ties per case, and per check how often both arms failed it or both
passed it. A receipt without ``rows`` (terum's) is read from ``per_case`` instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import receipt as receipt_model
from ..receipt import ReceiptError  # noqa: F401 - raised by load; the report's callers catch it from here

from .. import verdict as v

#: reasons of rows left out of every count (an arm died)
DEAD_REASONS = ("both-arms-failed", "candidate-run-failed", "opponent-run-failed")
ARM_ORDER = ("baseline", "candidate", "incumbent")


# ------------------------------------------------------------------------------------- reading


@dataclass
class Receipt:
    """One receipt file as the report reads it: its path and the receipt (:class:`evalfmt.receipt.Receipt`)."""

    path: str
    receipt: receipt_model.Receipt
    order: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.receipt, dict):  # a document: read (and checked) through the model
            self.receipt = receipt_model.Receipt.from_json(self.receipt, self.path)

    @property
    def data(self) -> dict[str, Any]:
        """The receipt's JSON document."""
        return self.receipt.to_json()


def load(path: str) -> Receipt:
    """Read and check one receipt (:class:`evalfmt.receipt.ReceiptError`, one line, when it cannot be used)."""
    return Receipt(path, receipt_model.Receipt.load(path))


def _is_count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


# ------------------------------------------------------------------------------------- the model


@dataclass
class Comparison:
    name: str  # e.g. candidate-vs-baseline
    opponent: str
    win: int
    loss: int
    tie: int
    net_lift: float
    line: str  # terum's net-lift line


@dataclass
class FailedCheck:
    check: str
    detail: str = ""


@dataclass
class ArmCell:
    arm: str
    dead: bool = False
    error: str = ""
    passed: bool | None = None
    failed: list[FailedCheck] = field(default_factory=list)
    #: every check's result in order, (name, passed); passed None for a check that was not scored
    results: list[tuple[str, bool | None]] = field(default_factory=list)

    def by_name(self) -> dict[str, bool | None]:
        """Results keyed by check name (a repeated name gets `` #2``, `` #3``...)."""
        out: dict[str, bool | None] = {}
        for name, passed in self.results:
            key, n = name, 1
            while key in out:
                n += 1
                key = f"{name} #{n}"
            out[key] = passed
        return out


@dataclass
class Row:
    case: str
    unit: str
    repetition: int
    opponent: str
    outcome: str
    reason: str
    detail: str
    scored: bool
    candidate: ArmCell
    other: ArmCell

    @property
    def suite(self) -> bool:
        return self.unit == "suite"

    @property
    def own_detail(self) -> str:
        """The row's detail unless a dead arm's error already says it."""
        if self.detail and self.detail not in (self.candidate.error, self.other.error):
            return self.detail
        return ""


@dataclass
class CaseTally:
    """One case's (or suite entry's) rows against one opponent."""

    case: str
    suite: bool
    win: int = 0
    loss: int = 0
    tie: int = 0
    unscored: int = 0

    @property
    def total(self) -> int:
        return self.win + self.loss + self.tie + self.unscored


@dataclass
class CheckStat:
    """How one check of one case did over the rows where both arms ran and scored it."""

    case: str
    check: str
    rows: int = 0  # rows where both arms have a result for the check
    both_failed: int = 0
    both_passed: int = 0
    detail: str = ""  # a failure detail (the first seen), to say why


@dataclass
class Triggers:
    recall: float | None
    precision: float | None
    tp: int | None
    fp: int | None
    fn: int | None
    tn: int | None
    misses: list[str]
    false_fires: list[str]


@dataclass
class ArmFigures:
    arm: str
    turns: float | None = None
    duration_ms: float | None = None
    cost_usd: float | None = None
    score: float | None = None
    runs_passed: int | None = None
    runs_total: int | None = None


@dataclass
class Run:
    """One receipt, as a report shows it."""

    path: str
    skill: str
    skill_key: str
    run_id: str
    timestamp: str
    verdict: str
    status: str
    expected_rows: int
    scored_rows: int
    status_suffix: str  # `` [partial — 5/9 scored]`` or ""
    attribution: str
    comparisons: list[Comparison]
    rows: list[Row]
    tallies: dict[str, list[CaseTally]]  # opponent -> per case
    checks: list[CheckStat]
    triggers: Triggers | None
    arms: list[ArmFigures]
    facts: list[tuple[str, str]]  # provenance shown at the foot (label, value)
    skips: list[str]  # environment skips and dropped cases, one line each
    content_digest: str

    @property
    def main(self) -> Comparison | None:
        """The comparison the verdict is banded on: candidate-vs-baseline (else the first)."""
        for c in self.comparisons:
            if c.opponent == "baseline":
                return c
        return self.comparisons[0] if self.comparisons else None

    @property
    def verdict_line(self) -> str:
        """``PASS +44% net lift (...)`` with terum's status suffix."""
        main = self.main
        return f"{self.verdict}{self.status_suffix}" + (f" {main.line}" if main else "")

    @property
    def failed_in_both(self) -> list[CheckStat]:
        """Checks both arms failed on at least one row: probably broken (most rows first)."""
        return sorted((c for c in self.checks if c.both_failed), key=lambda c: -c.both_failed / c.rows)

    @property
    def passed_in_both(self) -> list[CheckStat]:
        """Checks both arms passed on every row: they do not tell the arms apart."""
        return [c for c in self.checks if c.rows and c.both_passed == c.rows]

    @property
    def triggers_only(self) -> bool:
        return not self.rows and self.expected_rows == 0 and self.triggers is not None


@dataclass
class SkillReport:
    skill: str
    runs: list[Run]  # in run order

    @property
    def latest(self) -> Run:
        return self.runs[-1]


@dataclass
class Report:
    skills: list[SkillReport]

    @property
    def title(self) -> str:
        if len(self.skills) == 1:
            s = self.skills[0]
            return f"{s.skill}: {s.latest.verdict}"
        return ", ".join(f"{s.skill}: {s.latest.verdict}" for s in self.skills)


def build(receipts: list[Receipt]) -> Report:
    """Group receipts by skill (first appearance order) and order each skill's runs by run_id."""
    groups: dict[str, list[Run]] = {}
    for rec in receipts:
        run = to_run(rec)
        groups.setdefault(run.skill_key, []).append(run)
    skills = []
    for runs in groups.values():
        runs = sorted(runs, key=lambda r: (r.run_id, r.timestamp))  # stable: input order breaks ties
        skills.append(SkillReport(runs[-1].skill, runs))
    return Report(skills)


def to_run(rec: Receipt) -> Run:
    d = rec.receipt
    skill = str(d.skill_name if d.skill_name is not None else d.skill_id)
    key = str(d.skill_id) if d.skill_id is not None else "name:" + skill
    prov = d.provenance or {}
    comparisons = _comparisons(d)
    expected, scored, status = d.expected_rows, d.scored_rows, d.execution_status
    rows = _rows(d)
    order = _opponent_order([c.opponent for c in comparisons] + [r.opponent for r in rows])
    return Run(
        path=rec.path, skill=skill, skill_key=key, run_id=str(d.run_id or ""),
        timestamp=str(prov.get("timestamp") or ""), verdict=d.verdict, status=status,
        expected_rows=expected, scored_rows=scored, status_suffix=_status_suffix(expected, scored, status),
        attribution=str(d.attribution or ""), comparisons=comparisons, rows=rows,
        tallies={opp: _tally(rows, opp) for opp in order if any(r.opponent == opp for r in rows)},
        checks=_check_stats(rows), triggers=_triggers(d.triggers), arms=_arms(d, order), facts=_facts(d, prov),
        skips=_skips(d), content_digest=str(d.content_digest or ""),
    )


def _comparisons(d: receipt_model.Receipt) -> list[Comparison]:
    """Each comparison of the receipt, with its summary line (the receipt's, else made from its counts)."""
    lines = d.summary_lines or {}
    comparisons = []
    for name, c in d.comparisons.items():
        opponent = name[len("candidate-vs-"):] if name.startswith("candidate-vs-") else name
        line = lines.get(name) or v.summary_line(c["win"], c["loss"], c["tie"])
        net = c.get("net_lift")
        comparisons.append(Comparison(name, opponent, c["win"], c["loss"], c["tie"],
                                      v.net_lift(c["win"], c["loss"], c["tie"]) if net is None else float(net), line))
    return comparisons


def _status_suffix(expected: int, scored: int, status: str) -> str:
    if v.status(expected, scored) == status:
        return v.status_suffix(expected, scored)
    # a receipt whose status disagrees with its counts: say what it says
    return "" if status == "complete" else f" [{status} — {scored}/{expected} scored]"


def _triggers(t: receipt_model.Triggers | None) -> Triggers | None:
    if t is None:
        return None
    return Triggers(t.get("recall"), t.get("precision"), t.get("tp"), t.get("fp"), t.get("fn"), t.get("tn"),
                    list(t.get("misses") or []), list(t.get("false_fires") or []))


def _opponent_order(names: list[str]) -> list[str]:
    seen: list[str] = []
    for n in names:
        if n not in seen:
            seen.append(n)
    known = [a for a in ("baseline", "incumbent") if a in seen]
    return known + [a for a in seen if a not in known]


def _rows(d: receipt_model.Receipt) -> list[Row]:
    if d.rows is not None:
        return [_row(r) for r in d.rows]
    return _rows_from_per_case(d.per_case or [])


def _row(r: receipt_model.Row) -> Row:
    arms = r.get("arms") or {}
    opp = r["opponent"]
    scored = r.get("scored")
    if not isinstance(scored, bool):
        scored = r["reason"] not in DEAD_REASONS
    return Row(case=r["case"], unit=str(r.get("unit") or r["case"]), repetition=r["repetition"], opponent=opp,
               outcome=r["outcome"], reason=r["reason"], detail=str(r.get("detail") or ""), scored=scored,
               candidate=_cell("candidate", arms.get("candidate"),
                               r["reason"] in ("both-arms-failed", "candidate-run-failed")),
               other=_cell(opp, arms.get(opp), r["reason"] in ("both-arms-failed", "opponent-run-failed")))


def _cell(arm: str, a: Any, dead_by_reason: bool) -> ArmCell:
    if not isinstance(a, dict):
        return ArmCell(arm, dead=dead_by_reason)
    details: dict[str, str] = {}
    for c in a.get("checks") or []:
        if c.get("passed") is False:
            details.setdefault(c["check"], str(c.get("detail") or ""))
    names = a.get("failed_checks")
    if names is None:
        names = [c["check"] for c in a.get("checks") or [] if c.get("passed") is False]
    return ArmCell(arm, dead=bool(a.get("dead")) or dead_by_reason, error=str(a.get("error") or ""),
                   passed=a.get("passed") if isinstance(a.get("passed"), bool) else None,
                   failed=[FailedCheck(n, details.get(n, "")) for n in names],
                   results=[(c["check"], c.get("passed")) for c in a.get("checks") or []])


def _rows_from_per_case(entries: list[receipt_model.PerCase]) -> list[Row]:
    """terum's receipts carry no rows: rebuild them from per_case (no reasons; an arm without a
    verdict and without checks counts as dead)."""
    rows = []
    for e in entries:
        arms = e.get("arms") or {}
        rep = e["repetition"] if _is_count(e.get("repetition")) else 1
        for cname, outcome in (e.get("outcomes") or {}).items():
            opp = cname[len("candidate-vs-"):] if cname.startswith("candidate-vs-") else cname
            cells = []
            for arm in ("candidate", opp):
                given = arms.get(arm)
                a: receipt_model.PerCaseArm = given if isinstance(given, dict) else {}
                checks = a.get("checks") or []
                passed = a.get("passed") if isinstance(a.get("passed"), bool) else None
                cells.append(ArmCell(arm, dead=passed is None and not checks, passed=passed,
                                     failed=[FailedCheck(c[0]) for c in checks if c[1] is False],
                                     results=[(c[0], c[1] if isinstance(c[1], bool) else None) for c in checks]))
            dead = cells[0].dead or cells[1].dead
            rows.append(Row(case=e["case"], unit=str(e.get("unit") or e["case"]), repetition=rep, opponent=opp,
                            outcome=outcome, reason="", detail="", scored=not dead, candidate=cells[0], other=cells[1]))
    return rows


def _tally(rows: list[Row], opponent: str) -> list[CaseTally]:
    out: dict[tuple[str, str], CaseTally] = {}
    for r in rows:
        if r.opponent != opponent:
            continue
        t = out.setdefault((r.unit, r.case), CaseTally(r.case, r.suite))
        if not r.scored:
            t.unscored += 1
        else:
            setattr(t, r.outcome, getattr(t, r.outcome) + 1)
    return list(out.values())


def _check_stats(rows: list[Row]) -> list[CheckStat]:
    """Per (case, check): over rows where both arms ran and scored it, how often both failed / both passed."""
    stats: dict[tuple[str, str, str], CheckStat] = {}
    for r in rows:
        if r.candidate.dead or r.other.dead:
            continue
        a, b = r.candidate.by_name(), r.other.by_name()
        for name, pa in a.items():
            pb = b.get(name)
            if pa is None or pb is None:
                continue
            st = stats.setdefault((r.unit, r.case, name), CheckStat(r.case, name))
            st.rows += 1
            if pa is False and pb is False:
                st.both_failed += 1
                if not st.detail:
                    st.detail = next((f.detail for f in r.candidate.failed if f.check == name and f.detail), "")
            elif pa is True and pb is True:
                st.both_passed += 1
    return list(stats.values())


def _arms(d: receipt_model.Receipt, opponents: list[str]) -> list[ArmFigures]:
    eff = d.efficiency or {}
    scores = d.arm_scores or {}
    runs = d.case_runs or {}
    names: list[str] = []
    for src in (eff, scores, runs):
        for a in src:
            if a not in names:
                names.append(a)
    known = [a for a in ARM_ORDER if a in names]
    ordered = known + [a for a in names if a not in known]
    out = []
    for a in ordered:
        e = eff.get(a) or {}
        cr: receipt_model.CaseRuns | dict[str, Any] = runs.get(a) or {}
        out.append(ArmFigures(a, e.get("turns"), e.get("duration_ms"), e.get("cost_usd"), scores.get(a),
                              cr.get("passed"), cr.get("total")))
    return out


def _facts(d: receipt_model.Receipt, prov: dict) -> list[tuple[str, str]]:
    facts = []
    for label, value in (("run", d.run_id), ("when", prov.get("timestamp")), ("skill version", d.version),
                         ("content digest", d.content_digest), ("model", prov.get("model")),
                         ("judge", prov.get("judge_model") or prov.get("judge")), ("repetitions (k)", prov.get("k")),
                         ("trigger detection", prov.get("trigger_detection")), ("Claude Code", prov.get("cc_version")),
                         ("engine", prov.get("engine_version")), ("runner", prov.get("runner_handle"))):
        if value is not None and value != "" and not isinstance(value, (dict, list)):
            facts.append((label, str(value)))
    return facts


def _skips(d: receipt_model.Receipt) -> list[str]:
    out = []
    for name, label in (("environment_skips", "skipped (environment)"), ("dropped_cases", "dropped")):
        value = getattr(d, name)
        items = list(value.items()) if isinstance(value, dict) else list(value or [])
        for item in items:
            if isinstance(item, tuple):
                out.append(f"{label}: {item[0]}: {_flat(item[1])}")
            elif isinstance(item, dict):
                case = item.get("case") or item.get("name") or ""
                rest = {k: v for k, v in item.items() if k not in ("case", "name")}
                out.append(f"{label}: {case}" + (f": {_flat(rest)}" if rest else ""))
            else:
                out.append(f"{label}: {_flat(item)}")
    return out


def _flat(v: Any) -> str:
    if isinstance(v, dict):
        return ", ".join(f"{k} {_flat(x)}" for k, x in v.items())
    if isinstance(v, list):
        return ", ".join(_flat(x) for x in v)
    return str(v)
