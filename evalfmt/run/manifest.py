"""A run's plan (``DIR/plan.json``): what a run folder is a run of, written before any session starts.

It names the eval set (the skill's content digest, the digest of its ``evals/``, the cases and the
suite in plan order), k, the arms, the shard (``--shard I/N``) and the cases of that shard, and the
settings the receipt records. ``--resume`` checks the plan of the folder it continues against its own
options, and ``evalfmt merge`` checks the shards' plans against each other; both refuse a difference
on one line naming it.

Shards: the units (cases, then ``suite``) in plan order are dealt round-robin, unit ``i`` (0-based)
to shard ``i mod N + 1``. The slice depends only on the eval set (its units, after ``--case`` and
``--tags``) and N; every session of a unit (each arm, each repetition) lands in the unit's shard, so
every session is in exactly one shard and shard sizes differ by at most one case.
"""

from __future__ import annotations

import os
import re
from typing import Any, TypeVar
from collections.abc import Sequence

import orjson

from ..errors import EvalfmtError, UsageError
from ..writeset import atomic_write
from . import layout

PLAN = layout.PLAN
VERSION = 1
#: the fields two runs must agree on to be parts of one run (resume, merge), with the words that name them
SAME_RUN = (("skill_name", "skill"), ("content_digest", "skill content digest"), ("evals_digest", "eval set (evals/)"),
            ("units", "case list"), ("k", "k"), ("arms", "arm list"))
#: the settings the receipt records; shards must agree on them (``jobs`` aside) and so must a resume
#: (``jobs`` and ``default_timeout_minutes`` aside: a resume may give hung agents more time)
SETTINGS = ("runner", "agent_command", "replay_from", "model", "detection", "judge", "judge_command", "check_timeout",
            "default_timeout_minutes", "cases", "tags", "eval_format")
_LABELS = {"agent_command": "agent command", "replay_from": "replay source", "detection": "trigger detection",
           "judge_command": "judge command", "check_timeout": "check timeout (s)",
           "default_timeout_minutes": "session timeout (minutes)", "cases": "--case selection",
           "tags": "--tag selection", "eval_format": "eval format"}
_SHARD = re.compile(r"([1-9][0-9]*)/([1-9][0-9]*)")

T = TypeVar("T")


def parse_shard(text: str) -> tuple[int, int]:
    """``I/N`` (1 <= I <= N) as (I, N); UsageError otherwise."""
    m = _SHARD.fullmatch(text.strip())
    if not m or int(m.group(1)) > int(m.group(2)):
        raise UsageError(f"--shard takes I/N with 1 <= I <= N (e.g. 2/4), not '{text}'")
    return int(m.group(1)), int(m.group(2))


def shard_slice(units: Sequence[T], index: int, count: int) -> list[T]:
    """The units of shard ``index`` of ``count`` (1-based): every ``count``-th unit from the ``index``-th."""
    return list(units[index - 1::count])


def build(*, skill_dir: str, skill_name: str, content_digest: str, evals_digest: str | None, units: list[str],
          k: int, arms: Sequence[str], shard: tuple[int, int] | None, shard_units: list[str],
          settings: dict[str, Any], jobs: int, run_id: str, cc_version: str | None,
          triggers: dict[str, Any] | None, cwd: str) -> dict[str, Any]:
    return {
        "plan": VERSION, "skill_name": skill_name, "content_digest": content_digest, "evals_digest": evals_digest,
        "units": list(units), "k": k, "arms": list(arms),
        "shard": None if shard is None else {"index": shard[0], "count": shard[1]}, "shard_units": list(shard_units),
        "settings": {name: settings.get(name) for name in SETTINGS}, "jobs": jobs, "run_id": run_id,
        "cc_version": cc_version, "triggers": triggers,
        "skill_dir": os.path.abspath(skill_dir), "skill_dir_relative": os.path.relpath(skill_dir, cwd),
    }


def write(out: str, plan: dict[str, Any]) -> None:
    atomic_write(os.path.join(out, PLAN), orjson.dumps(plan, option=orjson.OPT_INDENT_2) + b"\n")


def read(folder: str, what: str) -> dict[str, Any]:
    """The plan of the run folder ``folder``; EvalfmtError (``what`` names the folder's role) when it
    has none or it is unreadable."""
    path = os.path.join(folder, PLAN)
    try:
        with open(path, "rb") as fh:
            data = orjson.loads(fh.read())
    except FileNotFoundError:
        raise EvalfmtError(f"{what} {folder}: not a run folder of this evalfmt (no {PLAN})") from None
    except OSError as exc:
        raise EvalfmtError(f"{what} {folder}: cannot read {PLAN}: {exc.strerror or exc}") from None
    except orjson.JSONDecodeError:
        raise EvalfmtError(f"{path}: not JSON") from None
    if not isinstance(data, dict) or data.get("plan") != VERSION:
        raise EvalfmtError(f"{path}: not a run plan of this evalfmt (plan version {VERSION})")
    return data


def _show(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, dict) and set(value) == {"index", "count"}:
        return f"{value['index']}/{value['count']}"
    return "none" if value is None else repr(value) if isinstance(value, str) else str(value)


def difference(mine: dict[str, Any], theirs: dict[str, Any], *, ignore: tuple[str, ...] = (),
               shard: bool = True) -> tuple[str, str, str] | None:
    """The first field two plans disagree on, as (its name, ``mine``'s value, ``theirs``'s value), or None."""
    fields: list[tuple[str, str, Any, Any]] = [(key, label, mine.get(key), theirs.get(key)) for key, label in SAME_RUN]
    if shard:
        fields.append(("shard", "shard", mine.get("shard"), theirs.get("shard")))
    a, b = mine.get("settings") or {}, theirs.get("settings") or {}
    fields += [(name, _LABELS.get(name, name), a.get(name), b.get(name)) for name in SETTINGS]
    for key, label, x, y in fields:
        if key not in ignore and x != y:
            return label, _show(x), _show(y)
    return None


def provenance(plan: dict[str, Any]) -> dict[str, Any]:
    """What ``evalfmt run`` adds to the receipt's provenance, in its order."""
    settings = plan["settings"]
    out: dict[str, Any] = {"runner": settings["runner"], "jobs": plan["jobs"],
                           "default_timeout_minutes": settings["default_timeout_minutes"],
                           "eval_format": settings.get("eval_format")}
    if settings["runner"] == "command" or (settings["runner"] != "replay" and settings["agent_command"] is not None):
        out["agent_command"] = settings["agent_command"]  # the command runner's, or another runner's (ray)
    if settings["runner"] == "replay":
        out["replay_from"] = settings["replay_from"]
    return out
