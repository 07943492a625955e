"""Format ``skillgym``: skillgym suite modules (``suite.ts``), read statically and written back.

The package, bottom-up: :mod:`.lex` (the tokenizer), :mod:`.parse` (lark grammar ``skillgym.lark``,
statement splitting), :mod:`.tslit` (TypeScript literals and ECMAScript patterns), :mod:`.values`
(static evaluation of a parsed module), :mod:`.checks` (assert statements -> IR checks),
:mod:`.reader` (suite -> IR), :mod:`.render` (IR checks -> statements, one table by check kind) and
:mod:`.writer` (IR -> ``suite.ts``). See ``docs/skillgym.md`` for what maps and what is lost.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from ...fsview import DISK, View
from .. import Format, ReadResult, head

if TYPE_CHECKING:  # pragma: no cover
    from ... import ir
    from .. import WriteResult

SUFFIXES = (".ts", ".mts", ".cts")
_IMPORT = re.compile(r"""from\s+["']skillgym["']""")
# ``^\s*export`` would rescan a long blank run from each of its lines; a line's own leading blanks
# say the same (a blank run before "export" always holds the start of export's line)
_DEFAULT = re.compile(r"^[^\S\n]*export\s+default\b", re.M)
#: a suite typed with skillgym's own types (``const suite: Case[] = []`` holds no case yet)
_SUITE_TYPE = re.compile(r"(?::|\bsatisfies)\s*(?:Case|TestCase)\[\]|(?::|\bsatisfies)\s*(?:Suite|TestSuite)\b")


def detect(path: str, *, fs: View = DISK) -> bool:
    name = os.path.basename(path).lower()
    if not name.endswith(SUFFIXES) or name.startswith("skillgym.config.") or name.endswith(".d.ts"):
        return False
    text = head(path, fs=fs)
    if not _DEFAULT.search(text):
        return False
    if _IMPORT.search(text):
        return bool(re.search(r"\bprompt\b", text)) and "assert" in text or bool(_SUITE_TYPE.search(text))
    return bool(re.search(r"\bprompt\s*[:,]", text)) and bool(re.search(r"\bassert\s*[(:]", text))


def read(path: str, *, fs: View = DISK) -> ReadResult:
    from .reader import read as _read  # lazy facade: the reader (40 ms to import) only when a file is read

    return _read(path, fs=fs)


def write(evalset: ir.EvalSet, existing: dict[str, str] | None = None) -> WriteResult:
    from .writer import write as _write  # lazy facade: the writer (3 ms to import) only to write

    return _write(evalset, existing)


FORMAT = Format(
    name="skillgym",
    module=__name__,
    description="skillgym suite modules (suite.ts): cases with prompts and assert helpers",
    detect=detect,
    read=read,
    write=write,
    single_file=True,
    default_name="suite.ts",
)
