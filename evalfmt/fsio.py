"""Writing files, the one way evalfmt does it: :func:`write_files` writes a set of files inside an output
folder (:mod:`evalfmt.writeset` does the checking, locking and journaling), :func:`atomic_write` one file,
:func:`copied_files` reads the folders a conversion copies. Below every stage that writes (api, lint's
``--fix``, transpile, run)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING
from collections.abc import Mapping

from .writeset import atomic_write, write_set

if TYPE_CHECKING:  # pragma: no cover
    from .writeset import Notify

__all__ = ["atomic_write", "copied_files", "write_files"]


def copied_files(copies: dict[str, str]) -> dict[str, bytes]:
    """The files to copy for ``copies`` (output folder -> source folder): each regular file of a source
    folder, by its path in the output folder. Symbolic links are neither followed nor copied. The
    copies are written with the rest of the conversion, as one set (:func:`write_files`)."""
    out: dict[str, bytes] = {}
    for dst, src in copies.items():
        for folder, dirs, names in os.walk(src):
            dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d)))
            for name in sorted(names):
                path = os.path.join(folder, name)
                if os.path.islink(path) or not os.path.isfile(path):
                    continue
                with open(path, "rb") as fh:
                    out[os.path.join(dst, os.path.relpath(path, src))] = fh.read()
    return out


def write_files(files: Mapping[str, str | bytes], root: str | Mapping[str, str],
                notify: Notify | None = None) -> list[str]:
    """Write every file (text or bytes) as one set (:mod:`evalfmt.writeset`): every path must resolve
    inside ``root`` (the output folder, or a mapping path -> its folder), checked for all files before
    the first write; the folder is locked while writing; a file whose content would not change is not
    rewritten; several changed files are renamed into place as a set a killed run's rerun finishes.
    ``notify`` receives one-line notes (waiting for a lock, an interrupted write finished).
    Returns the paths written."""
    return write_set({path: data.encode("utf-8") if isinstance(data, str) else data for path, data in files.items()},
                     root, notify)
