"""Builders for the end-to-end tests of ``evalfmt run``: skills in tmp_path, the fake agent's command
template, reading receipts and records."""

from __future__ import annotations

import json
import os
import pathlib
import shlex
import sys

AGENTS = pathlib.Path(__file__).resolve().parents[1] / "run_agents"
FAKE_AGENT = AGENTS / "fake_agent.py"
FAKE_SELECTOR = AGENTS / "fake_selector.py"


def agent_command(*flags: str, tail: str = "{task}") -> str:
    """The --agent-command template running the fake agent with this Python."""
    words = [shlex.quote(sys.executable), shlex.quote(str(FAKE_AGENT)), *flags, tail]
    return " ".join(words)


def selector_command(*flags: str) -> str:
    return " ".join([shlex.quote(sys.executable), shlex.quote(str(FAKE_SELECTOR)), *[shlex.quote(f) for f in flags]])


def make_skill(root: pathlib.Path, name: str, cases: dict[str, str], *, body: str = "", suite: str | None = None,
               triggers: str | None = None, description: str = "Does the thing.",
               extra_files: dict[str, str] | None = None) -> pathlib.Path:
    skill = root / name
    (skill / "evals" / "cases").mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\n{body}",
                                    encoding="utf-8")
    for stem, text in cases.items():
        (skill / "evals" / "cases" / f"{stem}.yaml").write_text(text, encoding="utf-8")
    if suite is not None:
        (skill / "evals" / "suite.yaml").write_text(suite, encoding="utf-8")
    if triggers is not None:
        (skill / "evals" / "triggers.yaml").write_text(triggers, encoding="utf-8")
    for rel, text in (extra_files or {}).items():
        path = skill / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return skill


def load(path) -> dict:
    return json.loads(pathlib.Path(path).read_text(encoding="utf-8"))


def rows(data: dict) -> list[tuple]:
    """(case, repetition, opponent, outcome, reason) of each row of a compare/run JSON or a receipt."""
    return [(r["case"], r["repetition"], r["opponent"], r["outcome"], r["reason"]) for r in data["rows"]]


def record(session_folder) -> dict:
    """The fake agent's record (written with --record) of one session."""
    return load(pathlib.Path(session_folder) / "sandbox" / ".fake-agent" / "record.json")


def tree(folder) -> list[str]:
    """Every path under ``folder`` (relative, sorted), without .git internals."""
    out = []
    for base, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        rel = os.path.relpath(base, folder)
        for name in dirs + sorted(files):
            out.append(os.path.normpath(os.path.join(rel, name)))
    return sorted(out)


class EchoRunner:
    """A plugin runner for the tests: writes a one-line transcript naming the arm."""

    name = "echo"

    def run(self, spec):
        from evalfmt.run.runners import Outcome

        with open(spec.transcript, "w", encoding="utf-8") as fh:
            skills = [spec.skill] if spec.skill else []
            fh.write(json.dumps({"type": "system", "subtype": "init", "model": "echo", "skills": skills}) + "\n")
            fh.write(json.dumps({"type": "result", "result": f"echo from {spec.arm}", "num_turns": 1}) + "\n")
        return Outcome()


def make_echo(options):
    return EchoRunner()


class ScriptRunner:
    """An in-process agent for the property tests (no process per session): the task's lines are its
    program. ``say TEXT`` prints TEXT; ``skilled TEXT`` prints it only with the skill staged; ``write
    PATH`` writes a file in the sandbox (with the skill only, when written ``skilled-write PATH``);
    ``die`` ends the session as a dead arm. Every session prints an init record listing the staged skill."""

    name = "script"

    def run(self, spec):
        from evalfmt.run.runners import Outcome

        lines = []
        dead = None
        for line in spec.task.splitlines():
            word, _, rest = line.partition(" ")
            if word == "say" or (word == "skilled" and spec.skill):
                lines.append(rest)
            elif word == "write" or (word == "skilled-write" and spec.skill):
                with open(os.path.join(spec.sandbox, rest), "w", encoding="utf-8") as fh:
                    fh.write("made\n")
            elif word == "die":
                dead = "agent exited 3"
        with open(spec.transcript, "w", encoding="utf-8") as fh:
            skills = [spec.skill] if spec.skill else []
            fh.write(json.dumps({"type": "system", "subtype": "init", "model": "script", "skills": skills}) + "\n")
            for text in lines:
                fh.write(json.dumps({"type": "assistant", "message": {"role": "assistant",
                                                                       "content": [{"type": "text", "text": text}]}})
                         + "\n")
            fh.write(json.dumps({"type": "result", "result": lines[-1] if lines else "Done.", "num_turns": len(lines),
                                 "duration_ms": 1000 + 10 * len(lines), "total_cost_usd": 0.01}) + "\n")
        return Outcome(dead=dead, exit_code=3 if dead else 0)


def make_script(options):
    return ScriptRunner()


class RemoteLikeRunner(ScriptRunner):
    """A runner shaped like the ``ray`` one (``threads``, ``start``/``close``/``interrupt``) whose
    sessions of a task holding ``wait`` block until ``interrupt()`` (when ``blocking``); each puts its
    arm on ``waiting`` as it starts to wait."""

    name = "remote-like"
    threads = True

    def __init__(self, blocking: bool = True):
        import queue
        import threading

        self.blocking = blocking
        self.stop = threading.Event()
        self.waiting: queue.Queue[str] = queue.Queue()
        self.calls: list[str] = []

    def start(self):
        self.calls.append("start")

    def close(self):
        self.calls.append("close")

    def interrupt(self):
        self.calls.append("interrupt")
        self.stop.set()

    def run(self, spec):
        if self.blocking and "wait" in spec.task.split():
            self.waiting.put(spec.arm)
            if self.stop.wait(60):
                raise KeyboardInterrupt
        return super().run(spec)
