"""skillgym reports as sessions: ``report.json`` (a ``SessionReport``) read into the executor's
:class:`~evalfmt.run.session.Session`, a skill-trigger detector with skillgym's rule, and the layout of
a skillgym run folder for ``evalfmt compare``.

A skillgym ``report.json`` holds the prompt, ``finalOutput``, ``events`` (``message``, ``toolCall``,
``toolResult``, ``command``, ``fileRead``, ``skillSignal``), ``detectedSkills`` (with a confidence:
explicit, strong, medium, weak), ``files.observedReads``, usage and timing. As a session:

- ``finalOutput`` is the session's ``result`` (first in the transcript text, as terum's ``result``);
- ``message`` events are text blocks (``phase: thinking`` is left out, as Claude Code's thinking
  blocks are); ``toolCall`` events are tool calls (``tool``, ``args``), each taking the next
  ``toolResult`` of its tool as its result (skillgym records no error flag: never an error);
- ``command`` events are the Bash commands: one that repeats the ``command`` of the ``Bash`` tool call
  just before it (what skillgym's Claude Code adapter writes) is that call; any other becomes a
  ``Bash`` tool call of its own, so runners whose shell tool has another name are scored the same way;
- ``durationMs``, ``runner.agent.model`` and ``sessionId`` give efficiency and provenance;
- ``detectedSkills`` is kept on the session (``session.detected_skills``) for the ``skillgym`` detector.

A skillgym run folder (``outputDir`` with ``results.json``) holds
``<case id>/<runner>/repeat-<n>/[session-<m>/]report.json`` (case ids with characters other than
``[A-Za-z0-9._-]`` are written with ``-``). :func:`session_dir` finds the folder of one repetition (its
last session when it was retried); ``compare`` uses it for runs folders of that shape.

Registered through the entry points ``evalfmt.sessions`` (``skillgym-report``) and
``evalfmt.detectors`` (``skillgym``) in ``pyproject.toml``.
"""

from __future__ import annotations

import os
import re

from ..fsview import DISK
from ..load import LoadError, load_file
from .detect import Detection
from .session import PREVIEW_CHARS, Session, TextBlock, ToolCall, ToolResult, output_strings, skill_refs
from .sources import Probe, SessionError, SessionSource

REPORT = "report.json"
CONFIDENCE = {"weak": 0, "medium": 1, "strong": 2, "explicit": 3}


def detect(probe: Probe) -> int:
    head = probe.head.lstrip()
    if not head.startswith(b"{"):
        return 0
    if b'"finalOutput"' in head and (b'"detectedSkills"' in head or b'"events"' in head):
        return 6
    return 0


def _result(output: str) -> ToolResult:
    return ToolResult(is_error=False, skill_refs=skill_refs(output), preview=output[:PREVIEW_CHARS])


#: a report is a recording, not an eval asset: EVALFMT_MAX_BYTES (10 MB by default) does not apply
REPORT_MAX_BYTES = 1 << 30


def read(path: str) -> Session:
    try:
        data = load_file(path, fs=DISK, kind="json", max_bytes=REPORT_MAX_BYTES).data
    except LoadError as exc:
        raise SessionError(f"{path}: not a skillgym report: {exc.message}") from None
    if not isinstance(data, dict) or not isinstance(data.get("events", []), list):
        raise SessionError(f"{path}: not a skillgym report (expected an object with 'events' and 'finalOutput')")
    return session_of(data, path)


def session_of(report: dict, path: str | None = None) -> Session:
    """The session a skillgym ``SessionReport`` (parsed JSON) records."""
    s = Session(source="skillgym-report", path=path)
    _read_provenance(s, report)
    events = _Events(s)
    for event in report.get("events") or []:
        if not isinstance(event, dict):
            s.skipped_lines += 1
            continue
        s.records += 1
        kind = event.get("type")
        handler = _EVENTS.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(events, event)
    if s.records == 0:
        s.records = 1  # an empty report is still a report (the session ran, the agent did nothing)
    s.detected_skills = _detected_skills(report)  # type: ignore[attr-defined]
    s.file_reads = _report_file_reads(report)  # type: ignore[attr-defined]
    return s


def _string(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _read_provenance(s: Session, report: dict) -> None:
    """The result (``finalOutput``), duration, model and session id of a report."""
    s.result = _string(report.get("finalOutput"))
    duration = report.get("durationMs")
    if isinstance(duration, (int, float)) and not isinstance(duration, bool):
        s.duration_ms = float(duration)
    runner = report.get("runner")
    if isinstance(runner, dict) and isinstance(runner.get("agent"), dict):
        s.model = _string(runner["agent"].get("model"))
    s.session_id = _string(report.get("sessionId"))


class _Events:
    """The events of a report read into a session: tool calls waiting for their result, and the last
    Bash call (a ``command`` event repeating it is that call)."""

    def __init__(self, session: Session) -> None:
        self.s = session
        self.pending: list[ToolCall] = []
        self.last_bash: ToolCall | None = None

    def message(self, event: dict) -> None:
        text = event.get("text")
        if isinstance(text, str) and event.get("phase") != "thinking":
            given = event.get("role")
            role = given if isinstance(given, str) and given in ("user", "assistant") else "assistant"
            self.s.add(TextBlock(role, text))

    def tool_call(self, event: dict) -> None:
        tool = _string(event.get("tool")) or ""
        call = ToolCall(None, tool, event.get("args", {}))
        self.s.add(call)
        self.pending.append(call)
        self.last_bash = call if tool == "Bash" else None

    def tool_result(self, event: dict) -> None:
        output = "\n".join(output_strings(event.get("output")))
        named = event.get("tool")
        answered = next((c for c in self.pending if named is None or c.name == named), None)
        if answered is not None:
            self.pending.remove(answered)
            answered.result = _result(output)

    def command(self, event: dict) -> None:
        command = event.get("command")
        if not isinstance(command, str):
            return
        repeated = self.last_bash is not None and self.last_bash.arg("command") == command
        self.last_bash = None
        if not repeated:  # else the Bash call just recorded: the same command
            self.s.add(ToolCall(None, "Bash", {"command": command}))


#: event type -> how it is read (other types, fileRead and skillSignal among them, add nothing to the transcript)
_EVENTS = {"message": _Events.message, "toolCall": _Events.tool_call, "toolResult": _Events.tool_result,
           "command": _Events.command}


def _detected_skills(report: dict) -> list[dict]:
    return [{"skill": item["skill"], "confidence": item.get("confidence")}
            for item in report.get("detectedSkills") or []
            if isinstance(item, dict) and isinstance(item.get("skill"), str)]


def _report_file_reads(report: dict) -> list[str]:
    """skillgym's getFileReads(): the fileRead events, else files.observedReads."""
    reads = [e["path"] for e in report.get("events") or []
             if isinstance(e, dict) and e.get("type") == "fileRead" and isinstance(e.get("path"), str)]
    if not reads and isinstance(report.get("files"), dict):
        reads = [r for r in report["files"].get("observedReads") or [] if isinstance(r, str)]
    return reads


SOURCE = SessionSource("skillgym-report", "skillgym report.json (a SessionReport)", detect, read)


# ------------------------------------------------------------------------------------ file reads


def file_reads(session: Session) -> list[str]:
    """The files the agent read: a report's file reads, else the ``file_path`` of every Read tool call."""
    reads = getattr(session, "file_reads", None)
    if reads is not None:
        return list(reads)
    return [path for c in session.tool_calls if c.name in ("Read", "read") and (path := c.arg("file_path"))]


# ------------------------------------------------------------------------------------ detection


class SkillgymDetector:
    """skillgym's rule (``assert.skills.has``): the skill is among the report's ``detectedSkills``, at any
    confidence. For a Claude Code transcript (no ``detectedSkills``), the explicit evidence skillgym's
    Claude Code adapter would record: a ``Skill`` call naming exactly the skill, or a ``Read`` of its
    ``SKILL.md``."""

    name = "skillgym"
    description = "a skill in the skillgym report's detectedSkills (any confidence); for a transcript, a Skill call " \
                  "naming it exactly or a Read of its SKILL.md"

    def detect(self, session: Session, skill: str) -> Detection:
        detected = getattr(session, "detected_skills", None)
        if detected is not None:
            hit = next((d for d in detected if d["skill"] == skill), None)
            if hit is not None:
                return Detection(True, f'detectedSkills has "{skill}" ({hit.get("confidence") or "no confidence"})')
            names = ", ".join(sorted({d["skill"] for d in detected})) or "none"
            return Detection(False, f'detectedSkills has no "{skill}" (detected: {names})')
        for call in session.tool_calls:
            if call.name == "Skill" and (call.arg("skill") == skill or call.arg("name") == skill):
                return Detection(True, f'Skill call "{skill}"')
            path = (call.arg("file_path") or "").replace("\\", "/")
            if call.name in ("Read", "read") and path.endswith(f"/{skill}/SKILL.md"):
                return Detection(True, f"Read of {path}")
        return Detection(False, f'no Skill call or SKILL.md read for "{skill}"')


DETECTOR = SkillgymDetector()


# ------------------------------------------------------------------------------------ run folders


def sanitize(case_id: str) -> str:
    """The folder name skillgym gives a case id."""
    return re.sub(r"[^a-zA-Z0-9._-]", "-", case_id)


def _runner_dir(runs_dir: str, unit: str) -> str | None:
    for name in (unit, sanitize(unit)):
        base = os.path.join(runs_dir, name)
        try:
            subs = sorted(e.name for e in os.scandir(base) if e.is_dir())
        except OSError:
            continue
        runners = [d for d in subs if any(n.startswith("repeat-") for n in os.listdir(os.path.join(base, d)))]
        if len(runners) == 1:
            return os.path.join(base, runners[0])
    return None


def is_run_folder(runs_dir: str) -> bool:
    return os.path.isfile(os.path.join(runs_dir, "results.json"))


def repetitions(runs_dir: str, unit: str) -> int:
    """How many ``repeat-<n>`` folders one case holds in a skillgym run folder (0 when not that shape)."""
    runner = _runner_dir(runs_dir, unit)
    if runner is None:
        return 0
    reps = [int(n[7:]) for n in os.listdir(runner) if re.fullmatch(r"repeat-\d+", n)]
    return max(reps, default=0)


def session_dir(runs_dir: str, unit: str, rep: int) -> str | None:
    """The folder holding the report of repetition ``rep`` of case ``unit`` (its last session when the
    repetition was retried), in a skillgym run folder; None when there is none."""
    runner = _runner_dir(runs_dir, unit)
    if runner is None:
        return None
    folder = os.path.join(runner, f"repeat-{rep}")
    if not os.path.isdir(folder):
        return None
    sessions = [int(n[8:]) for n in os.listdir(folder) if re.fullmatch(r"session-\d+", n)]
    if sessions:
        last = os.path.join(folder, f"session-{max(sessions)}")
        if os.path.isfile(os.path.join(last, REPORT)):
            return last
    return folder


def session_file(folder: str, default: str) -> str:
    """The recorded session in a session folder: ``default`` (transcript.jsonl), else a skillgym report."""
    path = os.path.join(folder, default)
    if not os.path.exists(path) and os.path.isfile(os.path.join(folder, REPORT)):
        return os.path.join(folder, REPORT)
    return path
