"""Trigger runs over a skill library: ``evalfmt run EVAL.yaml --skills DIR``.

Every test of an eval set that is not a terum skill's (an agentv ``EVAL.yaml``, an agent-skills
``evals.json``, a skill-creator trigger set, promptfoo and skillgym suites) runs once per repetition in
its own sandbox holding the whole library in ``.claude/skills/<name>/`` (the agent must pick the right
skill among all of them). The test's input is the task; system messages go to ``{note}`` after the
unattended note. Each session is scored with every check of the test (the detection mode decides a
``skill-trigger``), and for each library skill evalfmt records whether it fired.

Per skill, over the tests that name it in a ``skill-trigger`` assertion:

- a test fires a skill when the skill fired in at least half of its live sessions (``--k``);
- tp: expected to trigger and fired; fn (``MISS:``): expected and did not fire; fp (``FALSE-FIRE:``):
  fired on a test that does not expect it (a ``should_trigger: false`` test or another skill's);
  tn: a ``should_trigger: false`` test where it did not fire;
- recall = tp/(tp+fn), precision = tp/(tp+fp), F1 their harmonic mean (each None with a zero
  denominator); fire rate = the fraction of live sessions of its should-trigger tests in which it fired.

The confusion table counts live sessions: a row per expected skill (``(none)`` for a test that
expects no skill to trigger), a column per skill that fired (``(none)`` when none did).

With two libraries (``--skills baseline=DIR --skills candidate=DIR``) every test and repetition is a
row decided as terum decides arm rows (a dead session: a tie left out of the counts; one side passed
every check and the other did not: a win or a loss; otherwise a tie), and the verdict, net lift and
sign test are terum's (:mod:`verdict`).
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import re
import shutil
import tempfile
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

import orjson

from .. import guard, ir, verdict
from ..errors import EvalfmtError, UsageError
from ..writeset import atomic_write
from . import (contain, detect as detect_mod, execute, interrupts, judges, layout, runners as runners_mod,
               tags as tags_mod)
from .checks import CaseResult, score_case
from .receipt import run_id
from .sandbox import copy_tree
from .transcripts import SessionError, read_session
from .triggers import TriggerScore

NONE = "(none)"
LIBRARY = "library"
#: folders of a skill left out of the staged library (eval assets, not the skill)
NOT_STAGED = ("evals",)


@dataclass(frozen=True)
class LibraryRunRequest:
    """``where``: the eval file or folder read; ``libraries``: arm name -> skills folder (one arm named
    ``library``, or ``baseline`` and ``candidate``)."""

    where: str
    sets: list[ir.EvalSet]
    libraries: dict[str, str]
    out: str
    runner: str = "command"
    agent_command: str | None = None
    replay_from: str | None = None
    runner_options: dict[str, str] = field(default_factory=dict)
    k: int = 1
    model: str | None = None
    timeout_minutes: float = 120.0
    env: dict[str, str] = field(default_factory=dict)
    detection: str = detect_mod.DEFAULT
    run_id: str | None = None
    check_timeout: float = 120.0
    force: bool = False
    cwd: str = "."
    #: sessions run at once (threads: the agents run in parallel, the scoring in the calling thread)
    jobs: int = 1
    #: ``--case``: only the tests with these ids; ``--tag``: only the tests carrying one of these tags
    cases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    #: who grades model-graded assertions and decides tied rows of a test with criteria (as for terum runs)
    judge: str = "none"
    judge_command: str | None = None


@dataclass
class Test:
    """One test to run: its id, the case to score, the task and system text, and its expectations."""

    id: str
    case: ir.Case
    task: str
    system: str
    extra_checks: list[ir.Check]
    expect: dict[str, bool]  # skill -> should trigger


@dataclass
class Session:
    """One test x repetition in one library."""

    arm: str
    test: str
    repetition: int
    fired: list[str] = field(default_factory=list)
    result: CaseResult | None = None
    error: str | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    tail: str = ""  # the transcript's last 6,000 characters, kept for a judge deciding a tied row

    @property
    def dead(self) -> bool:
        return self.error is not None


@dataclass
class SkillScore(TriggerScore):
    """One skill's trigger counts in a library run (recall and precision as for a trigger set), with the
    sessions behind its fire rate."""

    fired_sessions: int = 0
    positive_sessions: int = 0

    @property
    def f1(self) -> float | None:
        p, r = self.precision, self.recall
        if p is None or r is None or p + r == 0:
            return None
        return 2 * p * r / (p + r)

    @property
    def fire_rate(self) -> float | None:
        return _ratio(self.fired_sessions, self.positive_sessions)

    def line(self) -> str:
        return (f"skill {self.skill}: recall={_f(self.recall)} precision={_f(self.precision)} F1={_f(self.f1)} "
                f"fire rate={_f(self.fire_rate)} (tp={self.tp} fn={self.fn} fp={self.fp} tn={self.tn})")

    def to_json(self) -> dict[str, Any]:
        return {"skill": self.skill, "tp": self.tp, "fn": self.fn, "fp": self.fp, "tn": self.tn,
                "recall": self.recall, "precision": self.precision, "f1": self.f1, "fire_rate": self.fire_rate,
                "misses": list(self.misses), "false_fires": list(self.false_fires)}


@dataclass
class ArmScore:
    """One library's trigger scores and confusion table."""

    arm: str
    skills: list[SkillScore]
    confusion: dict[str, dict[str, int]]
    dead: int

    def to_json(self) -> dict[str, Any]:
        return {"skills": [s.to_json() for s in self.skills], "confusion": self.confusion, "dead_sessions": self.dead}


@dataclass
class LibraryRun:
    tests: list[Test]
    library: dict[str, list[str]]  # arm -> skill names
    sessions: list[Session]
    scores: dict[str, ArmScore]
    k: int
    rows: list[dict[str, Any]] = field(default_factory=list)
    tally: verdict.Tally | None = None
    receipt_path: str | None = None
    receipt: dict[str, Any] | None = None  # what receipt_path holds

    @property
    def verdict(self) -> str | None:
        return None if self.tally is None else self.tally.verdict


# ----------------------------------------------------------------------------------- the library


def library_skills(folder: str, notify: Callable[[str], None] | None = None) -> dict[str, str]:
    """skill name -> folder, for each folder directly under ``folder`` holding a SKILL.md (the name is
    the folder's name, as Claude Code names a project skill). An entry that resolves outside ``folder``
    (``lib/mirror -> ../private``) is never staged: it is left out, and ``notify`` gets a note naming it
    (the one path guard's rule, :mod:`evalfmt.guard`: what is staged comes from inside its root)."""
    if not os.path.isdir(folder):
        raise EvalfmtError(f"--skills {folder}: no such folder")
    found = {}
    root = guard.real(folder)
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isfile(os.path.join(path, "SKILL.md")):
            if not guard.contains(root, guard.real(path)):
                if notify is not None:
                    target = os.readlink(path) if os.path.islink(path) else "?"
                    notify(f"--skills {folder}: left out {name} -> {target}: "
                           "it leads out of the library (never staged)")
                continue
            found[name] = path
    if not found:
        raise EvalfmtError(f"--skills {folder}: no skill folders (subfolders with a SKILL.md) in it")
    return found


def find_library(where: str) -> str | None:
    """The skills folder beside or above ``where``: the nearest folder (from the file's own upwards)
    that holds skill folders directly, or in ``skills/`` or ``.claude/skills/``."""
    start = os.path.abspath(where if os.path.isdir(where) else os.path.dirname(where) or ".")
    here = start
    for _ in range(8):
        for cand in (os.path.join(here, "skills"), os.path.join(here, ".claude", "skills"), here):
            try:
                names = os.listdir(cand)
            except OSError:
                continue
            if any(os.path.isfile(os.path.join(cand, n, "SKILL.md")) for n in names):
                return cand
        if os.path.isfile(os.path.join(here, "SKILL.md")):  # inside a skill: its parent is the library
            return os.path.dirname(here)
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    return None


def stage_library(skills: dict[str, str], sandbox: str) -> None:
    """Copy every skill of the library into ``sandbox/.claude/skills/<name>/`` (without its top-level
    ``evals/``) by the rules of every sandbox copy (:func:`sandbox.copy_tree`): a symlink inside the skill
    stays a link, one leading out of it is left out, never followed."""
    base = os.path.join(sandbox, ".claude", "skills")
    for name, src in skills.items():
        dest = os.path.join(base, name)
        os.makedirs(dest)
        copy_tree(src, dest, exclude_top=NOT_STAGED)


# ---------------------------------------------------------------------------------------- tests


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def folder_name(test_id: str, taken: set[str]) -> str:
    """A session folder name for a test id (path-safe, unique)."""
    base = _UNSAFE.sub("-", test_id).strip("-.") or "test"
    name, n = base[:80], 2
    while name in taken:
        name, n = f"{base[:76]}-{n}", n + 1
    taken.add(name)
    return name


def system_text(value: ir.Input | None) -> str:
    if not isinstance(value, list):
        return ""
    parts = []
    for m in value:
        if isinstance(m, ir.Message) and m.role == "system":
            parts.append(m.content if isinstance(m.content, str)
                         else (ir.input_text([ir.Message(role="user", content=m.content)]) or ""))
    return "\n\n".join(p for p in parts if p)


def tests_of(sets: list[ir.EvalSet]) -> list[Test]:
    """The tests of every eval set: its cases (the set's input before each test's, agentv's set-level
    assertions and promptfoo's defaultTest ones added) and a trigger set's prompts (one test each, a
    ``skill-trigger`` check)."""
    out: list[Test] = []
    for s in sets:
        extra = list(s.checks)
        for case in s.cases:
            inputs = [ir.input_text(s.input), case.task]
            task = "\n\n".join(t for t in inputs if t)
            system = "\n\n".join(t for t in (system_text(s.input), system_text(case.input)) if t)
            expect = {c.skill: c.expects_trigger for c in [*extra, *case.checks]
                      if isinstance(c, ir.SkillTrigger) and c.skill and not c.negate}
            out.append(Test(case.name, case, task, system, extra, expect))
        ts = s.triggers
        if ts is not None and ts.prompts and not ts.skill:
            raise EvalfmtError(f"{s.source}: the trigger set names no skill: name the file <skill>_trigger-eval.json")
        if ts is not None and ts.skill:
            for i, p in enumerate(ts.prompts, 1):
                check = ir.SkillTrigger(skill=ts.skill, should_trigger=p.should_trigger)
                case = ir.Case(name=f"{ts.skill}-{i}", input=p.text, checks=[check])
                out.append(Test(case.name, case, p.text, "", [], {ts.skill: p.should_trigger}))
    return out


# ---------------------------------------------------------------------------------------- running


def select(tests: list[Test], request: LibraryRunRequest) -> list[Test]:
    """The tests ``--tag`` and ``--case`` select, as for a skill's cases (:mod:`tags`): tags first (a test
    without tags, like a trigger set's prompt, is not selected by any), then the ids, which must exist."""
    wanted = tags_mod.parse(request.tags)
    if wanted:
        tests = [t for t in tests if tags_mod.selected(t.case, wanted)]
        if not tests:
            raise EvalfmtError(f"{request.where}: no tests to run with those tags")
    if request.cases:
        tags_mod.check_names(request.cases, (t.id for t in tests))
        tests = [t for t in tests if t.id in request.cases]
    return tests


def run_library(request: LibraryRunRequest, notify: Callable[[str], None] | None = None) -> LibraryRun:
    """The trigger run of ``request``; ``notify`` receives one-line notes (a library entry left out)
    before any session starts."""
    tests = tests_of(request.sets)
    if not tests:
        raise EvalfmtError(f"{request.where}: no tests to run")
    tests = select(tests, request)
    if set(request.libraries) not in ({LIBRARY}, {layout.BASELINE, layout.CANDIDATE}):
        raise UsageError("give --skills DIR (one library) or --skills baseline=DIR --skills candidate=DIR")
    detect_mod.get(request.detection)
    judge = judges.make(request.judge, request.judge_command)
    libs = {arm: library_skills(folder, notify) for arm, folder in request.libraries.items()}
    options = runners_mod.RunnerOptions(agent_command=request.agent_command, replay_from=request.replay_from,
                                        model=request.model, options=dict(request.runner_options), cwd=request.cwd,
                                        env=dict(request.env))
    runner = runners_mod.make(request.runner, options)
    out = os.path.abspath(request.out)
    _prepare(out, list(libs), request.force)
    taken: set[str] = set()
    folders = {t.id: folder_name(t.id, taken) for t in tests}
    plan = [(arm, skills, test, rep)
            for test in tests for rep in range(1, request.k + 1) for arm, skills in libs.items()]
    if request.jobs > 1:
        sessions = _run_parallel(request, runner, plan, folders, out, judge)
    else:
        sessions = _run_serial(request, runner, plan, folders, out, judge)
    scores = {arm: score_arm(arm, tests, [s for s in sessions if s.arm == arm], sorted(skills))
              for arm, skills in libs.items()}
    run = LibraryRun(tests, {a: sorted(s) for a, s in libs.items()}, sessions, scores, request.k)
    if len(libs) == 2:
        run.rows, run.tally = decide_rows(tests, sessions, request.k, judge)
    run.receipt_path = os.path.join(request.out, layout.RECEIPT)
    run.receipt = receipt(run, request)
    atomic_write(os.path.join(out, layout.RECEIPT), _dumps(run.receipt))
    return run


Plan = list[tuple[str, dict[str, str], Test, int]]  # (arm, library, test, repetition), in receipt order


def _run_serial(request: LibraryRunRequest, runner: runners_mod.Runner, plan: Plan, folders: dict[str, str],
                out: str, judge: judges.Judge | None) -> list[Session]:
    sessions: list[Session] = []
    # File system work off the agent's critical path: one helper thread stages the next session's
    # sandbox while the agent runs, and removes finished sandboxes (each session still gets its own copy)
    with Sandboxes() as boxes:
        boxes.prepare(plan[0][1] if plan else {})
        for i, (arm, skills, test, rep) in enumerate(plan):
            sandbox = boxes.take()
            if i + 1 < len(plan):
                boxes.prepare(plan[i + 1][1])
            sessions.append(run_one(request, runner, arm, sorted(skills), test, folders[test.id], rep, out, sandbox,
                                    judge))
            boxes.remove(sandbox)
    return sessions


def _run_parallel(request: LibraryRunRequest, runner: runners_mod.Runner, plan: Plan, folders: dict[str, str],
                  out: str, judge: judges.Judge | None) -> list[Session]:
    """``--jobs N``: a process pool (fork) of N workers stages sandboxes and runs agents, as for a skill's
    cases (each worker is its own subreaper); this process scores each session
    as its agent ends, then removes its sandbox. The sessions come back in plan order, so the receipt is the
    serial run's. On Ctrl-C no further agent starts, the running ones are killed, and the interrupt goes on
    once every worker is back."""
    slim = dataclasses.replace(request, sets=[])  # what a worker needs, without the eval sets
    sessions: list[Session | None] = [None] * len(plan)
    pool = ProcessPoolExecutor(max_workers=request.jobs, mp_context=multiprocessing.get_context("fork"),
                               initializer=execute._init_worker)
    index = {execute._submit(pool, _agent_job, slim, runner, item, folders[item[2].id], out): i
             for i, item in enumerate(plan)}
    workers = execute._worker_pids(pool)
    pending, unscored = set(index), set(index)
    boxes = Sandboxes()
    broken = False  # a worker died: the pool ended the others (SIGTERM), whatever their agents were doing
    try:
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                got = fut.result()
                unscored.discard(fut)
                if got is None:  # a worker saw the interrupt before it started this one
                    raise KeyboardInterrupt
                started, sandbox = got
                _, skills, test, _ = plan[index[fut]]
                try:
                    sessions[index[fut]] = finish_one(request, started, sorted(skills), test, sandbox, judge)
                finally:
                    boxes.remove(sandbox)
    except BaseException as exc:
        broken = isinstance(exc, BrokenProcessPool)
        execute._signal_workers(pool)  # each worker kills its own agent (a terminal's Ctrl-C reached them already)
        for fut in pending:
            fut.cancel()
        wait(pending)
        for fut in unscored:  # agents that ended but were not scored: their sandboxes go too
            got = fut.result() if fut.done() and not fut.cancelled() and fut.exception() is None else None
            if got is not None:
                boxes.remove(got[1])
        if broken:
            raise EvalfmtError("a worker process died while the agents ran (killed from outside: the OOM killer, a "
                               "signal); the run stops, and the agents it had started are ended") from None
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        if broken:  # what the jails of the ended workers still hold (an agent they were running) ends too
            contain.sweep(workers)
        boxes.__exit__()
    return [s for s in sessions if s is not None]


def _agent_job(request: LibraryRunRequest, runner: runners_mod.Runner, item: tuple[str, dict[str, str], Test, int],
               folder: str, out: str) -> tuple[Started, str] | None:
    """In a pool worker: stage the sandbox and run the agent (None when the run was interrupted first)."""
    if interrupts.state["interrupted"]:
        return None
    interrupts.state["active"] = True
    try:
        arm, skills, test, rep = item
        sandbox = Sandboxes._make(skills)
        try:
            return start_one(request, runner, arm, test, folder, rep, out, sandbox), sandbox
        except BaseException:
            shutil.rmtree(sandbox, True)
            raise
    finally:
        interrupts.state["active"] = False


def _prepare(out: str, arms: list[str], force: bool) -> None:
    present = [n for n in (*arms, layout.RECEIPT) if os.path.lexists(os.path.join(out, n))]
    if present and not force:
        raise EvalfmtError(f"--out {out} already holds a run ({', '.join(present)}); give --force to replace it")
    for name in present:  # a symlink is removed, never followed (the one path guard)
        guard.remove(out, os.path.join(out, name), what=layout.RUN_FOLDER, tail=layout.NOTHING_TOUCHED)
    os.makedirs(out, exist_ok=True)


class Sandboxes:
    """Sandboxes with the library staged, made one ahead on a helper thread, and removed by a few others
    (removing a folder waits on the disk more than it works: on a VM's ext4 a 10-skill copy takes ~60 ms
    to remove, and 4 removals at once take the time of one or two)."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evalfmt-sandbox")
        self.trash = ThreadPoolExecutor(max_workers=4, thread_name_prefix="evalfmt-trash")
        self.next: Future[str] | None = None

    def __enter__(self) -> Sandboxes:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.next is not None:  # staged but never used (an interrupted run)
            self.remove(self.next.result())
        self.pool.shutdown(wait=True)
        self.trash.shutdown(wait=True)

    @staticmethod
    def _make(skills: dict[str, str]) -> str:
        sandbox = tempfile.mkdtemp(prefix="evalfmt-")
        stage_library(skills, sandbox)
        return sandbox

    def prepare(self, skills: dict[str, str]) -> None:
        self.next = self.pool.submit(self._make, skills)

    def take(self) -> str:
        assert self.next is not None
        box, self.next = self.next, None
        return box.result()

    def remove(self, sandbox: str) -> None:
        self.trash.submit(shutil.rmtree, sandbox, True)


@dataclass
class Started:
    """A session whose agent has ended: its spec and why it is dead (None: it ran to a clean end)."""

    session: Session
    spec: runners_mod.SessionSpec
    dead: str | None
    began: float


def run_one(request: LibraryRunRequest, runner: runners_mod.Runner, arm: str, skills: list[str], test: Test,
            folder_name_: str, rep: int, out: str, sandbox: str, judge: judges.Judge | None = None) -> Session:
    """Run the agent on the test in ``sandbox`` (the library staged), score it, note which skills fired."""
    return finish_one(request, start_one(request, runner, arm, test, folder_name_, rep, out, sandbox), skills, test,
                      sandbox, judge)


def start_one(request: LibraryRunRequest, runner: runners_mod.Runner, arm: str, test: Test, folder_name_: str,
              rep: int, out: str, sandbox: str) -> Started:
    """The agent's part of a session: its folder, then the runner."""
    t0 = time.perf_counter()
    sess = Session(arm, test.id, rep)
    folder = layout.session_folder(out, arm, folder_name_, rep, request.k)
    guard.makedirs(out, folder, what=layout.RUN_FOLDER, tail=layout.NOTHING_TOUCHED)
    note = runners_mod.NOTE + (f"\n\n{test.system}" if test.system else "")
    spec = runners_mod.SessionSpec(arm=arm, unit=folder_name_, repetition=rep, k=request.k, task=test.task,
                                   note=note, max_turns=test.case.max_turns or runners_mod.DEFAULT_MAX_TURNS,
                                   timeout=request.timeout_minutes * 60.0, model=request.model, sandbox=sandbox,
                                   folder=folder, env=runners_mod.agent_env(sandbox, request.env), skill=None)
    t1 = time.perf_counter()
    interrupts.check()  # a Ctrl-C while it staged that did not come through (in a worker): the agent does not start
    try:
        outcome = runner.run(spec)
        dead = outcome.dead
    except Exception as exc:  # noqa: BLE001 - a runner's bug kills this session, not the run
        dead = f"runner '{getattr(runner, 'name', '?')}' failed: {type(exc).__name__}: {exc}"
    sess.seconds["agent"] = time.perf_counter() - t1
    return Started(sess, spec, dead, t0)


def finish_one(request: LibraryRunRequest, started: Started, skills: list[str], test: Test, sandbox: str,
               judge: judges.Judge | None = None) -> Session:
    """The scoring part of a session: read the transcript, score the test's checks, detect the skills fired."""
    sess, spec, dead = started.session, started.spec, started.dead
    if dead is None:
        try:
            session = read_session(spec.transcript)
        except SessionError as exc:
            dead = str(exc)
    if dead is not None:
        sess.error = dead
        with open(os.path.join(spec.folder, layout.DEAD_MARKER), "w", encoding="utf-8") as fh:
            fh.write(dead + "\n")
    else:
        sess.result = score_case(test.case, session, sandbox, request.detection, test.extra_checks,
                                 request.check_timeout, judge=judge, task=test.task, run_code=True, env=request.env)
        if judge is not None and judge.configured and test.case.judge:
            sess.tail = session.tail(judges.TAIL_CHARS)
        sess.fired = [name for name in skills if detect_mod.detect(session, name, request.detection).triggered]
    sess.seconds["total"] = time.perf_counter() - started.began
    return sess


# ---------------------------------------------------------------------------------------- scoring


def score_arm(arm: str, tests: list[Test], sessions: list[Session], library: list[str]) -> ArmScore:
    by_test: dict[str, list[Session]] = {}
    for s in sessions:
        by_test.setdefault(s.test, []).append(s)
    order = _scored_skills(tests, sessions, library)
    scores = {skill: SkillScore(skill) for skill in order}
    confusion: dict[str, dict[str, int]] = {}
    dead = 0
    for t in tests:
        live = [s for s in by_test.get(t.id, []) if not s.dead]
        dead += len(by_test.get(t.id, [])) - len(live)
        _confuse(confusion, [k for k, v in t.expect.items() if v] or [NONE], live)
        if live:
            for sc in scores.values():
                _count_test(sc, t, live)
    return ArmScore(arm, list(scores.values()), _confusion_table(confusion, order), dead)


def _scored_skills(tests: list[Test], sessions: list[Session], library: list[str]) -> list[str]:
    """The skills an arm is scored on: those of the library a test names or a session fired (in the
    library's order), then those the tests name outside it."""
    named = {skill for t in tests for skill in t.expect}
    fired_any = {f for s in sessions for f in s.fired}
    return [x for x in library if x in named or x in fired_any] + sorted(named - set(library))


def _confuse(confusion: dict[str, dict[str, int]], expected: list[str], live: list[Session]) -> None:
    """Count each live session of a test once per skill it expects, under each skill it fired (or none)."""
    for s in live:
        for e in expected:
            row = confusion.setdefault(e, {})
            for f in s.fired or [NONE]:
                row[f] = row.get(f, 0) + 1


def _count_test(sc: SkillScore, t: Test, live: list[Session]) -> None:
    """One test's live sessions for one skill: it fired when at least half of them fired it."""
    fires = sum(1 for s in live if sc.skill in s.fired)
    want = t.expect.get(sc.skill)
    if want:
        sc.positive_sessions += len(live)
        sc.fired_sessions += fires
    sc.count(t.id, want=want, fired=2 * fires >= len(live))


def _confusion_table(confusion: dict[str, dict[str, int]], order: list[str]) -> dict[str, dict[str, int]]:
    """The confusion counts by expected skill (in ``order``, then none), with a column for each scored
    skill, none, and any other skill fired."""
    cols = order + [NONE]
    return {r: {c: confusion[r].get(c, 0) for c in cols if confusion[r].get(c, 0) or c in order or c == NONE}
            for r in [*order, NONE] if r in confusion}


def decide_rows(tests: list[Test], sessions: list[Session], k: int,
                judge: judges.Judge | None = None) -> tuple[list[dict[str, Any]], verdict.Tally]:
    """candidate vs baseline, one row per test and repetition, with terum's rules (a test's ``criteria``
    is its judge rubric: equal checks go to the judge, asked twice with A and B swapped)."""
    table = {(s.arm, s.test, s.repetition): s for s in sessions}
    tally = verdict.Tally()
    rows = []
    for t in tests:
        for rep in range(1, k + 1):
            c, b = table[(layout.CANDIDATE, t.id, rep)], table[(layout.BASELINE, t.id, rep)]
            detail = ""
            if c.dead and b.dead:
                outcome, reason = "tie", "both-arms-failed"
            elif c.dead:
                outcome, reason = "tie", "candidate-run-failed"
            elif b.dead:
                outcome, reason = "tie", "opponent-run-failed"
            else:
                outcome, reason, detail = _decide_live(t, c, b, judge)
                tally.add(outcome)
            row = {"case": t.id, "repetition": rep, "opponent": layout.BASELINE, "outcome": outcome, "reason": reason}
            if detail:
                row["detail"] = detail
            rows.append(row)
    return rows, tally


def _decide_live(t: Test, c: Session, b: Session, judge: judges.Judge | None) -> tuple[str, str, str]:
    """Rules 4-6 of terum's row decision for two live sessions: (outcome, reason, detail)."""
    cp = c.result.passed if c.result else True
    bp = b.result.passed if b.result else True
    if cp != bp:
        return "win" if cp else "loss", "checks", ""
    if not t.case.judge:
        return "tie", "checks-equal-no-judge", ""
    if judge is None or not judge.configured:
        return "tie", "judge-not-configured", judges.NOT_CONFIGURED
    d = judges.judge_pair(judge, t.task, t.case.judge, c.tail, b.tail)
    return d.outcome, d.reason, d.detail


# ---------------------------------------------------------------------------------------- output


def _ratio(a: int, b: int) -> float | None:
    return a / b if b else None


def _f(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def confusion_lines(score: ArmScore) -> list[str]:
    """The confusion table as aligned text: expected skill (rows) x fired skill (columns), sessions."""
    if not score.confusion:
        return ["confusion: no live sessions"]
    cols: list[str] = []
    for row in score.confusion.values():
        cols.extend(c for c in row if c not in cols)
    cols = [c for c in cols if c != NONE] + ([NONE] if NONE in cols else [])
    head = "expected \\ fired"
    width = max(len(head), *(len(r) for r in score.confusion))
    widths = [max(len(c), *(len(str(r.get(c, 0))) for r in score.confusion.values())) for c in cols]
    lines = [" | ".join([head.ljust(width), *(c.rjust(w) for c, w in zip(cols, widths))])]
    for name, row in score.confusion.items():
        lines.append(" | ".join([name.ljust(width), *(str(row.get(c, 0)).rjust(w) for c, w in zip(cols, widths))]))
    return lines


def text_lines(run: LibraryRun) -> list[str]:
    out = [_session_line(run, s) for s in run.sessions]
    for arm, score in run.scores.items():
        out += _score_lines(f"[{arm}] " if len(run.scores) > 1 else "", score)
    if run.tally is not None:
        out.append(f"verdict: {run.tally.verdict}")
        out.append(f"candidate-vs-baseline: {run.tally.line()}")
    return out


def _session_line(run: LibraryRun, s: Session) -> str:
    """One session: the skills it fired and its checks' result (or why it is dead)."""
    rep = f" #{s.repetition}" if run.k > 1 else ""
    arm = f"{s.arm} " if len(run.scores) > 1 else ""
    if s.dead:
        return f"{arm}{s.test}{rep}: dead ({s.error})"
    fired = ", ".join(s.fired) or "no skill"
    status = "passed" if s.result is None or s.result.passed else "failed " + ", ".join(s.result.failed)
    unscored = [c for c in (s.result.checks if s.result else []) if c.passed is None]
    more = "; not scored: " + ", ".join(f"{c.check} ({c.detail.removeprefix('not scored: ')})"
                                         for c in unscored) if unscored else ""
    return f"{arm}{s.test}{rep}: fired {fired} — {status}{more}"


def _score_lines(prefix: str, score: ArmScore) -> list[str]:
    """One arm's scores: a line per skill with its misses and false fires, the confusion table, the dead."""
    out: list[str] = []
    for sc in score.skills:
        out.append(prefix + sc.line())
        out.extend(f"{prefix}MISS: {sc.skill} {t}" for t in sc.misses)
        out.extend(f"{prefix}FALSE-FIRE: {sc.skill} {t}" for t in sc.false_fires)
    out.append(prefix + "confusion (sessions; rows: expected skill, columns: fired skill):")
    out.extend(prefix + line for line in confusion_lines(score))
    if score.dead:
        out.append(f"{prefix}dead sessions: {score.dead}")
    return out


def receipt(run: LibraryRun, request: LibraryRunRequest) -> dict[str, Any]:
    data: dict[str, Any] = {
        "kind": "trigger-run",
        "run_id": request.run_id or run_id(),
        "k": run.k,
        "trigger_detection": request.detection,
        "judge": request.judge,
        "libraries": {arm: {"skills": skills, "folder": request.libraries[arm]} for arm, skills in run.library.items()},
        "tests": [{"id": t.id, "expect": t.expect} for t in run.tests],
        "scores": {arm: s.to_json() for arm, s in run.scores.items()},
        "sessions": [{"arm": s.arm, "test": s.test, "repetition": s.repetition, "fired": s.fired, "dead": s.dead,
                      "error": s.error, "passed": None if s.result is None else s.result.passed,
                      "checks": [] if s.result is None else [c.to_json() for c in s.result.checks]}
                     for s in run.sessions],
    }
    if run.tally is not None:
        data["verdict"] = run.tally.verdict
        data["comparisons"] = {"candidate-vs-baseline": run.tally.to_json()}
        data["summary_lines"] = {"candidate-vs-baseline": run.tally.line()}
        data["rows"] = run.rows
    return data


def _dumps(data: dict[str, Any]) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"
