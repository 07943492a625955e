"""``evalfmt run --resume``: continue the run in ``--out DIR`` after a Ctrl-C, a killed driver, a dead
worker or an agent that hung past its timeout.

A session finished when its ``score.json`` (:mod:`scores`) is there: it is written last, atomically.
A finished session whose agent was alive is kept as it is (never run twice); every other session
(missing, cut short, dead, dropped, skipped) has its folder removed and runs again. The receipt is
then written for the whole run, as if it had run in one go. The folder's plan (:mod:`manifest`) must
be the plan of this run (same skill, eval set, k, arms, shard and settings; ``--jobs`` and
``--timeout-minutes`` may change): a difference is refused on one line naming it. A folder with no
run in it starts a fresh one, so a CI step may always pass ``--resume``.

Every path a resume reads a session from, writes or removes (``plan.json``, ``receipt.json``, each arm's
folder, each case's and repetition's folder) must resolve inside ``DIR`` (the one path guard,
:mod:`evalfmt.guard`): one that leads out (``DIR/candidate -> ../elsewhere``) refuses the resume on one
line before anything is touched.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from .. import guard
from ..errors import EvalfmtError
from . import layout, manifest, scores
from .compare import ArmRun


@dataclass(frozen=True)
class Resumed:
    """The run being continued: its id."""

    run_id: str


def prepare(out: str, plan: dict[str, Any]) -> Resumed | None:
    """Check that ``out`` holds a run of ``plan`` (None when it holds no run: start afresh)."""
    check_paths(out, plan)
    if not os.path.exists(os.path.join(out, manifest.PLAN)):
        present = [n for n in layout.OWNED if os.path.lexists(os.path.join(out, n))]
        if present:
            raise EvalfmtError(f"--resume: {out} holds a run without {manifest.PLAN} ({', '.join(present)}); "
                               "give --force instead to replace it")
        return None
    old = manifest.read(out, "--resume:")
    diff = manifest.difference(plan, old, ignore=("default_timeout_minutes",))
    if diff is not None:
        label, mine, theirs = diff
        raise EvalfmtError(f"--resume: {out} is a run with {label} {theirs}, not {mine}")
    return Resumed(run_id=str(old["run_id"]))


def check_paths(out: str, plan: dict[str, Any]) -> None:
    """:class:`evalfmt.guard.Outside` when a path the resume of ``plan`` in ``out`` reads, writes or removes
    resolves outside ``out`` (checked before anything is touched)."""
    paths = [os.path.join(out, name) for name in (manifest.PLAN, layout.RECEIPT)]
    for arm in plan["arms"]:
        paths.append(os.path.join(out, arm))
        for unit in plan["shard_units"]:
            paths.append(os.path.join(out, arm, unit))
            if plan["k"] > 1:
                paths += [layout.session_folder(out, arm, unit, rep, plan["k"]) for rep in range(1, plan["k"] + 1)]
    for path in paths:
        guard.check(out, path, "resume into", what=layout.RUN_FOLDER, tail=layout.NOTHING_TOUCHED)


def finished(jobs_list: list) -> dict[tuple[str, str, int], ArmRun]:
    """The planned sessions that finished alive (kept, with their scores); the folders of the others
    are removed, so they run again from nothing."""
    kept: dict[tuple[str, str, int], ArmRun] = {}
    for job in jobs_list:
        folder = layout.session_folder(job.out, job.arm, job.unit.name, job.repetition, job.k)
        run = scores.read(folder, job.key)
        if run is not None and not run.dead and not os.path.exists(os.path.join(folder, layout.DEAD_MARKER)):
            kept[job.key] = run
        else:
            guard.remove(job.out, folder, what=layout.RUN_FOLDER, tail=layout.NOTHING_TOUCHED)
    return kept
