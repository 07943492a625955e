"""The other files an AgentV eval file reads its tests from, so that discovery gives them to it.

agentv 4.42.4 takes tests from elsewhere in two ways: ``tests: PATH`` (a ``.yaml``/``.yml`` list, a
``.jsonl`` file, or a folder whose sub-folders each hold ``case.yaml``) and ``file://`` items of the
``tests`` list (globs allowed), all relative to the eval file's folder. Such a file belongs to the eval
file that names it: it is read by the agentv reader as part of that file, and never as another
format's file, even when it sits where terum keeps its cases (``evals/cases/``).

Only a file that can hold such a reference is parsed: one whose text has ``file://`` or a ``tests:``
key with a value on its own line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from ...errors import LoadError
from ...fsview import View
from ...load import load_file
from .. import head
from . import detect, named_like_eval
from .loader import resolve_merges

_MAY_REFER = re.compile(r"file://|^(?:tests|eval_cases|evalcases)[ \t]*:[ \t]*[^\s#]", re.M)
TEST_KEYS = ("tests", "eval_cases", "evalcases")
#: how far up from a file discovery looks for the eval file that reads it (its folder and two above:
#: ``evals/EVAL.yaml`` or ``EVAL.yaml`` for ``evals/cases/x.yaml``)
OWNER_LEVELS = 3


def references(path: str, *, fs: View) -> set[str]:
    """Absolute paths of the files the eval file at ``path`` reads its tests from (existing files only)."""
    if not _MAY_REFER.search(head(path, fs=fs)):
        return set()
    try:
        data = resolve_merges(load_file(path, fs=fs, kind="yaml").data)
    except LoadError:
        return set()
    if not isinstance(data, dict):
        return set()
    value = next((data[k] for k in TEST_KEYS if k in data), None)
    base = os.path.dirname(os.path.abspath(path))
    out: set[str] = set()
    if isinstance(value, str):
        out.update(_path_files(os.path.normpath(os.path.join(base, value)), fs))
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, str) and item.startswith("file://"):
                full = os.path.normpath(os.path.join(base, item[len("file://"):]))
                if any(ch in item for ch in "*?{"):
                    out.update(os.path.abspath(p) for p in fs.glob(full) if fs.isfile(p))
                elif fs.isfile(full):
                    out.add(full)
    return out


def _path_files(full: str, fs: View) -> list[str]:
    if fs.isfile(full):
        return [full]
    if not fs.isdir(full):
        return []
    out = []
    try:
        subs = sorted(e.path for e in fs.scandir(full) if e.is_dir())
    except OSError:
        return []
    for sub in subs:
        for name in ("case.yaml", "case.yml"):
            candidate = os.path.join(sub, name)
            if fs.isfile(candidate):
                out.append(candidate)
                break
    return out


#: folders where many case files sit: only files named like agentv's eval files are looked at there
CASE_FOLDERS = ("cases", "case", "Cases", "Case", "CASES", "tests", "test")


def owner(path: str, not_owner: Callable[[str], bool] | None = None, *, fs: View) -> str | None:
    """The eval file that reads ``path`` as its tests: an agentv file in the file's folder or the two
    above that references it (the nearest first, then by name), or None. In a case folder
    (:data:`CASE_FOLDERS`) only files named like agentv's eval files count, so the case files beside
    it are not opened; files for which ``not_owner`` is true are never owners."""
    target = os.path.abspath(path)
    folder = os.path.dirname(path) or "."  # kept in the caller's spelling (relative stays relative)
    for _ in range(OWNER_LEVELS):
        try:
            names = fs.listdir(folder)
        except OSError:
            names = []
        by_name = os.path.basename(os.path.abspath(folder)) in CASE_FOLDERS
        for name in names:
            cand = os.path.join(folder, name)
            if os.path.abspath(cand) == target or (not_owner is not None and not_owner(cand)):
                continue
            if not (named_like_eval(cand) if by_name else detect(cand, fs=fs)):
                continue
            if target in references(cand, fs=fs):
                return os.path.normpath(cand)
        if os.path.dirname(os.path.abspath(folder)) == os.path.abspath(folder):
            break
        folder = os.path.normpath(os.path.join(folder, os.pardir))
    return None
