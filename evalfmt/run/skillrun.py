"""``run_skill(RunRequest) -> RunOutcome``: everything ``evalfmt run`` does between reading its options
and printing, callable without the CLI (and by a later sharded or distributed driver).

A :class:`RunRequest` holds plain values (the skill folder, the eval sets read from it, the runner and
its options, k, the detection mode...). :func:`run_skill` checks them (an :class:`~evalfmt.errors.UsageError`
or :class:`~evalfmt.errors.EvalfmtError` before anything is staged), plans the sessions, runs them
(:mod:`execute`), compares the arms (:mod:`compare`) and writes ``DIR/receipt.json`` (:mod:`layout`);
the :class:`RunOutcome` holds what the command prints. Nothing here prints but the progress lines on
stderr (``quiet`` turns them off).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from typing import Any

from .. import ir
from ..errors import EvalfmtError, UsageError
from ..writeset import atomic_write
from . import detect as detect_mod
from . import execute as ex
from . import judges, layout, manifest, resume
from . import receipt as receipt_mod
from . import runners as runners_mod
from .compare import Comparison, compare
from .tags import filter_set, parse as parse_tags
from .triggers import TriggerScore, score_selections


@dataclass(frozen=True)
class RunRequest:
    """One ``evalfmt run``: ``skill_dir`` is the skill folder; ``sets`` and ``documents`` what was read
    from it (terum); the rest are the command's options, with their defaults."""

    skill_dir: str
    sets: list[ir.EvalSet]
    documents: dict[str, Any] = field(default_factory=dict)
    out: str | None = None
    runner: str = "command"
    agent_command: str | None = None
    replay_from: str | None = None
    runner_options: dict[str, str] = field(default_factory=dict)
    k: int = 1
    jobs: int = 1
    cases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    model: str | None = None
    timeout_minutes: float = 120.0
    env: dict[str, str] = field(default_factory=dict)
    dry_run: bool = False
    detection: str = detect_mod.DEFAULT
    judge: str = "none"
    judge_command: str | None = None
    selections: str | None = None
    run_id: str | None = None
    check_timeout: float = 120.0
    force: bool = False
    quiet: bool = False
    #: where relative paths of the options (--replay-from, the agent program) resolve
    cwd: str = "."
    #: ``--shard I/N``: run only that slice of the cases (:mod:`manifest`)
    shard: tuple[int, int] | None = None
    #: ``--resume``: continue the run in ``out``, running only its missing or dead sessions
    resume: bool = False


@dataclass
class RunOutcome:
    """What a run gave: the comparison and trigger scores, the sessions' bookkeeping, the sessions whose
    recorded skills contradict their arm, and where the receipt went; for a dry run only ``dry``."""

    comparison: Comparison | None = None
    triggers: TriggerScore | None = None
    run: ex.RunResult | None = None
    receipt_path: str | None = None
    skill: str = ""
    contamination: list[dict[str, Any]] = field(default_factory=list)
    dry: list[ex.DryResult] | None = None

    @property
    def interrupted(self) -> bool:
        return self.run is not None and self.run.interrupted


def units(request: RunRequest) -> tuple[ir.EvalSet, list[ex.Unit]]:
    """The eval set to run (the first with cases or a suite, cut to the tags) and its units."""
    where = request.skill_dir
    sets = [s for s in request.sets if s.cases or (s.suite is not None and s.suite.entries)]
    if not sets:
        raise EvalfmtError(f"{where}: no cases or suite to run")
    evalset = filter_set(sets[0], parse_tags(request.tags))
    found = ex.units_of(evalset, list(request.cases) or None)
    if not found:
        raise EvalfmtError(f"{where}: no cases or suite to run" + (" with those tags" if request.tags else ""))
    return evalset, found


def run_skill(request: RunRequest) -> RunOutcome:
    evalset, unit_list = units(request)
    all_units = [u.name for u in unit_list]
    if request.shard is not None:
        unit_list = manifest.shard_slice(unit_list, *request.shard)
    if request.dry_run:
        return RunOutcome(dry=ex.dry_run(unit_list, request.documents, request.env))
    out = request.out
    if out is None:
        raise UsageError("give --out DIR (where the receipt and the sessions go), or --dry-run")
    detect_mod.get(request.detection)
    judge = judges.make(request.judge, request.judge_command)
    options = runners_mod.RunnerOptions(agent_command=request.agent_command, replay_from=request.replay_from,
                                        model=request.model, options=dict(request.runner_options), cwd=request.cwd,
                                        env=dict(request.env))
    runner = runners_mod.make(request.runner, options)
    root = request.skill_dir
    trig = score_selections(request.sets, request.selections, root) if request.selections else None
    plan = _plan(request, runner, all_units, [u.name for u in unit_list], trig)
    done = resume.prepare(out, plan) if request.resume else None
    if done is None:
        layout.prepare_out(out, request.force)
    elif request.run_id is None:
        plan["run_id"] = done.run_id  # a resumed run keeps its id
    manifest.write(out, plan)
    out_abs = os.path.abspath(out)
    skill_abs = os.path.abspath(root)
    extra = list(evalset.checks)
    jobs_list = ex.plan(unit_list, request.k, out=out_abs, skill_dir=skill_abs, skill_name=plan["skill_name"],
                        runner=runner, extra_env=request.env, model=request.model,
                        default_timeout_minutes=request.timeout_minutes, detection=request.detection,
                        check_timeout=request.check_timeout, keep_tail=False, extra_checks=extra,
                        exclude=layout.owned_paths(out_abs))
    for job in jobs_list:
        job.keep_tail = bool(job.unit.target.judge) and not job.unit.is_suite and judge.configured
    kept = resume.finished(jobs_list) if done is not None else {}
    progress = ex.Progress(len(jobs_list) - len(kept), enabled=not request.quiet)
    try:
        start = getattr(runner, "start", None)  # a runner that holds something for the run (ray) takes it
        if callable(start):
            start()
        run = ex.execute(unit_list, jobs_list, jobs=request.jobs, probe_env=runners_mod.agent_env(None, request.env),
                         progress=progress, done=kept)
    finally:
        close = getattr(runner, "close", None)  # ... and lets it go
        if callable(close):
            close()
    outcome = finish(ex.filtered(evalset, unit_list), [u.name for u in unit_list], out, plan, run, judge,
                     skill_dir=root)
    outcome.triggers = trig
    return outcome


def finish(evalset: ir.EvalSet, unit_names: list[str], out: str, plan: dict[str, Any], run: ex.RunResult,
           judge: judges.Judge, *, skill_dir: str) -> RunOutcome:
    """Compare the arms of the run in ``out`` (the sessions scored in ``run.prescored``, any other
    read from the layout), write its receipt and say what happened. ``evalfmt merge`` ends the same way."""
    settings = plan["settings"]
    cmp = compare(evalset, layout.arm_dirs(os.path.abspath(out)), k=plan["k"], detection=settings["detection"],
                  judge=judge, timeout=settings["check_timeout"], prescored=run.prescored)
    skill = plan["skill_name"]
    found = contamination(run, skill)
    trig = _triggers(skill, plan["triggers"])
    made = receipt_mod.receipt(cmp, skill_dir=skill_dir, triggers=trig, rid=plan["run_id"], model=settings["model"],
                               extra_provenance=manifest.provenance(plan))
    assert made.provenance is not None
    made.provenance["cc_version"] = plan["cc_version"]
    # in plan order, whatever order the sessions ended in (so results do not depend on --jobs or shards)
    made.put("environment_skips", {u: run.skips[u] for u in unit_names if u in run.skips})
    made.put("dropped_cases", {u: run.drops[u] for u in unit_names if u in run.drops})
    made.put("interrupted", run.interrupted)
    made.put("contamination", found)
    receipt_path = os.path.join(out, layout.RECEIPT)
    atomic_write(receipt_path, made.dumps())
    return RunOutcome(comparison=cmp, triggers=trig, run=run, receipt_path=receipt_path, skill=skill,
                      contamination=found)


def _triggers(skill: str, data: dict[str, Any] | None) -> TriggerScore | None:
    """Trigger results as the plan recorded them (scored once, before any session)."""
    if data is None:
        return None
    return TriggerScore(skill, tp=data["tp"], fp=data["fp"], fn=data["fn"], tn=data["tn"], misses=list(data["misses"]),
                        false_fires=list(data["false_fires"]))


def _plan(request: RunRequest, runner: object, all_units: list[str], shard_units: list[str],
          trig: TriggerScore | None) -> dict[str, Any]:
    skill_abs = os.path.abspath(request.skill_dir)
    evals = os.path.join(skill_abs, "evals")
    with_command = request.runner == "command" or (request.runner != "replay" and request.agent_command is not None)
    settings = {"runner": request.runner, "agent_command": request.agent_command if with_command else None,
                "replay_from": getattr(runner, "source", None) if request.runner == "replay" else None,
                "model": request.model, "detection": request.detection, "judge": request.judge,
                "judge_command": request.judge_command, "check_timeout": request.check_timeout,
                "default_timeout_minutes": request.timeout_minutes, "cases": list(request.cases),
                "tags": list(request.tags), "eval_format": request.sets[0].format if request.sets else None}
    return manifest.build(
        skill_dir=request.skill_dir, skill_name=os.path.basename(skill_abs),
        content_digest=receipt_mod.content_digest(skill_abs),
        evals_digest=receipt_mod.tree_digest(evals) if os.path.isdir(evals) else None,
        units=all_units, k=request.k, arms=layout.ARMS, shard=request.shard, shard_units=shard_units,
        settings=settings, jobs=request.jobs, run_id=request.run_id or receipt_mod.run_id(),
        cc_version=claude_version(runner, request.env), triggers=trig.receipt() if trig is not None else None,
        cwd=request.cwd)


def claude_version(runner: object, env: dict[str, str]) -> str | None:
    """``claude --version`` when the command runner runs a program named ``claude`` (terum records
    it the same way), else None."""
    words = getattr(runner, "words", None)
    if getattr(runner, "name", None) != "command" or not words or os.path.basename(words[0]) != "claude":
        return None
    try:
        proc = subprocess.run([words[0], "--version"], capture_output=True, text=True, timeout=15,
                              stdin=subprocess.DEVNULL, env=runners_mod.agent_env(None, env))
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = proc.stdout.strip()
    return text.splitlines()[0] if proc.returncode == 0 and text else None


def contamination(run: ex.RunResult, skill: str) -> list[dict[str, Any]]:
    """Sessions whose recorded skill list (the init record's ``skills``) contradicts their arm: the
    skill missing from a candidate session, or present in a baseline one. terum refuses such a run;
    evalfmt reports them (stderr and the receipt's ``contamination``)."""
    out = []
    for (arm, unit, rep), r in sorted(run.prescored.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0])):
        if r.dead or r.skills is None:
            continue
        if (skill in r.skills) != (arm == layout.CANDIDATE):
            out.append({"arm": arm, "case": unit, "repetition": rep, "skills": list(r.skills)})
    return out
