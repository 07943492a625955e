"""The ``ray`` runner: each session's agent runs as a Ray task on a cluster (the extra ``evalfmt[ray]``).

    evalfmt run SKILL --out DIR --runner ray --agent-command TEMPLATE --jobs 16 \\
        [--runner-opt address=auto|HOST:PORT] [--runner-opt num_cpus=1] [--runner-opt memory=2G] ...

What travels, and how: the task carries the session's inputs, not a staged sandbox. The skill
folder (as staging copies it: without ``evals/`` and ``fixtures/``) is packed and put into Ray's
object store once per run (``ray.put``), each case's fixture once per case (shared by its arms and
repetitions); every task gets their object refs, so each node fetches each input once and keeps it
in its object store. The inline ``files``, the ``setup`` script and the task text travel as plain
task arguments. On the node the task unpacks the inputs into a private folder, stages the sandbox
there with :func:`sandbox.stage` (the function the ``command`` runner's sessions use: the same
order, checks and write-root rules; ``setup`` runs on the node), runs the agent in it (the
``command`` runner's process handling: own process group, timeout, nothing left running), and
returns the transcript, the agent's stderr and the sandbox as the session left it (one tar), which
evalfmt unpacks into the session's folder without letting anything land outside it
(:func:`sandbox_tar.unpack`). The checks that need the case files (inline paths, the fixture inside
the skill folder: validate's EV107) run where evalfmt runs, before anything travels, with the same
:func:`sandbox.check` that :func:`sandbox.stage` starts with. A case whose staging or ``setup``
fails on the node is dropped exactly as with the ``command`` runner. Sessions are scored where
evalfmt runs, so the receipt is the ``command`` runner's for the same agent. Ray's runtime
environments were not chosen for the inputs: a ``working_dir`` is zipped and uploaded per
environment (at most 512 MiB, Ray's largest gRPC message), cached on each node by content hash (up
to 10 GB, dropped when unused) and becomes the workers' working directory; a folder per case would
be an environment per case, and Ray starts separate worker processes for each distinct environment.
The object store is freed when the run ends, and refs cost nothing to pass to every task. Runtime
environments suit code and packages: evalfmt itself must be installed on the nodes (e.g. in their
image). See docs/running.md ("What travels, and how").

``--jobs N`` is the number of sessions in flight (threads waiting on tasks): give the cluster's
slots. ``num_cpus`` (default 1), ``num_gpus``, ``memory`` (bytes, or with K/M/G) and
``max_retries`` (default 0: a session whose worker died is a dead arm that ``--resume`` runs again;
above 0 Ray runs it again itself) map to the task's Ray options; tasks are spread over the nodes
(Ray's ``SPREAD`` strategy). Without ``address`` the runner
starts a local Ray instance for the run and shuts it down at the end (the same code path on one
machine); with one it connects to that cluster and leaves it running.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import math
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

from ..errors import EvalfmtError
from . import agent_hints, contain, listeners, sandbox_tar
from .runners import (CommandRunner, Outcome, RunnerOptions, SessionSpec, describe_exit, expand, make_command,
                      run_process)
from .sandbox import SKILL_EXCLUDED, StageError, StageSpec, check, stage

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
    if not math.isfinite(number) or number < 0 or (integer and number != int(number)):
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
    #: the runner stages each sandbox on the node, where the agent runs (``SessionSpec.stage``)
    stages: bool = True
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _inputs: dict[tuple, tuple[Any, list[str]]] = field(default_factory=dict)
    _inputs_lock: threading.Lock = field(default_factory=threading.Lock)

    def _connect(self) -> Any:
        with self._lock:
            if self.address is None:
                if not self._started:
                    self._started = _start_local()
                import ray  # ray: the optional dependency (the 'ray' extra)
            else:
                import ray  # ray: the optional dependency (the 'ray' extra)

                if not ray.is_initialized():
                    try:
                        ray.init(address=self.address, log_to_driver=False, logging_level=logging.ERROR)
                    except (ConnectionError, RuntimeError, ValueError) as exc:
                        raise EvalfmtError(f"--runner-opt address={self.address}: cannot connect to a Ray cluster: "
                                           f"{exc}") from None
        return ray

    def start(self) -> None:
        """Before the first session (in the main thread): connect, or start the local instance."""
        self._connect()

    def _shared(self, key: tuple, pack: Callable[[], tuple[bytes, list[str]]]) -> tuple[Any, list[str]]:
        """An input shared by several sessions (the skill, a case's fixture): packed and put into the
        object store once per run; every later session gets the same object ref."""
        import ray  # ray: the optional dependency (the 'ray' extra)

        with self._inputs_lock:
            if key not in self._inputs:
                data, notes = pack()
                self._inputs[key] = (ray.put(data), notes)
            return self._inputs[key]

    def run(self, spec: SessionSpec) -> Outcome:
        ray = self._connect()
        start = time.monotonic()
        if spec.stage is None:
            raise EvalfmtError("the ray runner stages the sandbox itself: the session has no staging to do")
        staging = spec.stage
        fixture = check(staging)  # what needs the case files runs here, before anything travels
        fixture_ref, notes = self._shared(("fixture", fixture), lambda: sandbox_tar.pack_tree(fixture)) \
            if fixture is not None else (None, [])
        skill_ref = None
        if staging.skill_dir is not None:
            skill = (staging.skill_dir, staging.exclude)
            skill_ref, skill_notes = self._shared(("skill", *skill), lambda: sandbox_tar.pack_tree(
                skill[0], SKILL_EXCLUDED, skill[1]))
            notes = notes + skill_notes
        task = _remote(ray).options(**self.task_options)
        plain = {"name": staging.name, "files": staging.files, "setup": staging.setup, "skill_name": staging.skill_name}
        ref = task.remote(self.command.words, _values(spec), plain, fixture_ref, skill_ref, _env(spec), spec.timeout)
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
        try:
            sandbox_tar.unpack(result["sandbox"], spec.sandbox)
        except (sandbox_tar.UnsafeArchive, OSError) as exc:
            return Outcome(dead=f"lost: the sandbox that came back from the node cannot be laid out: {exc}",
                           seconds=time.monotonic() - start, info={"ray": {"error": type(exc).__name__}})
        if result.get("stage_error"):
            kind, detail, where, output = result["stage_error"]
            raise StageError(kind, detail, tuple(where), output)
        for name, data in ((spec.transcript, result["stdout"]), (spec.stderr, result["stderr"])):
            with open(name, "wb") as fh:
                fh.write(data)
        code, timed_out = result["code"], result["timed_out"]
        dead = result["error"] or describe_exit(code, timed_out, spec.timeout)
        if dead is not None and not result["error"]:  # say what the agent said, as the command runner does
            dead = agent_hints.with_stderr(dead, spec.stderr)
        return Outcome(dead=dead, exit_code=code, timed_out=timed_out, seconds=time.monotonic() - start,
                       info={"staging_notes": notes + result["notes"],
                             "ray": {"node": result["node"], "worker_pid": result["pid"],
                                     "seconds_staging": round(result["seconds_staging"], 4),
                                     "seconds_on_node": round(result["seconds"], 4)}})

    def interrupt(self) -> None:
        """Ctrl-C: every session waiting on a task cancels it (its ``run`` raises KeyboardInterrupt)."""
        self._stop.set()

    def close(self) -> None:
        """After the last session: drop the run's inputs from the object store, and shut down the Ray
        instance this runner started (none with an address)."""
        with self._inputs_lock:
            self._inputs.clear()
        if self._started:
            import ray  # ray: the optional dependency (the 'ray' extra)

            instance = contain.descendants()  # its raylet, GCS and workers: the owners of the sessions' jails
            ray.shutdown()
            self._started = False
            # a worker stopped before it could end its session's jail (a Ctrl-C that reached the whole
            # process group) leaves the agent's processes in it: end them once the instance is gone
            contain.sweep(instance)


#: read by Ray when it is imported: with "0", every part of a local instance (GCS, raylet, runtime-env agent,
#: workers, this driver) binds 127.0.0.1 instead of every interface (measured with Ray 2.60: without it they
#: listen on ``*`` and the runtime-env agent on the machine's address)
LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


@contextlib.contextmanager
def _environ(name: str, value: str) -> Any:
    """``os.environ[name] = value`` while inside (the processes started meanwhile inherit it), then as it was."""
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


def _start_local() -> bool:
    """Start the run's own local Ray instance, every part of it listening on loopback only (False: this
    process already has a Ray instance, not evalfmt's to start or stop). An instance any part of which
    listens elsewhere (Ray was imported before evalfmt could ask it for loopback) is shut down at once
    and refused: Ray's RPC has no authentication by default (docs/security.md)."""
    with _environ(LOOPBACK_ENV, "0"):
        import ray  # ray (the optional 'ray' extra), with LOOPBACK_ENV set: Ray reads it when first imported

        if ray.is_initialized():
            return False
        before = set(listeners.listening([os.getpid()]))
        ray.init(address="local", include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    instance = contain.descendants()
    exposed = [s for s in listeners.listening([os.getpid(), *instance]) if not s.on_loopback and s not in before]
    if exposed:
        ray.shutdown()
        contain.sweep(instance)
        where = ", ".join(f"{s.address} ({s.name})" for s in exposed[:3])
        raise EvalfmtError(f"the local Ray instance listened on {where}, not on loopback only: stopped, nothing ran. "
                           f"Ray was imported before the run could ask it for loopback: set {LOOPBACK_ENV}=0 before "
                           "Ray is imported, or run on a cluster (--runner-opt address=...; docs/running.md)")
    return True


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


def remote_session(words: list[str], values: dict[str, str], plain: dict[str, Any], fixture_tar: bytes | None,
                   skill_tar: bytes | None, env: dict[str, str], timeout: float) -> dict[str, Any]:
    """The Ray task: unpack the inputs, stage the sandbox (:func:`sandbox.stage`, setup included), run
    the agent in it, and return what it printed and the sandbox as it left it."""
    import ray  # ray: the optional dependency (the 'ray' extra)

    root = tempfile.mkdtemp(prefix="evalfmt-ray-")
    try:
        inputs: dict[str, str | None] = {"fixture": None, "skill": None}
        for name, data in (("fixture", fixture_tar), ("skill", skill_tar)):
            if data is not None:
                folder = inputs[name] = os.path.join(root, name)
                os.mkdir(folder)
                sandbox_tar.unpack(data, folder)
        sandbox = os.path.join(root, "sandbox")
        os.mkdir(sandbox)
        env = dict(env, CLAUDE_PROJECT_DIR=sandbox, PWD=sandbox)
        # the checks that need the case files ran where evalfmt runs (sandbox.check): the fixture is
        # the unpacked copy, and the skill was packed without what staging leaves out
        spec = StageSpec(plain["name"], root, "fixture" if inputs["fixture"] else None, plain["files"], plain["setup"],
                         inputs["skill"], plain["skill_name"])
        start = time.monotonic()
        out: dict[str, Any] = {"node": ray.get_runtime_context().get_node_id(), "pid": os.getpid(), "notes": [],
                               "stage_error": None, "stdout": b"", "stderr": b"", "code": None, "timed_out": False,
                               "error": None, "seconds": 0.0}
        try:
            out["notes"] = stage(spec, sandbox, env).notes
        except StageError as exc:
            out["stage_error"] = [exc.kind, exc.detail, list(exc.where), exc.output]
        out["seconds_staging"] = time.monotonic() - start
        if out["stage_error"] is None:
            _run_agent(words, values, sandbox, root, env, timeout, out)
        out["sandbox"] = sandbox_tar.pack_folder(sandbox)
        return out
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _run_agent(words: list[str], values: dict[str, str], sandbox: str, root: str, env: dict[str, str],
               timeout: float, out: dict[str, Any]) -> None:
    stdout, stderr = os.path.join(root, "stdout"), os.path.join(root, "stderr")
    start = time.monotonic()
    try:
        out["code"], out["timed_out"], _ = run_process(expand(words, values), cwd=sandbox, env=env, stdout=stdout,
                                                       stderr=stderr, timeout=timeout)
    except OSError as exc:
        out["error"] = f"agent could not start: {exc.strerror or exc}"
        for path in (stdout, stderr):
            open(path, "wb").close()
    out["seconds"] = time.monotonic() - start
    for key, path in (("stdout", stdout), ("stderr", stderr)):
        with open(path, "rb") as fh:
            out[key] = fh.read()


def make(options: RunnerOptions) -> RayRunner:
    unknown = sorted(set(options.options) - set(OPTIONS))
    if unknown:
        raise EvalfmtError(f"the ray runner has no option '{unknown[0]}' (options: {', '.join(OPTIONS)})")
    if importlib.util.find_spec("ray") is None:  # (not imported here: see _start_local)
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
