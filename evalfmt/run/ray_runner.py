"""The ``ray`` runner: each session's agent runs as a Ray task on a cluster (the extra ``evalfmt[ray]``).

    evalfmt run SKILL --out DIR --runner ray --agent-command TEMPLATE --jobs 16 \\
        [--runner-opt address=auto|HOST:PORT] [--runner-opt num_cpus=1] [--runner-opt memory=2G] ...

What travels, and how: evalfmt stages the session's sandbox where it runs (fixture, files, setup and,
for the candidate, the skill in ``.claude/skills/``), exactly as for the ``command`` runner; the
sandbox then travels to the task as one tar archive in Ray's object store (a task argument), the
task unpacks it into a private folder on its node, runs the agent there (the ``command`` runner's
process handling: own process group, timeout, nothing left running), and returns the transcript,
the agent's stderr and the sandbox *overlay* (the files the agent added or changed, and the paths
it removed), which evalfmt lays over the staged sandbox in the run folder. Sessions are scored
where evalfmt runs, so the receipt is the ``command`` runner's for the same agent. Ray's runtime
environments were not chosen for this: they are set up per job or per task and cached by content,
which suits code and packages (evalfmt itself must be installed on the nodes, e.g. in their image),
not a different folder for every session.

``--jobs N`` is the number of sessions in flight (threads waiting on tasks): give the cluster's
slots. ``num_cpus`` (default 1), ``num_gpus``, ``memory`` (bytes, or with K/M/G) and
``max_retries`` (default 0: a session whose worker died is a dead arm that ``--resume`` runs again;
above 0 Ray runs it again itself) map to the task's Ray options; tasks are spread over the nodes
(Ray's ``SPREAD`` strategy). Without ``address`` the runner
starts a local Ray instance for the run and shuts it down at the end (the same code path on one
machine); with one it connects to that cluster and leaves it running.
"""

from __future__ import annotations

import io
import logging
import os
import shutil
import tarfile
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ..errors import EvalfmtError
from .runners import (CommandRunner, Outcome, RunnerOptions, SessionSpec, describe_exit, expand, make_command,
                      run_process)

OPTIONS = ("address", "num_cpus", "num_gpus", "memory", "max_retries")
_UNITS = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}


def _number(key: str, value: str, integer: bool = False) -> float:
    text = value.strip().upper().removesuffix("B") if key == "memory" else value.strip()
    scale = 1
    if key == "memory" and text[-1:] in _UNITS:
        scale, text = _UNITS[text[-1]], text[:-1]
    try:
        number = float(text) * scale
    except ValueError:
        raise EvalfmtError(f"--runner-opt {key}={value}: not a number") from None
    if number < 0 or (integer and number != int(number)):
        raise EvalfmtError(f"--runner-opt {key}={value}: not a " + ("whole " if integer else "") + "number >= 0")
    return int(number) if integer else number


@dataclass
class RayRunner:
    """Runs the agent command of each session as a Ray task (see the module docstring)."""

    command: CommandRunner
    address: str | None
    task_options: dict[str, Any] = field(default_factory=dict)
    name: str = "ray"
    #: the executor runs sessions in threads (Ray's driver must not be forked)
    threads: bool = True
    _started: bool = False
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _connect(self) -> Any:
        import ray

        with self._lock:
            if not ray.is_initialized():
                if self.address is None:
                    ray.init(address="local", include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
                    self._started = True
                else:
                    try:
                        ray.init(address=self.address, log_to_driver=False, logging_level=logging.ERROR)
                    except (ConnectionError, RuntimeError, ValueError) as exc:
                        raise EvalfmtError(f"--runner-opt address={self.address}: cannot connect to a Ray cluster: "
                                           f"{exc}") from None
        return ray

    def start(self) -> None:
        """Before the first session (in the main thread): connect, or start the local instance."""
        self._connect()

    def run(self, spec: SessionSpec) -> Outcome:
        ray = self._connect()
        start = time.monotonic()
        task = _remote(ray).options(**self.task_options)
        ref = task.remote(self.command.words, _values(spec), _pack(spec.sandbox), _env(spec), spec.timeout)
        try:
            while True:
                ready, _ = ray.wait([ref], timeout=0.2)
                if ready:
                    break
                if self._stop.is_set():
                    raise KeyboardInterrupt
        except KeyboardInterrupt:
            ray.cancel(ref, force=True)
            raise
        try:
            result = ray.get(ref)
        except Exception as exc:  # noqa: BLE001 - a dead worker or node kills this session only
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            return Outcome(dead=f"lost: the Ray task failed ({type(exc).__name__}{': ' + first if first else ''})",
                           seconds=time.monotonic() - start, info={"ray": {"error": type(exc).__name__}})
        for name, data in ((spec.transcript, result["stdout"]), (spec.stderr, result["stderr"])):
            with open(name, "wb") as fh:
                fh.write(data)
        _apply(spec.sandbox, result["overlay"], result["removed"])
        code, timed_out = result["code"], result["timed_out"]
        if result.get("error"):
            dead = result["error"]
        else:
            dead = describe_exit(code, timed_out, spec.timeout)
        return Outcome(dead=dead, exit_code=code, timed_out=timed_out, seconds=time.monotonic() - start,
                       info={"ray": {"node": result["node"], "worker_pid": result["pid"],
                                     "seconds_on_node": round(result["seconds"], 4)}})

    def interrupt(self) -> None:
        """Ctrl-C: every session waiting on a task cancels it (its ``run`` raises KeyboardInterrupt)."""
        self._stop.set()

    def close(self) -> None:
        """After the last session: shut down the Ray instance this runner started (none with an address)."""
        if self._started:
            import ray

            ray.shutdown()
            self._started = False


_REMOTE: list[Any] = []


def _remote(ray: Any) -> Any:
    """:func:`remote_session` as a Ray remote function (made once per process)."""
    if not _REMOTE:
        _REMOTE.append(ray.remote(remote_session))
    return _REMOTE[0]


def _values(spec: SessionSpec) -> dict[str, str]:
    return {"task": spec.task, "note": spec.note, "max_turns": str(spec.max_turns), "model": spec.model or ""}


def _env(spec: SessionSpec) -> dict[str, str]:
    """The agent's environment without the two sandbox paths (the task sets them to its own folder)."""
    return {k: v for k, v in spec.env.items() if k not in ("CLAUDE_PROJECT_DIR", "PWD")}


def _pack(folder: str, only: set[str] | None = None) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for base, dirs, files in os.walk(folder):
            dirs.sort()
            for name in sorted(dirs) + sorted(files):
                full = os.path.join(base, name)
                rel = os.path.relpath(full, folder)
                if only is not None and rel not in only:
                    continue
                tar.add(full, arcname=rel, recursive=False)
    return buf.getvalue()


def _unpack(data: bytes, folder: str) -> None:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r") as tar:
        tar.extractall(folder, filter="data")


def _state(folder: str) -> dict[str, tuple[int, int, int]]:
    """Every path under ``folder`` (relative) with its mode, size and modification time."""
    out = {}
    for base, dirs, files in os.walk(folder):
        for name in dirs + files:
            full = os.path.join(base, name)
            st = os.lstat(full)
            out[os.path.relpath(full, folder)] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return out


def _apply(sandbox: str, overlay: bytes, removed: list[str]) -> None:
    """Lay the agent's changes over the staged sandbox: remove what it removed, write what it wrote."""
    root = os.path.realpath(sandbox)
    for rel in sorted(removed, reverse=True):
        path = os.path.realpath(os.path.join(root, os.path.dirname(rel)))
        target = os.path.join(path, os.path.basename(rel))
        if not (path == root or path.startswith(root + os.sep)):
            continue
        if os.path.isdir(target) and not os.path.islink(target):
            shutil.rmtree(target, ignore_errors=True)
        elif os.path.lexists(target):
            os.unlink(target)
    _unpack(overlay, sandbox)


def remote_session(words: list[str], values: dict[str, str], sandbox_tar: bytes, env: dict[str, str],
                   timeout: float) -> dict[str, Any]:
    """The Ray task: unpack the sandbox, run the agent in it, return what it printed and what it changed."""
    import ray

    root = tempfile.mkdtemp(prefix="evalfmt-ray-")
    try:
        sandbox = os.path.join(root, "sandbox")
        os.mkdir(sandbox)
        _unpack(sandbox_tar, sandbox)
        before = _state(sandbox)
        env = dict(env, CLAUDE_PROJECT_DIR=sandbox, PWD=sandbox)
        out, err = os.path.join(root, "stdout"), os.path.join(root, "stderr")
        error = None
        start = time.monotonic()
        try:
            code, timed_out, _ = run_process(expand(words, values), cwd=sandbox, env=env, stdout=out, stderr=err,
                                             timeout=timeout)
        except OSError as exc:
            code, timed_out, error = None, False, f"agent could not start: {exc.strerror or exc}"
            for path in (out, err):
                open(path, "wb").close()
        seconds = time.monotonic() - start
        after = _state(sandbox)
        changed = {rel for rel, st in after.items() if before.get(rel) != st}
        removed = [rel for rel in before if rel not in after]
        with open(out, "rb") as fh:
            stdout = fh.read()
        with open(err, "rb") as fh:
            stderr = fh.read()
        return {"stdout": stdout, "stderr": stderr, "overlay": _pack(sandbox, changed), "removed": removed,
                "code": code, "timed_out": timed_out, "error": error, "seconds": seconds,
                "node": ray.get_runtime_context().get_node_id(), "pid": os.getpid()}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def make(options: RunnerOptions) -> RayRunner:
    unknown = sorted(set(options.options) - set(OPTIONS))
    if unknown:
        raise EvalfmtError(f"the ray runner has no option '{unknown[0]}' (options: {', '.join(OPTIONS)})")
    try:
        import ray  # noqa: F401
    except ImportError:
        raise EvalfmtError("the ray runner needs Ray: install evalfmt with its 'ray' extra (evalfmt[ray])") from None
    command = make_command(options)
    opts = options.options
    task: dict[str, Any] = {"scheduling_strategy": "SPREAD", "num_cpus": _number("num_cpus", opts.get("num_cpus", "1")),
                            "max_retries": _number("max_retries", opts.get("max_retries", "0"), integer=True)}
    if "num_gpus" in opts:
        task["num_gpus"] = _number("num_gpus", opts["num_gpus"])
    if "memory" in opts:
        task["memory"] = _number("memory", opts["memory"], integer=True)
    address = opts.get("address") or None
    return RayRunner(command, address, task)
