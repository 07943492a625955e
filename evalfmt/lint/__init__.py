"""The linter: rules (``evalfmt.lint.rules``), the engine, configuration, suppression comments,
reporters and fixes. ``evalfmt.lint.lint(paths)`` returns a :class:`~evalfmt.lint.result.LintResult`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from ..fsview import View
from .result import LintResult, result_from_json, result_to_json

if TYPE_CHECKING:  # pragma: no cover
    from ..cache import Cache


def lint(paths: list[str], *, cache: Cache | None = None, fs: View | None = None, **options: Any) -> LintResult:
    """Lint the eval assets and skill folders under ``paths`` (see :func:`evalfmt.lint.engine.lint`),
    looking at the disk through ``fs`` (a plain view of it when None; the language server's holds the
    editor's texts). ``cache`` (an :class:`evalfmt.cache.Cache`): read the result back when nothing it
    read changed, else store it (each skill folder's part too). A view holding virtual files (stdin,
    an editor's buffers) and ``jobs`` above 1 (the worker processes' reads are not recorded) run
    without the cache."""
    view = View() if fs is None else fs
    if cache is None or options.get("jobs", 1) > 1 or view.virtual:
        return _engine()(list(paths), fs=view, **options)
    return cache.run(("lint", list(paths), sorted(options.items())),
                     lambda recording, parts: _engine()(list(paths), fs=recording, parts=parts, **options),
                     result_to_json, result_from_json)


def _engine() -> Callable[..., LintResult]:
    # lazy facade: the engine, 10 ms to import (python -X importtime), and the rules it loads (29 ms); a run
    # read back from the cache never imports them
    from .engine import lint

    return lint
