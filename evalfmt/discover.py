"""Finding eval assets under a path and deciding which format reads each.

A *unit* is what one format reader reads at once: a terum skill folder (its whole ``evals/``), or
one file of another format. CLI.md: a PATH may be a file, a skill folder (holding ``SKILL.md``), an
``evals/`` folder, or any folder (searched recursively).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from . import formats
from .errors import EvalfmtError
from .formats.terum_read import has_assets, read_or_reported, skill_root  # skill_root: also used from here

#: Folders never searched: version control, dependencies, caches, and build outputs.
SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".cache", ".tox",
             ".mypy_cache", ".pytest_cache", ".ruff_cache", ".agentv", "dist", "build"}

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
    format: str
    path: str


def discover(path: str, force: str | None = None) -> list[Unit]:
    """The units under ``path``. ``force`` names the format that reads ``path``: a file, or for
    ``terum`` a skill or evals/ folder (the other formats read single files)."""
    if not os.path.exists(path):
        raise EvalfmtError(f"{path}: no such file or directory")
    if force is not None:
        formats.get(force)  # unknown name -> error
        if force != "terum" and os.path.isdir(path):
            raise EvalfmtError(f"{path}: is a folder, and --from {force} reads one file: give the file, or leave "
                               "out --from to search the folder")
        return [Unit(force, path)]
    if os.path.isfile(path):
        fmt = formats.detect(path)
        if fmt is None:
            raise EvalfmtError(f"{path}: not an eval file evalfmt recognises (use --from FORMAT)")
        return [Unit(fmt.name, path)]
    units: list[Unit] = []
    seen_terum: set[str] = set()
    top = os.path.normpath(path)
    root = skill_root(top)
    if root is not None:  # a skill (or evals/) folder named directly is read even when it is empty
        seen_terum.add(os.path.normpath(root))
        units.append(Unit("terum", root))
        top = root
    _walk(top, units, seen_terum)
    return units


def _walk(folder: str, units: list[Unit], seen_terum: set[str]) -> None:
    parent = os.path.basename(os.path.abspath(folder))
    terum = _terum_unit(folder)
    if terum is not None and terum.path not in seen_terum:
        seen_terum.add(terum.path)
        units.append(terum)
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        raise EvalfmtError(f"{folder}: cannot list: {exc.strerror}") from None
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if searched(parent, entry.name):
                _walk(entry.path, units, seen_terum)
        elif entry.is_file(follow_symlinks=False) and parent not in AGENT_DIRS:
            if _covered_by_terum(entry.path, seen_terum):
                continue
            fmt = formats.detect(entry.path)
            if fmt is not None and fmt.name != "terum":
                units.append(Unit(fmt.name, entry.path))


def _terum_unit(folder: str) -> Unit | None:
    evals = os.path.join(folder, "evals")
    if os.path.basename(folder) == "evals":
        return None  # handled from the parent
    if os.path.isdir(evals) and has_assets(evals):
        return Unit("terum", folder)
    return None


def _covered_by_terum(path: str, seen_terum: set[str]) -> bool:
    """True for files the terum reader of an already found skill folder reads or reports."""
    root = skill_root(path)
    if root is None or os.path.normpath(root) not in seen_terum:
        return False
    return read_or_reported(os.path.relpath(path, root))
