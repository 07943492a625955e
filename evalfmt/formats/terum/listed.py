"""Files in a skill's ``evals/`` that another tool's index lists, and which are therefore that tool's.

An index (:mod:`evalfmt.formats.indexes`) is a YAML or JSON file directly in ``evals/`` that no format
evalfmt reads claims (terum's own files, an agentv eval file, a promptfoo config are not indexes) and that
names files under ``evals/``: ``evals/eval.yaml`` with ``schema_version: 1`` and ``cases:
[cases/refund.yaml]``. A file such an index names belongs to that tool, whatever fields it has: the terum
reader leaves it unread with a note, as discovery does for the files an agentv eval file reads its tests
from (that rule is agentv's own, :mod:`evalfmt.formats.agentv.refs`).
"""

from __future__ import annotations

import os

from ...fsview import View
from .. import detect
from ..indexes import named_files
from .paths import ASSET_NAMES

_EXTS = (".yaml", ".yml", ".json")


def listed(evals: str, *, fs: View) -> dict[str, str]:
    """The files other tools' indexes in ``evals/`` name: absolute path -> the index (the first by name)."""
    out: dict[str, str] = {}
    try:
        names = sorted(fs.listdir(evals))
    except OSError:
        return out
    for name in names:
        index = os.path.join(evals, name)
        if name in ASSET_NAMES or not name.lower().endswith(_EXTS) or not fs.isfile(index):
            continue
        if detect(index, fs=fs) is not None:
            continue
        for target in named_files(index, fs=fs):
            out.setdefault(target, index)
    return out
