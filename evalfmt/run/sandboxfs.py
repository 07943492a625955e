"""Resolving a check's path inside the sandbox (``file_exists`` / ``file_absent``).

A path resolves as ``path.resolve(sandbox, p)`` does (so an absolute path is taken as is), then
symlinks are followed as far as they exist. Anything that ends up outside the sandbox, whether through
``..``, an absolute path or a symlink leading out, is refused with "path escapes the sandbox" (the test
is the one path guard's, :mod:`evalfmt.guard`).
"""

from __future__ import annotations

import os

from ..guard import contains, real


class EscapeError(ValueError):
    """The path resolves outside the sandbox."""


def resolve(sandbox: str, rel: str) -> str:
    """The real path of ``rel`` inside ``sandbox``; :class:`EscapeError` when it leads out."""
    root = real(sandbox)
    lexical = os.path.normpath(os.path.join(root, rel))
    if not contains(root, lexical):
        raise EscapeError("path escapes the sandbox")
    resolved = real(lexical)
    if not contains(root, resolved):
        raise EscapeError("path escapes the sandbox")
    return resolved
