"""``compare_arms(CompareRequest) -> CompareOutcome``: what ``evalfmt compare`` does between reading its
options and printing: score each arm's recorded sessions, decide the rows, write the receipt."""

from __future__ import annotations

import os
from dataclasses import dataclass

from .. import ir
from ..errors import EvalfmtError, UsageError
from ..writeset import atomic_write
from . import detect as detect_mod
from . import judges
from . import receipt as receipt_mod
from .compare import Comparison, compare
from .layout import CANDIDATE
from .tags import filter_set, parse as parse_tags
from .triggers import TriggerScore, score_selections


@dataclass(frozen=True)
class CompareRequest:
    """``where``: the path the sets were read from (for messages); ``skill_dir``: its skill folder when
    there is one (the receipt's skill name and content digest); ``arms``: arm name -> runs folder."""

    where: str
    sets: list[ir.EvalSet]
    arms: dict[str, str]
    skill_dir: str | None = None
    k: int | None = None
    detection: str = detect_mod.DEFAULT
    judge: str = "none"
    judge_command: str | None = None
    tags: tuple[str, ...] = ()
    selections: str | None = None
    receipt: str | None = None
    run_id: str | None = None
    check_timeout: float = 120.0


@dataclass
class CompareOutcome:
    comparison: Comparison
    triggers: TriggerScore | None = None
    receipt_path: str | None = None


def compare_arms(request: CompareRequest) -> CompareOutcome:
    detect_mod.get(request.detection)
    for name, folder in request.arms.items():
        if not os.path.isdir(folder):
            raise EvalfmtError(f"{folder}: no such runs folder (arm '{name}')")
    if CANDIDATE not in request.arms or len(request.arms) < 2:
        raise UsageError("give --arm candidate=RUNS_DIR and at least one opponent (--arm baseline=RUNS_DIR)")
    judge = judges.make(request.judge, request.judge_command)
    selected = parse_tags(request.tags)
    where = request.where
    trig = score_selections(request.sets, request.selections, where) if request.selections is not None else None
    sets = [filter_set(s, selected) for s in request.sets]
    sets = [s for s in sets if s.cases or (s.suite is not None and s.suite.entries)]
    if not sets:
        raise EvalfmtError(f"{where}: no cases or suite to compare"
                           + (f" with the tag{'s' if len(selected) > 1 else ''} {', '.join(selected)}"
                              if selected else ""))
    if len(sets) > 1:
        raise EvalfmtError(f"{where} holds {len(sets)} eval sets; give one skill folder")
    cmp = compare(sets[0], dict(request.arms), k=request.k, detection=request.detection, judge=judge,
                  timeout=request.check_timeout)
    if request.receipt is not None:
        made = receipt_mod.receipt(cmp, skill_dir=request.skill_dir, triggers=trig, rid=request.run_id)
        atomic_write(request.receipt, made.dumps())
    return CompareOutcome(cmp, trig, request.receipt)
