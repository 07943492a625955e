"""What the report of a trigger run's receipt shows (``"kind": "trigger-run"``, written by ``evalfmt run
EVAL.yaml --skills DIR`` and ``evalfmt compare EVAL.yaml --runs ...``), read from the receipt as data.

:func:`read` turns one receipt into a :class:`TriggerRun`: its libraries (the arms), every skill in one
fixed order shared by every arm (the skill table and the confusion tables use it), per library the skill
scores and the confusion table, a row per test and repetition with each library's session (fired skills,
outcome, failed and unscored checks) and, with two libraries, the row's outcome; the skills one library
holds and another lacks; the verdict. Numbers are the receipt's own; only the one-library gate (every
live session passed, as ``evalfmt run`` exits 0) is counted from the sessions. A value of the wrong type
shows nothing (a count shows ``?``): the renderers (``triggerhtml.py``, ``triggermd.py``) never fail on
a receipt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .model import DEAD_REASONS, FailedCheck

KIND = "trigger-run"
NONE = "(none)"
#: the order of the two libraries of a comparison wherever both are shown side by side
ARM_ORDER = ("candidate", "baseline")


def is_trigger_run(data: Any) -> bool:
    return isinstance(data, dict) and data.get("kind") == KIND


def _list(value: Any) -> list[Any]:
    """A receipt's list, or none (a value of another type shows nothing)."""
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _count(value: Any) -> int | None:
    """A count, or None (shown ``?``) for anything that is not one."""
    return value if type(value) is int else None


def _ratio(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _text(value: Any) -> str:
    return "" if value is None else str(value)


# ------------------------------------------------------------------------------------- the model


@dataclass(frozen=True)
class Library:
    arm: str
    folder: str
    skills: tuple[str, ...] | None  # None: the receipt does not list them

    def holds(self, skill: str) -> bool:
        return self.skills is None or skill in self.skills


@dataclass(frozen=True)
class SkillLine:
    """One skill's trigger scores in one library."""

    skill: str
    counts: tuple[int | None, int | None, int | None, int | None]  # tp, fn, fp, tn
    recall: float | None
    precision: float | None
    f1: float | None
    fire_rate: float | None
    misses: tuple[str, ...]
    false_fires: tuple[str, ...]


@dataclass(frozen=True)
class Scores:
    """One library's skill scores (by skill) and confusion table (expected -> fired -> sessions)."""

    library: Library
    skills: dict[str, SkillLine]
    confusion: dict[str, dict[str, int]]

    def names(self) -> set[str]:
        """The skills scored, and those the confusion table names (as expected or fired)."""
        return set(self.skills) | set(self.confusion) | {x for row in self.confusion.values() for x in row}

    def misses(self) -> list[tuple[str, str, str]]:
        """("MISS" or "FALSE-FIRE", skill, test): every miss, then every false fire, skill by skill."""
        out = [("MISS", s.skill, t) for s in self.skills.values() for t in s.misses]
        return out + [("FALSE-FIRE", s.skill, t) for s in self.skills.values() for t in s.false_fires]


@dataclass(frozen=True)
class Session:
    fired: tuple[str, ...]
    dead: bool
    error: str
    failed: tuple[FailedCheck, ...]
    unscored: tuple[FailedCheck, ...]
    passed: bool

    @property
    def outcome(self) -> str:
        return "dead" if self.dead else "passed" if self.passed else "failed"


@dataclass(frozen=True)
class TestRow:
    test: str
    repetition: int
    expect: tuple[tuple[str, bool], ...]
    sessions: dict[str, Session]  # by arm
    outcome: str = ""  # win / loss / tie, two libraries only
    reason: str = ""
    detail: str = ""

    @property
    def scored(self) -> bool:
        return bool(self.outcome) and self.reason not in DEAD_REASONS

    @property
    def state(self) -> str:
        """The row's outcome (win, loss, tie); with one library, its session's (passed, failed, dead)."""
        if self.outcome:
            return self.outcome
        return next(iter(self.sessions.values())).outcome if len(self.sessions) == 1 else ""


@dataclass(frozen=True)
class Difference:
    """A skill some libraries hold and others lack (with one library: a skill the tests name that it lacks)."""

    skill: str
    present: tuple[Library, ...]
    absent: tuple[Library, ...]
    tests: tuple[str, ...]  # the tests that expect it to fire


@dataclass
class TriggerRun:
    path: str
    run_id: str
    facts: list[tuple[str, str]]
    libraries: list[Library]
    skills: list[str]
    scores: list[Scores]
    rows: list[TestRow]
    differences: list[Difference]
    verdict: str = ""
    line: str = ""
    compared: list[tuple[str, str]] = field(default_factory=list)

    @property
    def two(self) -> bool:
        return bool(self.verdict)

    def confusion_rows(self) -> list[str]:
        """The expected skills of every library's confusion table, in the fixed order."""
        have = {r for s in self.scores for r in s.confusion}
        return [x for x in [*self.skills, NONE] if x in have]

    def lacks(self) -> bool:
        """Some library lacks a skill of the fixed order (its confusion cells show ``—``)."""
        return any(not lib.holds(x) for lib in self.libraries for x in self.skills)

    def tests_line(self, short: bool = False) -> str:
        """``5 tests`` (``5`` when ``short``); ``3 tests, 6 rows`` with repetitions."""
        tests = len({r.test for r in self.rows})
        if tests != len(self.rows):
            return f"{tests} test{'s' if tests != 1 else ''}, {len(self.rows)} rows"
        return str(tests) if short else f"{tests} test{'s' if tests != 1 else ''}"

    def sessions(self) -> list[Session]:
        return [s for r in self.rows for s in r.sessions.values()]

    def dead(self) -> int:
        return sum(1 for s in self.sessions() if s.dead)

    def scored(self) -> int:
        """Rows of a comparison scored (both sessions live)."""
        return sum(1 for r in self.rows if r.scored)


# ------------------------------------------------------------------------------------- reading


def read(data: dict[str, Any], path: str = "") -> TriggerRun:
    libraries = _libraries(data)
    scores = [_scores(lib, _dict(_dict(data.get("scores")).get(lib.arm))) for lib in libraries]
    expects = _expects(data)
    run = TriggerRun(path=path, run_id=_text(data.get("run_id")), facts=_facts(data), libraries=libraries,
                     skills=_skill_order(scores, expects), scores=scores,
                     rows=_rows(data, expects, [lib.arm for lib in libraries]),
                     differences=_differences(libraries, expects), compared=_compared(data))
    line = _dict(data.get("summary_lines")).get("candidate-vs-baseline")
    if data.get("verdict") and len(libraries) > 1:
        run.verdict, run.line = _text(data["verdict"]), _text(line)
    return run


def _libraries(data: dict[str, Any]) -> list[Library]:
    """The libraries (arms) the receipt scored, candidate first when it compares two."""
    listed = _dict(data.get("libraries"))
    arms = [str(a) for a, v in _dict(data.get("scores")).items() if isinstance(v, dict)]
    arms.sort(key=lambda a: ARM_ORDER.index(a) if a in ARM_ORDER else len(ARM_ORDER))
    out = []
    for arm in arms:
        entry = _dict(listed.get(arm))
        skills = entry.get("skills")
        named = tuple(str(s) for s in skills) if isinstance(skills, list) else None
        out.append(Library(arm, _text(entry.get("folder")), named))
    return out


def _scores(lib: Library, raw: dict[str, Any]) -> Scores:
    lines = [_skill_line(s) for s in _list(raw.get("skills")) if isinstance(s, dict)]
    confusion = {str(k): {str(a): b for a, b in v.items() if type(b) is int}
                 for k, v in _dict(raw.get("confusion")).items() if isinstance(v, dict)}
    return Scores(lib, {x.skill: x for x in lines}, confusion)


def _skill_line(raw: dict[str, Any]) -> SkillLine:
    tp, fn, fp, tn = (_count(raw.get(k, 0)) for k in ("tp", "fn", "fp", "tn"))
    return SkillLine(_text(raw.get("skill")), (tp, fn, fp, tn), _ratio(raw.get("recall")),
                     _ratio(raw.get("precision")), _ratio(raw.get("f1")), _ratio(raw.get("fire_rate")),
                     tuple(_text(m) for m in _list(raw.get("misses"))),
                     tuple(_text(m) for m in _list(raw.get("false_fires"))))


def _expects(data: dict[str, Any]) -> dict[str, tuple[tuple[str, bool], ...]]:
    out = {}
    for t in _list(data.get("tests")):
        if isinstance(t, dict):
            out[_text(t.get("id"))] = tuple((str(k), v is True) for k, v in _dict(t.get("expect")).items())
    return out


def _skill_order(scores: list[Scores], expects: dict[str, tuple[tuple[str, bool], ...]]) -> list[str]:
    """Every skill a library scored, a confusion table counts or a test names: one sorted order for every arm."""
    found = {k for e in expects.values() for k, _ in e}
    for sc in scores:
        found |= sc.names()
    return sorted(found - {NONE, ""})


def _session(raw: dict[str, Any]) -> Session:
    checks = [c for c in _list(raw.get("checks")) if isinstance(c, dict)]

    def pick(passed: Any) -> tuple[FailedCheck, ...]:
        return tuple(FailedCheck(_text(c.get("check")), _text(c.get("detail"))) for c in checks
                     if c.get("passed") is passed)

    failed = pick(False)
    return Session(tuple(_text(f) for f in _list(raw.get("fired"))), raw.get("dead") is True,
                   _text(raw.get("error")), failed, pick(None), raw.get("passed") is not False and not failed)


def _rows(data: dict[str, Any], expects: dict[str, tuple[tuple[str, bool], ...]], arms: list[str]) -> list[TestRow]:
    """A row per test and repetition, in the order the receipt's sessions ran."""
    table: dict[tuple[str, int], dict[str, Session]] = {}
    for raw in _list(data.get("sessions")):
        if isinstance(raw, dict) and _text(raw.get("arm")) in arms:
            rep = raw.get("repetition")
            key = (_text(raw.get("test")), rep if type(rep) is int else 1)
            table.setdefault(key, {})[_text(raw.get("arm"))] = _session(raw)
    decided = {(_text(r.get("case")), r.get("repetition")): r for r in _list(data.get("rows")) if isinstance(r, dict)}
    out = []
    for (test, rep), sessions in table.items():
        row = decided.get((test, rep), {})
        outcome = _text(row.get("outcome"))
        out.append(TestRow(test, rep, expects.get(test, ()), sessions,
                           outcome if outcome in ("win", "loss", "tie") else "", _text(row.get("reason")),
                           _text(row.get("detail"))))
    return out


def _differences(libraries: list[Library], expects: dict[str, tuple[tuple[str, bool], ...]]) -> list[Difference]:
    """Skills one library holds and another lacks, and skills tests expect that a library lacks (with one
    library, those alone). Libraries whose skills the receipt does not list are left out."""
    known = [lib for lib in libraries if lib.skills is not None]
    wanted = _wanted(expects)
    every = sorted({x for lib in known for x in lib.skills or ()} | set(wanted))
    found = [_difference(skill, known, wanted.get(skill, ())) for skill in every]
    return [d for d in found if d.absent]


def _difference(skill: str, known: list[Library], tests: tuple[str, ...]) -> Difference:
    present = tuple(lib for lib in known if lib.holds(skill))
    return Difference(skill, present, tuple(lib for lib in known if lib not in present), tests)


def _wanted(expects: dict[str, tuple[tuple[str, bool], ...]]) -> dict[str, tuple[str, ...]]:
    """skill -> the tests that expect it to fire."""
    out: dict[str, tuple[str, ...]] = {}
    for test, expect in expects.items():
        for skill, want in expect:
            if want:
                out[skill] = (*out.get(skill, ()), test)
    return out


def _facts(data: dict[str, Any]) -> list[tuple[str, str]]:
    out = [("run id", _text(data.get("run_id")))]
    for label, key in (("repetitions (k)", "k"), ("trigger detection", "trigger_detection"), ("judge", "judge")):
        if data.get(key) is not None:
            out.append((label, _text(data.get(key))))
    return out


def _compared(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(arm, "RUN/LIBRARY (run ID)"): the library folder of each run a comparison read."""
    out = []
    for arm, v in _dict(data.get("compared")).items():
        if isinstance(v, dict):
            out.append((str(arm), f"{_text(v.get('run'))}/{_text(v.get('library'))} (run {_text(v.get('run_id'))})"))
    return out


def gate(run: TriggerRun) -> tuple[str, str]:
    """The word and line of a one-library run: PASS when every live session passed (``evalfmt run`` exits 0)."""
    live = [s for s in run.sessions() if not s.dead]
    passed = sum(1 for s in live if s.passed)
    word = "PASS" if live and passed == len(live) else "FAIL"
    if not live:
        return word, "no live sessions"
    return word, f"{passed} of {len(live)} live sessions passed every check"


def expects_text(expect: tuple[tuple[str, bool], ...]) -> str:
    """What a test expects: ``notes``, ``not deploy``; ``—`` for nothing."""
    return ", ".join(k if v else f"not {k}" for k, v in expect) or "—"


def library_name(lib: Library) -> str:
    """``candidate (b)``; a one-library run's arm is named by its folder alone."""
    if lib.arm == "library":
        return lib.folder or lib.arm
    return f"{lib.arm} ({lib.folder})" if lib.folder else lib.arm


def title(run: TriggerRun, sep: str = ": ") -> str:
    """``trigger run over skills``; ``trigger run: candidate (b) vs baseline (a)`` (``sep`` after ``run``)."""
    names = [library_name(lib) for lib in run.libraries]
    return ("trigger run over " + names[0]) if len(names) == 1 else f"trigger run{sep}" + " vs ".join(names)


def ratio(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def count(x: int | None) -> str:
    return "?" if x is None else str(x)
