"""Runners: how one agent session is run in a staged sandbox. Plugins, like the session readers.

A runner is made by a factory ``make(options: RunnerOptions) -> Runner``; the factory checks its
options (raise :class:`~evalfmt.errors.EvalfmtError` or :class:`~evalfmt.errors.UsageError`: nothing has been staged
yet). A :class:`Runner` has a ``name`` and ``run(spec: SessionSpec) -> Outcome``: it runs the agent
with the working directory ``spec.sandbox`` and the environment ``spec.env``, writes what the agent
printed to ``spec.transcript`` (``transcript.jsonl``) and its diagnostics to ``spec.stderr``
(``stderr.log``), and says how it ended. The runner object is pickled to the worker processes of
``--jobs N``, so it must hold plain data. When the user presses Ctrl-C, ``KeyboardInterrupt`` is
raised inside ``run``: a runner must stop what it started (``try``/``finally``) and let it propagate.

Built in: ``command`` (the default) and ``replay``. More come from entry points in the group
``evalfmt.runners`` whose object is the factory (its ``name`` is the entry point's name).

The ``command`` runner: the ``--agent-command`` template is split into words as a POSIX shell
would (quotes, backslashes), then ``{task}``, ``{note}``, ``{max_turns}`` and ``{model}`` inside
each word are replaced by their values, each substitution staying inside its word (a task becomes
exactly one argument, whatever it holds). No shell is involved. The process runs in a new session
(its own process group) and a jail (``contain.py``); ``timeout_minutes`` (the case's, else
``--timeout-minutes``, else 120) is enforced by killing the whole group, and when the agent exits
anything it left running is killed too, even a child that left the group (``setsid``, a double fork). A non-zero
exit or a timeout is a dead arm, as in terum; its reason quotes the last lines of the agent's stderr
(``agent exited 3; stderr: Error: not logged in``).

The ``replay`` runner copies a session recorded elsewhere (``--replay-from ROOT``, the run layout:
``ROOT/<arm>/<case>/[<repetition>/]transcript.jsonl``) into the run. A recorded ``sandbox/``
replaces the freshly staged sandbox (an exact recording); a recorded ``sandbox.overlay/`` (only the
files the agent wrote) is laid over the freshly staged one; with neither, the staged sandbox stays.
A recorded ``dead.txt`` replays a dead arm.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Protocol, TYPE_CHECKING
from collections.abc import Callable

from ..errors import EvalfmtError
from ..plugins import Registry
from . import agent_hints, layout, sandbox as sandbox_mod
from .shell import contained

if TYPE_CHECKING:
    from .sandbox import StageSpec

#: what every arm is told (our wording): nobody can answer questions during the run
NOTE = ("This is an automated evaluation run and nobody is watching it: no human can answer a question, "
        "approve a step or clarify the request. Do not stop to ask; make the most reasonable assumption, "
        "carry the task through to the end, and state any assumption you made in your final answer.")
#: terum's defaults for a case that sets none
DEFAULT_TIMEOUT_MINUTES = 120.0
DEFAULT_MAX_TURNS = 200
#: the placeholders an agent command template may use
PLACEHOLDERS = ("task", "note", "max_turns", "model")
_PLACEHOLDER = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")
TRANSCRIPT, STDERR, DEAD = layout.TRANSCRIPT, layout.STDERR, layout.DEAD_MARKER


@dataclass
class RunnerOptions:
    """What ``evalfmt run`` passes to a runner factory. ``options`` holds ``--runner-opt KEY=VALUE``."""

    agent_command: str | None = None
    replay_from: str | None = None
    model: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    cwd: str = "."
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class SessionSpec:
    """One session to run: the arm, the case (or ``suite``), the repetition (1-based) of ``k``, the
    task and the unattended note, the limits, the sandbox, where to write, and the environment."""

    arm: str
    unit: str
    repetition: int
    k: int
    task: str
    note: str
    max_turns: int
    timeout: float  # seconds
    model: str | None
    sandbox: str
    folder: str  # the session's folder in the run layout
    env: dict[str, str]
    skill: str | None  # the skill staged in .claude/skills/, None for the baseline arm
    #: for a runner with ``stages = True`` only: what to stage (``sandbox`` is then empty; the runner
    #: stages it where the agent runs, with :func:`evalfmt.run.sandbox.stage`)
    stage: StageSpec | None = None

    @property
    def transcript(self) -> str:
        return os.path.join(self.folder, TRANSCRIPT)

    @property
    def stderr(self) -> str:
        return os.path.join(self.folder, STDERR)


@dataclass
class Outcome:
    """How a session ended. ``dead`` is why the arm is dead (None when it ran to a clean end)."""

    dead: str | None = None
    exit_code: int | None = None
    timed_out: bool = False
    seconds: float = 0.0
    info: dict[str, Any] = field(default_factory=dict)


class Runner(Protocol):
    name: str

    def run(self, spec: SessionSpec) -> Outcome: ...


# --------------------------------------------------------------------------------- environment


def agent_env(sandbox: str | None, extra: dict[str, str] | None = None,
              base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment an agent (and the case's ``setup``) gets: evalfmt's own environment without
    any ``EVALFMT_*`` variable, then ``--env`` additions, then ``CLAUDE_PROJECT_DIR`` and ``PWD`` set
    to the sandbox (terum sets ``CLAUDE_PROJECT_DIR`` the same way). ``requires`` probes get the
    same without the last two (they run before any sandbox exists)."""
    env = {k: v for k, v in (os.environ if base is None else base).items() if not k.startswith("EVALFMT_")}
    env.update(extra or {})
    if sandbox is not None:
        env["CLAUDE_PROJECT_DIR"] = sandbox
        env["PWD"] = sandbox
    return env


# ---------------------------------------------------------------------------------- templates


def split_template(template: str, what: str = "--agent-command") -> list[str]:
    """The words of a command template, split as a POSIX shell would (no expansion of any kind)."""
    try:
        words = shlex.split(template)
    except ValueError as exc:
        raise EvalfmtError(f"{what}: cannot split '{template}': {exc}") from None
    if not words:
        raise EvalfmtError(f"{what} is empty")
    return words


def expand(words: list[str], values: dict[str, str]) -> list[str]:
    """Each word with its known ``{placeholder}`` replaced (unknown braces are left as they are)."""
    return [_PLACEHOLDER.sub(lambda m: values[m.group(1)], w) if "{" in w else w for w in words]


def used_placeholders(words: list[str]) -> set[str]:
    return {m.group(1) for w in words for m in _PLACEHOLDER.finditer(w)}


def resolve_program(word: str, cwd: str, path: str | None, what: str = "--agent-command") -> str:
    """The program of a template: a word with a slash is taken relative to ``cwd``; a bare name is
    looked up on ``path``. EvalfmtError when it is not there."""
    if "/" in word:
        full = os.path.normpath(os.path.join(cwd, word))
        if not os.path.isfile(full):
            raise EvalfmtError(f"{what}: no such program: {full}")
        if not os.access(full, os.X_OK):
            raise EvalfmtError(f"{what}: not executable: {full}")
        return full
    found = shutil.which(word, path=path)
    if found is None:
        raise EvalfmtError(f"{what}: '{word}' not found on PATH")
    return found


# ------------------------------------------------------------------------------------ processes


def run_process(argv: list[str], *, cwd: str, env: dict[str, str], stdout: str, stderr: str, timeout: float,
                stdin: bytes | None = None) -> tuple[int | None, bool, float]:
    """Run ``argv`` in its own process group, stdout and stderr to files, stdin from ``stdin`` (or
    nothing). Returns (exit code or None on timeout, timed out, seconds). On any exception (Ctrl-C
    included) the whole group is killed before it propagates."""
    start = time.monotonic()
    with open(stdout, "wb") as out, open(stderr, "wb") as err, tempfile.TemporaryFile() as feed:
        if stdin is not None:  # from a file, so a program that never reads it cannot block us
            feed.write(stdin)
            feed.seek(0)
        code = contained(argv, timeout, cwd=cwd, env=env, stdout=out, stderr=err,
                         stdin=feed if stdin is not None else subprocess.DEVNULL)
    return code, code is None, time.monotonic() - start


def describe_exit(code: int | None, timed_out: bool, timeout: float, who: str = "agent") -> str | None:
    """Why a process counts as failed (None for exit 0)."""
    if timed_out:
        return f"{who} timed out after {timeout:g} s"
    if code is None or code == 0:
        return None
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        return f"{who} killed by {name}"
    return f"{who} exited {code}"


# -------------------------------------------------------------------------------------- command


@dataclass
class CommandRunner:
    """Runs the ``--agent-command`` template in the sandbox (see the module docstring)."""

    template: str
    words: list[str]
    name: str = "command"

    def run(self, spec: SessionSpec) -> Outcome:
        values = {"task": spec.task, "note": spec.note, "max_turns": str(spec.max_turns), "model": spec.model or ""}
        argv = expand(self.words, values)
        try:
            code, timed_out, seconds = run_process(argv, cwd=spec.sandbox, env=spec.env, stdout=spec.transcript,
                                                   stderr=spec.stderr, timeout=spec.timeout)
        except OSError as exc:
            return Outcome(dead=f"agent could not start: {exc.strerror or exc}")
        dead = describe_exit(code, timed_out, spec.timeout)
        if dead is not None:  # say what the agent said, not only how it ended
            dead = agent_hints.with_stderr(dead, spec.stderr)
        return Outcome(dead=dead, exit_code=code, timed_out=timed_out, seconds=seconds)


def make_command(options: RunnerOptions) -> CommandRunner:
    if not options.agent_command:
        raise EvalfmtError("the command runner needs --agent-command TEMPLATE "
                           "(e.g. --agent-command 'claude -p {task} --output-format stream-json --verbose')")
    words = split_template(options.agent_command)
    if "task" not in used_placeholders(words):
        raise EvalfmtError("--agent-command must pass the task: put {task} in it "
                           "(e.g. 'claude -p {task} --output-format stream-json --verbose')")
    if "model" in used_placeholders(words) and not options.model:
        raise EvalfmtError("--agent-command uses {model}: give --model NAME")
    path = {**os.environ, **options.env}.get("PATH")
    words[0] = resolve_program(words[0], options.cwd, path)
    return CommandRunner(options.agent_command, words)


# --------------------------------------------------------------------------------------- replay


@dataclass
class ReplayRunner:
    """Copies recorded sessions (``ROOT/<arm>/<case>/[<repetition>/]``) into the run."""

    source: str
    name: str = "replay"

    def run(self, spec: SessionSpec) -> Outcome:
        start = time.monotonic()
        folder = layout.session_dirs(os.path.join(self.source, spec.arm), spec.unit, spec.k).get(spec.repetition)
        if folder is None and spec.k > 1 and spec.repetition == 1:
            folder = layout.session_dirs(os.path.join(self.source, spec.arm), spec.unit, 1).get(1)
        if folder is None:
            where = os.path.join(self.source, spec.arm, spec.unit) + (f"/{spec.repetition}" if spec.k > 1 else "")
            return Outcome(dead=f"replay: no recorded session at {where}")
        info: dict[str, Any] = {"replayed_from": folder}
        for name, dest in ((TRANSCRIPT, spec.transcript), (STDERR, spec.stderr)):
            src = os.path.join(folder, name)
            if os.path.isfile(src):
                shutil.copyfile(src, dest)
        recorded = os.path.join(folder, layout.SANDBOX)
        overlay = os.path.join(folder, layout.OVERLAY)
        if os.path.isdir(recorded) and not os.path.islink(recorded):
            sandbox_mod.clear_dir(spec.sandbox)
            info["sandbox"] = "recorded"
            info["notes"] = sandbox_mod.copy_tree(recorded, spec.sandbox)
        elif os.path.isdir(overlay) and not os.path.islink(overlay):
            info["sandbox"] = "staged + overlay"
            info["notes"] = sandbox_mod.copy_tree(overlay, spec.sandbox)
        else:
            info["sandbox"] = "staged"
        dead = None
        marker = os.path.join(folder, DEAD)
        if os.path.isfile(marker):
            with open(marker, encoding="utf-8", errors="replace") as fh:
                dead = (fh.readline().strip() or "dead") + " (replayed)"
        elif not os.path.isfile(spec.transcript):
            dead = f"replay: no transcript.jsonl in {folder}"
        return Outcome(dead=dead, exit_code=None, seconds=time.monotonic() - start, info=info)


def make_replay(options: RunnerOptions) -> ReplayRunner:
    if not options.replay_from:
        raise EvalfmtError("the replay runner needs --replay-from DIR (a folder holding candidate/ and baseline/)")
    source = os.path.abspath(os.path.join(options.cwd, options.replay_from))
    if not os.path.isdir(source):
        raise EvalfmtError(f"--replay-from: no such folder: {options.replay_from}")
    return ReplayRunner(source)


# ------------------------------------------------------------------------------------- registry

Factory = Callable[[RunnerOptions], Runner]
REGISTRY: Registry[Factory] = Registry("evalfmt.runners", {
    "command": "evalfmt.run.runners:make_command",
    "replay": "evalfmt.run.runners:make_replay",
    "ray": "evalfmt.run.ray_runner:make",
}, kind="runner", accepts=callable)


def factories() -> dict[str, Factory]:
    """Every runner factory: the built-ins, then entry points of ``evalfmt.runners``."""
    return REGISTRY.all()


def make(name: str, options: RunnerOptions) -> Runner:
    runner = REGISTRY.require(name)(options)
    if not getattr(runner, "name", None):
        try:
            runner.name = name
        except AttributeError:
            pass
    return runner
