"""What a lint run finds (:class:`LintResult`), and how the result cache stores it: kept apart from
the engine, so that a run read back from the cache loads neither the engine nor the rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..cache import diagnostics_from_json, diagnostics_to_json, strings
from ..errors import Diagnostic


@dataclass
class LintResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    #: files a fix may touch: path -> loaded text (for --fix)
    texts: dict[str, str] = field(default_factory=dict)
    #: files left unread for want of evidence of their format (``path: why``; never a finding)
    notes: list[str] = field(default_factory=list)
    #: the folders given in which nothing was found to lint
    empty: list[str] = field(default_factory=list)
    #: the files counted in ``files`` (kept where parts are merged: the cache's)
    paths: set[str] = field(default_factory=set)

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "warning")

    @property
    def infos(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "info")

    @property
    def fixable(self) -> int:
        if not any(d.fixable for d in self.diagnostics):
            return 0
        from .fix import can_fix  # the fixer: 5 ms to import (python -X importtime), only for fixable findings

        return sum(1 for d in self.diagnostics if can_fix(d))


def result_to_json(result: LintResult) -> dict[str, Any] | None:
    """A result as the cache stores it (its texts are left out: ``--fix`` never uses the cache)."""
    return {"diagnostics": diagnostics_to_json(result.diagnostics), "files": result.files,
            "paths": sorted(result.paths), "notes": result.notes, "empty": result.empty}


def result_from_json(data: Any) -> LintResult | None:
    """The result :func:`result_to_json` stored, or None when ``data`` is not exactly that shape."""
    if not isinstance(data, dict):
        return None
    files: Any = data.get("files")
    notes: Any = data.get("notes")
    empty: Any = data.get("empty")
    paths: Any = data.get("paths")
    if not (type(files) is int and strings(notes) and strings(empty) and strings(paths)):
        return None
    return LintResult(diagnostics_from_json(data.get("diagnostics")), files, {}, list(notes), list(empty), set(paths))
