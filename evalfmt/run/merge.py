"""``evalfmt merge --out DIR SHARD_DIR...``: the run folders of the shards of one run (``run --shard I/N``,
each on its own machine, e.g. a CI matrix) combined into one run folder and its receipt.

The shards must be the N shards of one run: the same skill (content digest), eval set (the digest of
``evals/``, the cases), k, arms, shard count and settings (runner, agent command, model, detection,
judge, timeouts, ``--case``/``--tags``), each index once and none missing, each finished (its receipt
written; an interrupted shard is merged as interrupted). Anything else is refused on one line naming
the difference. Each shard's session folders are copied into ``DIR``; the receipt is built from the
sessions' kept scores (``score.json``: no check runs again) by the very code ``evalfmt run`` ends with,
so it is the receipt of the same run done in one go, apart from the timing fields docs/receipts.md names.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from typing import Any

from .. import guard, ir
from ..errors import EvalfmtError
from ..receipt import Receipt
from . import execute as ex
from . import judges, layout, manifest, scores
from . import receipt as receipt_mod
from .compare import ArmRun
from .skillrun import RunOutcome, RunRequest, finish, units


@dataclass(frozen=True)
class MergeRequest:
    """``shard_dirs`` the shards' run folders; ``skill_dir``/``sets`` the skill they ran and what was
    read from it (:func:`locate_skill` finds it); ``run_id`` overrides the first shard's."""

    shard_dirs: tuple[str, ...]
    out: str
    skill_dir: str
    sets: list[ir.EvalSet]
    run_id: str | None = None
    force: bool = False


def plans(shard_dirs: tuple[str, ...] | list[str]) -> list[tuple[str, dict[str, Any]]]:
    """The shards' folders and plans in shard order, checked to be the N shards of one run."""
    if not shard_dirs:
        raise EvalfmtError("merge: give the shards' run folders")
    found = [(d, manifest.read(d, "merge:")) for d in shard_dirs]
    first_dir, first = found[0]
    for d, plan in found:
        if plan.get("shard") is None:
            raise EvalfmtError(f"cannot merge {d}: it is not a shard (run without --shard)")
        _check_shape(d, plan)
        diff = manifest.difference(first, plan, shard=False)
        if diff is not None:
            label, mine, theirs = diff
            raise EvalfmtError(f"cannot merge {d}: its {label} is {theirs}, {first_dir}'s is {mine}")
        if plan["shard"]["count"] != first["shard"]["count"]:
            raise EvalfmtError(f"cannot merge {d}: it is shard {_of(plan)}, {first_dir} is shard {_of(first)} "
                               "(different shard counts)")
    count = first["shard"]["count"]
    by_index: dict[int, str] = {}
    for d, plan in found:
        other = by_index.setdefault(plan["shard"]["index"], d)
        if other != d:
            raise EvalfmtError(f"cannot merge: {other} and {d} are both shard {_of(plan)}")
    for d, plan in found:  # a plan is read from a CI artifact: its cases must be its shard's of the eval set
        if plan.get("shard_units") != manifest.shard_slice(first["units"], plan["shard"]["index"], count):
            raise EvalfmtError(f"cannot merge {d}: its cases are not those of shard {_of(plan)} of the eval set")
    missing = [i for i in range(1, count + 1) if i not in by_index]
    if missing:
        raise EvalfmtError(f"cannot merge: shard {missing[0]}/{count} is missing "
                           f"(give all {count} shard folders; {len(missing)} missing)")
    return sorted(found, key=lambda f: f[1]["shard"]["index"])


def _whole(value: Any) -> bool:
    return type(value) is int and value >= 1


def _check_shape(folder: str, plan: dict[str, Any]) -> None:
    """A plan is read from a CI artifact: its arms, k and shard numbers must be what ``run`` writes, since
    the merge makes paths and loops of them (an arm ``../../x`` would copy outside ``--out``)."""
    shard = plan["shard"]
    if plan.get("arms") != list(layout.ARMS):
        raise EvalfmtError(f"cannot merge {folder}: its plan's arms are not {', '.join(layout.ARMS)}")
    if not _whole(plan.get("k")):
        raise EvalfmtError(f"cannot merge {folder}: its plan's k is not a whole number >= 1")
    if not (isinstance(shard, dict) and _whole(shard.get("index")) and _whole(shard.get("count"))
            and shard["index"] <= shard["count"] and isinstance(plan.get("units"), list)):
        raise EvalfmtError(f"cannot merge {folder}: its plan's shard or case list is malformed")


def _of(plan: dict[str, Any]) -> str:
    return f"{plan['shard']['index']}/{plan['shard']['count']}"


def locate_skill(shard_dirs: tuple[str, ...] | list[str], given: str | None, cwd: str) -> str:
    """The skill folder the shards ran: ``given`` (``--skill``), else where the first shard's plan says
    (its absolute path, then its path relative to the working folder: a CI job checks the repository
    out elsewhere)."""
    if given is not None:
        return given
    first_dir = shard_dirs[0] if shard_dirs else "."
    plan = manifest.read(first_dir, "merge:")
    for candidate in (plan.get("skill_dir"), os.path.join(cwd, plan.get("skill_dir_relative") or "")):
        if candidate and os.path.isdir(os.path.join(candidate, "evals")):
            return candidate
    raise EvalfmtError(f"merge: the skill the shards ran is not at {plan.get('skill_dir')} nor at "
                       f"{plan.get('skill_dir_relative')}; give --skill DIR")


def merge_runs(request: MergeRequest) -> RunOutcome:
    found = plans(request.shard_dirs)
    first = found[0][1]
    _check_skill(request.skill_dir, first)
    settings = first["settings"]
    evalset, unit_list = units(RunRequest(skill_dir=request.skill_dir, sets=request.sets,
                                          cases=tuple(settings["cases"]), tags=tuple(settings["tags"])))
    names = [u.name for u in unit_list]
    if names != first["units"]:
        raise EvalfmtError(f"merge: the cases of the skill at {request.skill_dir} ({', '.join(names)}) are not the "
                           f"shards' ({', '.join(first['units'])})")
    out_abs = os.path.abspath(request.out)
    for d, _ in found:
        if guard.real(d) == guard.real(out_abs):  # also through a symlink: --force would delete the shard
            raise EvalfmtError(f"merge: --out {request.out} is one of the shards; give a new folder")
    judge = judges.make(settings["judge"], settings["judge_command"])
    run = ex.RunResult(planned=len(names) * first["k"] * len(first["arms"]))
    inputs = [(d, plan, _shard_receipt(d)) for d, plan in found]
    layout.prepare_out(request.out, request.force)
    for d, plan, made in inputs:
        _copy_sessions(d, out_abs, plan)
        run.skips.update(made.environment_skips or {})
        run.drops.update(made.dropped_cases or {})
        run.interrupted = run.interrupted or bool(made.interrupted)
    run.prescored = _kept_scores(out_abs, names, first)
    plan = dict(first, shard=None, shard_units=names, run_id=request.run_id or first["run_id"])
    manifest.write(request.out, plan)
    return finish(ex.filtered(evalset, unit_list), names, request.out, plan, run, judge, skill_dir=request.skill_dir)


def _check_skill(skill_dir: str, plan: dict[str, Any]) -> None:
    evals = os.path.join(skill_dir, "evals")
    mine = {"skill_name": os.path.basename(os.path.abspath(skill_dir)),
            "content_digest": receipt_mod.content_digest(skill_dir),
            "evals_digest": receipt_mod.tree_digest(evals) if os.path.isdir(evals) else None}
    for key, label in manifest.SAME_RUN:
        if key in mine and mine[key] != plan.get(key):
            raise EvalfmtError(f"merge: the skill at {skill_dir} is not the one the shards ran (its {label} differs)")


def _shard_receipt(folder: str) -> Receipt:
    path = os.path.join(folder, layout.RECEIPT)
    if not os.path.isfile(path):
        raise EvalfmtError(f"cannot merge {folder}: the shard did not finish (no {layout.RECEIPT}); "
                           "run it again with --resume")
    return Receipt.load(path)


def _copy_sessions(shard: str, out: str, plan: dict[str, Any]) -> None:
    for arm in plan["arms"]:
        for unit in plan["shard_units"]:
            src = os.path.join(shard, arm, unit)
            if os.path.isdir(src) and not os.path.islink(src):
                dest = os.path.join(out, arm, unit)
                guard.check(out, dest, "copy into", what=layout.RUN_FOLDER)
                shutil.copytree(src, dest, symlinks=True)


def _kept_scores(out: str, names: list[str], plan: dict[str, Any]) -> dict[tuple[str, str, int], ArmRun]:
    """The scores kept beside the sessions (as ``evalfmt run`` had them when it wrote the shard's receipt):
    a session with a ``dead.txt`` is read from the layout instead, as the run reads it."""
    kept: dict[tuple[str, str, int], ArmRun] = {}
    k = plan["k"]
    for unit in names:
        for rep in range(1, k + 1):
            for arm in plan["arms"]:
                folder = layout.session_folder(out, arm, unit, rep, k)
                if os.path.exists(os.path.join(folder, layout.DEAD_MARKER)):
                    continue
                run = scores.read(folder, (arm, unit, rep))
                if run is not None:
                    kept[(arm, unit, rep)] = run
    return kept
