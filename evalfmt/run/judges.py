"""Judges: who decides a row whose checks tie and whose case carries a ``judge`` rubric.

A judge is built by a factory ``make(config: str | None) -> Judge``; a ``Judge`` has ``name``,
``configured`` and ``ask(task, rubric, a, b) -> Answer``, where ``a`` and ``b`` are the last 6,000
characters of two transcripts. :func:`judge_pair` asks twice with A and B swapped, as terum does:
agreement decides, disagreement is a tie (``judge-split``), any failure is a tie (a failure on the
first ask skips the second).

A judge may also grade one session on its own (a model-graded assertion: agentv ``llm-grader``,
``rubrics``, promptfoo ``llm-rubric``, skill-creator expectations): ``grade(task, rubric, output,
transcript) -> Grade`` with a score in [0, 1]. :func:`grade` asks it; a judge without that method
(a plugin that only compares) leaves the assertion not scored, and says so.

Built in: ``none`` (the default: nothing configured; such a row is a tie, ``judge-not-configured``)
and ``command`` (runs a user command, no shell: it reads ``{"task", "rubric", "a", "b"}`` as JSON on
stdin and prints ``{"winner": "A" | "B" | "tie", "reason": "..."}``; to grade one session it reads
``{"mode": "grade", "task", "rubric", "output", "transcript"}`` and prints ``{"score": 0..1, "reason":
"..."}`` or ``{"passed": true | false, "reason": "..."}``). More come from entry points in the group
``evalfmt.judges`` (the object is the factory).
"""

from __future__ import annotations

import math
import os
import tempfile
from dataclasses import dataclass
from typing import Protocol
from collections.abc import Callable, Iterator

import orjson

from ..errors import EvalfmtError
from ..plugins import Registry
from .runners import run_process, split_template

TAIL_CHARS = 6000
NOT_CONFIGURED = "the case has a judge rubric but no judge is configured (--judge command --judge-command CMD)"
COMMAND_TIMEOUT = 300.0


@dataclass(frozen=True)
class Answer:
    """``winner`` is ``A``, ``B`` or ``tie``; on failure it is None and ``failure`` says which
    (``judge-error``, ``judge-unparseable``)."""

    winner: str | None
    reason: str = ""
    failure: str | None = None


@dataclass(frozen=True)
class Grade:
    """A judge's grade of one session: ``score`` in [0, 1]; on failure it is None and ``failure``
    says which (``judge-error``, ``judge-unparseable``, ``judge-cannot-grade``)."""

    score: float | None
    reason: str = ""
    failure: str | None = None


class Judge(Protocol):
    name: str
    configured: bool

    def ask(self, task: str, rubric: str, a: str, b: str) -> Answer: ...

    # optional: ``grade(task, rubric, output, transcript) -> Grade`` (see :func:`grade`)


class NoJudge:
    name = "none"
    configured = False

    def ask(self, task: str, rubric: str, a: str, b: str) -> Answer:  # pragma: no cover - never asked
        return Answer(None, "no judge configured", "judge-not-configured")


class CommandJudge:
    """Runs ``command`` (split like a shell would, run without one) once per ask, in its own process
    group: on a timeout or Ctrl-C the whole group is killed, as is anything it leaves running."""

    name = "command"
    configured = True

    def __init__(self, command: str, timeout: float = COMMAND_TIMEOUT):
        if not command.strip():
            raise EvalfmtError("the command judge needs --judge-command")
        self.argv = split_template(command, "--judge-command")
        self.timeout = timeout

    def ask(self, task: str, rubric: str, a: str, b: str) -> Answer:
        text, failure = self._call(orjson.dumps({"task": task, "rubric": rubric, "a": a, "b": b}))
        return Answer(None, text, failure) if failure else parse_answer(text)

    def grade(self, task: str, rubric: str, output: str, transcript: str) -> Grade:
        payload = orjson.dumps({"mode": "grade", "task": task, "rubric": rubric, "output": output,
                                "transcript": transcript})
        text, failure = self._call(payload)
        return Grade(None, text, failure) if failure else parse_grade(text)

    def _call(self, payload: bytes) -> tuple[str, str | None]:
        """Run the command with ``payload`` on stdin: (stdout, None), or (why, ``judge-error``)."""
        with tempfile.TemporaryDirectory(prefix="evalfmt-judge-") as tmp:
            out, err = os.path.join(tmp, "out"), os.path.join(tmp, "err")
            try:
                code, timed_out, _ = run_process(self.argv, cwd=os.getcwd(), env=dict(os.environ), stdout=out,
                                                 stderr=err, timeout=self.timeout, stdin=payload)
            except OSError as exc:
                return f"judge command failed to start: {exc.strerror or exc}", "judge-error"
            if timed_out:
                return f"judge command timed out after {self.timeout:g} s", "judge-error"
            if code != 0:
                with open(err, "rb") as fh:
                    last = fh.read().decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
                return f"judge command exited {code}: {last[0][:200]}", "judge-error"
            with open(out, "rb") as fh:
                return fh.read().decode("utf-8", "replace"), None


def _objects(text: str) -> Iterator[dict]:
    """Every JSON object in ``text``, from the left (the shortest one at each opening brace)."""
    start = text.find("{")
    while start != -1:
        end = text.find("}", start)
        while end != -1:
            try:
                obj = orjson.loads(text[start:end + 1])
            except orjson.JSONDecodeError:
                end = text.find("}", end + 1)
                continue
            if isinstance(obj, dict):
                yield obj
            break
        start = text.find("{", start + 1)


def _reason(obj: dict) -> str:
    reason = obj.get("reason")
    return reason if isinstance(reason, str) else ""


def parse_answer(text: str) -> Answer:
    """The first JSON object in ``text`` with a valid ``winner``."""
    for obj in _objects(text):
        if obj.get("winner") in ("A", "B", "tie"):
            return Answer(obj["winner"], _reason(obj))
    return Answer(None, "judge gave no {\"winner\": \"A\"|\"B\"|\"tie\"} answer", "judge-unparseable")


def parse_grade(text: str) -> Grade:
    """The first JSON object in ``text`` with a numeric ``score`` (clamped to [0, 1]) or a boolean
    ``passed`` (1 or 0)."""
    for obj in _objects(text):
        score = obj.get("score")
        if isinstance(score, (int, float)) and not isinstance(score, bool) and math.isfinite(score):
            return Grade(min(1.0, max(0.0, float(score))), _reason(obj))
        if isinstance(obj.get("passed"), bool):
            return Grade(1.0 if obj["passed"] else 0.0, _reason(obj))
    return Grade(None, "judge gave no {\"score\": 0..1} or {\"passed\": true|false} answer", "judge-unparseable")


def grade(judge: Judge, task: str, rubric: str, output: str, transcript: str) -> Grade:
    """Ask ``judge`` to grade one session (the last 6,000 characters of its transcript); a judge that
    only compares two sessions cannot."""
    how = getattr(judge, "grade", None)
    if how is None:
        return Grade(None, f"judge '{getattr(judge, 'name', '?')}' only compares two sessions (it has no grade "
                           "method)", "judge-cannot-grade")
    try:
        result = how(task, rubric, output, transcript[-TAIL_CHARS:])
    except Exception as exc:  # noqa: BLE001 - a plugin's bug leaves the assertion not scored, not the run dead
        return Grade(None, f"judge '{getattr(judge, 'name', '?')}' failed: {type(exc).__name__}: {exc}",
                     "judge-error")
    return result if isinstance(result, Grade) else Grade(None, "judge returned no Grade", "judge-unparseable")


@dataclass(frozen=True)
class Decision:
    outcome: str  # win | loss | tie, for the candidate (the first transcript)
    reason: str  # decided_by
    detail: str


def judge_pair(judge: Judge, task: str, rubric: str, candidate: str, opponent: str) -> Decision:
    """Ask with the candidate as A, then as B; agreement decides."""
    first = judge.ask(task, rubric, candidate[-TAIL_CHARS:], opponent[-TAIL_CHARS:])
    if first.winner is None:
        return Decision("tie", first.failure or "judge-error", first.reason)
    second = judge.ask(task, rubric, opponent[-TAIL_CHARS:], candidate[-TAIL_CHARS:])
    if second.winner is None:
        return Decision("tie", second.failure or "judge-error", second.reason)
    one = {"A": "win", "B": "loss", "tie": "tie"}[first.winner]
    two = {"A": "loss", "B": "win", "tie": "tie"}[second.winner]
    if one != two:
        return Decision("tie", "judge-split", f"orderings disagree ({one} vs {two}): position-sensitive verdict "
                                              f"discarded")
    return Decision(one, "judge", first.reason)


Factory = Callable[[str | None], Judge]


def make_none(config: str | None = None) -> Judge:
    return NoJudge()


def make_command(config: str | None = None) -> Judge:
    return CommandJudge(config or "")


REGISTRY: Registry[Factory] = Registry("evalfmt.judges", {
    "none": "evalfmt.run.judges:make_none",
    "command": "evalfmt.run.judges:make_command",
}, kind="judge", accepts=callable)


def factories() -> dict[str, Factory]:
    return REGISTRY.all()


def make(name: str = "none", config: str | None = None) -> Judge:
    return REGISTRY.require(name)(config)
