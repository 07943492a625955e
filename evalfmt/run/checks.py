"""Scoring checks: one case (or suite entry) against one recorded session.

terum's seven kinds follow the engine exactly (see docs/scoring.md): transcript checks are
case-insensitive substring tests on the transcript text; command checks search every Bash command
with an ECMAScript regex (within a time budget: a catastrophic pattern ends as ``check timed out``); file checks
resolve inside the sandbox; ``command_succeeds`` runs ``/bin/sh -ce`` in the sandbox for at most 120 s. A
malformed check fails (``malformed check: ...``), it never raises. agentv's ``skill-trigger`` uses a detector
(``detect.py``); its deterministic
assertions score the final output (``assertions.py``); graders evalfmt cannot run are reported as
not scored (``passed`` None) and do not decide the case.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Iterable

from .. import ecmaregex, ir, js
from . import assertions, detect, graded, graders, sandboxfs, shell
from .judges import Judge
from .regex_deadline import RegexTimeout, first_match
from .session import Session
from .skillgym_report import score_file_reads

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
    return [c.text.lower() for c in checks if isinstance(c, (ir.TranscriptMentions, ir.TranscriptOmits))]


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


def _score(check: ir.Check, ctx: Context) -> tuple[bool | None, str]:
    s = ctx.session
    if isinstance(check, ir.Opaque):
        return _opaque(check, ctx)
    if isinstance(check, (ir.TranscriptMentions, ir.TranscriptOmits)):
        found = s.transcript_contains(check.text.lower())
        if isinstance(check, ir.TranscriptMentions):
            return found, "found in the transcript" if found else "not found in the transcript"
        return (not found), "found in the transcript" if found else "not found in the transcript"
    if isinstance(check, (ir.CommandMatching, ir.NoCommandMatching)):
        commands = s.bash_commands()
        index = first_match(check.pattern, check.flags or "", commands)
        hit = None if index is None else commands[index]
        if hit is not None:
            what = f"matched by Bash command: {_cut(hit)}"
        else:
            what = f"no Bash command matched ({len(commands)} run)"
        return (hit is not None) == isinstance(check, ir.CommandMatching), what
    if isinstance(check, (ir.FileExists, ir.FileAbsent)):
        if ctx.sandbox is None:
            return False, NO_SANDBOX
        try:
            path = sandboxfs.resolve(ctx.sandbox, check.path)
        except sandboxfs.EscapeError as exc:
            return False, str(exc)
        exists = os.path.exists(path)
        what = "exists" if exists else "does not exist"
        return exists == isinstance(check, ir.FileExists), what
    if isinstance(check, ir.CommandSucceeds):
        if ctx.sandbox is None:
            return False, NO_SANDBOX
        if not os.path.isdir(ctx.sandbox):
            return False, f"sandbox {ctx.sandbox} is not a directory"
        res = shell.run_shell(check.command, ctx.sandbox, ctx.timeout)
        return res.ok, res.describe(ctx.timeout)
    if isinstance(check, ir.SkillTrigger):
        if not check.skill:
            return False, "malformed check: skill-trigger needs a 'skill'"
        detection = detect.detect(s, check.skill, ctx.detection)
        expect = check.expects_trigger
        ok = detection.triggered == expect
        detail = detection.evidence if expect else f"{detection.evidence} (expected not to trigger)"
        if check.negate:
            return (not ok), f"negated: {detail}"
        return ok, f"{ctx.detection}: {detail}"
    if isinstance(check, ir.ToolTrajectory):
        return graded.tool_trajectory(check, s)
    if isinstance(check, ir.TokenUsage):
        return graded.token_usage(check, s)
    result = assertions.score(check, s)
    if result is not None:
        return result
    if graders.is_model_graded(check):
        return graders.model_grader(check, ctx)
    if isinstance(check, ir.CodeGrader):
        return graders.code_grader(check, ctx)
    return None, f"not scored: '{check.kind}' needs a grader evalfmt does not run"


def _opaque(check: ir.Opaque, ctx: Context) -> tuple[bool | None, str]:
    if check.origin == "skillgym" and check.type in ("fileReads.includes", "fileReads.notIncludes"):
        return score_file_reads(check, ctx.session)
    if check.type == "execution-metrics":
        return graded.execution_metrics(check, ctx.session)
    if check.type == "field-accuracy":
        return graded.field_accuracy(check, ctx.session, ctx.expected)
    if graders.is_model_graded(check):
        return graders.model_grader(check, ctx)
    if check.type == "composite" and check.origin == "agentv":
        return graders.composite(check, ctx, score_check)
    if check.type == "inline-assert":
        return None, ("not scored: inline-assert is a function of agentv's TypeScript API; an eval file holds no "
                      "function to run")
    if check.origin == "promptfoo" and check.type in ("javascript", "python", "webhook"):
        return None, f"not scored: promptfoo's {check.type} assertion is code evalfmt does not run"
    if check.origin not in (None, "terum"):
        return None, f"not scored: custom assertion '{check.type or 'opaque'}'"
    if check.type is None:
        return False, "unrecognized check spec"
    if check.type not in ir.TERUM_KINDS:
        return False, f"unknown check kind '{check.type}'"
    # A known kind with a missing or non-string argument: the engine coerces it with String().
    raw = check.raw
    text = js.string(raw.get(check.type, js.UNDEFINED) if isinstance(raw, dict) else js.UNDEFINED)
    field_name = {"transcript_mentions": "text", "transcript_omits": "text", "command_matching": "pattern",
                  "no_command_matching": "pattern", "file_exists": "path", "file_absent": "path",
                  "command_succeeds": "command"}[check.type]
    args: dict[str, Any] = {field_name: text}
    model = ir.CHECK_MODELS[check.type](**args)
    # CHECK_MODELS holds the classes of the ir.Check union, typed by their base class
    return _score(model, ctx)  # type: ignore[arg-type]


def _cut(s: str, n: int = 120) -> str:
    s = s.replace("\n", " ")
    return s if len(s) <= n else s[: n - 1] + "…"
