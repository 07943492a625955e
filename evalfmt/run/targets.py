"""``score_session(ScoreRequest) -> ScoreOutcome``: what ``evalfmt score`` does between reading its
options and printing: pick the case (or suite, or one test) to score and score one recorded session."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .. import ir
from ..errors import EvalfmtError
from . import detect as detect_mod
from .checks import CaseResult, score_case, score_suite
from .session import Session
from .tags import parse as parse_tags, selected as tag_selected
from .transcripts import read_session


@dataclass(frozen=True)
class ScoreRequest:
    """``where``: the path ``sets`` were read from (for messages)."""

    where: str
    sets: list[ir.EvalSet]
    transcript: str
    case: str | None = None
    tags: tuple[str, ...] = ()
    sandbox: str | None = None
    subagent: bool = False
    detection: str = detect_mod.DEFAULT
    check_timeout: float = 120.0


@dataclass
class ScoreOutcome:
    session: Session
    results: list[CaseResult] = field(default_factory=list)


def score_session(request: ScoreRequest) -> ScoreOutcome:
    targets = pick_targets(request.sets, request.where, request.case, parse_tags(request.tags))
    session = read_session(request.transcript, subagent=request.subagent)
    sandbox = request.sandbox
    if sandbox is not None and not os.path.isdir(sandbox):
        raise EvalfmtError(f"{sandbox}: no such sandbox folder")
    results: list[CaseResult] = []
    for target, extra in targets:
        if isinstance(target, ir.Suite):
            results.extend(score_suite(target, session, sandbox, request.detection, request.check_timeout))
        else:
            results.append(score_case(target, session, sandbox, request.detection, extra, request.check_timeout))
    return ScoreOutcome(session, results)


def pick_targets(sets: list[ir.EvalSet], path: str, name: str | None,
                 tags: list[str] | None = None) -> list[tuple[ir.Case, list[ir.Check]]]:
    """``(case or suite, extra checks)`` pairs to score; extra checks are the set's checks every case
    gets (``EvalSet.checks``: agentv's file-level assertions, promptfoo's ``defaultTest.assert``).
    With ``tags``, only the cases carrying one of them (skillgym's ``--tag``)."""
    found = _all_targets(sets)
    if tags:
        found = [t for t in found if tag_selected(t[0], tags)]
        if not found:
            raise EvalfmtError(f"{path}: no case has the tag{'s' if len(tags) > 1 else ''} {', '.join(tags)}")
    if name is not None:
        return _named(found, path, name)
    if not found:
        raise EvalfmtError(f"{path}: no cases to score")
    if len(found) > 1:
        raise EvalfmtError(f"{path} holds {len(found)} cases ({', '.join(t[0].name for t in found)}); "
                           "pick one with --case NAME")
    return found


def _all_targets(sets: list[ir.EvalSet]) -> list[tuple[ir.Case, list[ir.Check]]]:
    """Each case with its set's checks, and each suite (with none)."""
    found: list[tuple[ir.Case, list[ir.Check]]] = []
    for evalset in sets:
        extra = list(evalset.checks)
        found.extend((case, extra) for case in evalset.cases)
        if evalset.suite is not None:
            found.append((evalset.suite, []))
    return found


def _named(found: list[tuple[ir.Case, list[ir.Check]]], path: str, name: str) -> list[tuple[ir.Case, list[ir.Check]]]:
    """The first target named ``name``, else a suite entry of that name as a case of its own."""
    picked = [t for t in found if t[0].name == name]
    if picked:
        return picked[:1]
    for suite, _ in found:
        if isinstance(suite, ir.Suite):
            entry = next((e for e in suite.entries if e.name == name), None)
            if entry is not None:
                return [(ir.Case(name=entry.name, checks=entry.checks), [])]
    known = ", ".join(t[0].name for t in found) or "none"
    raise EvalfmtError(f"{path}: no case named '{name}' (cases: {known})")
