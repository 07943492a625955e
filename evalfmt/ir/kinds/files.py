"""terum's file checks: ``file_exists`` and ``file_absent``, a sandbox-relative path looked up in the sandbox
after the session (a path leading out of it fails)."""

from __future__ import annotations

from typing import Literal

from ..node import CheckBase, node
from .spec import Absent, Agentv, AgentvField, Evidence, KindSpec, Outcome, Terum

NO_WORKSPACE = "a skillgym report does not hold the workspace after the session"


@node
class FileExists(CheckBase):
    """Passes when ``path`` exists in the sandbox after the session."""

    kind: Literal["file_exists"] = "file_exists"
    path: str

    @property
    def arg(self) -> str:
        return self.path


@node
class FileAbsent(CheckBase):
    """Passes when ``path`` does not exist in the sandbox after the session."""

    kind: Literal["file_absent"] = "file_absent"
    path: str

    @property
    def arg(self) -> str:
        return self.path


def _score(check: FileExists | FileAbsent, ev: Evidence) -> Outcome:
    exists = ev.path_exists(check.path)
    if isinstance(exists, str):
        return False, exists
    return exists == isinstance(check, FileExists), "exists" if exists else "does not exist"


def _spec(cls: type[FileExists] | type[FileAbsent], opposite: str, present: bool, description: str,
          sentence: str) -> KindSpec:
    kind = cls.__dataclass_fields__["kind"].default
    return KindSpec(
        kind=kind, cls=cls, description=description, feature="check.workspace", looks_at="files",
        asserts="presence" if present else "absence", graded=False, score=_score,
        sentence=lambda c: sentence.format(c.path),
        terum=Terum("path", negated=opposite, argument="sandbox-path"),
        agentv=Agentv(kind.replace("_", "-"), (AgentvField("path", "value", "str", True),), form="custom"),
        promptfoo=Absent("promptfoo does not inspect the workspace"),
        skillgym=Absent(NO_WORKSPACE),
        opposite=opposite)


EXISTS = _spec(FileExists, "file_absent", True, "Passes when this sandbox-relative path exists after the session.",
               "The file '{}' exists after the session")
ABSENT = _spec(FileAbsent, "file_exists", False,
               "Passes when this sandbox-relative path does not exist after the session.",
               "The file '{}' does not exist after the session")
SPECS = (EXISTS, ABSENT)
