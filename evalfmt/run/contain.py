"""Containing every process a command starts (an agent, a case's ``setup``, a ``command_succeeds``
check, a judge or selector program): when it ends, everything it started ends too, however it
detached itself.

A process group is not enough: a child that calls ``setsid`` (a daemon, ``nohup ... &`` in some
shells, a double fork) leaves the group and would outlive the run. So each command runs in a
:class:`Jail`, the best one the platform offers:

- ``cgroup``: a cgroup v2 of its own, created under evalfmt's cgroup (Linux, where that hierarchy
  is writable: root, or a delegated subtree). The command enters it before it starts, so everything
  it forks is in it; at the end ``cgroup.kill`` (or, before Linux 5.14, freezing and killing each
  member) ends them all, and the cgroup is removed.
- ``reaper``: evalfmt becomes a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``, Linux): an
  orphaned descendant is re-parented to evalfmt instead of init, so at the end every process below
  evalfmt that was not there before the command started is killed and reaped, until none is left.
- ``group``: elsewhere, the process group only (what the caller kills in any case).

``EVALFMT_CONTAINMENT`` (``auto``, the default, ``cgroup``, ``reaper`` or ``group``) picks one; a
mechanism that is not available falls back to the next.

Only evalfmt's own processes become a subreaper (:mod:`evalfmt.program`: the ``evalfmt`` command and
the worker processes it starts): a program that imports evalfmt and calls it keeps its process as it was,
and gets the ``cgroup`` jail, or the process group where no cgroup can be made. (A pre-forked launcher
that saved ~15 ms per command was removed: an agent session lasts minutes, benchmarks/RESULTS.md.)
"""

from __future__ import annotations

import ctypes
import itertools
import os
import signal
import subprocess
import time
from typing import Any

from .. import program
from ..errors import EvalfmtError

ENV = "EVALFMT_CONTAINMENT"
_PR_SET_CHILD_SUBREAPER = 36
_names = itertools.count(1)
_subreaper = 0  # the pid that made itself a subreaper (a forked child is not one: fork does not inherit it)


class Jail:
    """Where one command's processes live; :meth:`close` kills whatever is left in it."""

    kind = "group"

    def preexec(self):
        """A function to run in the child before it starts (None: nothing)."""
        return None

    def started(self, pid: int) -> None:
        """The command started as ``pid``."""

    def close(self) -> None:
        """Kill every process left in the jail (the command itself has been waited for)."""

    def popen(self, argv: list[str], **popen: Any) -> subprocess.Popen:
        """Start ``argv`` in a new session inside the jail (``popen``: the other ``Popen`` arguments)."""
        proc = subprocess.Popen(argv, start_new_session=True, preexec_fn=self.preexec(), **popen)
        self.started(proc.pid)
        return proc


def jail() -> Jail:
    """The best jail available (see the module docstring)."""
    want = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if want not in ("auto", "cgroup", "reaper", "group"):
        raise EvalfmtError(f"{ENV} must be auto, cgroup, reaper or group, not '{want}'")
    if want in ("auto", "cgroup"):
        j = _CgroupJail.create()
        if j is not None:
            return j
    if want in ("auto", "cgroup", "reaper") and _become_subreaper():
        return _ReaperJail()
    return Jail()


# ----------------------------------------------------------------------------------- cgroup v2


def _cgroup_dir() -> str | None:
    """evalfmt's own cgroup v2 directory, or None."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as fh:
            own = next((line[3:].strip() for line in fh if line.startswith("0::")), None)
        if own is None:
            return None
        with open("/proc/self/mountinfo", encoding="utf-8") as fh:
            for line in fh:
                left, _, right = line.partition(" - ")
                if right.split(" ", 1)[0] == "cgroup2":
                    fields = left.split()
                    root, mount = fields[3], fields[4]
                    if own == root or own.startswith(root.rstrip("/") + "/"):
                        rel = own[len(root.rstrip("/")):].lstrip("/")
                        return os.path.join(mount, rel) if rel else mount
    except OSError:
        return None
    return None


class _CgroupJail(Jail):
    kind = "cgroup"

    def __init__(self, path: str):
        self.path = path
        self.entered = False

    @classmethod
    def create(cls) -> _CgroupJail | None:
        base = _cgroup_dir()
        if base is None:
            return None
        path = os.path.join(base, f"evalfmt-{os.getpid()}-{next(_names)}")
        try:
            os.mkdir(path)
        except OSError:
            return None
        _sweep(base)
        if not os.access(os.path.join(path, "cgroup.procs"), os.W_OK):
            _rmdir(path)
            return None
        return cls(path)

    def preexec(self):
        procs = os.path.join(self.path, "cgroup.procs")

        def enter() -> None:  # in the child, before exec: a failure leaves it to the reaper
            try:
                fd = os.open(procs, os.O_WRONLY)
                try:
                    os.write(fd, b"0")
                finally:
                    os.close(fd)
            except OSError:
                pass

        return enter

    def started(self, pid: int) -> None:
        self.entered = str(pid) in _read(os.path.join(self.path, "cgroup.procs")).split()
        if not self.entered and _become_subreaper():  # the move failed: fall back on the reaper
            self._reaper = _ReaperJail()

    def close(self) -> None:
        try:
            if self.entered:
                _kill_cgroup(self.path)
            elif getattr(self, "_reaper", None) is not None:
                self._reaper.close()
        finally:
            _rmdir(self.path)


def descendants() -> list[int]:
    """Every process below this one (e.g. a local Ray instance's raylet, GCS and workers)."""
    return _descendants(os.getpid(), set())


def sweep(owners: list[int] | None = None, wait: float = 10.0) -> None:
    """End what the jails of evalfmt processes that are gone still hold, and remove those cgroups.

    A jail's owner kills its cgroup when the command ends; an owner that dies first (a Ray worker stopped
    with its raylet by a Ctrl-C, a SIGKILLed run) leaves the command's descendants running in it. The next
    jail made under the same cgroup sweeps them (:meth:`_CgroupJail.create`), and a run that started its
    own Ray instance sweeps once the instance is down: ``owners`` are the processes it waits for (at most
    ``wait`` seconds) before it looks."""
    base = _cgroup_dir()
    if base is None:
        return
    made = {int(pid) for pid in (n.split("-")[1] for n in _jail_names(base)) if pid.isdigit()}
    pending = [pid for pid in owners or () if pid in made]  # the owners of a jail; their agents are not waited on
    end = time.monotonic() + wait
    while pending and time.monotonic() < end:
        pending = [pid for pid in pending if _running(pid)]
        if pending:
            time.sleep(0.05)
    _sweep(base)


def _jail_names(base: str) -> list[str]:
    try:
        return [n for n in os.listdir(base) if n.startswith("evalfmt-")]
    except OSError:
        return []


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended (a zombie has)."""
    stat = _read(f"/proc/{pid}/stat")
    close = stat.rfind(")")
    return close > 0 and stat[close + 2:close + 3] not in ("Z", "X", "")


def _sweep(base: str) -> None:
    """Kill the members of, and remove, the cgroups of evalfmt processes that are gone. A cgroup is
    named for the pid that made it; one whose pid is running (or was taken by another process) is left."""
    for name in _jail_names(base):
        pid = name.split("-")[1]
        if pid.isdigit() and int(pid) != os.getpid() and not _running(int(pid)):
            path = os.path.join(base, name)
            try:
                os.rmdir(path)
            except FileNotFoundError:
                continue
            except OSError:  # it holds processes its owner could not end: end them now
                _kill_cgroup(path)
                _rmdir(path)


def _kill_cgroup(path: str) -> None:
    procs = os.path.join(path, "cgroup.procs")
    kill = os.path.join(path, "cgroup.kill")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        pids = [int(p) for p in _read(procs).split()]
        if not pids:
            return
        if os.path.exists(kill):
            _write(kill, "1")
        else:  # before Linux 5.14: freeze (no more forks), kill each member, thaw so they die
            freeze = os.path.join(path, "cgroup.freeze")
            _write(freeze, "1")
            for pid in pids:
                _signal(pid)
            _write(freeze, "0")
        time.sleep(0.01)


def _rmdir(path: str) -> None:
    for _ in range(100):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:  # members not gone yet
            time.sleep(0.01)


# -------------------------------------------------------------------------------- subreaper


def _become_subreaper() -> bool:
    """Make this process a child subreaper, only when it is evalfmt's own (:func:`evalfmt.program.own`)."""
    global _subreaper
    if _subreaper == os.getpid():
        return True
    if not program.own() or not os.path.isdir("/proc/self/task"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    _subreaper = os.getpid()
    return True


def _children(pid: int) -> list[int]:
    """The children of ``pid`` (from ``/proc/<pid>/task/*/children``, else a scan of ``/proc``)."""
    tasks = f"/proc/{pid}/task"
    out: list[int] = []
    try:
        for tid in os.listdir(tasks):
            text = _read(os.path.join(tasks, tid, "children"), missing=None)
            if text is None:
                return _children_by_scan(pid)
            out.extend(int(p) for p in text.split())
    except OSError:
        return []
    return out


def _children_by_scan(pid: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            stat = _read(f"/proc/{name}/stat")
            close = stat.rfind(")")
            fields = stat[close + 2:].split()
            if len(fields) > 1 and fields[1] == str(pid):
                out.append(int(name))
    return out


def _descendants(pid: int, skip: set[int]) -> list[int]:
    out, todo = [], [c for c in _children(pid) if c not in skip]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(_children(p))
    return out


class _ReaperJail(Jail):
    kind = "reaper"

    def __init__(self) -> None:
        self.me = os.getpid()
        self.before = set(_children(self.me))

    def close(self) -> None:
        for _ in range(1000):
            left = _descendants(self.me, self.before)
            if not left:
                return
            for pid in left:
                _signal(pid)
            for pid in left:  # re-parented orphans are ours to reap (others are reaped by theirs)
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass
            time.sleep(0.005)


# ------------------------------------------------------------------------------------ helpers


def _signal(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _read(path: str, missing: str | None = "") -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError:
        return missing  # type: ignore[return-value]


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError:
        pass
