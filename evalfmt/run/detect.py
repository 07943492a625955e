"""skill-trigger detection: did the agent invoke a skill? Three named modes, and a plugin point.

- ``first-call`` (default; the seed's contract): only the first tool call counts. A ``Skill`` call
  whose ``input.skill`` contains the name, or a ``Read`` call whose ``input.file_path`` contains it
  (case-sensitive substrings, exact tool names).
- ``any-call`` (agentv 4.42.4): every tool call; tool names compared case-insensitively; a ``Skill``
  call whose ``input.skill`` contains the name, a ``Read`` whose ``file_path`` contains
  ``skills/<name>/``, or any tool whose output contains ``skills/<name>/``.
- ``skill-used``: a ``Skill`` call naming exactly the skill (``name`` or ``<plugin>:name``) whose
  result came back and is not an error.

A detector is any object with ``name``, ``description`` and ``detect(session, skill) -> Detection``.
Built in (known without an install): the three modes above and ``skillgym`` (skillgym_report.py).
More are added by entry points in the group ``evalfmt.detectors`` (the object is the detector); a
plugin that fails to load is an error naming it (:mod:`evalfmt.plugins`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .. import js
from ..plugins import Registry
from .session import Session, ToolCall

DEFAULT = "first-call"


@dataclass(frozen=True)
class Detection:
    triggered: bool
    evidence: str


class Detector(Protocol):
    name: str
    description: str

    def detect(self, session: Session, skill: str) -> Detection: ...


def _input(call: ToolCall, key: str) -> str:
    """``String(input[key] ?? '')``."""
    if not isinstance(call.input, dict):
        return ""
    value = call.input.get(key)
    return "" if value is None else js.string(value)


class FirstCall:
    name = "first-call"
    description = ("only the first tool call: Skill input.skill or Read input.file_path contains the name "
                   "(the seed's rule)")

    def detect(self, session: Session, skill: str) -> Detection:
        first = next((b for b in session.blocks if isinstance(b, ToolCall)), None)
        if first is None:
            return Detection(False, "no tool calls recorded")
        if first.name == "Skill":
            arg = _input(first, "skill")
            if skill in arg:
                return Detection(True, f'first tool call is Skill with skill="{arg}"')
        elif first.name == "Read":
            path = _input(first, "file_path")
            if skill in path:
                return Detection(True, f"first tool call is Read of {path}")
        return Detection(False, f"first tool call is {first.name or '(unnamed)'}, not the skill")


class AnyCall:
    name = "any-call"
    description = ("every tool call, tool names case-insensitive, Read of skills/<name>/, or an output naming "
                   "skills/<name>/ (agentv 4.42.4)")

    def detect(self, session: Session, skill: str) -> Detection:
        marker = f"skills/{skill}/"
        calls = 0
        for b in session.blocks:
            if not isinstance(b, ToolCall):
                continue
            calls += 1
            tool = b.name.lower()
            if tool == "skill":
                arg = _input(b, "skill")
                if skill in arg:
                    return Detection(True, f'Skill tool invoked with skill="{arg}"')
            elif tool == "read":
                path = _input(b, "file_path")
                if marker in path:
                    return Detection(True, f"Read tool loaded skill file: {path}")
            if b.result is not None and skill in b.result.skill_refs:
                return Detection(True, f'Tool "{b.name}" output referenced skill file for "{skill}"')
        return Detection(False, f'skill "{skill}" not found in {calls} tool call(s)' if calls else "no tool calls "
                                                                                                   "recorded")


class SkillUsed:
    name = "skill-used"
    description = "a Skill call naming exactly the skill (or <plugin>:skill) whose result is not an error"

    def detect(self, session: Session, skill: str) -> Detection:
        failed = None
        for b in session.blocks:
            if not isinstance(b, ToolCall) or b.name != "Skill":
                continue
            arg = _input(b, "skill")
            prefix, sep, rest = arg.rpartition(":")
            if not (arg == skill or (sep and rest == skill and prefix and ":" not in prefix)):
                continue
            if b.result is None:
                failed = failed or f'Skill call "{arg}" got no result'
            elif b.result.is_error:
                failed = f'Skill call "{arg}" failed'
            else:
                return Detection(True, f'Skill call "{arg}" succeeded')
        return Detection(False, failed or f'no Skill call named "{skill}"')


FIRST_CALL, ANY_CALL, SKILL_USED = FirstCall(), AnyCall(), SkillUsed()
#: the built-in detectors, known without an install (skillgym's lives beside its report reader)
REGISTRY: Registry[Detector] = Registry("evalfmt.detectors", {
    "first-call": "evalfmt.run.detect:FIRST_CALL",
    "any-call": "evalfmt.run.detect:ANY_CALL",
    "skill-used": "evalfmt.run.detect:SKILL_USED",
    "skillgym": "evalfmt.run.skillgym_report:DETECTOR",
}, kind="detector", accepts=lambda obj: callable(getattr(obj, "detect", None)))


def detectors() -> dict[str, Detector]:
    """The built-in detectors and those installed under the entry-point group ``evalfmt.detectors``."""
    return REGISTRY.all()


def get(name: str) -> Detector:
    return REGISTRY.require(name, "trigger detection")


def detect(session: Session, skill: str, mode: str = DEFAULT) -> Detection:
    return get(mode).detect(session, skill)
