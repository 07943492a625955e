"""EV505's seed layout: whether a committed ``<folder>/.agentv/skills/<skill>/evals.json`` is what
``evalfmt transpile`` writes there now.

The answer never depends on which files a run was given. A generated file's sources are every eval
file that writes into its output folder (:func:`evalfmt.discover.seed_sources`: the eval files in
``<folder>`` and its terum skills, routed together in path order, as ``transpile`` routes them), read
here when the run did not read them itself. A run compares the files of the skills its own eval files
route to, and any generated file it was given by path; the advice names every source of that file.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field

from .. import ir
from ..discover import seed_sources, source_of
from ..formats import read_unit
from ..fsview import View
from ..paths import SEED_FILE, seed_output
from ..route import Routed, route


@dataclass
class Folder:
    """One seed output folder a run touches."""

    #: the eval sets the run read whose default output folder this is
    members: list[ir.EvalSet] = field(default_factory=list)
    #: skills whose generated file the run was given by path
    targets: set[str] = field(default_factory=set)


@dataclass
class Source:
    """One source of a seed folder: its path (as the advice names it) and what it reads to."""

    path: str
    sets: list[ir.EvalSet]
    skills: set[str] = field(default_factory=set)


@dataclass
class Finding:
    path: str
    message: str


def folders(state: dict[str, Folder], given: list[str]) -> dict[str, Folder]:
    """``state`` (output folder -> :class:`Folder`, from the eval sets read) with the generated files
    among ``given`` added as targets."""
    for path in given:
        found = seed_output(path)
        if found is not None:
            state.setdefault(found[0], Folder()).targets.add(found[1])
    return state


def sources(root: str, members: list[ir.EvalSet], fs: View) -> list[Source]:
    """Every source of the output folder ``root``, in path order. The run's own eval sets stand for
    the source of the same path; a source the run read only part of (one file of a terum skill) or
    not at all is read whole; a set no source reads (read with ``--from``) is a source of its own."""
    units = seed_sources(root, fs=fs)
    read: dict[str, list[ir.EvalSet]] = {}
    loose: dict[str, list[ir.EvalSet]] = {}
    for es in members:
        path = os.path.normpath(es.source or "")
        unit = source_of(path, units)
        if unit is None:
            loose.setdefault(path, []).append(es)
        elif unit.path == path:
            read.setdefault(path, []).append(es)
    out = [Source(u.path, read.get(u.path) or read_unit(u, fs=fs).sets) for u in units]
    out += [Source(path, sets) for path, sets in loose.items()]
    out.sort(key=lambda s: s.path)
    for src in out:
        src.skills = set(route(src.sets).skills)
    return out


def check(root: str, folder: Folder, fs: View) -> list[Finding]:
    """The stale and missing generated files of ``root`` that ``folder``'s members and targets ask about."""
    if not fs.isdir(root):
        return []  # nothing committed there: nothing to compare (an editor's lint of an EVAL.yaml)
    srcs = sources(root, folder.members, fs)
    routed = route([es for s in srcs for es in s.sets])
    if routed.errors:
        return []  # the router's errors are reported on the eval files; there is no output to compare
    first = _first_member(folder.members)
    out = []
    for skill in routed.skills:
        if skill not in first and skill not in folder.targets:
            continue
        names = [s.path for s in srcs if skill in s.skills]
        finding = _compare(os.path.join(root, skill, SEED_FILE), routed, skill, names, first.get(skill), fs)
        if finding is not None:
            out.append(finding)
    return out


def _first_member(members: list[ir.EvalSet]) -> dict[str, str]:
    """skill -> the first file (in path order) of the run's own eval sets with a test routed to it."""
    first: dict[str, str] = {}
    for es in sorted(members, key=lambda e: os.path.normpath(e.source or "")):
        for skill, entries in route([es]).skills.items():
            span = entries[0].span
            first.setdefault(skill, span.file if span else os.path.normpath(es.source or ""))
    return first


def _compare(path: str, routed: Routed, skill: str, names: list[str], member: str | None, fs: View) -> Finding | None:
    """A finding when the committed ``path`` differs from ``routed``'s text for ``skill``, or is missing
    (reported on ``member``, the run's own file routed to it; not when the run has none)."""
    run = "run 'evalfmt transpile " + " ".join(shlex.quote(n) for n in names) + "' and commit the result"
    try:
        current = fs.read_bytes(path, 1 << 62)
    except OSError:
        return Finding(member, f"{path} is missing: {run}") if member is not None else None
    if current == routed.text(skill).encode("utf-8"):
        return None
    verb = "transpiles" if len(names) == 1 else "transpile"
    return Finding(path, f"stale: differs from what {_listed(names)} {verb} to; {run}")


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
