"""``evalfmt transpile``: per-skill evals.json from EVAL.yaml (and any other format), in two layouts.

- seed (default): ``<out-dir>/<skill>/evals.json`` = ``{"tests": [{"id", "input", "should_trigger"}]}``
  from the IR (:mod:`evalfmt.route`); out-dir defaults to ``.agentv/skills/`` in the folder holding
  each input. Inputs sharing an output folder are routed together, in the order given.
- agentv: the files ``agentv transpile`` 4.42.4 writes (:mod:`evalfmt.formats.agentv.transpile`); each
  input on its own, out-dir defaulting to the input's folder. An agentv input is transpiled from its
  YAML as written (as agentv does), and refused only where agentv refuses it: the reader's findings
  (a near-miss key, a test without input) are lint's and validate's, not a reason to write nothing
  where agentv writes. Any other format is first written as agentv data from the IR.

:func:`plan` computes everything and writes nothing; :func:`apply` writes a plan (atomically, never
outside an output folder, never rewriting an unchanged file); :func:`check` compares it with the disk.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .. import formats, guard
from ..discover import agentv_output, discover, seed_sources, source_of
from ..errors import Diagnostic, EvalfmtError, LoadError, sort_diagnostics
from ..formats.computed import leave_out
from ..fsio import write_files
from ..fsview import DISK
from ..paths import default_out, repository
from ..route import route
from ..formats.agentv.transpile import AgentvError, transpile, transpile_file

if TYPE_CHECKING:  # pragma: no cover
    from ..discover import Unit

LAYOUTS = ("seed", "agentv")


@dataclass
class Plan:
    #: output path -> text, in the order they are produced
    files: dict[str, str] = field(default_factory=dict)
    #: output path -> the folder it must stay inside
    roots: dict[str, str] = field(default_factory=dict)
    #: lines for stderr in the order they happened, without the ``evalfmt: `` prefix (tests not
    #: routed; in the agentv layout its warnings and failures, as agentv prints them)
    notes: list[str] = field(default_factory=list)
    #: structural problems; any error means nothing may be written
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: agentv-layout failures, as agentv reports them (``Error: <message>``); nothing may be written
    failures: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def ok(self) -> bool:
        return not self.errors and not self.failures


def plan(paths: list[str], layout: str = "seed", out_dir: str | None = None, fmt: str | None = None,
         skill: str | None = None) -> Plan:
    if layout not in LAYOUTS:
        raise EvalfmtError(f"unknown layout '{layout}' (use seed or agentv)")
    for p in paths:
        if not os.path.exists(p):
            raise EvalfmtError(f"{p}: no such file or directory")
    if layout == "seed":
        return _plan_seed(paths, out_dir, fmt, skill)
    return _plan_agentv(paths, out_dir, fmt)


# ------------------------------------------------------------------------------------------ seed


def _plan_seed(paths: list[str], out_dir: str | None, fmt: str | None, skill: str | None) -> Plan:
    result = Plan()
    groups: dict[str, list[Unit]] = {}
    for path in paths:
        for unit in discover(path, force=fmt, fs=DISK):
            if unit.path != path and agentv_output(unit.path, fs=DISK):
                continue  # found in a folder: the agentv layout's output beside its EVAL.yaml is no input
            root = out_dir if out_dir is not None else default_root(unit.path, "seed", unit.format)
            groups.setdefault(root, []).append(unit)
    for root, units in groups.items():
        inputs = _with_sources(root, units) if out_dir is None else [(u, True) for u in units]
        _route_into(root, inputs, skill, result)
    result.diagnostics = _dedupe(result.diagnostics)
    return result


def _static(sets: list, notes: list[str]) -> list:
    """The eval sets without the cases whose prompt their tool computes when it runs (a skillgym
    ``prompt: buildPrompt(...)``: evalfmt cannot know it), each named in ``notes``."""
    out = []
    for es in sets:
        es, left_out = leave_out(es)
        notes.extend(f"not transpiled: {line}" for line in left_out)
        out.append(es)
    return out

def _with_sources(root: str, given: list[Unit]) -> list[tuple[Unit, bool]]:
    """The inputs of the default output folder ``root``: the units given and every other source of
    it (:func:`evalfmt.discover.seed_sources`; lint's EV505 compares with the same), in path order (a
    unit given inside a terum skill at its skill's place), each with whether it was given."""
    sources = seed_sources(root, fs=DISK)
    covered = {s.path for s in (source_of(u.path, sources) for u in given) if s is not None}

    def place(unit: Unit) -> str:
        found = source_of(unit.path, sources)
        return found.path if found is not None else os.path.normpath(unit.path)

    inputs = [(u, True) for u in given] + [(s, False) for s in sources if s.path not in covered]
    return sorted(inputs, key=lambda pair: place(pair[0]))


def _route_into(root: str, inputs: list[tuple[Unit, bool]], skill: str | None, result: Plan) -> None:
    """Read ``inputs`` (unit, given) and route them into ``root``: the files of the skills the given
    units route to. A source that was not given and routes to one of them is named in a note and its
    errors stop the transpile; its other notes are not printed, and it is left out when it routes to
    none of them."""
    reads = [(unit, given, formats.read_unit(unit, fs=DISK)) for unit, given in inputs]
    wanted = {name for _u, given, read in reads if given for name in route(read.sets, skill).skills}
    sets = []
    quiet: set[str] = set()
    for unit, given, read in reads:
        if not given and not wanted & set(route(read.sets, skill).skills):
            continue
        sets.extend(_static(read.sets, result.notes))
        result.diagnostics.extend(read.diagnostics)
        if given:
            result.notes.extend(f"note: {n}" for n in read.notes)
        else:
            result.notes.append(f"note: also read {unit.path}: it transpiles into {root} too")
            quiet.add(os.path.abspath(unit.path))
    routed = route(sets, skill)
    result.diagnostics.extend(routed.diagnostics)
    for where, test in routed.unrouted:
        if not _within(where.rsplit(":", 1)[0], quiet):
            result.notes.append(f"not routed: {where}: test '{test}' has no skill-trigger")
    for rel, text in routed.files().items():
        if rel.split("/")[0] in wanted:
            result.files[os.path.join(root, rel)] = text
            result.roots[os.path.join(root, rel)] = root


def _within(path: str, folders: set[str]) -> bool:
    """True when ``path`` is one of ``folders`` (files or folders, absolute) or lies in one of them."""
    full = os.path.abspath(path)
    return any(full == f or full.startswith(f.rstrip(os.sep) + os.sep) for f in folders)


def default_root(path: str, layout: str, fmt: str | None = None) -> str:
    """The output folder without ``-o`` (:func:`evalfmt.paths.default_out`), refused by the one path guard
    when it resolves outside the repository holding the input (the nearest ``.git`` upward; without
    one, the folder the default is made in): a repository that commits ``.agentv -> ../elsewhere``
    does not get to choose where evalfmt writes. ``-o`` writes there on purpose."""
    root = default_out(path, layout, fmt, fs=DISK)
    folder = (os.path.dirname(os.path.dirname(root)) or ".") if layout == "seed" else root
    repo = repository(os.path.abspath(folder), fs=DISK)
    guard.check(repo or folder, root, "write into the default output folder",
                what="the repository" if repo else "the folder", tail=f"nothing written; give -o {root} to write there "
                "on purpose")
    return root


def _dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    return sort_diagnostics(diags)


# ---------------------------------------------------------------------------------------- agentv


def _plan_agentv(paths: list[str], out_dir: str | None, fmt: str | None) -> Plan:
    result = Plan()
    owner: dict[str, str] = {}
    for path in paths:
        for unit in discover(path, force=fmt, fs=DISK):
            if unit.note is not None:
                result.notes.append(f"note: {unit.path}: {unit.note}")
                continue
            try:
                produced = _agentv_unit(unit, result.notes)
            except AgentvError as exc:
                result.notes.extend(f"warning: {w}" for w in exc.warnings)
                result.notes.append(exc.message)
                result.failures.append(exc.message)
                continue
            if produced is None:
                continue
            outcome, notes = produced
            result.notes.extend(f"warning: {w}" for w in notes)
            root = out_dir if out_dir is not None else default_root(unit.path, "agentv")
            for name, text in outcome.items():
                target = os.path.join(root, name)
                if target in owner and owner[target] != unit.path:
                    raise EvalfmtError(f"{target} would be written from both {owner[target]} and {unit.path}; "
                                       "give them different --out folders")
                owner[target] = unit.path
                result.files[target] = text
                result.roots[target] = root
    if result.diagnostics:  # (sorted, duplicates removed)
        result.diagnostics = _dedupe(result.diagnostics)
    return result


def _agentv_unit(unit, notes: list[str]) -> tuple[dict[str, str], list[str]] | None:
    """The agentv layout of one unit: (file name -> text, warnings). AgentvError as agentv fails. Cases
    another format computes when it runs are left out, each named in ``notes``."""
    source = os.path.basename(unit.path.rstrip("/\\")) or unit.path
    if unit.format == "agentv":
        try:
            res = transpile_file(unit.path, fs=DISK)
        except LoadError as exc:
            raise AgentvError(str(exc)) from None
        return res.files(), res.warnings
    read = formats.read_unit(unit, fs=DISK)
    errors = [d for d in read.diagnostics if d.severity == "error"]
    if errors:
        raise AgentvError(errors[0].format())
    # the agentv writer is loaded only for another format's file in the agentv layout, 15 ms to import
    # (python -X importtime)
    from ..formats.agentv.writer import to_data

    out: dict[str, str] = {}
    warnings: list[str] = []
    for es in _static(read.sets, notes):
        data, _losses = to_data(es)
        res = transpile(data, source)
        if not res.skills:
            raise AgentvError("No output produced (no tests found)", warnings + res.warnings)
        warnings.extend(res.warnings)
        out.update(res.files())
    return out, warnings


# ----------------------------------------------------------------------------------- disk side


def apply(p: Plan, notify=None) -> list[str]:
    """Write the plan's files (:func:`evalfmt.api.write_files`: every path checked inside its folder
    before the first write, the folders locked, the set atomic, unchanged files left alone).
    Returns the paths written."""
    if not p.ok:
        raise EvalfmtError("refusing to write: the transpile has errors")
    return write_files(p.files, p.roots, notify)


def check(p: Plan) -> list[tuple[str, str]]:
    """(path, 'missing' | 'differs') for every planned file that is not on disk as planned."""
    drift = []
    for path, text in p.files.items():
        try:
            with open(path, "rb") as fh:
                current = fh.read()
        except FileNotFoundError:
            drift.append((path, "missing"))
            continue
        except OSError:
            drift.append((path, "missing"))
            continue
        if current != text.encode("utf-8"):
            drift.append((path, "differs"))
    return drift
