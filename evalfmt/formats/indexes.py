"""The files an index file names: another tool's eval file that lists the files it reads.

Some tools keep an index beside their eval files that names them (``evals/eval.yaml`` holding
``schema_version: 1`` and ``cases: [cases/refund.yaml, ...]``, or ``tasks: ["cases/*.yaml"]``). Discovery
uses :func:`named_files` for two decisions: a file named like an agentv eval file that has no ``tests`` and
names files this way is that tool's index, not agentv's (:func:`evalfmt.formats.agentv.foreign`); and the
files it names are that tool's, not terum's cases (:mod:`evalfmt.formats.terum.listed`).

A name is a string anywhere in the document (a ``file://`` prefix allowed, globs too) that ends like an
eval file (``.yaml``, ``.yml``, ``.json``) and names an existing file inside the index's folder.
"""

from __future__ import annotations

import os
import re
from typing import Any
from collections.abc import Iterator

from ..errors import LoadError
from ..fsview import View
from ..load import load_file
from . import head

#: a string that may name an eval file: one line, a file name with an eval file's extension
_PATH_LIKE = re.compile(r"[^\n\r\0]{1,255}\.(?:ya?ml|json)", re.I)
_MENTIONS = re.compile(r"\.(?:ya?ml|json)\b", re.I)
#: how many strings of an index are looked at (an index is small; a huge file is not one)
_MAX_STRINGS = 2000


def named_files(path: str, *, fs: View) -> list[str]:
    """The existing files inside the folder of ``path`` that its strings name (absolute paths, in the
    order named, each once); [] when it names none or cannot be read."""
    if not _MENTIONS.search(head(path, fs=fs)):
        return []
    try:
        data = load_file(path, fs=fs).data
    except LoadError:
        return []
    base = os.path.dirname(os.path.abspath(path))
    out: dict[str, None] = {}
    for ref in _strings(data):
        out.update(dict.fromkeys(_files(base, ref, fs)))
    return list(out)


def _strings(data: Any) -> Iterator[str]:
    stack = [data]
    seen = 0
    while stack and seen < _MAX_STRINGS:
        value = stack.pop(0)
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str):
            seen += 1
            ref = value[len("file://"):] if value.startswith("file://") else value
            if _PATH_LIKE.fullmatch(ref) and not os.path.isabs(ref):
                yield ref


def _files(base: str, ref: str, fs: View) -> list[str]:
    """The existing files inside ``base`` that ``ref`` names (a glob may name several)."""
    full = os.path.normpath(os.path.join(base, ref))
    if not full.startswith(base + os.sep):
        return []
    if any(ch in ref for ch in "*?["):
        return [os.path.abspath(p) for p in fs.glob(full) if fs.isfile(p)]
    return [full] if fs.isfile(full) else []
