"""The ``terum`` format: a skill folder's ``evals/`` (cases, suite, triggers).

A unit is a skill folder (or its ``evals/`` folder) or one file inside ``evals/``. Reading a single
file reads just that asset (with the folder around it for context: fixture paths, case stems).
See :mod:`.paths` (where the files are), :mod:`.reader` and :mod:`.writer`. This module stays light:
discovery imports :mod:`.paths` through it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ...fsview import DISK, View
from .. import Format, ReadResult, parts
from .paths import CASE_DIR_VARIANTS, MISPLACED_TOP, skill_root

if TYPE_CHECKING:  # pragma: no cover
    from ... import ir
    from .. import WriteResult

TERUM_FILES = ("suite.yaml", "triggers.yaml")


def at_terum_path(path: str) -> bool:
    """A file where a terum skill keeps (or wrongly names) its eval files: ``evals/suite.yaml``,
    ``evals/triggers.yaml``, ``evals/cases/*.yaml`` and the misspellings EV111 reports."""
    segs = parts(path)
    name = segs[-1]
    if len(segs) >= 2 and segs[-2] == "evals" and (name in TERUM_FILES or name in MISPLACED_TOP):
        return True
    if len(segs) >= 3 and segs[-3] == "evals" and segs[-2] in ("cases",) + CASE_DIR_VARIANTS:
        return name.lower().endswith((".yaml", ".yml")) or (segs[-2] == "cases" and name.lower().endswith(".json"))
    return False


def detect(path: str, *, fs: View = DISK) -> bool:
    if fs.isdir(path):
        root = skill_root(path, fs=fs)
        return root is not None and fs.isdir(os.path.join(root, "evals"))
    return at_terum_path(path)


def read(path: str, *, fs: View = DISK, forced: bool = False, exclude: frozenset[str] = frozenset()) -> ReadResult:
    """Read a skill folder (or its ``evals/``) or one file of it (:func:`.reader.read_unit`)."""
    from .reader import read_unit  # lazy facade: the reader (3.8 ms to import) only when a file is read

    return read_unit(path, fs=fs, forced=forced, exclude=exclude)


def write(evalset: ir.EvalSet, existing: dict[str, str] | None = None) -> WriteResult:
    from .writer import write as _write  # lazy facade: the writer (14 ms to import) only to write

    return _write(evalset, existing)


FORMAT = Format(
    name="terum",
    module=__name__,
    description="terum skill evals: evals/cases/*.yaml, evals/suite.yaml, evals/triggers.yaml",
    detect=detect,
    read=read,
    write=write,
    single_file=False,
    one_skill=True,
)
