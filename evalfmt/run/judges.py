"""Judges: who decides a row whose checks tie and whose case carries a ``judge`` rubric.

A judge is built by a factory ``make(config: str | None) -> Judge``; a ``Judge`` has ``name``,
``configured`` and ``ask(task, rubric, a, b) -> Answer``, where ``a`` and ``b`` are the last 6,000
characters of two transcripts. :func:`judge_pair` asks twice with A and B swapped, as terum does:
agreement decides, disagreement is a tie (``judge-split``), any failure is a tie (a failure on the
first ask skips the second).

Built in: ``none`` (the default: nothing configured; such a row is a tie, ``judge-not-configured``)
and ``command`` (runs a user command, no shell: it reads ``{"task", "rubric", "a", "b"}`` as JSON on
stdin and prints ``{"winner": "A" | "B" | "tie", "reason": "..."}``). More come from entry points in
the group ``evalfmt.judges`` (the object is the factory).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import Callable, Protocol

import orjson

from ..errors import EvalfmtError
from ..plugins import Registry
from .runners import run_process, split_template

TAIL_CHARS = 6000
COMMAND_TIMEOUT = 300.0


@dataclass(frozen=True)
class Answer:
    """``winner`` is ``A``, ``B`` or ``tie``; on failure it is None and ``failure`` says which
    (``judge-error``, ``judge-unparseable``)."""

    winner: str | None
    reason: str = ""
    failure: str | None = None


class Judge(Protocol):
    name: str
    configured: bool

    def ask(self, task: str, rubric: str, a: str, b: str) -> Answer: ...


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
        payload = orjson.dumps({"task": task, "rubric": rubric, "a": a, "b": b})
        with tempfile.TemporaryDirectory(prefix="evalfmt-judge-") as tmp:
            out, err = os.path.join(tmp, "out"), os.path.join(tmp, "err")
            try:
                code, timed_out, _ = run_process(self.argv, cwd=os.getcwd(), env=dict(os.environ), stdout=out,
                                                 stderr=err, timeout=self.timeout, stdin=payload)
            except OSError as exc:
                return Answer(None, f"judge command failed to start: {exc.strerror or exc}", "judge-error")
            if timed_out:
                return Answer(None, f"judge command timed out after {self.timeout:g} s", "judge-error")
            if code != 0:
                with open(err, "rb") as fh:
                    last = fh.read().decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
                return Answer(None, f"judge command exited {code}: {last[0][:200]}", "judge-error")
            with open(out, "rb") as fh:
                return parse_answer(fh.read().decode("utf-8", "replace"))


def parse_answer(text: str) -> Answer:
    """The first JSON object in ``text`` with a valid ``winner``."""
    start = text.find("{")
    while start != -1:
        end = text.find("}", start)
        while end != -1:
            try:
                obj = orjson.loads(text[start:end + 1])
            except orjson.JSONDecodeError:
                end = text.find("}", end + 1)
                continue
            if isinstance(obj, dict) and obj.get("winner") in ("A", "B", "tie"):
                reason = obj.get("reason")
                return Answer(obj["winner"], reason if isinstance(reason, str) else "")
            break
        start = text.find("{", start + 1)
    return Answer(None, "judge gave no {\"winner\": \"A\"|\"B\"|\"tie\"} answer", "judge-unparseable")


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
