"""Receipts: terum's receipt fields (schema_version 2) plus each row with the failed checks per arm.

The schema is documented field by field in docs/receipts.md: that page is the contract for the
engineers who run agents (they write the same receipts) and render reports (they read them). Build
one with :func:`build`; :func:`dumps` gives the bytes (sorted nowhere: keys keep the documented order).
"""

from __future__ import annotations

import hashlib
import os
from datetime import datetime, UTC
from typing import Any

from .. import __version__
from ..receipt import SCHEMA_VERSION, Receipt
from .compare import Comparison
from .triggers import TriggerScore, skill_meta

#: top-level folders of a skill that are eval assets, left out of the content digest
EXCLUDED_FROM_DIGEST = ("evals", "fixtures")


def run_id(now: datetime | None = None) -> str:
    """``YYYYMMDDTHHMMSSZ`` in UTC (lexicographic order is chronological)."""
    now = now or datetime.now(UTC)
    return now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def content_digest(skill_dir: str) -> str:
    """``sha256:<hex>`` over the skill folder without its top-level ``evals/`` and ``fixtures/``:
    for each regular file in sorted relative-path order, the path (POSIX, UTF-8), a NUL, the size in
    decimal, a NUL, then the bytes. Symlinks are hashed as ``-> target``. evalfmt's own digest: it
    identifies the skill bytes a receipt measured; it is not byte-compatible with terum's."""
    return tree_digest(skill_dir, EXCLUDED_FROM_DIGEST)


def tree_digest(top: str, excluded: tuple[str, ...] = ()) -> str:
    """``sha256:<hex>`` over the files under ``top`` (without the top-level names in ``excluded``),
    as :func:`content_digest` describes. Also the digest of a skill's ``evals/`` in a run's plan."""
    h = hashlib.sha256()
    root = os.path.abspath(top)
    entries = []
    for folder, dirs, files in os.walk(root):
        rel_folder = os.path.relpath(folder, root)
        if rel_folder == ".":
            dirs[:] = [d for d in dirs if d not in excluded]
        dirs.sort()
        for name in files:
            full = os.path.join(folder, name)
            entries.append((os.path.relpath(full, root).replace(os.sep, "/"), full))
        for d in list(dirs):
            if os.path.islink(os.path.join(folder, d)):
                sub = os.path.join(folder, d)
                entries.append((os.path.relpath(sub, root).replace(os.sep, "/"), sub))
    for rel, full in sorted(entries):
        if os.path.islink(full):
            data = ("-> " + os.readlink(full)).encode("utf-8", "surrogateescape")
        else:
            try:
                with open(full, "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
        h.update(rel.encode("utf-8", "surrogateescape") + b"\0" + str(len(data)).encode() + b"\0")
        h.update(data)
    return "sha256:" + h.hexdigest()


def build(cmp: Comparison, *, skill_dir: str | None = None, triggers: TriggerScore | None = None,
          rid: str | None = None, timestamp: str | None = None, model: str | None = None,
          judge_model: str | None = None, cc_version: str | None = None, runner_handle: str = "local",
          extra_provenance: dict[str, Any] | None = None) -> dict[str, Any]:
    """The receipt of a comparison. ``rid``/``timestamp`` default to now (pass them for reproducible output)."""
    now = datetime.now(UTC)
    meta = skill_meta(skill_dir) if skill_dir else {}
    given = meta.get("metadata")
    metadata = given if isinstance(given, dict) else {}
    skill_id = metadata.get("id") if isinstance(metadata.get("id"), str) else None
    skill_name = os.path.basename(os.path.abspath(skill_dir)) if skill_dir else cmp.skill
    provenance: dict[str, Any] = {
        "runner_handle": runner_handle,
        "engine_version": f"evalfmt {__version__}",
        "engine_commit": "unknown",
        "cc_version": cc_version,
        "model": model,
        "judge_model": judge_model,
        "k": cmp.k,
        "cases": list(cmp.units),
        "arm_skill_lists": cmp.arm_skill_lists(),
        "timestamp": timestamp or now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "session_models": {arm: next((r.model for r in cmp.runs[arm] if r.model), None) for arm in cmp.arms},
        "trigger_detection": cmp.detection,
        "judge": cmp.judge,
    }
    if extra_provenance:
        provenance.update(extra_provenance)
    return {
        "schema_version": SCHEMA_VERSION,
        "skill_id": skill_id,
        "skill_name": skill_name,
        "version": None,
        "content_digest": content_digest(skill_dir) if skill_dir else None,
        "run_id": rid or run_id(now),
        "verdict": cmp.verdict,
        "attribution": cmp.attribution(),
        "execution_status": cmp.status,
        "expected_rows": cmp.expected_rows,
        "scored_rows": cmp.scored_rows,
        "comparisons": {f"candidate-vs-{opp}": cmp.comparisons[opp].to_json(cmp.sign_p(opp)) for opp in cmp.opponents},
        "arm_scores": cmp.arm_scores(),
        "per_case": per_case(cmp),
        "case_runs": cmp.case_runs(),
        "triggers": triggers.receipt() if triggers is not None else None,
        "efficiency": cmp.efficiency(),
        "provenance": provenance,
        "summary_lines": {f"candidate-vs-{opp}": cmp.summary_line(opp) for opp in cmp.opponents},
        "rows": [row_json(r) for r in cmp.rows],
    }


def receipt(cmp: Comparison, **options: Any) -> Receipt:
    """The receipt of a comparison as the receipt model (:func:`build`'s document, checked)."""
    return Receipt.from_json(build(cmp, **options), "the receipt evalfmt built")


def row_json(r) -> dict[str, Any]:
    arms = {"candidate": (r.candidate, r.candidate_error), r.opponent: (r.opponent_result, r.opponent_error)}
    return {
        "case": r.case,
        "unit": r.unit,
        "repetition": r.repetition,
        "opponent": r.opponent,
        "outcome": r.outcome,
        "reason": r.reason,
        "detail": r.detail,
        "scored": r.scored,
        "arms": {
            arm: {
                "dead": err is not None,
                "error": err,
                "passed": None if err is not None or res is None else res.passed,
                "failed_checks": [] if res is None else res.failed,
                "checks": [] if res is None else [c.to_json() for c in res.checks],
            }
            for arm, (res, err) in arms.items()
        },
    }


def per_case(cmp: Comparison) -> list[dict[str, Any]]:
    """terum's display list: one entry per (case or suite entry x repetition), each arm's verdict and
    ``[name, passed]`` checks, and each comparison's outcome."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for r in cmp.rows:
        key = (r.case, r.repetition)
        entry = out.setdefault(key, {"case": r.case, "repetition": r.repetition, "arms": {}, "outcomes": {}})
        for arm, res, err in (("candidate", r.candidate, r.candidate_error),
                              (r.opponent, r.opponent_result, r.opponent_error)):
            entry["arms"][arm] = {"passed": None if err is not None or res is None else res.passed,
                                  "checks": [] if res is None else [[c.check, c.passed] for c in res.checks]}
        entry["outcomes"][f"candidate-vs-{r.opponent}"] = r.outcome
    return list(out.values())


def dumps(receipt: dict[str, Any]) -> bytes:
    """The receipt as JSON text, two-space indented, ending with a newline, through the receipt model
    (:class:`evalfmt.receipt.Receipt`: what evalfmt writes is what its report reads)."""
    return Receipt.from_json(receipt, "the receipt evalfmt built").dumps()
