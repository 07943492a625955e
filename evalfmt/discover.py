"""Finding eval assets under a path and deciding which format reads each.

A *unit* is what one format reader reads at once: a terum skill folder (its whole ``evals/``), or
one file of another format. CLI.md: a PATH may be a file, a skill folder (holding ``SKILL.md``), an
``evals/`` folder, or any folder (searched recursively).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from . import formats
from .errors import EvalfmtError
from .formats.agentv import foreign, named_like_eval
from .formats.agentv.refs import owner, references
from .formats.terum import at_terum_path
from .formats.terum.paths import has_assets, is_skill_dir, read_or_reported
from .fsview import DISK, View
from .paths import SKIP_DIRS, default_out, skill_root  # skill_root: also used from here

#: The hidden folders agents keep project skills in (``<folder>/skills/<skill>/SKILL.md``): searched,
#: but only their ``skills/`` folder (docs/discovery.md lists which agent reads which).
AGENT_DIRS = frozenset({".agents", ".claude", ".codex", ".cursor", ".gemini", ".github", ".opencode",
                        ".windsurf"})


def searched(parent: str, name: str) -> bool:
    """Whether a folder search enters the sub-folder ``name`` of a folder whose own name is ``parent``.

    Hidden folders are skipped, except an agent's skill folder (``.github/skills/``: the agent folder,
    then only its ``skills/``) and a hidden catalogue inside a ``skills/`` folder
    (``skills/.curated/``); version control, dependencies, caches and build outputs never are."""
    if name in SKIP_DIRS:
        return False
    if parent in AGENT_DIRS:
        return name == "skills"
    if name.startswith("."):
        return name in AGENT_DIRS or parent == "skills"
    return True


@dataclass(frozen=True)
class Unit:
    """What one reader reads at once. ``options`` are keyword arguments for the reader (terum's
    ``forced`` and ``exclude``); a unit with a ``note`` is a file left unread, and why."""

    format: str
    path: str
    options: tuple = ()
    note: str | None = None


#: why a file at terum's paths outside a skill folder is not read
NOT_A_SKILL = ("not read: no SKILL.md in {root}, so it is not a terum skill's file (another tool's?); "
               "--from terum reads it as one")


def discover(path: str, force: str | None = None, exclude=None, *, fs: View = DISK) -> list[Unit]:
    """The units under ``path``. ``force`` names the format that reads ``path``: a file, or for
    ``terum`` a skill or evals/ folder (the other formats read single files; given a folder, they read the
    files of their format discovery finds in it). Forced, terum reads
    every file at its paths, whatever it holds. ``exclude`` (a :class:`evalfmt.globs.Exclude`) skips
    the files and folders it matches, ``path`` itself included (a file pre-commit passes is skipped
    too, as ruff's ``--force-exclude`` does). Everything is looked at through ``fs``."""
    if not fs.exists(path):
        raise EvalfmtError(f"{path}: no such file or directory")
    if exclude and exclude(path):
        return []
    if force is not None:
        formats.get(force)  # unknown name -> error
        if force != "terum" and fs.isdir(path):
            # a folder: the files of that format found in it (a skill folder holding several formats)
            found = [u for u in discover(path, None, exclude, fs=fs) if u.format == force and u.note is None]
            if found:
                return found
            raise EvalfmtError(f"{path}: is a folder holding no {force} file evalfmt finds: give the file, or leave "
                               "out --from to search the folder")
        return [Unit(force, path, (("forced", True),) if force == "terum" else ())]
    if fs.isfile(path):
        return [_file_unit(path, fs)]
    units: list[Unit] = []
    seen_terum: set[str] = set()
    top = os.path.normpath(path)
    root = _skill_of(top, fs)
    if root is not None and is_skill_dir(root, fs=fs):  # a skill folder named directly is read even when empty
        seen_terum.add(os.path.normpath(root))
        units.append(Unit("terum", root))
        top = root
    _walk(top, units, seen_terum, exclude, fs)
    return _assign_referenced(units, fs)


def _skill_of(folder: str, fs: View) -> str | None:
    """The skill folder that ``folder`` is, or lies inside the ``evals/`` of (``evals/cases``, or ``.``
    typed from inside ``evals/``), spelled relative when ``folder`` is; None outside any skill."""
    root = skill_root(folder, fs=fs)
    if root is not None:
        return root
    parts = os.path.abspath(folder).split(os.sep)
    if "evals" not in parts[:-1] and parts[-1] != "evals":
        return None
    i = len(parts) - 1 - parts[::-1].index("evals")
    found = os.sep.join(parts[:i]) or os.sep
    if not is_skill_dir(found, fs=fs):
        return None
    return found if os.path.isabs(folder) else os.path.relpath(found)


def _file_unit(path: str, fs: View) -> Unit:
    """One file given by itself: a file an agentv eval file reads its tests from is read through that
    eval file; a file at terum's paths needs a skill folder; anything else is detected by structure."""
    if at_terum_path(path):
        found = owner(path, not_owner=at_terum_path, fs=fs)
        if found is not None:
            return Unit("agentv", found)
        root = skill_root(path, fs=fs) or "."
        if is_skill_dir(root, fs=fs):
            return Unit("terum", path)
        return Unit("terum", path, note=NOT_A_SKILL.format(root=root))
    fmt = formats.detect(path, fs=fs)
    if fmt is not None:
        return Unit(fmt.name, path)
    found = owner(path, not_owner=at_terum_path, fs=fs) if path.lower().endswith((".yaml", ".yml", ".jsonl")) \
        else None
    if found is not None:
        return Unit("agentv", found)
    unread = _not_agentv(path, fs)
    if unread is not None:
        return unread
    raise EvalfmtError(f"{path}: not an eval file evalfmt recognises (use --from FORMAT)")


def _not_agentv(path: str, fs: View) -> Unit | None:
    """A file named like an agentv eval file that is evidently another tool's: left unread, with a note."""
    why = foreign(path, fs=fs) if named_like_eval(path) else None
    return Unit("agentv", path, note=why) if why is not None else None


def _assign_referenced(units: list[Unit], fs: View) -> list[Unit]:
    """Give the files an agentv eval file reads its tests from to that file alone: no other unit
    reads them (a terum skill folder is told to leave them out), and no note is given for them."""
    owners = [u for u in units if u.format == "agentv" and u.note is None]
    if not owners:
        return units
    owned: set[str] = set()
    for u in owners:
        owned |= references(u.path, fs=fs)
    if not owned:
        return units
    out: list[Unit] = []
    for u in units:
        full = os.path.abspath(u.path)
        if u.format == "terum" and u.note is None and fs.isdir(u.path):
            mine = frozenset(p for p in owned if p.startswith(full + os.sep))
            out.append(Unit(u.format, u.path, (("exclude", mine),)) if mine else u)
        elif full not in owned:
            out.append(u)
    return out


def _walk(folder: str, units: list[Unit], seen_terum: set[str], exclude, fs: View) -> None:
    parent = os.path.basename(os.path.abspath(folder))
    terum = _terum_unit(folder, fs)
    if terum is not None and exclude and exclude(os.path.join(folder, "evals")):
        terum = None
    if terum is not None and os.path.normpath(terum.path) not in seen_terum:
        seen_terum.add(os.path.normpath(terum.path))
        units.append(terum)
    try:
        entries = fs.scandir(folder)
    except OSError as exc:
        raise EvalfmtError(f"{folder}: cannot list: {exc.strerror}") from None
    for entry in entries:
        if exclude and exclude(entry.path):
            continue
        if entry.is_dir(follow_symlinks=False):
            if searched(parent, entry.name):
                _walk(entry.path, units, seen_terum, exclude, fs)
        elif entry.is_file(follow_symlinks=False) and parent not in AGENT_DIRS:
            if _covered_by_terum(entry.path, seen_terum, fs):
                continue
            fmt = formats.detect(entry.path, fs=fs)
            if fmt is None:
                unread = _not_agentv(entry.path, fs)
                if unread is not None:
                    units.append(unread)
                continue
            if fmt.name != "terum":
                units.append(Unit(fmt.name, entry.path))
            else:  # at terum's paths, outside a skill folder
                root = skill_root(entry.path, fs=fs) or "."
                units.append(Unit("terum", entry.path, note=NOT_A_SKILL.format(root=root)))


def _terum_unit(folder: str, fs: View) -> Unit | None:
    evals = os.path.join(folder, "evals")
    if os.path.basename(folder) == "evals":
        return None  # handled from the parent
    if fs.isdir(evals) and has_assets(evals, fs=fs) and is_skill_dir(folder, fs=fs):
        return Unit("terum", folder)
    return None


def _covered_by_terum(path: str, seen_terum: set[str], fs: View) -> bool:
    """True for files the terum reader of an already found skill folder reads or reports."""
    root = skill_root(path, fs=fs)
    if root is None or os.path.normpath(root) not in seen_terum:
        return False
    return read_or_reported(os.path.relpath(path, root))


# ------------------------------------------------------------------ what writes into a seed folder


def folder_sources(folder: str, *, fs: View = DISK) -> list[Unit]:
    """The units a search of ``folder`` finds in it and not deeper: its eval files, and the terum
    skills in its sub-folders (files read through another eval file are left out), sorted by path
    (normalised)."""
    parent = os.path.basename(os.path.abspath(folder))
    units: list[Unit] = []
    try:
        entries = fs.scandir(folder)
    except OSError:
        return []
    for entry in entries:
        path = os.path.normpath(entry.path)
        if entry.is_dir(follow_symlinks=False):
            terum = _terum_unit(path, fs) if searched(parent, entry.name) else None
            units.extend([terum] if terum is not None else [])
        elif entry.is_file(follow_symlinks=False) and parent not in AGENT_DIRS and not _terum_file(path, fs):
            fmt = formats.detect(path, fs=fs)
            units.extend([Unit(fmt.name, path)] if fmt is not None and fmt.name != "terum" else [])
    return sorted(_assign_referenced(units, fs), key=lambda u: u.path)


def seed_sources(root: str, *, fs: View = DISK) -> list[Unit]:
    """Every unit ``transpile`` writes into the seed output folder ``root`` (``<folder>/.agentv/skills``)
    when no output folder is given, whatever the command names: those of :func:`folder_sources` of
    ``<folder>`` whose default output folder it is, sorted by path. Nothing deeper is looked at: an
    eval file in a sub-folder writes into that folder's own ``.agentv/skills``."""
    root = os.path.normpath(root)
    folder = os.path.dirname(os.path.dirname(root)) or "."
    return [u for u in folder_sources(folder, fs=fs)
            if default_out(u.path, "seed", u.format, fs=fs) == root and not agentv_output(u.path, fs=fs)]


#: an agentv eval file's name (what the agentv layout of ``transpile`` is run on)
_AGENTV_NAME = re.compile(r"(.*\.)?(eval|EVAL)\.ya?ml")


def agentv_output(path: str, *, fs: View = DISK) -> bool:
    """True for a file named as ``agentv transpile`` names what it writes (``evals.json``,
    ``<skill>.evals.json``) in a folder holding an EVAL.yaml or ``*.eval.yaml``: the agentv layout's
    output, which is never a source of the seed layout (transpile output does not feed transpile)."""
    name = os.path.basename(path)
    if name != "evals.json" and not name.endswith(".evals.json"):
        return False
    try:
        names = fs.listdir(os.path.dirname(path) or ".")
    except OSError:
        return False
    return any(_AGENTV_NAME.fullmatch(n) for n in names)


def _terum_file(path: str, fs: View) -> bool:
    """True for a file the terum reader of its skill folder reads or reports."""
    root = skill_root(path, fs=fs)
    return root is not None and is_skill_dir(root, fs=fs) and read_or_reported(os.path.relpath(path, root))


def source_of(path: str, sources: list[Unit]) -> Unit | None:
    """The unit of ``sources`` that reads ``path`` (an eval file or a skill folder): the one with that
    path, or the terum skill folder holding it; None when none does."""
    p = os.path.normpath(path)
    for unit in sources:
        if unit.path == p or (unit.format == "terum" and p.startswith(unit.path.rstrip(os.sep) + os.sep)):
            return unit
    return None
