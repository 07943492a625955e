"""The executor: score recorded agent sessions against eval checks, compare arms, write receipts.

Layers (import top-down only): ``sources`` and ``session`` (what a session reader is made of, the
normalised session model) -> ``claude_code``, ``skillgym_report``, ``detect`` -> ``transcripts`` (the
registry of session sources), ``layout`` (the run folder), ``shell``, ``runners`` -> ``checks`` (one case
against one session), ``triggers``, ``verdict``, ``judges`` -> ``compare`` (arms, rows, verdict) ->
``execute``, ``receipt`` -> the entry points of the commands, each ``f(Request) -> Outcome``:
``run_skill(RunRequest)`` (``skillrun``), ``compare_arms(CompareRequest)`` (``arms``),
``score_session(ScoreRequest)`` (``targets``), ``check_triggers(TriggersRequest)`` (``trigger_check``),
``merge_runs(MergeRequest)`` (``merge``: shards into one run; ``manifest``, ``scores`` and ``resume`` hold
the run's plan, the kept session scores and ``--resume``; ``ray_runner`` the ``ray`` runner).
Every public function takes IR objects and sessions and returns plain dataclasses; nothing here prints
(but ``run``'s progress on stderr). See docs/scoring.md, docs/running.md and docs/receipts.md.
"""

from __future__ import annotations

import importlib
from typing import Any

#: name -> module of the entry points, imported when first used (``evalfmt.run.run_skill``)
_API = {
    "run_skill": "skillrun", "RunRequest": "skillrun", "RunOutcome": "skillrun",
    "compare_arms": "arms", "CompareRequest": "arms", "CompareOutcome": "arms",
    "score_session": "targets", "ScoreRequest": "targets", "ScoreOutcome": "targets",
    "check_triggers": "trigger_check", "TriggersRequest": "trigger_check", "TriggersOutcome": "trigger_check",
    "merge_runs": "merge", "MergeRequest": "merge",
}


def __getattr__(name: str) -> Any:
    if name in _API:
        return getattr(importlib.import_module(f"{__name__}.{_API[name]}"), name)
    raise AttributeError(f"module 'evalfmt.run' has no attribute {name!r}")
