"""Running a shell command in a sandbox: ``/bin/sh -ce CMD`` with a time limit.

On timeout the whole process group is killed (the command runs in a new session), so a command that
starts background children cannot outlive its check. Output goes to a temporary file, never to
memory, and only its tail is kept for the check's detail. The run engineer reuses this for
``setup`` (60 s) as terum does.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass

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
    """Run ``/bin/sh -ce command`` in ``cwd``; kill its process group after ``timeout`` seconds."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(["/bin/sh", "-ce", command], cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True, env=env)
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc)
        finally:
            if proc.poll() is None:  # interrupted (e.g. KeyboardInterrupt): never leave it running
                _kill_group(proc)
        size = out.seek(0, os.SEEK_END)
        out.seek(max(0, size - TAIL_BYTES))
        tail = out.read().decode("utf-8", "replace")
    return ShellResult(None if timed_out else proc.returncode, timed_out, tail, time.monotonic() - start)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL is not ignorable
        pass
