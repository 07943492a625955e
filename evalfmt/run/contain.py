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

A fast start (:func:`warm`): moving a process into a cgroup waits in the kernel for an RCU grace period
(10-20 ms on a small VM), and a ``preexec_fn`` makes Python fork instead of vfork. A run that starts many
commands keeps the next cgroup jail ready, made on a helper thread while the current command runs: the
cgroup and, already inside it, a launcher (``/bin/sh``) that waits on a pipe and has not forked yet. A
command then starts by sending it a script that opens the standard streams, changes to the working
directory and execs the command through ``env -i`` (the exact environment): no fork and no move in the
command's start, and everything it starts is in its cgroup, as before. A command the launcher cannot
start as ``Popen`` would (a program that is not an absolute path to an executable, a standard stream
without a path, an argument or environment that is very large) takes the usual way into the same cgroup.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
from typing import Any, Iterator

ENV = "EVALFMT_CONTAINMENT"
_PR_SET_CHILD_SUBREAPER = 36
_names = itertools.count(1)
_subreaper = False


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
        from ..errors import EvalfmtError

        raise EvalfmtError(f"{ENV} must be auto, cgroup, reaper or group, not '{want}'")
    if want in ("auto", "cgroup"):
        j = _READY.take() or _CgroupJail.create()
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
        self.launcher: _Launcher | None = None

    @classmethod
    def create(cls) -> "_CgroupJail | None":
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

    def popen(self, argv: list[str], **popen: Any) -> subprocess.Popen:
        launcher, self.launcher = self.launcher, None
        if launcher is not None:
            proc = launcher.start(argv, popen)
            if proc is not None:
                return proc
        return super().popen(argv, **popen)

    def close(self) -> None:
        if self.launcher is not None:  # never used: it ends when its pipe closes (and with the cgroup)
            self.launcher.drop()
            self.launcher = None
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


# ------------------------------------------------------------------------- the fast start


#: what the launcher runs: wait for the go-ahead (it is inside the cgroup), then read the command's
#: script to the end and run it (the script ends by exec'ing the command)
_LAUNCH = 'read -r _ && eval "$({cat})"'
#: above these sizes (bytes) an argument, or all of them with the environment, takes ``Popen``'s way, which
#: reports what the kernel refuses (the kernel's own limits are 128 KiB and about 2 MiB)
_MAX_ARG, _MAX_ALL = 100_000, 1_000_000
_tools_found: tuple[str, str, str] | None | bool = False


def _tools() -> tuple[str, str, str] | None:
    """``/bin/sh``, ``cat`` and ``env`` (absolute paths), or None where one is missing."""
    global _tools_found
    if _tools_found is False:
        found = (shutil.which("sh", path="/bin:/usr/bin"), shutil.which("cat", path="/bin:/usr/bin"),
                 shutil.which("env", path="/usr/bin:/bin"))
        _tools_found = found if all(found) else None  # type: ignore[assignment]
    return _tools_found  # type: ignore[return-value]


def _quote(word: bytes) -> bytes:
    return b"'" + word.replace(b"'", b"'\\''") + b"'"


def _stream_path(stream: Any, reading: bool) -> bytes | None:
    """The path a launcher opens for a standard stream given to ``Popen`` (``DEVNULL``, or a file whose
    name leads to that very file, fresh: nothing read from it yet, or nothing written after its end), or None."""
    if stream == subprocess.DEVNULL:
        return os.fsencode(os.devnull)
    name = getattr(stream, "name", None)
    if not isinstance(name, str) or not name or not hasattr(stream, "fileno"):
        return None
    try:
        fd = stream.fileno()
        st, there = os.fstat(fd), os.stat(name)
        at = os.lseek(fd, 0, os.SEEK_CUR)
    except (OSError, ValueError):
        return None
    if (st.st_dev, st.st_ino) != (there.st_dev, there.st_ino) or at != (0 if reading else st.st_size):
        return None
    return os.fsencode(os.path.abspath(name))


def _program_ok(program: bytes) -> bool:
    """An absolute path to an executable file the kernel runs itself (ELF or ``#!``), as ``Popen`` would
    without an error, and that ``env`` cannot take for a variable."""
    if not program.startswith(b"/") or b"=" in program or not os.access(program, os.X_OK):
        return False
    try:
        with open(program, "rb") as fh:
            head = fh.read(4)
    except OSError:
        return False
    return head == b"\x7fELF" or head[:2] == b"#!"


def launch_script(argv: list[Any], popen: dict[str, Any]) -> bytes | None:
    """The script that makes the launcher start ``argv`` as ``Popen(argv, **popen)`` would (in a new
    session, which the launcher already has), or None when it cannot."""
    tools = _tools()
    known = {"cwd", "env", "stdin", "stdout", "stderr"}
    if tools is None or not argv or set(popen) - known:
        return None
    words = [os.fsencode(w) for w in argv]
    env = popen.get("env")
    pairs = [(os.fsencode(k), os.fsencode(v)) for k, v in (os.environ if env is None else env).items()]
    cwd = os.fsencode(os.path.abspath(popen["cwd"] if popen.get("cwd") is not None else os.getcwd()))
    strings = [*words, *(k + b"=" + v for k, v in pairs), cwd]
    if (any(b"\0" in w or len(w) > _MAX_ARG for w in strings) or sum(map(len, strings)) > _MAX_ALL
            or any(not k or b"=" in k for k, _ in pairs) or not os.path.isdir(cwd) or not _program_ok(words[0])):
        return None
    stdin = _stream_path(popen.get("stdin"), reading=True)
    stdout = _stream_path(popen.get("stdout"), reading=False)
    err = popen.get("stderr")
    stderr = b"&1" if err == subprocess.STDOUT else _stream_path(err, reading=False)
    if stdin is None or stdout is None or stderr is None:
        return None
    sh, _, env_tool = tools
    redirect_err = b"2>&1" if stderr == b"&1" else b"2>>" + _quote(stderr)
    return b"\n".join([
        b"exec >>" + _quote(stdout) + b" " + redirect_err,  # from here on, errors go where the command's go
        b"cd -P -- " + _quote(cwd) + b" || exit 127",
        b" ".join([b"exec", _quote(os.fsencode(env_tool)), b"-i", b"--", *(_quote(k + b"=" + v) for k, v in pairs),
                   *map(_quote, words), b"<" + _quote(stdin)]),
        b""])


class _Launcher:
    """A ``/bin/sh`` waiting inside a cgroup jail for the script of the command it becomes."""

    def __init__(self, proc: subprocess.Popen, pipe: int):
        self.proc, self.pipe = proc, pipe

    def start(self, argv: list[Any], popen: dict[str, Any]) -> subprocess.Popen | None:
        """The launcher running ``argv`` (the returned ``Popen`` is the launcher's: same pid, the command
        execs in it), or None (``argv`` cannot start this way, or the launcher is gone)."""
        try:
            script = launch_script(argv, popen)
        except (TypeError, ValueError):  # arguments Popen refuses: let it say so
            script = None
        if script is None:
            self.drop()
            return None
        try:
            view = memoryview(script)
            while view:
                view = view[os.write(self.pipe, view):]
        except OSError:  # the launcher died (killed from outside): start the usual way
            self.drop()
            return None
        os.close(self.pipe)
        return self.proc

    def drop(self) -> None:
        """Not used: close its pipe, so it exits, and reap it."""
        try:
            os.close(self.pipe)
        except OSError:
            pass
        _signal(self.proc.pid)
        self.proc.wait()


def _prepared() -> _CgroupJail | None:
    """A new cgroup jail holding a launcher that has not forked yet, or None."""
    tools = _tools()
    cell = _CgroupJail.create() if tools is not None else None
    if cell is None or tools is None:
        return None
    sh, cat, _ = tools
    read, pipe = os.pipe()
    try:
        proc = subprocess.Popen([sh, "-c", _LAUNCH.format(cat=cat), "evalfmt-launch"], stdin=read,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={}, cwd="/",
                                start_new_session=True)
    except OSError:
        os.close(pipe)
        cell.close()
        return None
    finally:
        os.close(read)
    launcher = _Launcher(proc, pipe)
    _write(os.path.join(cell.path, "cgroup.procs"), str(proc.pid))
    if str(proc.pid) not in _read(os.path.join(cell.path, "cgroup.procs")).split():
        launcher.drop()
        cell.close()
        return None
    try:
        os.write(pipe, b"\n")  # the go-ahead: from now on what it forks is in the cgroup
    except OSError:
        launcher.drop()
        cell.close()
        return None
    cell.entered, cell.launcher = True, launcher
    return cell


class _Ready:
    """Jails made ahead (inside :func:`warm`): ``take`` hands one out and starts making the next."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.want = 0  # how many to keep ready (0: none, outside warm())
        self.ready: list[_CgroupJail] = []
        self.making = 0
        self.owner = os.getpid()
        self.tasks: queue.SimpleQueue[None] = queue.SimpleQueue()
        self.worker: threading.Thread | None = None  # one helper thread makes them, started once

    def take(self) -> _CgroupJail | None:
        with self.lock:
            if self.want == 0 or self.owner != os.getpid():
                return None
            while not self.ready and self.making:  # one on its way is sooner than a new one
                self.lock.wait()
            cell = self.ready.pop() if self.ready else None
        self.fill()
        return cell

    def fill(self) -> None:
        with self.lock:
            starts = max(0, self.want - len(self.ready) - self.making)
            self.making += starts
            new = starts > 0 and self.worker is None
            if new:
                self.worker = threading.Thread(target=self._serve, name="evalfmt-jail", daemon=True)
        if new:
            assert self.worker is not None
            self.worker.start()  # once: starting a thread per jail would wait for it to be scheduled
        for _ in range(starts):
            self.tasks.put(None)

    def _serve(self) -> None:
        while True:
            self.tasks.get()
            self._make()

    def _make(self) -> None:
        cell = None
        try:
            cell = _prepared()
        finally:
            with self.lock:
                if cell is not None and self.want > 0:
                    self.ready.append(cell)
                    cell = None
            if cell is not None:  # warm() ended meanwhile
                cell.close()
            with self.lock:
                self.making -= 1
                self.lock.notify_all()

    def stop(self, jobs: int | None = None) -> None:
        """Keep ``jobs`` fewer ready (all: None); when none is wanted any more, remove those made."""
        with self.lock:
            if self.owner != os.getpid():
                return
            self.want = 0 if jobs is None else max(0, self.want - jobs)
            if self.want:
                return
            while self.making:
                self.lock.wait()
            cells, self.ready = self.ready, []
        for cell in cells:
            cell.close()

    def forget(self) -> None:
        """In a forked child: the parent's jails are not ours (their pipes close with our copies)."""
        for cell in self.ready:
            if cell.launcher is not None:
                with contextlib.suppress(OSError):
                    os.close(cell.launcher.pipe)
        self.__init__()  # type: ignore[misc]


_READY = _Ready()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_READY.forget)


def keep_warm(jobs: int = 1) -> None:
    """:func:`warm` for the rest of this process (a pool worker): the jails not used are removed when it
    exits through ``multiprocessing`` (else their launchers end with it, and the next evalfmt removes the
    empty cgroups)."""
    if not _fast_start():
        return
    with _READY.lock:
        _READY.want += max(1, jobs)
    _READY.fill()
    from multiprocessing import util

    util.Finalize(None, _READY.stop, exitpriority=10)


def _fast_start() -> bool:
    want = os.environ.get(ENV, "auto").strip().lower()
    return want in ("auto", "cgroup", "") and _tools() is not None and _cgroup_dir() is not None


@contextlib.contextmanager
def warm(jobs: int = 1) -> Iterator[None]:
    """While inside, keep ``jobs`` cgroup jails ready (made ahead on helper threads), so that each command
    starts without a fork or a cgroup move in its way. Leaving it removes the jails not used."""
    if not _fast_start():
        yield
        return
    with _READY.lock:
        _READY.want += max(1, jobs)
    _READY.fill()
    try:
        yield
    finally:
        _READY.stop(max(1, jobs))


# -------------------------------------------------------------------------------- subreaper


def _become_subreaper() -> bool:
    global _subreaper
    if _subreaper:
        return True
    if not os.path.isdir("/proc/self/task"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        _subreaper = False
    return _subreaper


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
