"""The one path guard: every path evalfmt writes, deletes or stages goes through here.

A *root* is the folder an operation may touch: an output folder (``convert -o``, ``transpile``,
``schema``), a run folder (``run --out``, ``--resume``, ``--force``, ``merge``), a sandbox (staging,
copies), the result cache's folder. A path is resolved as the kernel resolves it when it is opened
(every symlink that exists followed, ``..`` applied after), the root too, and anything that resolves
outside the root is refused with one line: :class:`Outside`, an
:class:`~evalfmt.errors.EvalfmtError` (exit 2), raised before the operation touches anything.
Standard library only, and below every layer that writes (docs/internals.md).

Resolving
    ``real(path)`` the resolved path; ``contains(root_real, path_real)`` the plain test on two resolved
    paths (for loops that resolved them already); ``inside(root, path)`` resolves both and tests.

Refusing
    ``check(root, path, verb="write")`` raises :class:`Outside` unless ``path`` resolves inside
    ``root``, and returns the resolved path. ``check_entry(root, path, verb="remove")`` is the rule
    for an operation on the name itself (unlink a link, rename over it, remove a tree): the folder
    holding the name must resolve inside the root and the name must not be the root itself; the name
    may be a symlink leading anywhere, since it is the link that goes, not its target.
    ``plain_root(root, below=None)`` refuses a root that is a symlink, or reached through one in any
    folder between ``below`` and it (a folder that must be the one it names, e.g. a cache folder a
    repository could commit as a link).

Doing
    ``makedirs(root, path)`` makes the folders of ``path`` after :func:`check`. ``remove(root, path)``
    removes a file, a symlink (the link, never its target) or a folder tree (never following a symlink
    inside it) after :func:`check_entry`; True when something was there.

Every function takes ``what``, how the message names the root (default ``the output folder``), and
``tail``, what the message ends with (default ``nothing written``). The limit: a check and the
operation after it are two system calls; another process that swaps a folder for a symlink between
them is not defended against (docs/security.md).
"""

from __future__ import annotations

import os
import shutil

from .errors import EvalfmtError

__all__ = ["Outside", "check", "check_entry", "contains", "inside", "makedirs", "plain_root", "real", "remove"]

ROOT = "the output folder"
NOTHING = "nothing written"


class Outside(EvalfmtError):
    """A path that resolves outside its root (or a root reached through a symlink); ``path`` and ``root``
    are the paths as given."""

    def __init__(self, message: str, target: str, root: str):
        super().__init__(message)
        self.target = target
        self.root = root


def real(path: str) -> str:
    """``path`` resolved: absolute, every existing symlink followed, ``..`` applied after."""
    return os.path.realpath(path)


def contains(root_real: str, path_real: str) -> bool:
    """True when the resolved ``path_real`` is the resolved ``root_real`` or lies under it."""
    return path_real == root_real or path_real.startswith(root_real.rstrip(os.sep) + os.sep)


def inside(root: str, path: str) -> bool:
    """True when ``path`` resolves inside ``root`` (both resolved)."""
    return contains(real(root), real(path))


def _refuse(verb: str, path: str, root: str, what: str, tail: str, how: str | None = None) -> Outside:
    how = how or "through '..', an absolute path or a symlink"
    end = f"; {tail}" if tail else ""
    return Outside(f"refusing to {verb} {path}: outside {what} {root} ({how}){end}", path, root)


def check(root: str, path: str, verb: str = "write", *, what: str = ROOT, tail: str = NOTHING) -> str:
    """The resolved ``path``; :class:`Outside` when it resolves outside ``root``."""
    resolved = real(path)
    if not contains(real(root), resolved):
        raise _refuse(verb, path, root, what, tail)
    return resolved


def check_entry(root: str, path: str, verb: str = "remove", *, what: str = ROOT, tail: str = NOTHING) -> None:
    """:class:`Outside` unless the name ``path`` lives in a folder inside ``root`` (the name itself may
    be a symlink leading anywhere) and is not the root itself."""
    root_real = real(root)
    name = os.path.basename(os.path.normpath(path))
    folder = real(os.path.dirname(os.path.abspath(path)))
    if name in ("", ".", "..") or not contains(root_real, folder) or os.path.join(folder, name) == root_real:
        raise _refuse(verb, path, root, what, tail)


def plain_root(root: str, below: str | None = None, verb: str = "use", *, what: str = "the folder",
               tail: str = NOTHING) -> None:
    """:class:`Outside` when ``root`` is a symlink, or when a folder between ``below`` (not itself
    checked) and ``root`` is one. Folders that do not exist yet are fine."""
    path = os.path.abspath(root)
    stop = os.path.abspath(below) if below is not None else None
    while True:
        if os.path.islink(path):
            shown = root if path == os.path.abspath(root) else path
            raise Outside(f"refusing to {verb} {root}: {shown} is a symlink ({what} must be a real folder)"
                          + (f"; {tail}" if tail else ""), root, root)
        parent = os.path.dirname(path)
        if stop is None or parent in (path, stop) or not contains(stop, parent):
            return
        path = parent


def makedirs(root: str, path: str, *, what: str = ROOT, tail: str = NOTHING) -> None:
    """``os.makedirs(path, exist_ok=True)`` after :func:`check` (``verb`` ``create``)."""
    check(root, path, "create", what=what, tail=tail)
    os.makedirs(path, exist_ok=True)


def remove(root: str, path: str, *, what: str = ROOT, tail: str = NOTHING) -> bool:
    """Remove what ``path`` names after :func:`check_entry`: a symlink or file is unlinked, a folder is
    removed with everything in it, never following a symlink inside it. False when nothing was there."""
    check_entry(root, path, "remove", what=what, tail=tail)
    if not os.path.lexists(path):
        return False
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)
    return True
