"""``check_triggers(TriggersRequest) -> TriggersOutcome``: what ``evalfmt triggers`` does between reading
its options and printing: score a skill's trigger prompts against recorded selections, or make the
selections now with a selector (asking each prompt ``runs`` times) and score those."""

from __future__ import annotations

import os
from dataclasses import dataclass

from .. import ir
from ..discover import skill_root
from ..errors import EvalfmtError
from ..fsview import DISK
from ..writeset import atomic_write
from . import selectors
from .triggers import TriggerScore, catalog, read_selections, score_triggers


@dataclass(frozen=True)
class TriggersRequest:
    """``where``: the path ``sets`` were read from; ``selections``: a recorded selections file, or
    ``selector`` (a selector plugin's name) to make them now."""

    where: str
    sets: list[ir.EvalSet]
    skill: str | None = None
    selections: str | None = None
    selector: str | None = None
    selector_command: str | None = None
    runs: int = 1
    threshold: float = 0.5
    record: str | None = None
    model: str | None = None
    timeout: float = 120.0
    cwd: str = "."


@dataclass
class TriggersOutcome:
    score: TriggerScore
    skill: str | None
    #: every ask of every prompt, when a selector made the selections
    prompts: list[selectors.PromptRuns] | None = None


def skill_folder(path: str) -> str | None:
    """The skill folder ``path`` is or is inside (holding SKILL.md), or None."""
    root = path if os.path.isfile(os.path.join(path, "SKILL.md")) else skill_root(path, fs=DISK)
    return root if root is not None and os.path.isfile(os.path.join(root, "SKILL.md")) else None


def catalog_of(path: str) -> list[str]:
    """The catalog a selector is shown for the skill at ``path`` (one line per sibling skill)."""
    root = skill_folder(path)
    if root is None:
        raise EvalfmtError(f"{path}: not a skill folder (no SKILL.md)")
    return catalog(root)


def trigger_set(sets: list[ir.EvalSet], where: str, skill: str | None) -> tuple[ir.TriggerSet, str | None]:
    """The one trigger set of ``sets`` and the skill whose selection counts (None when unnamed)."""
    found = [s for s in sets if s.triggers is not None and s.triggers.prompts]
    if not found:
        raise EvalfmtError(f"{where}: no trigger prompts found")
    if len(found) > 1:
        raise EvalfmtError(f"{where} holds {len(found)} trigger sets; give one skill folder or triggers file")
    evalset = found[0]
    assert evalset.triggers is not None
    return evalset.triggers, skill or evalset.triggers.skill or (evalset.skill.name if evalset.skill else None)


def check_triggers(request: TriggersRequest) -> TriggersOutcome:
    triggers, name = trigger_set(request.sets, request.where, request.skill)
    if request.selector is None:
        assert request.selections is not None
        return TriggersOutcome(score_triggers(triggers, read_selections(request.selections), name), name)
    if not name:
        raise EvalfmtError(f"{request.where}: the trigger set names no skill (give the skill folder or --skill)")
    root = skill_folder(request.where)
    if root is None:
        raise EvalfmtError(f"{request.where}: not in a skill folder (no SKILL.md): the selector needs the catalog "
                           "of its library")
    selector = selectors.make(request.selector, selectors.SelectorOptions(
        command=request.selector_command, model=request.model, timeout=request.timeout, cwd=request.cwd))
    results = selectors.run_selections(selector, triggers, catalog(root), request.runs)
    if request.record is not None:
        atomic_write(request.record, b"".join(selectors.record_lines(results)))
    chosen = {pr.prompt: pr.selection(name, request.threshold) for pr in results}
    return TriggersOutcome(score_triggers(triggers, chosen, name), name, results)
