"""``evalfmt compare EVAL --runs DIR`` over trigger runs (the output folders of ``evalfmt run EVAL --skills``).

Two libraries are compared: the two of one trigger run (``--runs DIR`` of a run with ``--skills
baseline=A --skills candidate=B``), or one of each of two runs (``--runs baseline=RUN_A --runs
candidate=RUN_B``, or ``--arm``, each a run over one library; an arm folder of a run, ``RUN/<library>``,
names that library of it). Nothing runs again: each session's fired skills and check results are the ones
its run's receipt recorded (its sandbox is gone), and per skill recall, precision, F1 and fire rate, the
confusion tables, the rows, terum's verdict, net lift and sign test are computed as the run computes them
(:mod:`library`). A test whose rows tie on checks and that has criteria goes to ``--judge`` with the two
kept transcripts, as in a run.

Refused, each on one line: a trigger run mixed with a terum run's folder (their sessions are not of the
same tests), runs of other tests than the eval set holds, runs with different ``k``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from .. import ir
from ..errors import EvalfmtError, UsageError
from ..writeset import atomic_write
from . import judges, layout
from .checks import CaseResult, CheckResult
from .library import (LibraryRun, LibraryRunRequest, Session, Test, _dumps, decide_rows, folder_name,
                      receipt, score_arm, tests_of)
from .transcripts import SessionError, read_session

KIND = "trigger-run"


@dataclass(frozen=True)
class Source:
    """One side of the comparison: a trigger run's folder, its receipt and the library (arm) taken from it."""

    root: str
    receipt: dict[str, Any]
    arm: str


def trigger_receipt(folder: str) -> dict[str, Any] | None:
    """The receipt of the trigger run whose output folder is ``folder``; None when it is not one."""
    try:
        with open(os.path.join(folder, layout.RECEIPT), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("kind") == KIND else None


def locate(folder: str) -> tuple[str, dict[str, Any], str | None] | None:
    """(run folder, receipt, library named by the path or None) when ``folder`` is a trigger run's output
    folder or one of its library folders; None otherwise."""
    found = trigger_receipt(folder)
    if found is not None:
        return folder, found, None
    path = os.path.normpath(folder)
    parent = os.path.dirname(path) or "."
    found = trigger_receipt(parent)
    if found is not None and os.path.basename(path) in (found.get("libraries") or {}):
        return parent, found, os.path.basename(path)
    return None


def is_trigger_folder(folder: str) -> bool:
    return locate(folder) is not None


def sources(arms: dict[str, tuple[str, str]]) -> dict[str, Source]:
    """baseline and candidate from the folders given (arm name -> (option, folder)), in the order their
    sessions ran; one folder (``--runs DIR``, arm name ``""``) must hold both libraries."""
    found = {arm: locate(folder) for arm, (_, folder) in arms.items()}
    trigger = [a for a, f in found.items() if f is not None]
    other = [a for a, f in found.items() if f is None]
    if trigger and other:
        raise UsageError(f"{_named(arms, trigger[0])} is a trigger run's folder and {_named(arms, other[0])} is not: "
                         "a trigger run compares only with another trigger run of the same eval set")
    if "" in found:
        if len(found) > 1:
            raise UsageError(f"{_named(arms, '')} holds both libraries already: give no other runs folder")
        root, rec, _ = found[""]  # type: ignore[misc]
        libs = list(rec.get("libraries") or {})
        if sorted(libs) != [layout.BASELINE, layout.CANDIDATE]:
            raise UsageError(f"{_named(arms, '')} is a trigger run over one library ({', '.join(libs)}): compare two "
                             "with --runs baseline=RUN_A --runs candidate=RUN_B")
        return {arm: Source(root, rec, arm) for arm in libs}
    if sorted(found) != [layout.BASELINE, layout.CANDIDATE]:
        raise UsageError("give baseline=RUN_A and candidate=RUN_B, two trigger runs (--runs or --arm)")
    out: dict[str, Source] = {}
    for arm in (layout.BASELINE, layout.CANDIDATE):
        root, rec, lib = found[arm]  # type: ignore[misc]
        libs = list(rec.get("libraries") or {})
        if lib is None:
            if len(libs) != 1:
                raise UsageError(f"{_named(arms, arm)} holds {len(libs)} libraries ({', '.join(libs)}): name one, "
                                 f"as {arm}={os.path.join(arms[arm][1], libs[-1])}")
            lib = libs[0]
        out[arm] = Source(root, rec, lib)
    return out


def _named(arms: dict[str, tuple[str, str]], arm: str) -> str:
    option, folder = arms[arm]
    return f"{option} {arm}={folder}" if arm else f"{option} {folder}"


def _check(raw: Any) -> CheckResult:
    raw = raw if isinstance(raw, dict) else {}
    name = str(raw.get("check", ""))
    passed = raw.get("passed")
    return CheckResult(name, name.split(":", 1)[0], passed if isinstance(passed, bool) else None,
                       str(raw.get("detail", "")))


def _sessions(src: Source, arm: str, tests: list[Test], k: int, want_tails: bool) -> list[Session]:
    """The sessions the run recorded for ``src.arm``, renamed ``arm``, in the order of ``tests``."""
    recorded = {(s.get("test"), s.get("repetition")): s for s in src.receipt.get("sessions") or []
                if isinstance(s, dict) and s.get("arm") == src.arm}
    taken: set[str] = set()
    out = []
    for t in tests:
        folder = folder_name(t.id, taken)
        for rep in range(1, k + 1):
            rec = recorded.get((t.id, rep))
            sess = Session(arm, t.id, rep)
            if rec is None:
                sess.error = f"no session of {t.id} #{rep} in {src.root}"
            elif rec.get("dead"):
                sess.error = str(rec.get("error") or "dead")
            else:
                sess.fired = [str(f) for f in rec.get("fired") or []]
                sess.result = CaseResult(t.id, [_check(c) for c in rec.get("checks") or []])
                if want_tails and t.case.judge:
                    sess.tail = _tail(layout.session_folder(src.root, src.arm, folder, rep, k))
            out.append(sess)
    return out


def _tail(folder: str) -> str:
    try:
        return read_session(os.path.join(folder, layout.TRANSCRIPT)).tail(judges.TAIL_CHARS)
    except (SessionError, OSError):
        return ""


def _same_tests(src: Source, tests: list[Test], where: str) -> None:
    ran = [t.get("id") for t in src.receipt.get("tests") or [] if isinstance(t, dict)]
    have = [t.id for t in tests]
    if ran != have:
        missing = [t for t in have if t not in ran]
        extra = [str(t) for t in ran if t not in have]
        what = "; ".join(x for x in (f"not run: {', '.join(missing)}" if missing else "",
                                     f"not in the eval set: {', '.join(extra)}" if extra else "") if x)
        raise EvalfmtError(f"the trigger run {src.root} ran other tests than {where} holds ({what or 'another order'})")


def compare_trigger_runs(where: str, sets: list[ir.EvalSet], arms: dict[str, tuple[str, str]], *,
                         judge: str = "none", judge_command: str | None = None, run_id: str | None = None,
                         receipt_path: str | None = None) -> tuple[LibraryRun, dict[str, Any]]:
    """candidate vs baseline over two libraries' recorded sessions: the run, and its receipt."""
    srcs = sources(arms)
    tests = tests_of(sets)
    k, mode = _comparable(srcs, tests, where)
    the_judge = judges.make(judge, judge_command)
    sessions: list[Session] = []
    for arm, src in srcs.items():
        sessions.extend(_sessions(src, arm, tests, k, the_judge.configured))
    skills = {arm: [str(x) for x in (s.receipt["libraries"][s.arm].get("skills") or [])] for arm, s in srcs.items()}
    order = {(s.test, s.repetition, s.arm): s for s in sessions}
    ordered = [order[(t.id, rep, arm)] for t in tests for rep in range(1, k + 1) for arm in srcs]
    scores = {arm: score_arm(arm, tests, [s for s in ordered if s.arm == arm], skills[arm]) for arm in srcs}
    run = LibraryRun(tests, skills, ordered, scores, k)
    run.rows, run.tally = decide_rows(tests, ordered, k, the_judge)
    folders = {arm: str(s.receipt["libraries"][s.arm].get("folder", "")) for arm, s in srcs.items()}
    request = LibraryRunRequest(where=where, sets=sets, libraries=folders, out=receipt_path or "", run_id=run_id,
                                detection=mode, judge=judge, judge_command=judge_command)
    data = receipt(run, request)
    data["compared"] = {arm: {"run": s.root, "library": s.arm, "run_id": s.receipt.get("run_id")}
                        for arm, s in srcs.items()}
    if receipt_path is not None:
        atomic_write(receipt_path, _dumps(data))
        run.receipt_path = receipt_path
    return run, data


def _comparable(srcs: dict[str, Source], tests: list[Test], where: str) -> tuple[int, str]:
    """The k and the trigger-detection mode both runs share; refuses runs that differ in either, or that
    ran other tests than ``where`` holds."""
    ks = {arm: s.receipt.get("k") for arm, s in srcs.items()}
    k = ks[layout.CANDIDATE]
    if len(set(ks.values())) != 1 or not isinstance(k, int):
        raise EvalfmtError(f"the trigger runs differ in k ({', '.join(f'{a} {v}' for a, v in sorted(ks.items()))}): "
                           "compare runs made with the same --k")
    for src in srcs.values():
        _same_tests(src, tests, where)
    modes = {s.receipt.get("trigger_detection") for s in srcs.values()}
    if len(modes) != 1:
        used = ", ".join(sorted(map(str, modes)))
        raise EvalfmtError(f"the trigger runs used different --trigger-detection modes ({used}): compare runs made "
                           "with the same mode")
    return k, str(modes.pop())
