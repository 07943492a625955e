"""Format ``agent-skills``: the ``evals.json`` of Anthropic's skill-creator (and of ``agentv transpile``).

Shape (skill-creator's ``references/schemas.md``)::

    {"skill_name": "...", "evals": [{"id": 1, "prompt": "...", "expected_output": "...",
                                     "files": ["evals/files/x.csv"], "expectations": ["..."]}]}

Real files also spell ``expectations`` as ``assertions`` and add ``name``; ``agentv transpile`` adds
``should_trigger``. All of these are read. Any other key is kept (in ``extra``) with an EV101 warning.

IR mapping, chosen so that a file reads back exactly and converts well:

- each eval -> :class:`ir.Case`: ``name`` is the eval's ``name``, else ``str(id)``; the id itself is kept
  in ``hints["id"]``; ``prompt`` -> ``input``; ``expected_output`` -> ``expected_output``;
  ``files`` -> ``input_files``;
- the expectations -> one :class:`ir.Rubrics` check whose ``criteria`` are the sentences, in order
  (one rubric of several criteria is what agentv's ``rubrics`` and terum's graders mean too); the
  spelling ``assertions`` and an empty list are remembered in the case's ``hints``;
- ``should_trigger`` -> an :class:`ir.SkillTrigger` check on ``skill_name``.

The seed layout ``evalfmt transpile`` writes (``<skill>/evals.json`` holding ``{"tests": [{"id", "input",
"should_trigger"}]}``) is read too, so that evalfmt reads every file it writes: each test is a case
with a ``skill-trigger`` check for the skill its folder names (``hints["shape"] == "seed"``), written
back in the same shape.

The writer uses the documented ``expectations`` spelling unless the IR was read from a file that used
``assertions``. Checks that are not rubric sentences are written as sentences (the way ``agentv
transpile`` does) and each is reported as a loss: a model grades a sentence, nothing checks it mechanically.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ...fsview import DISK, View
from .. import Format, ReadResult, first_char, peek_keys

if TYPE_CHECKING:  # pragma: no cover
    from ... import ir
    from .. import WriteResult

NAME = "agent-skills"
TOP_KEYS = ("skill_name", "evals")
EVAL_KEYS = ("id", "name", "prompt", "expected_output", "files", "should_trigger", "expectations", "assertions")
SEED_KEYS = ("id", "input", "should_trigger")


# ------------------------------------------------------------------------------------ detection


def detect(path: str, *, fs: View = DISK) -> bool:
    if not path.lower().endswith(".json") or first_char(path, fs=fs) != "{":
        return False
    keys = peek_keys(path, fs=fs)
    if "evals" in keys and ("skill_name" in keys or "prompt" in keys):
        return True
    return _is_seed_name(path) and "tests" in keys


def _is_seed_name(path: str) -> bool:
    """``evals.json``: the name the seed layout of ``evalfmt transpile`` writes."""
    return os.path.basename(path) == "evals.json"


def _default_order(item: dict[str, Any]) -> list[str]:
    return [k for k in EVAL_KEYS if k in item] + [k for k in item if k not in EVAL_KEYS]


def read(path: str, *, fs: View = DISK) -> ReadResult:
    from .reader import read as _read  # lazy facade: the reader (0.5 ms to import) only when a file is read

    return _read(path, fs=fs)


def write(evalset: ir.EvalSet, existing: dict[str, str] | None = None) -> WriteResult:
    from .writer import write as _write  # lazy facade: the writer (1.4 ms to import) only to write

    return _write(evalset, existing)


def sentence(check: ir.CheckBase) -> str:
    """A check as one natural-language expectation a grader can judge (:func:`.writer.sentence`)."""
    from .writer import sentence as _sentence  # lazy facade (the writer)

    return _sentence(check)


FORMAT = Format(
    name=NAME,
    module=__name__,
    description="Anthropic skill-creator evals.json (also what agentv transpile writes)",
    detect=detect,
    read=read,
    write=write,
    single_file=True,
    default_name="evals.json",
)

__all__ = ["FORMAT", "detect", "read", "write", "sentence"]
