"""Running a shell command in a sandbox: ``/bin/sh -ce CMD`` with a time limit.

The command runs in a new session (its own process group) and in a jail (``contain.py``: a cgroup,
else evalfmt as a child subreaper). On timeout the whole group is killed, and when the shell exits
anything it left running is killed too, in its group or not (a child that called ``setsid``), so a
command that starts background children cannot outlive its check (nor ``setup`` its staging). Output goes to a
temporary file, never to memory, and only its tail is kept for the check's detail. ``evalfmt run``
reuses this for ``setup`` (60 s) as terum does; :func:`contained` is shared with the agent runners.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import interrupts
from .contain import jail

if TYPE_CHECKING:  # pragma: no cover
    from .contain import Jail

#: terum's limit for command_succeeds, in seconds
CHECK_TIMEOUT = 120.0
TAIL_BYTES = 2000
#: how often a wait for a command looks for a Ctrl-C that did not come through as an exception (seconds)
POLL = 1.0


@dataclass
class ShellResult:
    returncode: int | None  # None when it timed out
    timed_out: bool
    output_tail: str  # the last bytes of stdout+stderr, decoded
    seconds: float

    @property
    def ok(self) -> bool:
        return not self.timed_out and self.returncode == 0

    def describe(self, timeout: float) -> str:
        if self.timed_out:
            return f"timed out after {timeout:g} s"
        last = self.output_tail.strip().splitlines()[-1:] if self.output_tail.strip() else []
        tail = f": {last[0][:200]}" if last else ""
        return f"exit {self.returncode}{tail}"


def run_shell(command: str, cwd: str, timeout: float = CHECK_TIMEOUT, env: dict[str, str] | None = None) -> ShellResult:
    """Run ``/bin/sh -ce command`` in ``cwd``; kill its process group after ``timeout`` seconds, and
    whatever it left running when it exits."""
    start = time.monotonic()
    with tempfile.NamedTemporaryFile(prefix="evalfmt-out-") as out:  # a name: a ready jail's launcher opens it
        code = contained(["/bin/sh", "-ce", command], timeout, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                         stderr=subprocess.STDOUT, env=env)
        size = out.seek(0, os.SEEK_END)
        out.seek(max(0, size - TAIL_BYTES))
        tail = out.read().decode("utf-8", "replace")
    return ShellResult(code, code is None, tail, time.monotonic() - start)


def contained(argv: list[str], timeout: float, **popen) -> int | None:
    """Run ``argv`` in a new session and a jail (``popen``: the other ``Popen`` arguments), wait at most
    ``timeout`` seconds for it, then kill its process group and everything left in its jail: a timed-out
    process, or what a finished one left running. Returns the exit code, None when it timed out. On any
    exception (Ctrl-C included) everything is killed first, then it propagates.

    A Ctrl-C does not cut in while the command is started or ended (:class:`interrupts.deferred`): inside
    ``Popen`` after the fork it would leave the child running with nobody holding it, and in a hook that
    ``fork`` runs Python would drop it. One that comes meanwhile is handled once the command is held."""
    proc: subprocess.Popen | None = None
    cell: Jail | None = None
    try:
        with interrupts.deferred():
            cell = jail()
            proc = cell.popen(argv, **popen)
        exited = wait_process(proc, timeout)
        with interrupts.deferred():
            code = _end(proc, cell)
            proc = cell = None  # ended
    except BaseException as exc:
        with interrupts.deferred():
            if proc is not None:
                _end(proc, cell)
            elif cell is not None:
                cell.close()
        if isinstance(exc, KeyboardInterrupt):
            interrupts.came_through()
        raise
    return code if exited else None


def _end(proc: subprocess.Popen, cell: Jail | None) -> int:
    try:
        kill_group(proc)
        return proc.wait()
    finally:
        if cell is not None:
            cell.close()


def wait_process(proc: subprocess.Popen, timeout: float) -> bool:
    """Wait until ``proc`` exits (True) or ``timeout`` seconds pass (False), without reaping it when
    the platform allows (so its process group id stays reserved until :func:`kill_group`). The Ctrl-C of
    a session whose ``KeyboardInterrupt`` Python dropped is raised here (:func:`interrupts.check`): at
    once when it came before, within ``POLL`` seconds when it came during the wait."""
    interrupts.check()
    pidfd = None
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        pidfd = None
    deadline = time.monotonic() + timeout
    if pidfd is None:
        while True:
            try:
                proc.wait(timeout=max(0.0, min(deadline - time.monotonic(), POLL)))
                return True
            except subprocess.TimeoutExpired:
                interrupts.check()
                if time.monotonic() >= deadline:
                    return False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([pidfd], [], [], min(left, POLL))
            if ready:
                return True
            interrupts.check()
    finally:
        os.close(pidfd)


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the process group led by ``proc`` (started with ``start_new_session``)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
