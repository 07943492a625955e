"""Scoring checks: one case (or suite entry) against one recorded session.

How each kind is scored is its spec's (:mod:`evalfmt.ir.kinds`): terum's seven kinds follow the engine
exactly (see docs/scoring.md), agentv's assertions score the final output or the session's figures, graders
evalfmt cannot run are reported as not scored (``passed`` None) and do not decide the case. A malformed check
fails (``malformed check: ...``), it never raises. :class:`Context` is what a spec's scoring function is
given (:class:`~evalfmt.ir.kinds.Evidence`): the session, and the means this module holds: regexes within a
time budget (a catastrophic pattern ends as ``check timed out``), paths resolved inside the sandbox,
``/bin/sh -ce`` in the sandbox for at most 120 s, the skill-trigger detector (``detect.py``), the judge and
grader programs (``graders.py``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from collections.abc import Iterable, Sequence
from typing import Any

from .. import ecmaregex, ir
from ..ir.kinds import SPECS, Outcome, Terum, spec_of
from . import detect, graders, sandboxfs, shell
from .judges import Judge
from .regex_deadline import RegexTimeout, first_match
from .session import Session
from .skillgym_report import file_reads

NO_SANDBOX = "no sandbox given (pass --sandbox DIR): file and command checks need the sandbox after the session"


@dataclass
class CheckResult:
    """One check's outcome. ``passed`` is None for a check evalfmt does not score (an LLM grader)."""

    check: str  # the receipt name, kind:arg
    kind: str
    passed: bool | None
    detail: str
    #: a graded assertion's score in [0, 1] (None for a pass/fail check); what a composite aggregates
    score: float | None = None

    def to_json(self) -> dict:
        return {"check": self.check, "passed": self.passed, "detail": self.detail}


@dataclass
class CaseResult:
    """One case (or suite entry) in one arm: passes when no scored check failed (all-or-nothing)."""

    name: str
    checks: list[CheckResult] = field(default_factory=list)
    #: skillgym's ``expectedFail``: the case's checks are expected to fail (a known gap)
    expected_fail: bool = False

    @property
    def passed(self) -> bool:
        return all(c.passed is not False for c in self.checks)

    @property
    def status(self) -> str:
        """``passed`` / ``failed``; with ``expectedFail``, skillgym's ``expected-failed`` (counts as passed)
        or ``unexpected-passed`` (counts as failed)."""
        if not self.expected_fail:
            return "passed" if self.passed else "failed"
        return "unexpected-passed" if self.passed else "expected-failed"

    @property
    def counts_as_passed(self) -> bool:
        return self.passed != self.expected_fail

    @property
    def scored(self) -> list[CheckResult]:
        return [c for c in self.checks if c.passed is not None]

    @property
    def score(self) -> float | None:
        """The fraction of checks passed; None with no (scored) checks."""
        scored = self.scored
        return sum(1 for c in scored if c.passed) / len(scored) if scored else None

    @property
    def failed(self) -> list[str]:
        return [c.check for c in self.checks if c.passed is False]

    def to_json(self) -> dict:
        if self.expected_fail:
            return {"name": self.name, "passed": self.counts_as_passed, "status": self.status,
                    "checks": [c.to_json() for c in self.checks]}
        return {"name": self.name, "passed": self.passed, "checks": [c.to_json() for c in self.checks]}


@dataclass
class Context:
    """What checks are scored against: the session, the sandbox after it (or None), the
    skill-trigger detection mode, and the command_succeeds time limit."""

    session: Session
    sandbox: str | None = None
    detection: str = detect.DEFAULT
    timeout: float = shell.CHECK_TIMEOUT
    #: the test's expected_output (agentv's field-accuracy compares the output with it)
    expected: object = None
    #: who grades model-graded assertions (None or an unconfigured judge: they are not scored)
    judge: Judge | None = None
    #: the test's task, its input as written and its criteria (what a judge and a code grader are given)
    task: str = ""
    input: object = None
    criteria: str | None = None
    #: whether code graders may run (``evalfmt run`` only), and the extra environment they get
    run_code: bool = False
    env: dict[str, str] = field(default_factory=dict)

    # what a kind's scoring function is given (evalfmt.ir.kinds.Evidence) -------------------------------

    def first_match(self, pattern: str, flags: str, texts: Sequence[str]) -> int | None:
        return first_match(pattern, flags, list(texts))

    def path_exists(self, path: str) -> bool | str:
        if self.sandbox is None:
            return NO_SANDBOX
        try:
            return os.path.exists(sandboxfs.resolve(self.sandbox, path))
        except sandboxfs.EscapeError as exc:
            return str(exc)

    def sandbox_command(self, command: str) -> Outcome:
        if self.sandbox is None:
            return False, NO_SANDBOX
        if not os.path.isdir(self.sandbox):
            return False, f"sandbox {self.sandbox} is not a directory"
        res = shell.run_shell(command, self.sandbox, self.timeout)
        return res.ok, res.describe(self.timeout)

    def skill_detected(self, skill: str) -> tuple[bool, str]:
        found = detect.detect(self.session, skill, self.detection)
        return found.triggered, found.evidence

    def file_reads(self) -> list[str]:
        return file_reads(self.session)

    def prompt_text(self, prompt: str, check: ir.CheckBase) -> tuple[str | None, str]:
        return graders.prompt_text(prompt, check.span)

    def model_grade(self, check: ir.CheckBase, rubric: str | None, why: str) -> Outcome:
        return graders.model_grade(check, rubric, why, self)

    def program_grade(self, check: ir.CheckBase) -> Outcome:
        assert isinstance(check, ir.CodeGrader)
        return graders.code_grader(check, self)

    def result(self, check: ir.CheckBase) -> tuple[bool | None, str, float | None]:
        scored = score_check(check, self)  # type: ignore[arg-type]  # (any check class is one of the union's)
        return scored.passed, scored.detail, scored.score

    @property
    def runs_programs(self) -> bool:
        return self.run_code

    def run_program(self, check: ir.CheckBase, command: Any, payload: dict[str, Any],
                    cwd: str | None) -> tuple[dict[str, Any] | None, str]:
        return graders.run_program(command, payload, self, graders.folder(check, cwd))

    def score_as(self, kind: str, argument: str) -> Outcome:
        entry = SPECS[kind].terum
        args: dict[str, Any] = {entry.field if isinstance(entry, Terum) else "value": argument}
        return _score(SPECS[kind].cls(**args), self)  # type: ignore[arg-type]  # (a class of the union)


def score_case(case: ir.Case | ir.SuiteEntry, session: Session, sandbox: str | None = None,
               detection: str = detect.DEFAULT, extra_checks: Iterable[ir.Check] = (),
               timeout: float = shell.CHECK_TIMEOUT, judge: Judge | None = None, task: str | None = None,
               run_code: bool = False, env: dict[str, str] | None = None) -> CaseResult:
    """Score a case's checks (after ``extra_checks``, the set's checks every case gets). ``judge``
    grades model-graded assertions; ``run_code`` lets code graders run (``evalfmt run``)."""
    ctx = Context(session, sandbox, detection, timeout, getattr(case, "expected_output", None), judge=judge,
                  task=task if task is not None else (getattr(case, "task", None) or ""),
                  input=getattr(case, "input", None), criteria=getattr(case, "judge", None), run_code=run_code,
                  env=dict(env or {}))
    checks = list(extra_checks) + list(case.checks)
    session.prefetch(_needles(checks))
    return CaseResult(case.name, [score_check(c, ctx) for c in checks],
                      expected_fail=bool(getattr(case, "expected_fail", None)))


def score_suite(suite: ir.Suite, session: Session, sandbox: str | None = None,
                detection: str = detect.DEFAULT, timeout: float = shell.CHECK_TIMEOUT) -> list[CaseResult]:
    """Every suite entry against the suite's one session (the suite's own checks are discarded, as
    the engine does)."""
    session.prefetch(_needles(c for e in suite.entries for c in e.checks))  # one pass for all the rows
    return [score_case(e, session, sandbox, detection, timeout=timeout) for e in suite.entries]


def _needles(checks: Iterable[ir.Check]) -> list[str]:
    """What the transcript checks among ``checks`` look for (lower-cased)."""
    return [c.text.lower() for c in checks if spec_of(c).looks_at == "transcript"]  # type: ignore[union-attr]


def score_check(check: ir.Check, ctx: Context) -> CheckResult:
    label = check.label()
    kind = check.kind
    score = None
    try:
        result = _score(check, ctx)
        passed, detail = result
        score = getattr(result, "score", None)
    except ecmaregex.EcmaRegexError as exc:
        passed, detail = False, f"malformed check: {exc.message}"
    except RegexTimeout as exc:
        passed, detail = False, str(exc)
    except (ValueError, OSError) as exc:
        passed, detail = False, f"malformed check: {exc}"
    return CheckResult(label, kind, passed, detail, score)


def _score(check: ir.Check, ctx: Context) -> Outcome:
    """A check's outcome, as its kind's spec scores it (:mod:`evalfmt.ir.kinds`)."""
    return spec_of(check).score(check, ctx)


