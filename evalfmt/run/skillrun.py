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
from ..receipt import Receipt
from ..writeset import atomic_write
from . import detect as detect_mod
from . import execute as ex
from . import judges, layout
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
    cc_version = claude_version(runner, request.env)
    layout.prepare_out(out, request.force)
    out_abs = os.path.abspath(out)
    skill_abs = os.path.abspath(root)
    skill = os.path.basename(skill_abs)
    extra = list(evalset.checks) if evalset.format == "agentv" else []
    jobs_list = ex.plan(unit_list, request.k, out=out_abs, skill_dir=skill_abs, skill_name=skill, runner=runner,
                        extra_env=request.env, model=request.model, default_timeout_minutes=request.timeout_minutes,
                        detection=request.detection, check_timeout=request.check_timeout, keep_tail=False,
                        extra_checks=extra, exclude=layout.owned_paths(out_abs))
    for job in jobs_list:
        job.keep_tail = bool(job.unit.target.judge) and not job.unit.is_suite and judge.configured
    progress = ex.Progress(len(jobs_list), enabled=not request.quiet)
    run = ex.execute(unit_list, jobs_list, jobs=request.jobs, probe_env=runners_mod.agent_env(None, request.env),
                     progress=progress)
    cmp = compare(ex.filtered(evalset, unit_list), layout.arm_dirs(out_abs), k=request.k, detection=request.detection,
                  judge=judge, timeout=request.check_timeout, prescored=run.prescored)
    found = contamination(run, skill)
    made = _receipt(request, cmp, trig, run, runner)
    assert made.provenance is not None
    made.provenance["cc_version"] = cc_version
    made.put("contamination", found)
    receipt_path = os.path.join(out, layout.RECEIPT)
    atomic_write(receipt_path, made.dumps())
    return RunOutcome(comparison=cmp, triggers=trig, run=run, receipt_path=receipt_path, skill=skill,
                      contamination=found)


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


def _receipt(request: RunRequest, cmp: Comparison, trig: TriggerScore | None, run: ex.RunResult,
             runner: object) -> Receipt:
    provenance: dict[str, Any] = {"runner": request.runner, "jobs": request.jobs,
                                  "default_timeout_minutes": request.timeout_minutes,
                                  "eval_format": request.sets[0].format if request.sets else None}
    if request.runner == "command":
        provenance["agent_command"] = request.agent_command
    if request.runner == "replay":
        provenance["replay_from"] = getattr(runner, "source", None)
    made = receipt_mod.receipt(cmp, skill_dir=request.skill_dir, triggers=trig, rid=request.run_id, model=request.model,
                               extra_provenance=provenance)
    made.put("environment_skips", dict(run.skips))
    made.put("dropped_cases", dict(run.drops))
    made.put("interrupted", run.interrupted)
    return made
