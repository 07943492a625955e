"""The ``agentv`` format: an AgentV EVAL.yaml, as agentv 4.42.4 reads it.

Reading: :mod:`.reader`; writing: :mod:`.writer`; the YAML
details agentv's parser adds (merge keys, duplicate keys): :mod:`.loader`.
The whole mapping to and from the IR is in docs/agentv.md.

Detection is by structure, never by trial parsing: a YAML file named like agentv's eval files
(``EVAL.yaml``, ``eval.yaml``, ``*.eval.yaml``, ``*.EVAL.yaml``, and their ``.yml`` forms) unless it is
evidently another tool's index (:func:`foreign`: no ``tests``, and it lists other files; only such a file
is parsed), or any YAML file whose top-level keys include ``tests``, ``eval_cases`` or ``evalcases`` and
none of the keys that mark a promptfoo config.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ...fsview import DISK, View
from ...suggest import typo
from .. import Format, ReadResult, WriteResult, basename, head, peek_keys, top_keys

if TYPE_CHECKING:  # (the IR only to name types: detection never builds it)
    from ... import ir

YAML_EXTS = (".yaml", ".yml")
TEST_KEYS = {"tests", "eval_cases", "evalcases"}
#: Top-level keys of a promptfoo config, which has ``tests`` too.
NOT_AGENTV = {"prompts", "providers", "defaultTest", "redteam", "scenarios"}


def named_like_eval(path: str) -> bool:
    """``EVAL.yaml``, ``eval.yml``, ``x.eval.yaml``, ... (any case)."""
    lower = basename(path).lower()
    if not lower.endswith(YAML_EXTS):
        return False
    stem = lower.rsplit(".", 1)[0]
    return stem == "eval" or stem.endswith(".eval")


def detect(path: str, *, fs: View = DISK) -> bool:
    name = basename(path)
    lower = name.lower()
    if not lower.endswith(YAML_EXTS) or not fs.isfile(path):
        return False
    if named_like_eval(path):
        return foreign(path, fs=fs) is None
    stem = lower.rsplit(".", 1)[0]
    if stem.startswith("promptfooconfig"):
        return False
    keys = peek_keys(path, fs=fs)
    return bool(keys & TEST_KEYS) and not keys & NOT_AGENTV


def foreign(path: str, *, fs: View = DISK) -> str | None:
    """Why a file named like an agentv eval file is evidently another tool's, or None when it may be agentv's:
    its top-level keys include no ``tests`` (nor ``eval_cases``/``evalcases``, nor a typo of one) and it names
    other files beside it (``cases: [cases/refund.yaml]``), as another tool's index does
    (:mod:`evalfmt.formats.indexes`). Any other file named like agentv's is agentv's, so that its faults
    (``tests`` missing) are reported."""
    keys = top_keys(head(path, fs=fs))
    tests = tuple(sorted(TEST_KEYS))
    if not keys or any(k in TEST_KEYS or typo(k, tests) for k in keys):
        return None
    # 0.3 ms to import (python -X importtime), parsing only a file named like agentv's that has no 'tests'
    from ..indexes import named_files

    names = named_files(path, fs=fs)
    if not names:
        return None
    base = os.path.dirname(os.path.abspath(path))
    shown = ", ".join(os.path.relpath(p, base) for p in names[:3]) + (", ..." if len(names) > 3 else "")
    return (f"not read as an agentv eval file: it has no 'tests' and lists other files ({shown}), as another "
            "tool's index does; --from agentv reads it as one")


def read(path: str, *, fs: View = DISK) -> ReadResult:
    from .reader import read_file  # lazy facade: the reader (0.7 ms to import) only when a file is read

    return read_file(path, fs=fs)


def write(evalset: ir.EvalSet, existing: dict[str, str] | None = None) -> WriteResult:
    from .writer import write as _write  # lazy facade: the writer (15 ms to import) only to write

    return _write(evalset, existing)


FORMAT = Format(
    name="agentv",
    module=__name__,
    description="AgentV EVAL.yaml (agentv 4.42.4): tests, assertions, skill-trigger",
    detect=detect,
    read=read,
    write=write,
    single_file=True,
    default_name="EVAL.yaml",
)
