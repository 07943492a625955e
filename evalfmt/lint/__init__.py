"""The linter: rules (``evalfmt.lint.rules``), the engine, configuration, suppression comments,
reporters and fixes. ``evalfmt.lint.lint(paths)`` returns a :class:`~evalfmt.lint.engine.LintResult`.

Kept import-light: the engine and the rules load when :func:`lint` is called.
"""

from __future__ import annotations


def lint(paths, **options):
    """Lint the eval assets and skill folders under ``paths`` (see :func:`evalfmt.lint.engine.lint`)."""
    from .engine import lint as _lint

    return _lint(list(paths), **options)
