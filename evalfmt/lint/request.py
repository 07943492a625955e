"""A lint run as ``evalfmt lint`` asks for it (:class:`LintRequest`) and what it comes to
(:class:`LintOutcome`): the fix loop of ``--fix``, the diff of ``--diff``, and whether the findings
fail the run (``--strict`` counts warnings). Kept light, as the package's ``__init__``: the fixer
loads only when a fix is asked for."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..fsview import View
from . import lint
from .result import LintResult

if TYPE_CHECKING:  # pragma: no cover
    from ..cache import Cache

#: how many rounds of fixes ``--fix`` applies at most (a fix may uncover another: a renamed key's value)
FIX_ROUNDS = 5


@dataclass
class LintRequest:
    """The paths to lint (``fs``: the view to read them through; ``cache``: the result cache, used only
    when nothing is to be fixed), the engine's options (:func:`evalfmt.lint.engine.lint`), and the policy:
    ``fix`` applies the safe fixes and lints again, ``diff`` only shows them, ``strict`` fails on warnings."""

    paths: list[str] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    fix: bool = False
    diff: bool = False
    strict: bool = False
    fs: View | None = None
    cache: Cache | None = None

    @property
    def fixing(self) -> bool:
        """``--fix`` or ``--diff``: the files' texts are needed, so no cache and one process."""
        return self.fix or self.diff

    @property
    def uses_cache(self) -> bool:
        return not self.fixing

    @property
    def stdin_refusal(self) -> str | None:
        """The option that cannot work on a text read from stdin, if given."""
        return "--fix" if self.fix else "--diff" if self.diff else None

    def engine_options(self) -> dict[str, Any]:
        return {**self.options, "jobs": 1} if self.fixing else dict(self.options)


@dataclass
class LintOutcome:
    """What a :class:`LintRequest` came to: the findings (after the fixes, with ``--fix``), the notes and
    empty folders of the first run (said before anything else), how many findings were fixed, the diff
    (``--diff``), and whether the run fails (errors, warnings when strict, a diff that is not empty)."""

    result: LintResult
    notes: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)
    fixed: int = 0
    diff: str | None = None
    failing: bool = False


def run(request: LintRequest) -> LintOutcome:
    """Lint as ``request`` asks: once, then (``fix``) fix and lint again until nothing is left to fix or
    :data:`FIX_ROUNDS` rounds are done; or (``diff``) give the fixes as a unified diff and write nothing."""
    options = request.engine_options()
    result = lint(request.paths, cache=request.cache if request.uses_cache else None, fs=request.fs, **options)
    outcome = LintOutcome(result, notes=sorted(result.notes), empty=list(result.empty))
    if request.diff:
        from . import fix as fixer  # 5 ms to import (python -X importtime): only to fix

        plan = fixer.plan(result.diagnostics, dict(result.texts))
        outcome.diff = fixer.diff(plan)
        outcome.failing = not plan.empty
        return outcome
    if request.fix:
        _fix_rounds(outcome, list(request.paths), options)
    outcome.failing = bool(outcome.result.errors or (request.strict and outcome.result.warnings))
    return outcome


def _fix_rounds(outcome: LintOutcome, targets: list[str], options: dict[str, Any]) -> None:
    """Apply the fixes of ``outcome.result`` and lint again (the disk as it now is, through a fresh view;
    a renamed file under its new name), round after round."""
    from . import fix as fixer  # 5 ms to import (python -X importtime): only to fix

    for _ in range(FIX_ROUNDS):
        plan = fixer.plan(outcome.result.diagnostics, dict(outcome.result.texts))
        if plan.empty:
            return
        fixer.apply(plan)
        outcome.fixed += len(plan.fixed)
        moved = dict(plan.renames)
        targets = [moved.get(p, p) for p in targets]
        outcome.result = lint(targets, fs=View(), **options)
