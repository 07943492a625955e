"""A finished session's score, kept beside it (``DIR/<arm>/<case>/[<repetition>/]score.json``).

``evalfmt run`` writes it last, once the session is scored, so its presence means the session
finished: ``--resume`` keeps a session whose score says it was alive and runs the others again, and
``evalfmt merge`` builds the merged receipt from the shards' scores without running any check again
(a sandbox that travelled between machines as a CI artifact may have lost its file modes). The file
holds only plain JSON and is read back into the same :class:`~evalfmt.run.compare.ArmRun`.
"""

from __future__ import annotations

import os
from typing import Any

import orjson

from .checks import CaseResult, CheckResult
from .compare import ArmRun
from . import layout
from .layout import TRANSCRIPT

SCORE = layout.SCORE
#: the version of this file's shape
VERSION = 1


def to_json(run: ArmRun) -> dict[str, Any]:
    return {"score": VERSION, "arm": run.arm, "unit": run.unit, "repetition": run.repetition, "error": run.error,
            "results": [{"name": r.name, "expected_fail": r.expected_fail,
                         "checks": [[c.check, c.kind, c.passed, c.detail] for c in r.checks]} for r in run.results],
            "tail": run.tail, "efficiency": run.efficiency, "model": run.model, "skills": run.skills,
            "skipped_lines": run.skipped_lines}


def from_json(data: dict[str, Any], path: str | None) -> ArmRun:
    results = [CaseResult(r["name"], [CheckResult(c[0], c[1], c[2], c[3]) for c in r["checks"]],
                          expected_fail=bool(r["expected_fail"])) for r in data["results"]]
    return ArmRun(data["arm"], data["unit"], int(data["repetition"]), path=path, error=data["error"], results=results,
                  tail=data["tail"], efficiency=dict(data["efficiency"]), model=data["model"], skills=data["skills"],
                  skipped_lines=int(data["skipped_lines"]))


def write(folder: str, run: ArmRun) -> None:
    """``folder/score.json``, atomically (a killed driver leaves it whole or absent)."""
    path = os.path.join(folder, SCORE)
    tmp = path + ".tmp"
    with open(tmp, "wb") as fh:
        fh.write(orjson.dumps(to_json(run)) + b"\n")
    os.replace(tmp, path)


def read(folder: str, key: tuple[str, str, int]) -> ArmRun | None:
    """The score kept in ``folder`` for the session ``key`` (arm, case, repetition); None when there
    is none, it is unreadable, or it belongs to another session."""
    try:
        with open(os.path.join(folder, SCORE), "rb") as fh:
            data = orjson.loads(fh.read())
        if not isinstance(data, dict) or data.get("score") != VERSION:
            return None
        run = from_json(data, os.path.join(folder, TRANSCRIPT))
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError, ValueError, IndexError):
        return None
    return run if (run.arm, run.unit, run.repetition) == key else None

