"""Arm comparison: score each arm's recorded sessions over a skill's cases and suite, decide every
row by terum's six rules, and sum up (comparisons, verdict, status, attribution, arm scores).

A runs folder (one per arm) holds ``<case stem>/`` (``suite/`` for the suite) with
``transcript.jsonl`` and optionally ``sandbox/``; with k > 1 repetitions, numbered folders
``<case>/1/``, ``<case>/2/``, ... hold them. A missing or unreadable transcript is a dead arm.

Rows: one per case (and per suite entry) x repetition x opponent, in that order (cases as the skill
lists them, then the suite's entries; opponents ``baseline``, ``incumbent``, then any other arm). The
first rule that applies decides a row:

1. both arms died: tie, ``both-arms-failed``;  2. the candidate died: tie, ``candidate-run-failed``;
3. the opponent died: tie, ``opponent-run-failed`` (rows 1-3 are not scored);
4. one arm passed every check and the other did not: win or loss, ``checks``;
5. equal check results and no ``judge`` rubric (a suite never has one): tie, ``checks-equal-no-judge``;
6. otherwise the judge decides (``judges.judge_pair``); with no judge configured the row is a tie,
   ``judge-not-configured``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from .. import ir, verdict
from ..errors import EvalfmtError
from . import detect, shell, skillgym_report
from .checks import CaseResult, score_case, score_suite
from .judges import Judge, NOT_CONFIGURED, NoJudge, judge_pair
from .layout import CANDIDATE, DEAD_MARKER, SANDBOX, TRANSCRIPT, detect_k, session_dirs
from .transcripts import SessionError, read_session

OPPONENT_ORDER = ("baseline", "incumbent")
DEAD = ("both-arms-failed", "candidate-run-failed", "opponent-run-failed")


@dataclass
class ArmRun:
    """One arm's session for one case (or the suite) and repetition, scored. The session itself is
    not kept: only what rows, judges and receipts need."""

    arm: str
    unit: str
    repetition: int
    path: str | None = None
    error: str | None = None  # why the arm is dead; None when alive
    results: list[CaseResult] = field(default_factory=list)
    tail: str = ""  # the last 6,000 characters of the transcript (for a judge)
    efficiency: dict[str, Any] = field(default_factory=dict)
    model: str | None = None
    skills: list[str] | None = None
    skipped_lines: int = 0

    @property
    def dead(self) -> bool:
        return self.error is not None

    def result(self, name: str) -> CaseResult | None:
        return next((r for r in self.results if r.name == name), None)


@dataclass
class Row:
    case: str  # the case name, or the suite entry's name
    repetition: int
    opponent: str
    outcome: str  # win | loss | tie (for the candidate)
    reason: str  # terum's decided_by
    detail: str = ""
    unit: str = ""  # the case stem, or "suite"
    candidate: CaseResult | None = None
    opponent_result: CaseResult | None = None
    candidate_error: str | None = None
    opponent_error: str | None = None

    @property
    def scored(self) -> bool:
        return self.reason not in DEAD

    @property
    def suite(self) -> bool:
        return self.unit == "suite"

    def to_json(self) -> dict:
        """The CLI.md row shape."""
        return {"case": self.case, "repetition": self.repetition, "opponent": self.opponent,
                "outcome": self.outcome, "reason": self.reason}


@dataclass
class Comparison:
    """Everything ``compare`` decides. ``comparisons`` maps each opponent to its tally."""

    skill: str | None
    arms: list[str]
    opponents: list[str]
    k: int
    units: list[str]
    rows: list[Row]
    runs: dict[str, list[ArmRun]]
    comparisons: dict[str, verdict.Tally]
    expected_rows: int
    suite_ran: bool
    detection: str
    judge: str

    @property
    def scored_rows(self) -> int:
        return sum(1 for r in self.rows if r.scored)

    @property
    def baseline(self) -> verdict.Tally | None:
        return self.comparisons.get("baseline")

    @property
    def verdict(self) -> str:
        """Banded on candidate-vs-baseline alone; NEUTRAL without a baseline."""
        b = self.baseline
        return b.verdict if b is not None else verdict.NEUTRAL

    @property
    def status(self) -> str:
        return verdict.status(self.expected_rows, self.scored_rows)

    def sign_p(self, opponent: str) -> float:
        """The receipt's sign_p: forced to 1.0 when a suite session ran (its rows are not independent).
        The printed line (:meth:`summary_line`) recomputes p from W and L all the same, as terum's printer does."""
        return 1.0 if self.suite_ran else self.comparisons[opponent].sign_p

    def summary_line(self, opponent: str) -> str:
        """terum's printed net-lift line: p from this comparison's W and L, whatever the receipt's sign_p."""
        return self.comparisons[opponent].line()

    def attribution(self) -> str:
        return attribution(self.rows, self.expected_rows)

    def arm_scores(self) -> dict[str, float | None]:
        """Per arm, the mean fraction of checks passed over its live sessions (None without checks)."""
        out: dict[str, float | None] = {}
        for arm in self.arms:
            fractions = []
            for run in self.runs[arm]:
                if run.dead:
                    continue
                scored = [c for r in run.results for c in r.scored]
                if scored:
                    fractions.append(sum(1 for c in scored if c.passed) / len(scored))
            out[arm] = sum(fractions) / len(fractions) if fractions else None
        return out

    def case_runs(self) -> dict[str, dict[str, int]]:
        """Per arm, how many case-runs (case or suite entry x repetition) passed every check, over
        those where it can be said (arm alive, the case has checks)."""
        out = {}
        for arm in self.arms:
            passed = total = 0
            for run in self.runs[arm]:
                if run.dead:
                    continue
                for r in run.results:
                    if r.scored:
                        total += 1
                        passed += r.passed
            out[arm] = {"passed": passed, "total": total}
        return out

    def efficiency(self) -> dict[str, dict[str, float | None]]:
        """Per arm, the mean turns, duration and cost over its live sessions (each over non-null values)."""
        out = {}
        for arm in self.arms:
            live = [r.efficiency for r in self.runs[arm] if not r.dead]
            out[arm] = {key: _mean([e.get(key) for e in live]) for key in ("turns", "duration_ms", "cost_usd")}
        return out

    def arm_skill_lists(self) -> dict[str, list[str] | None]:
        return {arm: next((r.skills for r in self.runs[arm] if r.skills is not None), None) for arm in self.arms}

    def report_lines(self) -> list[str]:
        """terum's printed report: verdict, why, one line per comparison, arm scores, case-runs, efficiency."""
        lines = [f"verdict: {self.verdict}{verdict.status_suffix(self.expected_rows, self.scored_rows)}",
                 f"why: {self.attribution()}"]
        for opp in self.opponents:
            lines.append(f"candidate-vs-{opp}: {self.summary_line(opp)}")
        order = _arm_order(self.arms)
        scores = self.arm_scores()
        lines.append("arm scores: "
                     + " · ".join(f"{a} {'n/a' if scores[a] is None else f'{scores[a]:.2f}'}" for a in order))
        runs = self.case_runs()
        lines.append("case-runs passed: " + " · ".join(f"{a} {runs[a]['passed']}/{runs[a]['total']}" for a in order))
        eff = self.efficiency()
        lines.append("efficiency: " + " | ".join(f"{a} {_eff(eff[a])}" for a in order))
        return lines

    def to_json(self) -> dict:
        """The CLI.md shape of ``compare --format json``."""
        return {
            "rows": [r.to_json() for r in self.rows],
            "comparisons": {opp: self.comparisons[opp].to_json(self.sign_p(opp)) for opp in self.opponents},
            "verdict": self.verdict,
            "status": self.status,
            "expected_rows": self.expected_rows,
            "scored_rows": self.scored_rows,
        }


def _arm_order(arms: list[str]) -> list[str]:
    known = [a for a in ("baseline", CANDIDATE, "incumbent") if a in arms]
    return known + [a for a in arms if a not in known]


def _mean(values: list[Any]) -> float | None:
    vals = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return sum(vals) / len(vals) if vals else None


def _eff(e: dict[str, float | None]) -> str:
    turns = "n/a" if e["turns"] is None else f"{e['turns']:.1f}"
    secs = "n/a" if e["duration_ms"] is None else f"{e['duration_ms'] / 1000:.1f}s"
    cost = "n/a" if e["cost_usd"] is None else f"${e['cost_usd']:.2f}"
    return f"{turns} turns · {secs} · {cost}"


def attribution(rows: list[Row], expected: int) -> str:
    """One deterministic sentence about what decided the candidate-vs-baseline rows."""
    base = [r for r in rows if r.opponent == "baseline"]
    scored = [r for r in base if r.scored]
    if not base:
        return "no execution comparisons ran" if expected == 0 or not rows else "no candidate-vs-baseline comparison"
    if not scored:
        return f"no comparison was scored ({len(base)} dead)"
    parts = _decided(scored, "win", "wins") + _decided(scored, "loss", "losses")
    ties = _by_reason(scored, "tie")
    if ties:
        n = sum(ties.values())
        parts.append(f"{n} tie{'s' if n != 1 else ''} ({', '.join(f'{v} {k}' for k, v in ties.items())})")
    dead = len(base) - len(scored)
    if dead:
        parts.append(f"{dead} not scored (dead arm)")
    return "; ".join(parts)


def _by_reason(rows: list[Row], outcome: str) -> dict[str, int]:
    """How many of ``rows`` have ``outcome``, by reason (in the order met)."""
    by: dict[str, int] = {}
    for r in rows:
        if r.outcome == outcome:
            by[r.reason] = by.get(r.reason, 0) + 1
    return by


def _decided(rows: list[Row], outcome: str, plural: str) -> list[str]:
    """``N win(s) on checks``, ``N win(s) by the judge``: one part per reason."""
    return [f"{n} {outcome if n == 1 else plural} {'on checks' if reason == 'checks' else 'by the judge'}"
            for reason, n in _by_reason(rows, outcome).items()]


# ------------------------------------------------------------------------------------- reading


def run_arm(arm: str, runs_dir: str, unit: str, target: ir.Case, rep: int, folder: str | None, *,
            detection: str, timeout: float, keep_tail: bool, extra_checks: list[ir.Check]) -> ArmRun:
    """Read and score one session (dead when missing or unreadable)."""
    run = ArmRun(arm, unit, rep)
    if folder is None:
        run.error = f"missing: {os.path.join(runs_dir, unit)}" + (f"/{rep}" if rep > 1 else "")
        return run
    path = skillgym_report.session_file(folder, TRANSCRIPT)  # transcript.jsonl, else a skillgym report.json
    run.path = path
    marker = os.path.join(folder, DEAD_MARKER)
    if os.path.isfile(marker):
        with open(marker, encoding="utf-8", errors="replace") as fh:
            run.error = fh.readline().strip() or "dead"
        return run
    try:
        session = read_session(path)
    except SessionError as exc:
        run.error = str(exc)
        return run
    staged = os.path.join(folder, SANDBOX)
    sandbox = staged if os.path.isdir(staged) else None
    if isinstance(target, ir.Suite):
        run.results = score_suite(target, session, sandbox, detection, timeout)
    else:
        run.results = [score_case(target, session, sandbox, detection, extra_checks, timeout)]
    run.efficiency = session.efficiency()
    run.model = session.model
    run.skills = session.skills
    run.skipped_lines = session.skipped_lines
    if keep_tail:
        run.tail = session.tail()
    return run


def compare(evalset: ir.EvalSet, arms: dict[str, str], *, k: int | None = None,
            detection: str = detect.DEFAULT, judge: Judge | None = None,
            timeout: float = shell.CHECK_TIMEOUT, progress=None,
            prescored: dict[tuple[str, str, int], ArmRun] | None = None) -> Comparison:
    """Compare the arms' recorded sessions over ``evalset`` (its cases, then its suite).

    ``arms`` maps an arm name to its runs folder and must hold ``candidate``; every other arm is an
    opponent. ``progress`` (optional) is called with one line per session read. ``prescored`` maps
    ``(arm, unit, repetition)`` to a session already scored with :func:`run_arm` (``evalfmt run``
    scores each session as it ends); any other session is read from its runs folder.
    """
    if CANDIDATE not in arms:
        raise EvalfmtError("compare needs a 'candidate' arm (--arm candidate=RUNS_DIR)")
    judge = judge or NoJudge()
    opponents = _opponents(arms)
    arm_names = [CANDIDATE] + opponents
    units = _units(evalset)
    unit_names = [u for u, _ in units]
    k = k or detect_k([arms[a] for a in arm_names], unit_names)
    reading = _Reading(arms, k, list(evalset.checks), detection, timeout, progress, prescored or {},
                       runs={a: [] for a in arm_names})
    for unit, target in units:
        keep_tail = bool(target.judge) and not isinstance(target, ir.Suite) and judge.configured
        for arm in arm_names:
            reading.read(arm, unit, target, keep_tail)
    tallies = {opp: verdict.Tally() for opp in opponents}
    rows = _rows(reading.table, units, k, opponents, judge, tallies)
    expected = sum(_entries(t) for _, t in units) * k * len(opponents)
    # terum pins the sign test at 1.0 for any receipt containing suite rows (dead or not): rows of
    # one session are not independent observations (_units holds a suite only when it has entries).
    suite_ran = any(isinstance(t, ir.Suite) for _, t in units)
    skill = evalset.skill.name if evalset.skill else evalset.name
    return Comparison(skill, arm_names, opponents, k, unit_names, rows, reading.runs, tallies, expected, suite_ran,
                      detection, getattr(judge, "name", "none"))


def _opponents(arms: dict[str, str]) -> list[str]:
    """Every arm but the candidate: baseline, incumbent, then the others as given."""
    return [a for a in OPPONENT_ORDER if a in arms] + [a for a in arms if a not in OPPONENT_ORDER and a != CANDIDATE]


def _units(evalset: ir.EvalSet) -> list[tuple[str, ir.Case]]:
    """(name, case) of each case, then ``suite`` when the set has a suite with entries."""
    units: list[tuple[str, ir.Case]] = [(c.name, c) for c in evalset.cases]
    if evalset.suite is not None and evalset.suite.entries:
        units.append(("suite", evalset.suite))
    return units


def _entries(target: ir.Case) -> int:
    """How many rows one unit gives per repetition and opponent: a suite one per entry, a case one."""
    return len(target.entries) if isinstance(target, ir.Suite) else 1


@dataclass
class _Reading:
    """The sessions of a comparison, read (or taken as ``prescored``) and scored: by arm in the order read,
    and by (arm, unit, repetition)."""

    arms: dict[str, str]
    k: int
    extra_checks: list[ir.Check]
    detection: str
    timeout: float
    progress: Any
    prescored: dict[tuple[str, str, int], ArmRun]
    runs: dict[str, list[ArmRun]] = field(default_factory=dict)
    table: dict[tuple[str, str, int], ArmRun] = field(default_factory=dict)

    def read(self, arm: str, unit: str, target: ir.Case, keep_tail: bool) -> None:
        """Every repetition of ``arm`` on ``unit``."""
        folders = session_dirs(self.arms[arm], unit, self.k)
        for rep in range(1, self.k + 1):
            run = self.prescored.get((arm, unit, rep))
            if run is None:
                run = run_arm(arm, self.arms[arm], unit, target, rep, folders[rep], detection=self.detection,
                              timeout=self.timeout, keep_tail=keep_tail, extra_checks=self.extra_checks)
            if self.progress is not None:
                self.progress(f"{arm} {unit}" + (f" #{rep}" if self.k > 1 else "")
                              + (f": dead ({run.error})" if run.dead else ""))
            self.runs[arm].append(run)
            self.table[(arm, unit, rep)] = run


def _rows(table: dict[tuple[str, str, int], ArmRun], units: list[tuple[str, ir.Case]], k: int, opponents: list[str],
          judge: Judge, tallies: dict[str, verdict.Tally]) -> list[Row]:
    """Every row: by unit, then repetition, then opponent (a suite: one per entry), each opponent's tallied."""
    rows: list[Row] = []
    for unit, target in units:
        for rep in range(1, k + 1):
            for opp in opponents:
                rows += _decide_unit(table, unit, target, rep, opp, judge, tallies[opp])
    return rows


def _decide_unit(table: dict[tuple[str, str, int], ArmRun], unit: str, target: ir.Case, rep: int, opp: str,
                 judge: Judge, tally: verdict.Tally) -> list[Row]:
    """The rows of one unit and repetition against one opponent (a suite: one per entry), tallied."""
    cand, other = table[(CANDIDATE, unit, rep)], table[(opp, unit, rep)]
    names = [e.name for e in target.entries] if isinstance(target, ir.Suite) else [target.name]
    rows = [decide(name, unit, rep, opp, cand, other, target, judge) for name in names]
    for row in rows:
        if row.scored:
            tally.add(row.outcome)
    return rows


def decide(name: str, unit: str, rep: int, opp: str, cand: ArmRun, other: ArmRun, target: ir.Case,
           judge: Judge) -> Row:
    row = Row(name, rep, opp, "tie", "", unit=unit, candidate=cand.result(name), opponent_result=other.result(name),
              candidate_error=cand.error, opponent_error=other.error)
    if cand.dead and other.dead:
        row.reason = "both-arms-failed"
        row.detail = (cand.error or "") if cand.error == other.error else \
            f"candidate: {cand.error}; {opp}: {other.error}"
    elif cand.dead:
        row.reason, row.detail = "candidate-run-failed", cand.error or ""
    elif other.dead:
        row.reason, row.detail = "opponent-run-failed", other.error or ""
    else:
        cp = row.candidate.passed if row.candidate else True
        op = row.opponent_result.passed if row.opponent_result else True
        rubric = None if isinstance(target, ir.Suite) else target.judge
        if cp != op:
            row.outcome, row.reason = ("win" if cp else "loss"), "checks"
        elif not rubric:
            row.reason = "checks-equal-no-judge"
        elif not judge.configured:
            row.reason = "judge-not-configured"
            row.detail = NOT_CONFIGURED
        else:
            d = judge_pair(judge, target.task or "", rubric, cand.tail, other.tail)
            row.outcome, row.reason, row.detail = d.outcome, d.reason, d.detail
    return row
