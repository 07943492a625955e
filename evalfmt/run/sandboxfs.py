"""Resolving a check's path inside the sandbox (``file_exists`` / ``file_absent``).

A path resolves as ``path.resolve(sandbox, p)`` does (so an absolute path is taken as is), then
symlinks are followed as far as they exist. Anything that ends up outside the sandbox, whether through
``..``, an absolute path or a symlink leading out, is refused with "path escapes the sandbox".
"""

from __future__ import annotations

import os


class EscapeError(ValueError):
    """The path resolves outside the sandbox."""


def inside(root: str, path: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def resolve(sandbox: str, rel: str) -> str:
    """The real path of ``rel`` inside ``sandbox``; :class:`EscapeError` when it leads out."""
    root = os.path.realpath(sandbox)
    lexical = os.path.normpath(os.path.join(root, rel))
    if not inside(root, lexical):
        raise EscapeError("path escapes the sandbox")
    real = os.path.realpath(lexical)
    if not inside(root, real):
        raise EscapeError("path escapes the sandbox")
    return real
