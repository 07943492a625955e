"""Paths every layer agrees on, with no IR and no YAML (stdlib only, cheap to import): the terum skill
folder a path belongs to, the folders a search never enters, the names a writer may emit, and where
``transpile`` writes by default (``lint``'s EV505 asks it too).
"""

from __future__ import annotations

import os

from .errors import CONTROL
from .fsview import View

#: Folders never searched: version control, dependencies, caches, and build outputs.
SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".cache", ".tox",
             ".mypy_cache", ".pytest_cache", ".ruff_cache", ".agentv", "dist", "build"}

#: Where the seed layout of ``transpile`` goes, in the folder holding the input.
SEED_DIR = os.path.join(".agentv", "skills")


def is_skill_dir(path: str, *, fs: View) -> bool:
    return fs.isfile(os.path.join(path, "SKILL.md"))


def skill_root(path: str, *, fs: View) -> str | None:
    """The terum skill folder a path belongs to: a folder with SKILL.md or with an ``evals/`` folder,
    or the parent of an ``evals/`` folder. None for anything else."""
    p = os.path.normpath(path)
    if fs.isdir(p):
        if os.path.basename(p) == "evals":
            return os.path.dirname(p) or "."
        if is_skill_dir(p, fs=fs) or fs.isdir(os.path.join(p, "evals")):
            return p
        return None
    # a file under <skill>/evals/...
    segs = p.replace("\\", "/").split("/")
    if "evals" in segs[:-1]:
        i = len(segs) - 1 - segs[::-1].index("evals", 1)
        return "/".join(segs[:i]) or "."
    return None


def repository(start: str, *, fs: View) -> str | None:
    """The nearest folder at or above ``start`` holding ``.git`` (a git repository's root), or None."""
    cur = start
    while True:
        if fs.lexists(os.path.join(cur, ".git")):
            return cur
        parent = os.path.dirname(cur)
        if parent == cur:
            return None
        cur = parent


def plain_name(name: object) -> bool:
    """True when ``name`` may be an output file name as it is: one non-empty segment, not ``.`` or
    ``..``, without ``/``, ``\\`` or a control character (:data:`evalfmt.errors.CONTROL`). Writers
    take a file name from the IR (a hint, a reference) only when it is plain."""
    return (isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\\" not in name
            and not CONTROL.search(name))


def plain_relpath(path: object) -> bool:
    """True when ``path`` is a relative ``/``-separated path of plain names (``.`` segments allowed,
    never ``..``, never absolute): a path a writer may emit, which cannot leave the output folder."""
    if not isinstance(path, str) or not path or path.startswith("/") or "\\" in path:
        return False
    segs = [s for s in path.split("/") if s != "."]
    return bool(segs) and all(plain_name(s) for s in segs)


def default_out(path: str, layout: str, fmt: str | None = None, *, fs: View) -> str:
    """seed: ``.agentv/skills/`` in the folder holding the input (for a terum skill, in the folder
    holding the skill, so the output is not shipped inside it); agentv: the input's folder."""
    folder = path if fs.isdir(path) else (os.path.dirname(path) or ".")
    if layout != "seed":
        return folder
    if fmt == "terum":
        root = skill_root(path, fs=fs)
        if root is not None:
            folder = os.path.dirname(os.path.normpath(root)) or "."
    return os.path.normpath(os.path.join(folder, SEED_DIR))


#: The file the seed layout writes per skill: ``<out>/<skill>/evals.json``.
SEED_FILE = "evals.json"


def seed_output(path: str) -> tuple[str, str] | None:
    """(output folder, skill) when ``path`` is a file the seed layout of ``transpile`` writes by default,
    ``<folder>/.agentv/skills/<skill>/evals.json``; None for any other path. The output folder is spelled
    as :func:`default_out` spells it (normalised)."""
    p = os.path.normpath(path)
    skill_dir, name = os.path.split(p)
    root, skill = os.path.split(skill_dir)
    if name != SEED_FILE or not plain_name(skill) or os.path.basename(root) != "skills" \
            or os.path.basename(os.path.dirname(root)) != ".agentv":
        return None
    return root, skill
