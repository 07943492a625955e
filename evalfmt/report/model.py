"""What a report shows, read from receipts (schema_version 2, docs/receipts.md).

:func:`load` reads one receipt and checks the fields a report uses (a clear one-line
:class:`ReceiptError` otherwise); :func:`build` turns loaded receipts into a :class:`Report`: one
:class:`SkillReport` per skill (receipts grouped by ``skill_id``, else ``skill_name``), its runs in
``run_id`` order, the last one shown in full and every one in the trend.

Numbers are the receipt's own (verdict, counts, net lift, trigger scores, efficiency); the net-lift
line is the receipt's ``summary_lines`` entry, or ``evalfmt.run.verdict.summary_line`` over the
receipt's counts when a receipt (terum's) has none. What the receipt does not hold directly is tallied
from its rows: wins / losses / ties per case, and per check how often both arms failed it or both
passed it. A receipt without ``rows`` (terum's) is read from ``per_case`` instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import EvalfmtError

SCHEMA_VERSION = 2
VERDICTS = ("PASS", "NEUTRAL", "FAIL")
STATUSES = ("complete", "partial", "failed")
OUTCOMES = ("win", "loss", "tie")
#: reasons of rows left out of every count (an arm died)
DEAD_REASONS = ("both-arms-failed", "candidate-run-failed", "opponent-run-failed")
ARM_ORDER = ("baseline", "candidate", "incumbent")


class ReceiptError(EvalfmtError):
    """A receipt that cannot be reported on: the message names the file and what is wrong."""


# ------------------------------------------------------------------------------------- reading


@dataclass
class Receipt:
    path: str
    data: dict[str, Any]
    order: int = 0


def load(path: str) -> Receipt:
    """Read and check one receipt."""
    import orjson

    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except IsADirectoryError:
        raise ReceiptError(f"{path}: is a folder, not a receipt file") from None
    except OSError as exc:
        raise ReceiptError(f"{path}: cannot read receipt: {exc.strerror or exc}") from None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ReceiptError(f"{path}: not JSON: {exc}") from None
    check(data, path)
    return Receipt(path, data)


def check(data: Any, path: str) -> None:
    """Raise ReceiptError unless ``data`` holds every field a report reads, with the right types."""

    def fail(msg: str) -> None:
        raise ReceiptError(f"{path}: {msg}")

    if not isinstance(data, dict):
        fail(f"not a receipt: the top level is {_type(data)}, not an object")
    if "schema_version" not in data:
        fail("missing field 'schema_version' (not a receipt?)")
    sv = data["schema_version"]
    if sv != SCHEMA_VERSION or isinstance(sv, bool):
        fail(f"schema_version {_show(sv)} is not supported (evalfmt reads schema_version {SCHEMA_VERSION})")
    for name in ("verdict", "execution_status", "expected_rows", "scored_rows", "comparisons"):
        if name not in data:
            fail(f"missing field '{name}'")
    _want(data, "verdict", lambda v: v in VERDICTS, f"one of {', '.join(VERDICTS)}", fail)
    _want(data, "execution_status", lambda v: v in STATUSES, f"one of {', '.join(STATUSES)}", fail)
    for name in ("expected_rows", "scored_rows"):
        _want(data, name, _is_count, "a non-negative integer", fail)
    for name in ("skill_name", "skill_id", "run_id", "attribution", "content_digest", "version"):
        if data.get(name) is not None:
            _want(data, name, lambda v: isinstance(v, (str, int, float)) and not isinstance(v, bool), "a string", fail)
    if data.get("skill_name") is None and data.get("skill_id") is None:
        fail("missing field 'skill_name'")
    comps = data["comparisons"]
    if not isinstance(comps, dict):
        fail(f"field 'comparisons' must be an object, not {_type(comps)}")
    for cname, c in comps.items():
        where = f"comparisons.{cname}"
        if not isinstance(c, dict):
            fail(f"field '{where}' must be an object, not {_type(c)}")
        for k in ("win", "loss", "tie"):
            if k not in c:
                fail(f"missing field '{where}.{k}'")
            if not _is_count(c[k]):
                fail(f"field '{where}.{k}' must be a non-negative integer, not {_show(c[k])}")
        if c.get("net_lift") is not None and not _is_number(c["net_lift"]):
            fail(f"field '{where}.net_lift' must be a number, not {_show(c['net_lift'])}")
    for name in ("summary_lines", "efficiency", "arm_scores", "case_runs", "provenance"):
        if data.get(name) is not None and not isinstance(data[name], dict):
            fail(f"field '{name}' must be an object, not {_type(data[name])}")
    for name in ("summary_lines", "arm_scores"):
        for key, v in (data.get(name) or {}).items():
            ok = isinstance(v, str) if name == "summary_lines" else (v is None or _is_number(v))
            if not ok:
                fail(f"field '{name}.{key}' must be {'a string' if name == 'summary_lines' else 'a number or null'}, not {_show(v)}")
    for arm, e in (data.get("efficiency") or {}).items():
        if not isinstance(e, dict):
            fail(f"field 'efficiency.{arm}' must be an object, not {_type(e)}")
        for key in ("turns", "duration_ms", "cost_usd"):
            if e.get(key) is not None and not _is_number(e[key]):
                fail(f"field 'efficiency.{arm}.{key}' must be a number or null, not {_show(e[key])}")
    for arm, e in (data.get("case_runs") or {}).items():
        if not isinstance(e, dict) or not _is_count(e.get("passed")) or not _is_count(e.get("total")):
            fail(f"field 'case_runs.{arm}' must be an object with integer 'passed' and 'total'")
    _check_triggers(data.get("triggers"), fail)
    if data.get("rows") is not None:
        _check_rows(data["rows"], fail)
    elif data.get("per_case") is not None:
        _check_per_case(data["per_case"], fail)
    for name in ("environment_skips", "dropped_cases"):
        if data.get(name) is not None and not isinstance(data[name], (list, dict)):
            fail(f"field '{name}' must be a list, not {_type(data[name])}")


def _check_triggers(t: Any, fail) -> None:
    if t is None:
        return
    if not isinstance(t, dict):
        fail(f"field 'triggers' must be an object or null, not {_type(t)}")
    for k in ("recall", "precision"):
        if t.get(k) is not None and not _is_number(t[k]):
            fail(f"field 'triggers.{k}' must be a number or null, not {_show(t[k])}")
    for k in ("tp", "fp", "fn", "tn"):
        if t.get(k) is not None and not _is_count(t[k]):
            fail(f"field 'triggers.{k}' must be a non-negative integer, not {_show(t[k])}")
    for k in ("misses", "false_fires"):
        v = t.get(k)
        if v is not None and (not isinstance(v, list) or not all(isinstance(p, str) for p in v)):
            fail(f"field 'triggers.{k}' must be a list of strings")


def _check_rows(rows: Any, fail) -> None:
    if not isinstance(rows, list):
        fail(f"field 'rows' must be a list, not {_type(rows)}")
    for i, r in enumerate(rows):
        where = f"rows[{i}]"
        if not isinstance(r, dict):
            fail(f"field '{where}' must be an object, not {_type(r)}")
        for k in ("case", "repetition", "opponent", "outcome", "reason"):
            if k not in r:
                fail(f"missing field '{where}.{k}'")
        if not isinstance(r["case"], str):
            fail(f"field '{where}.case' must be a string, not {_show(r['case'])}")
        if not isinstance(r["opponent"], str):
            fail(f"field '{where}.opponent' must be a string, not {_show(r['opponent'])}")
        if not _is_count(r["repetition"]):
            fail(f"field '{where}.repetition' must be a positive integer, not {_show(r['repetition'])}")
        if r["outcome"] not in OUTCOMES:
            fail(f"field '{where}.outcome' must be one of win, loss, tie, not {_show(r['outcome'])}")
        if not isinstance(r["reason"], str):
            fail(f"field '{where}.reason' must be a string, not {_show(r['reason'])}")
        arms = r.get("arms")
        if arms is None:
            continue
        if not isinstance(arms, dict):
            fail(f"field '{where}.arms' must be an object, not {_type(arms)}")
        for arm, a in arms.items():
            aw = f"{where}.arms.{arm}"
            if not isinstance(a, dict):
                fail(f"field '{aw}' must be an object, not {_type(a)}")
            fc = a.get("failed_checks")
            if fc is not None and (not isinstance(fc, list) or not all(isinstance(c, str) for c in fc)):
                fail(f"field '{aw}.failed_checks' must be a list of strings")
            cs = a.get("checks")
            if cs is None:
                continue
            if not isinstance(cs, list):
                fail(f"field '{aw}.checks' must be a list, not {_type(cs)}")
            for j, c in enumerate(cs):
                if not isinstance(c, dict) or not isinstance(c.get("check"), str):
                    fail(f"field '{aw}.checks[{j}]' must be an object with a string 'check'")
                if c.get("passed") not in (True, False, None):
                    fail(f"field '{aw}.checks[{j}].passed' must be true, false or null, not {_show(c.get('passed'))}")


def _check_per_case(entries: Any, fail) -> None:
    if not isinstance(entries, list):
        fail(f"field 'per_case' must be a list, not {_type(entries)}")
    for i, e in enumerate(entries):
        where = f"per_case[{i}]"
        if not isinstance(e, dict) or not isinstance(e.get("case"), str):
            fail(f"field '{where}' must be an object with a string 'case'")
        if not isinstance(e.get("arms", {}), dict) or not isinstance(e.get("outcomes", {}), dict):
            fail(f"field '{where}' must hold objects 'arms' and 'outcomes'")
        for cname, o in (e.get("outcomes") or {}).items():
            if o not in OUTCOMES:
                fail(f"field '{where}.outcomes.{cname}' must be one of win, loss, tie, not {_show(o)}")
        for arm, a in (e.get("arms") or {}).items():
            checks = a.get("checks", []) if isinstance(a, dict) else None
            if not isinstance(checks, list) or not all(
                    isinstance(c, list) and len(c) == 2 and isinstance(c[0], str) for c in checks):
                fail(f"field '{where}.arms.{arm}.checks' must be a list of [name, passed] pairs")


def _want(data: dict, name: str, ok, what: str, fail) -> None:
    if not ok(data[name]):
        fail(f"field '{name}' must be {what}, not {_show(data[name])}")


def _is_count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _type(v: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(v), type(v).__name__)


def _show(v: Any) -> str:
    if isinstance(v, str):
        return repr(v if len(v) <= 40 else v[:40] + "…")
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return _type(v)


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
    for i, rec in enumerate(receipts):
        run = to_run(rec)
        groups.setdefault(run.skill_key, []).append(run)
    skills = []
    for runs in groups.values():
        runs = sorted(runs, key=lambda r: (r.run_id, r.timestamp))  # stable: input order breaks ties
        skills.append(SkillReport(runs[-1].skill, runs))
    return Report(skills)


def to_run(rec: Receipt) -> Run:
    from ..run import verdict as v

    d = rec.data
    skill = str(d.get("skill_name") if d.get("skill_name") is not None else d.get("skill_id"))
    key = str(d["skill_id"]) if d.get("skill_id") is not None else "name:" + skill
    prov = d.get("provenance") or {}
    lines = d.get("summary_lines") or {}
    comparisons = []
    for name, c in d["comparisons"].items():
        opponent = name[len("candidate-vs-"):] if name.startswith("candidate-vs-") else name
        line = lines.get(name) or v.summary_line(c["win"], c["loss"], c["tie"])
        net = c.get("net_lift")
        comparisons.append(Comparison(name, opponent, c["win"], c["loss"], c["tie"],
                                      v.net_lift(c["win"], c["loss"], c["tie"]) if net is None else float(net), line))
    expected, scored, status = d["expected_rows"], d["scored_rows"], d["execution_status"]
    if v.status(expected, scored) == status:
        suffix = v.status_suffix(expected, scored)
    else:  # a receipt whose status disagrees with its counts: say what it says
        suffix = "" if status == "complete" else f" [{status} — {scored}/{expected} scored]"
    rows = _rows(d)
    order = _opponent_order([c.opponent for c in comparisons] + [r.opponent for r in rows])
    triggers = None
    t = d.get("triggers")
    if isinstance(t, dict):
        triggers = Triggers(t.get("recall"), t.get("precision"), t.get("tp"), t.get("fp"), t.get("fn"), t.get("tn"),
                            list(t.get("misses") or []), list(t.get("false_fires") or []))
    return Run(
        path=rec.path, skill=skill, skill_key=key, run_id=str(d.get("run_id") or ""),
        timestamp=str(prov.get("timestamp") or ""), verdict=d["verdict"], status=status,
        expected_rows=expected, scored_rows=scored, status_suffix=suffix,
        attribution=str(d.get("attribution") or ""), comparisons=comparisons, rows=rows,
        tallies={opp: _tally(rows, opp) for opp in order if any(r.opponent == opp for r in rows)},
        checks=_check_stats(rows), triggers=triggers, arms=_arms(d, order), facts=_facts(d, prov),
        skips=_skips(d), content_digest=str(d.get("content_digest") or ""),
    )


def _opponent_order(names: list[str]) -> list[str]:
    seen: list[str] = []
    for n in names:
        if n not in seen:
            seen.append(n)
    known = [a for a in ("baseline", "incumbent") if a in seen]
    return known + [a for a in seen if a not in known]


def _rows(d: dict) -> list[Row]:
    if d.get("rows") is not None:
        return [_row(r) for r in d["rows"]]
    return _rows_from_per_case(d.get("per_case") or [])


def _row(r: dict) -> Row:
    arms = r.get("arms") or {}
    opp = r["opponent"]
    scored = r.get("scored")
    if not isinstance(scored, bool):
        scored = r["reason"] not in DEAD_REASONS
    return Row(case=r["case"], unit=str(r.get("unit") or r["case"]), repetition=r["repetition"], opponent=opp,
               outcome=r["outcome"], reason=r["reason"], detail=str(r.get("detail") or ""), scored=scored,
               candidate=_cell("candidate", arms.get("candidate"), r["reason"] in ("both-arms-failed", "candidate-run-failed")),
               other=_cell(opp, arms.get(opp), r["reason"] in ("both-arms-failed", "opponent-run-failed")))


def _cell(arm: str, a: Any, dead_by_reason: bool) -> ArmCell:
    if not isinstance(a, dict):
        return ArmCell(arm, dead=dead_by_reason)
    details = {}
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


def _rows_from_per_case(entries: list[dict]) -> list[Row]:
    """terum's receipts carry no rows: rebuild them from per_case (no reasons; an arm without a
    verdict and without checks counts as dead)."""
    rows = []
    for e in entries:
        arms = e.get("arms") or {}
        rep = e.get("repetition") if _is_count(e.get("repetition")) else 1
        for cname, outcome in (e.get("outcomes") or {}).items():
            opp = cname[len("candidate-vs-"):] if cname.startswith("candidate-vs-") else cname
            cells = []
            for arm in ("candidate", opp):
                a = arms.get(arm) if isinstance(arms.get(arm), dict) else {}
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


def _arms(d: dict, opponents: list[str]) -> list[ArmFigures]:
    eff = d.get("efficiency") or {}
    scores = d.get("arm_scores") or {}
    runs = d.get("case_runs") or {}
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
        cr = runs.get(a) or {}
        out.append(ArmFigures(a, e.get("turns"), e.get("duration_ms"), e.get("cost_usd"), scores.get(a),
                              cr.get("passed"), cr.get("total")))
    return out


def _facts(d: dict, prov: dict) -> list[tuple[str, str]]:
    facts = []
    for label, value in (("run", d.get("run_id")), ("when", prov.get("timestamp")), ("skill version", d.get("version")),
                         ("content digest", d.get("content_digest")), ("model", prov.get("model")),
                         ("judge", prov.get("judge_model") or prov.get("judge")), ("repetitions (k)", prov.get("k")),
                         ("trigger detection", prov.get("trigger_detection")), ("Claude Code", prov.get("cc_version")),
                         ("engine", prov.get("engine_version")), ("runner", prov.get("runner_handle"))):
        if value is not None and value != "" and not isinstance(value, (dict, list)):
            facts.append((label, str(value)))
    return facts


def _skips(d: dict) -> list[str]:
    out = []
    for name, label in (("environment_skips", "skipped (environment)"), ("dropped_cases", "dropped")):
        value = d.get(name)
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
