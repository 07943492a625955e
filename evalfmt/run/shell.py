"""Running a shell command in a sandbox: ``/bin/sh -ce CMD`` with a time limit.

The command runs in a new session (its own process group) and in a jail (``contain.py``: a cgroup,
else evalfmt as a child subreaper). On timeout the whole group is killed, and when the shell exits
anything it left running is killed too, in its group or not (a child that called ``setsid``), so a
command that starts background children cannot outlive its check (nor ``setup`` its staging). Output goes to a
temporary file, never to memory, and only its tail is kept for the check's detail. ``evalfmt run``
reuses this for ``setup`` (60 s) as terum does; :func:`wait_process` and :func:`kill_group` are
shared with the agent runners.
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

from .contain import jail

if TYPE_CHECKING:  # pragma: no cover
    from .contain import Jail

#: terum's limit for command_succeeds, in seconds
CHECK_TIMEOUT = 120.0
TAIL_BYTES = 2000


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
        proc, cell = spawn(["/bin/sh", "-ce", command], cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                           stderr=subprocess.STDOUT, env=env)
        code = supervise(proc, timeout, cell)
        size = out.seek(0, os.SEEK_END)
        out.seek(max(0, size - TAIL_BYTES))
        tail = out.read().decode("utf-8", "replace")
    return ShellResult(code, code is None, tail, time.monotonic() - start)


def spawn(argv: list[str], **popen) -> tuple[subprocess.Popen, Jail]:
    """Start ``argv`` in a new session and a jail (``popen``: the other ``Popen`` arguments)."""
    cell = jail()
    try:
        proc = cell.popen(argv, **popen)
    except BaseException:
        cell.close()
        raise
    return proc, cell


def supervise(proc: subprocess.Popen, timeout: float, cell: Jail | None = None) -> int | None:
    """Wait at most ``timeout`` seconds for ``proc`` (started by :func:`spawn`), then kill its process
    group and everything left in its jail: a timed-out process, or what a finished one left running.
    Returns the exit code, None when it timed out. On any exception (Ctrl-C included) everything is
    killed first."""
    try:
        exited = wait_process(proc, timeout)
    except BaseException:
        _end(proc, cell)
        raise
    code = _end(proc, cell)
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
    the platform allows (so its process group id stays reserved until :func:`kill_group`)."""
    pidfd = None
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        pidfd = None
    if pidfd is None:
        try:
            proc.wait(timeout=timeout)
            return True
        except subprocess.TimeoutExpired:
            return False
    try:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([pidfd], [], [], left)
            if ready:
                return True
    finally:
        os.close(pidfd)


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the process group led by ``proc`` (started with ``start_new_session``)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
