"""skillgym's file-read checks: ``file_read_matching`` and ``no_file_read_matching``, an ECMAScript regex searched
in the path of every file the agent read (``assert.fileReads.includes`` / ``notIncludes``; a string matcher is
its escaped pattern, as for commands). The files read are a skillgym report's ``fileRead`` events (else its
``files.observedReads``), or the ``file_path`` of a transcript's ``Read`` calls."""

from __future__ import annotations

from typing import Literal

from ..node import CheckBase, node
from ._words import PROMPTFOO_NONE
from .spec import Absent, Evidence, KindSpec, Outcome, Skillgym, negated


@node
class FileReadMatching(CheckBase):
    """Passes when the path of some file the agent read matches the ECMAScript regex ``pattern`` (a search) with
    ``flags``, those that change what it matches (a skillgym regex literal's)."""

    kind: Literal["file_read_matching"] = "file_read_matching"
    pattern: str
    flags: str | None = None

    @property
    def arg(self) -> str:
        return self.pattern


@node
class NoFileReadMatching(CheckBase):
    """Passes when the path of no file the agent read matches ``pattern`` (with ``flags``, as
    :class:`FileReadMatching`)."""

    kind: Literal["no_file_read_matching"] = "no_file_read_matching"
    pattern: str
    flags: str | None = None

    @property
    def arg(self) -> str:
        return self.pattern


def _score(check: FileReadMatching | NoFileReadMatching, ev: Evidence) -> Outcome:
    reads = ev.file_reads()
    flags = check.flags or ""
    index = ev.first_match(check.pattern, flags, reads)
    if index is not None:
        what = f"read {reads[index]}"
    else:
        what = f"no file read matched /{check.pattern}/{flags} ({len(reads)} read)"
    return negated(check, (index is not None) == isinstance(check, FileReadMatching), what)


def _spec(cls: type[FileReadMatching] | type[NoFileReadMatching], opposite: str, present: bool, description: str,
          sentence: str) -> KindSpec:
    kind = cls.__dataclass_fields__["kind"].default
    return KindSpec(
        kind=kind, cls=cls, description=description, feature="check.opaque", looks_at="reads",
        asserts="presence" if present else "absence", graded=False, score=_score,
        sentence=lambda c: sentence.format(c.pattern),
        terum=Absent("terum checks the transcript, commands and files, not the files the agent read"),
        agentv=Absent("agentv has no assertion on the files the agent read"),
        promptfoo=Absent(PROMPTFOO_NONE),
        skillgym=Skillgym("file-reads", positive=present),
        opposite=opposite)


MATCHING = _spec(FileReadMatching, "no_file_read_matching", True,
                 "Passes when the path of a file the agent read matches this ECMAScript regex (a search).",
                 "A file matching /{}/ is read")
NO_MATCHING = _spec(NoFileReadMatching, "file_read_matching", False,
                    "Passes when the path of no file the agent read matches this ECMAScript regex.",
                    "No file matching /{}/ is read")
SPECS = (MATCHING, NO_MATCHING)
