"""``evalfmt run``: stage a sandbox per case, arm and repetition, run the agent through a runner,
score, compare the arms and write the receipt, in the layout ``evalfmt compare`` reads.

The flow, for a skill's cases (and suite):

1. ``requires`` of every case is probed before any session (:func:`sandbox.missing_requirements`);
   a case with a missing tool is an *environment skip*: no session runs for it in any arm.
2. Sessions are planned in a fixed order (case, repetition, then baseline before candidate) and run
   ``--jobs`` at a time: in this process for one job, in a process pool (fork) for more. A session
   stages a fresh sandbox (:func:`sandbox.stage`) in a private temporary folder, runs the runner,
   moves the sandbox to ``DIR/<arm>/<case>/[<repetition>/]sandbox/`` and scores it there with the
   comparison's own :func:`compare.run_arm`, so the numbers are those ``evalfmt compare`` gives.
3. A session whose staging or ``setup`` fails *drops* its case: no further sessions of it start,
   and every session folder of the case gets a ``dead.txt`` saying why (terum leaves a dropped case
   unscored and names it in the receipt).
4. :func:`compare.compare` decides the rows (from the sessions already scored), and the receipt
   (:mod:`receipt`) is written to ``DIR/receipt.json`` with ``environment_skips`` and ``dropped_cases``.

Ctrl-C: the running agents' process groups are killed (each worker kills its own; the parent
forwards SIGINT to its workers), sessions not yet started are not started, what finished is kept,
and the receipt is written with ``execution_status`` ``partial`` (``failed`` when nothing finished)
and ``interrupted: true``.

Results do not depend on ``--jobs``: each session's sandbox is private, rows are built in the fixed
plan order from per-session results, and nothing in a session depends on another.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, TYPE_CHECKING, TextIO

import orjson

from .. import guard, ir, program
from ..errors import EvalfmtError, one_line
from . import agent_hints, contain, interrupts, runners as runners_mod, scores
from .compare import ArmRun, run_arm
from .layout import (ARMS, BASELINE, CANDIDATE, DEAD_MARKER, NOTHING_TOUCHED, RUN_FOLDER, RUN_JSON, SANDBOX, SETUP_LOG,
                     session_folder)
from .runners import Outcome, Runner, SessionSpec
from .sandbox import StageError, StageSpec, missing_requirements, stage
from .tags import check_names

if TYPE_CHECKING:  # pragma: no cover
    from multiprocessing.context import BaseContext


@dataclass
class Unit:
    """A case (its file stem) or the suite (``suite``), with the folder its fixture resolves against."""

    name: str
    target: ir.Case
    case_dir: str
    case_file: str | None = None
    #: the skill folder: the fixture must stay inside it
    skill_dir: str | None = None

    @property
    def is_suite(self) -> bool:
        return isinstance(self.target, ir.Suite)


@dataclass
class SessionJob:
    """Everything one session needs (pickled to a worker process)."""

    unit: Unit
    arm: str
    repetition: int
    k: int
    out: str
    skill_dir: str
    skill_name: str
    runner: Runner
    extra_env: dict[str, str]
    model: str | None
    default_timeout_minutes: float
    detection: str
    check_timeout: float
    keep_tail: bool
    extra_checks: list = field(default_factory=list)
    exclude: tuple[str, ...] = ()
    note: str = runners_mod.NOTE

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.arm, self.unit.name, self.repetition)


@dataclass
class SessionResult:
    arm: str
    unit: str
    repetition: int
    run: ArmRun | None = None
    dropped: tuple[str, str] | None = None  # (kind, detail) when staging or setup failed
    interrupted: bool = False
    started: bool = True
    dead: str | None = None
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.arm, self.unit, self.repetition)


def timeout_minutes(target: ir.Case, default: float) -> float:
    t = target.timeout_minutes
    if isinstance(t, (int, float)) and not isinstance(t, bool) and t > 0:
        return float(t)
    return default


def max_turns(target: ir.Case) -> int:
    m = target.max_turns
    return m if isinstance(m, int) and not isinstance(m, bool) and m > 0 else runners_mod.DEFAULT_MAX_TURNS


# ------------------------------------------------------------------------------ one session

def _init_worker() -> None:
    """A pool worker starts: its SIGINT handler, then SIGINT, blocked by the parent while it forked the
    worker (:func:`_submit`), is taken again; one that came before is handled now."""
    interrupts.reset()
    signal.signal(signal.SIGINT, interrupts.on_sigint)
    interrupts.unblock_sigint()
    program.claim()  # a worker process of evalfmt's own: it may be its agents' subreaper (run/contain.py)


def _submit(pool, fn, *args):
    """``pool.submit`` with SIGINT blocked in this thread: a worker process it forks does not take a SIGINT
    before its handler is installed (with the parent's handler, or as a ``KeyboardInterrupt`` before
    :func:`_init_worker` forgets it)."""
    mask = interrupts.block_sigint()
    try:
        return pool.submit(fn, *args)
    finally:
        interrupts.restore(mask)


def _set_sigint(handler):
    """Install a SIGINT handler; None (nothing installed) outside the main thread."""
    try:
        return signal.signal(signal.SIGINT, handler)
    except ValueError:
        return None


def run_session(job: SessionJob) -> SessionResult:
    """Stage, run, move the sandbox into the layout, mark a dead arm, score. Never raises for a
    failed agent or a failed setup (they are results); a Ctrl-C makes an interrupted result."""
    res = SessionResult(job.arm, job.unit.name, job.repetition)
    if interrupts.state["interrupted"]:
        res.interrupted, res.started = True, False
        return res
    interrupts.state["active"] = True
    try:
        _session(job, res)
    except KeyboardInterrupt:
        res.interrupted = True
    finally:
        interrupts.state["active"] = False
    return res


def _session(job: SessionJob, res: SessionResult) -> None:
    t_start = time.monotonic()
    unit, target = job.unit, job.unit.target
    folder = session_folder(job.out, job.arm, unit.name, job.repetition, job.k)
    guard.makedirs(job.out, folder, what=RUN_FOLDER, tail=NOTHING_TOUCHED)
    sandbox = tempfile.mkdtemp(prefix="evalfmt-")
    env = runners_mod.agent_env(sandbox, job.extra_env)
    outcome: Outcome | None = None
    info: dict[str, Any] = {}
    staged_skill = job.skill_name if job.arm == CANDIDATE else None
    # a runner with ``stages = True`` (ray) stages the sandbox where it runs the agent, with the same stage()
    remote = bool(getattr(job.runner, "stages", False))
    try:
        spec = StageSpec(unit.name, unit.case_dir, target.fixture, target.files, target.setup,
                         job.skill_dir if staged_skill else None, staged_skill, job.exclude,
                         fixture_root=unit.skill_dir)
        try:
            if not remote:
                report = stage(spec, sandbox, env)
                info["staging_notes"] = report.notes
        except StageError as exc:
            _dropped(res, folder, exc)
            return
        finally:
            res.seconds["stage"] = time.monotonic() - t_start
        tm = timeout_minutes(target, job.default_timeout_minutes)
        sess = SessionSpec(arm=job.arm, unit=unit.name, repetition=job.repetition, k=job.k, task=target.task or "",
                           note=job.note, max_turns=max_turns(target), timeout=tm * 60.0, model=job.model,
                           sandbox=sandbox, folder=folder, env=env, skill=staged_skill,
                           stage=spec if remote else None)
        t0 = time.monotonic()
        try:
            interrupts.check()  # a Ctrl-C while it staged that did not come through: the agent does not start
            outcome = job.runner.run(sess)
        except StageError as exc:  # staged where the agent runs: the case cannot start there either
            _dropped(res, folder, exc)
            return
        except KeyboardInterrupt:
            res.interrupted = True
            res.dead = "interrupted: the run was stopped while this session ran"
        except Exception as exc:  # noqa: BLE001 - a runner's bug kills its arm, not the run
            res.dead = f"runner '{getattr(job.runner, 'name', '?')}' failed: {type(exc).__name__}: {exc}"
        # the agent is done: from here on a Ctrl-C in a pool worker no longer cuts the session short
        # (its transcript is kept and scored)
        interrupts.state["active"] = False
        res.seconds["agent"] = time.monotonic() - t0
        if outcome is not None:
            res.dead = outcome.dead
            info.update(outcome.info)
    finally:
        _place_sandbox(sandbox, os.path.join(folder, SANDBOX), job.out)
    t1 = time.monotonic()
    if res.dead is not None:
        _write_text(os.path.join(folder, DEAD_MARKER), res.dead + "\n")
    res.run = run_arm(job.arm, os.path.join(job.out, job.arm), unit.name, target, job.repetition, folder,
                      detection=job.detection, timeout=job.check_timeout, keep_tail=job.keep_tail,
                      extra_checks=job.extra_checks)
    if res.dead is None and res.run.error is not None and _unreadable(res.run.error):
        # the agent ended cleanly but printed no transcript evalfmt reads: name the fix
        hint = agent_hints.transcript_hint(getattr(job.runner, "words", None))
        res.dead = res.run.error = f"{res.run.error}; {hint}"
        _write_text(os.path.join(folder, DEAD_MARKER), res.dead + "\n")
    res.seconds["score"] = time.monotonic() - t1
    res.seconds["total"] = time.monotonic() - t_start
    _write_json(os.path.join(folder, RUN_JSON), {
        "arm": job.arm, "case": unit.name, "repetition": job.repetition, "runner": getattr(job.runner, "name", None),
        "skill_staged": staged_skill, "dead": res.dead,
        "exit_code": outcome.exit_code if outcome else None, "timed_out": outcome.timed_out if outcome else False,
        "interrupted": res.interrupted, "seconds": {k: round(v, 4) for k, v in res.seconds.items()}, "info": info,
    })
    if not res.interrupted:
        scores.write(folder, res.run)  # last: the session has finished (``--resume`` keeps it)


def _dropped(res: SessionResult, folder: str, exc: StageError) -> None:
    """Staging or ``setup`` failed: the case is dropped (setup's output goes to ``setup.log``)."""
    res.dropped = (exc.kind, exc.detail)
    if exc.output:
        _write_text(os.path.join(folder, SETUP_LOG), exc.output)


def _unreadable(error: str) -> bool:
    """A session error that means stdout was not a transcript (rather than a missing file)."""
    return any(what in error for what in ("not a transcript evalfmt recognises", "empty transcript",
                                           "no JSON records in transcript"))


def _place_sandbox(src: str, dest: str, out: str) -> None:
    """Move the session's sandbox into the run layout in ``out`` (replacing an older one)."""
    guard.remove(out, dest, what=RUN_FOLDER, tail=NOTHING_TOUCHED)
    try:
        os.rename(src, dest)
    except OSError:
        shutil.copytree(src, dest, symlinks=True)
        shutil.rmtree(src, ignore_errors=True)


def _write_text(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def _write_json(path: str, data: Any) -> None:
    with open(path, "wb") as fh:
        fh.write(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")


# ---------------------------------------------------------------------------------- progress


class Progress:
    """Progress on stderr: on a terminal one status line (done/total, per-arm case-runs passed,
    elapsed) redrawn in place; otherwise one plain line per finished session."""

    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool = True, tty: bool | None = None):
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.tty = (self.stream.isatty() if hasattr(self.stream, "isatty") else False) if tty is None else tty
        self.done = 0
        self.passed = dict.fromkeys((CANDIDATE, BASELINE), 0)
        self.scored = dict.fromkeys((CANDIDATE, BASELINE), 0)
        self.dead = dict.fromkeys((CANDIDATE, BASELINE), 0)
        self.start = time.monotonic()
        self._drawn = False

    def elapsed(self) -> str:
        s = int(time.monotonic() - self.start)
        return f"{s // 60}:{s % 60:02d}"

    def counts(self) -> str:
        parts = []
        for arm in (CANDIDATE, BASELINE):
            extra = f", {self.dead[arm]} dead" if self.dead[arm] else ""
            parts.append(f"{arm} {self.passed[arm]}/{self.scored[arm]} passed{extra}")
        return " · ".join(parts)

    def status(self) -> str:
        return f"[{self.done}/{self.total}] {self.counts()} · {self.elapsed()}"

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = False

    def line(self, text: str) -> None:
        if not self.enabled:
            return
        text = one_line(text)
        if self.tty:
            self._write("\r\x1b[K" + text + "\n")
            self._write(self.status())
            self._drawn = True
        else:
            self._write(text + "\n")

    def tick(self) -> None:
        if self.enabled and self.tty:
            self._write("\r\x1b[K" + self.status())
            self._drawn = True

    def session(self, res: SessionResult) -> None:
        self.done += 1
        rep = f" #{res.repetition}"
        what: str
        if res.run is None:
            what = "not run"
        elif res.run.dead:
            self.dead[res.arm] = self.dead.get(res.arm, 0) + 1
            what = f"dead ({res.run.error})"
        else:
            results = [r for r in res.run.results if r.scored]
            ok = sum(1 for r in results if r.passed)
            self.passed[res.arm] = self.passed.get(res.arm, 0) + ok
            self.scored[res.arm] = self.scored.get(res.arm, 0) + len(results)
            if res.unit == "suite":
                what = f"{ok}/{len(results)} entries passed"
            elif not results:
                what = "no checks"
            else:
                what = "passed" if ok == len(results) else "failed"
        secs = res.seconds.get("total")
        timing = f" ({secs:.1f} s)" if secs is not None else ""
        if self.tty:
            self.tick()
        else:
            self.line(f"[{self.done}/{self.total} {self.elapsed()}] {res.arm} {res.unit}{rep}: {what}{timing}")

    def finish(self) -> None:
        if not self.enabled:
            return
        if self.tty and self._drawn:
            self._write("\r\x1b[K")
        self._write(f"ran {self.done}/{self.total} sessions in {self.elapsed()}: {self.counts()}\n")


# --------------------------------------------------------------------------------- the run


@dataclass
class RunResult:
    prescored: dict[tuple[str, str, int], ArmRun] = field(default_factory=dict)
    skips: dict[str, list[str]] = field(default_factory=dict)
    drops: dict[str, dict[str, str]] = field(default_factory=dict)
    interrupted: bool = False
    sessions: list[SessionResult] = field(default_factory=list)
    planned: int = 0


def plan(units: list[Unit], k: int, **common: Any) -> list[SessionJob]:
    """The sessions, in order: for each case, each repetition, baseline then candidate."""
    jobs = []
    for unit in units:
        for rep in range(1, k + 1):
            for arm in ARMS:
                jobs.append(SessionJob(unit=unit, arm=arm, repetition=rep, k=k, **common))
    return jobs


def execute(units: list[Unit], jobs_list: list[SessionJob], *, jobs: int = 1, probe_env: dict[str, str] | None = None,
            progress: Progress | None = None, done: dict[tuple[str, str, int], ArmRun] | None = None) -> RunResult:
    """Probe ``requires``, run the planned sessions ``jobs`` at a time, and mark skipped, dropped
    and unrun sessions in the layout. Returns what :func:`compare.compare` and the receipt need.
    ``done`` holds sessions that finished in an earlier attempt (``--resume``): they are not run again."""
    done = done or {}
    result = RunResult(planned=len(jobs_list), prescored=dict(done))
    progress = progress or Progress(len(jobs_list), enabled=False)
    for unit in units:
        if all(j.key in done for j in jobs_list if j.unit.name == unit.name):
            continue  # every session of it finished in an earlier attempt
        missing = missing_requirements(unit.target.requires, probe_env)
        if missing:
            result.skips[unit.name] = missing
            progress.total -= sum(1 for j in jobs_list if j.unit.name == unit.name and j.key not in done)
            progress.line(f"{unit.name}: environment skip, missing {', '.join(missing)}")
    queue = deque(j for j in jobs_list if j.unit.name not in result.skips and j.key not in done)
    ran: set[tuple[str, str, int]] = set()

    def handle(res: SessionResult) -> None:
        result.sessions.append(res)
        ran.add(res.key)
        if res.interrupted:
            result.interrupted = True
        if res.dropped is not None:
            if res.unit not in result.drops:
                kind, detail = res.dropped
                result.drops[res.unit] = {"kind": kind, "detail": detail}
                # this session and the ones of the case not started yet will not run
                progress.total -= 1 + sum(1 for j in queue if j.unit.name == res.unit)
                progress.line(f"{res.unit}: dropped ({kind}): {detail}")
            else:
                progress.total -= 1
            return
        if res.run is not None and res.unit not in result.drops:
            result.prescored[res.key] = res.run
        if res.started:
            progress.session(res)

    runner = jobs_list[0].runner if jobs_list else None
    try:
        if jobs <= 1:
            _run_inline(queue, result, handle, progress)
        else:
            _run_pool(queue, result, handle, progress, jobs, runner)
    finally:
        _finish_layout(jobs_list, result, ran, set(done))
        progress.finish()
    return result


def _run_inline(queue: deque, result: RunResult, handle, progress: Progress) -> None:
    """``--jobs 1``: run the sessions in this process, one after the other."""
    interrupts.reset()
    previous = _set_sigint(interrupts.on_sigint)
    try:
        while queue:
            if interrupts.state["interrupted"]:
                result.interrupted = True
                return
            job = queue.popleft()
            if job.unit.name in result.drops:
                continue
            res = run_session(job)
            handle(res)
            if res.interrupted:
                result.interrupted = True
                return
    except KeyboardInterrupt:  # no handler could be installed (not the main thread)
        result.interrupted = True
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        if interrupts.state["interrupted"]:
            result.interrupted = True


def _run_pool(queue: deque, result: RunResult, handle, progress: Progress, jobs: int, runner: Any = None) -> None:
    """``--jobs N``: a process pool (fork) of N workers, at most N sessions submitted at a time. A
    SIGINT here only sets a flag and is forwarded to the workers (each kills its own agent); this
    process keeps collecting results until every running session has come back. A runner whose
    sessions wait on another machine (``threads = True``, e.g. ``ray``) gets N threads instead, and
    its ``interrupt()`` is called on SIGINT."""
    threads = bool(getattr(runner, "threads", False))
    inflight: dict = {}
    pool: Any
    if threads:
        interrupts.reset()
        pool = ThreadPoolExecutor(max_workers=jobs)
    else:
        ctx: BaseContext
        try:
            ctx = multiprocessing.get_context("fork")
        except ValueError:  # pragma: no cover - platforms without fork
            ctx = multiprocessing.get_context()
        pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init_worker)
    stop = {"at": None}
    workers: set[int] = set()  # every worker process the pool started
    broken = False  # a worker died: the pool ended the others (SIGTERM), whatever their agents were doing

    def on_sigint(signum, frame):
        if stop["at"] is None:
            stop["at"] = time.monotonic()
            if threads:
                runner.interrupt()
            else:
                _signal_workers(pool)

    previous = _set_sigint(on_sigint)
    try:
        while queue or inflight:
            if stop["at"] is not None:
                result.interrupted = True
                if time.monotonic() - stop["at"] > 60:  # pragma: no cover - a worker that never returns
                    break
            while queue and len(inflight) < jobs and not result.interrupted:
                job = queue.popleft()
                if job.unit.name in result.drops:
                    continue
                inflight[_submit(pool, run_session, job)] = job
                workers.update(_worker_pids(pool))
                if stop["at"] is not None and not threads:  # it came before this worker was there to be told
                    _signal_workers(pool)
            if not inflight:
                break
            done, _ = wait(list(inflight), timeout=0.25, return_when=FIRST_COMPLETED)
            progress.tick()
            for fut in done:
                job = inflight.pop(fut)
                try:
                    res = fut.result()
                except BrokenProcessPool:
                    result.interrupted = broken = True
                    res = SessionResult(job.arm, job.unit.name, job.repetition, started=False,
                                        dead="lost: a worker process died while the run's sessions ran "
                                             "(evalfmt run --resume runs it again)")
                handle(res)
    except KeyboardInterrupt:  # no handler could be installed (not the main thread)
        result.interrupted = True
        if threads:
            runner.interrupt()
        else:
            _signal_workers(pool)
    finally:
        if stop["at"] is not None:
            result.interrupted = True
        try:
            pool.shutdown(wait=not inflight, cancel_futures=True)
        finally:
            if broken:  # what the jails of the ended workers still hold (an agent they were running) ends too
                contain.sweep(sorted(workers))
            if previous is not None:
                signal.signal(signal.SIGINT, previous)


def _worker_pids(pool) -> list[int]:
    """The pids of the pool's worker processes that have started."""
    procs = getattr(pool, "_processes", None)
    try:
        found = list(procs.values()) if isinstance(procs, dict) else multiprocessing.active_children()
    except RuntimeError:  # changed while we looked
        found = multiprocessing.active_children()
    return [proc.pid for proc in found if isinstance(proc.pid, int)]


def _signal_workers(pool) -> None:
    """Forward SIGINT to the pool's workers (a terminal's Ctrl-C reaches them already; a signal sent
    to this process alone does not)."""
    for pid in _worker_pids(pool):
        try:
            os.kill(pid, signal.SIGINT)
        except (ProcessLookupError, PermissionError):
            pass


def _finish_layout(jobs_list: list[SessionJob], result: RunResult, ran: set, done: set) -> None:
    """Write ``dead.txt`` into every session folder of a skipped or dropped case, and of a session
    that never ran because the run was interrupted, so ``compare`` over the layout agrees."""
    kept = {s.key for s in result.sessions if s.started and s.run is not None} | done
    for job in jobs_list:
        name = job.unit.name
        if job.key in done:
            continue
        if name in result.skips:
            reason = f"environment skip: missing {', '.join(result.skips[name])}"
        elif name in result.drops:
            d = result.drops[name]
            reason = f"case dropped ({d['kind']}): {d['detail']}"
            result.prescored.pop(job.key, None)
        elif job.key not in kept:
            lost = next((s.dead for s in result.sessions if s.key == job.key and not s.started and s.dead), None)
            if any(s.key == job.key and s.started for s in result.sessions):
                reason = "interrupted: the run was stopped while this session ran"
            elif lost is not None:
                reason = lost
            else:
                reason = "not run: the run was interrupted" if result.interrupted else "not run"
        else:
            continue
        folder = session_folder(job.out, job.arm, name, job.repetition, job.k)
        guard.makedirs(job.out, folder, what=RUN_FOLDER, tail=NOTHING_TOUCHED)
        _write_text(os.path.join(folder, DEAD_MARKER), reason + "\n")


# ------------------------------------------------------------------------------------ dry run


@dataclass
class DryResult:
    unit: str
    file: str | None
    line: int
    column: int
    status: str  # ok | failed | skipped
    kind: str | None = None
    message: str = ""

    def to_json(self) -> dict:
        return {"case": self.unit, "file": self.file, "line": self.line, "column": self.column,
                "status": self.status, "kind": self.kind, "message": self.message}

    def format(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}" if self.file else self.unit
        return f"{where}: {self.message}"


def dry_run(units: list[Unit], documents: dict, extra_env: dict[str, str] | None = None) -> list[DryResult]:
    """Seed every unit once in a throwaway sandbox (requires probes, fixture, files, setup; no skill,
    no agent), as terum checks a case before writing it. One result per unit, in order."""
    out = []
    probe_env = runners_mod.agent_env(None, extra_env)
    for unit in units:
        t = unit.target
        loaded = documents.get(unit.case_file) if unit.case_file else None

        def pos(*path, key: bool = True, loaded=loaded):
            if loaded is None:
                return (1, 1)
            p = loaded.key_pos(*path) if key else loaded.pos(*path)
            return (p.line, p.column)

        missing = missing_requirements(t.requires, probe_env)
        if missing:
            reqs = list(t.requires or [])
            line, col = pos("requires", reqs.index(missing[0]), key=False)
            out.append(DryResult(unit.name, unit.case_file, line, col, "skipped", "requires",
                                 f"skipped: requires {', '.join(repr(m) for m in missing)}, not found on this machine "
                                 "(a run would make this an environment skip)"))
            continue
        root = tempfile.mkdtemp(prefix="evalfmt-dry-")
        try:
            sandbox = os.path.join(root, "sandbox")
            os.mkdir(sandbox)
            spec = StageSpec(unit.name, unit.case_dir, t.fixture, t.files, t.setup, fixture_root=unit.skill_dir)
            try:
                stage(spec, sandbox, runners_mod.agent_env(sandbox, extra_env))
                line, col = pos()
                out.append(DryResult(unit.name, unit.case_file, line, col, "ok", None, "seeded"))
            except StageError as exc:
                # the fixture's value, an inline file's path, the setup key
                line, col = pos(*exc.where, key=exc.where != ("fixture",)) if exc.where else pos()
                out.append(DryResult(unit.name, unit.case_file, line, col, "failed", exc.kind, exc.detail))
        finally:
            shutil.rmtree(root, ignore_errors=True)
    return out


# ----------------------------------------------------------------------------------- helpers


def units_of(evalset: ir.EvalSet, names: list[str] | None = None) -> list[Unit]:
    """The cases (and the suite, when it has entries) to run, optionally only those named."""
    units: list[Unit] = []
    for case in evalset.cases:
        units.append(_unit(case.name, case, evalset))
    if evalset.suite is not None and evalset.suite.entries:
        units.append(_unit("suite", evalset.suite, evalset))
    if names:
        check_names(names, (u.name for u in units))
        units = [u for u in units if u.name in names]
    seen: dict[str, Unit] = {}
    for u in units:
        if not u.name or "/" in u.name or "\\" in u.name or u.name in (".", ".."):
            raise EvalfmtError(f"case name '{u.name}' cannot be a folder name in the run layout")
        other = seen.setdefault(u.name, u)
        if other is not u:  # a.yaml and a.yml, or a case file named suite.yaml beside the suite
            files = " and ".join(x.case_file or x.name for x in (other, u))
            raise EvalfmtError(f"two cases are named '{u.name}' ({files}): each case needs its own folder in the "
                               "run layout; rename one")
        if not (u.target.task or "").strip():
            raise EvalfmtError(f"{u.case_file or u.name}: case '{u.name}' needs a 'task'")
    return units


def _unit(name: str, target: ir.Case, evalset: ir.EvalSet) -> Unit:
    case_file = target.span.file if target.span is not None else None
    base = evalset.skill.path if evalset.skill and evalset.skill.path else (evalset.source or ".")
    if case_file and os.path.isfile(case_file):
        case_dir = os.path.dirname(case_file) or "."
    else:
        case_dir = os.path.join(base, "evals") if isinstance(target, ir.Suite) else os.path.join(base, "evals", "cases")
    skill_dir = evalset.skill.path if evalset.skill and evalset.skill.path else None
    return Unit(name, target, case_dir, case_file, skill_dir=skill_dir)


def filtered(evalset: ir.EvalSet, units: list[Unit]) -> ir.EvalSet:
    """``evalset`` restricted to the units run (for ``--case``)."""
    names = {u.name for u in units}
    cases = [c for c in evalset.cases if c.name in names]
    suite = evalset.suite if "suite" in names else None
    if len(cases) == len(evalset.cases) and suite is evalset.suite:
        return evalset
    return ir.replace(evalset, cases=cases, suite=suite)
