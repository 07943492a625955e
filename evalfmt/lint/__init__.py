"""The linter: rules (``evalfmt.lint.rules``), the engine, configuration, suppression comments,
reporters and fixes. ``evalfmt.lint.lint(paths)`` returns a :class:`~evalfmt.lint.engine.LintResult`.

Kept import-light: the engine and the rules load when :func:`lint` is called.
"""

from __future__ import annotations


def lint(paths, cache=None, **options):
    """Lint the eval assets and skill folders under ``paths`` (see :func:`evalfmt.lint.engine.lint`).
    ``cache`` (an :class:`evalfmt.cache.Cache`): read the result back when nothing it depends on
    changed, else store it (each skill folder's part is cached too)."""
    from .engine import lint as _lint

    if cache is None or options.get("jobs", 1) > 1:  # (worker processes' reads cannot be recorded)
        return _lint(list(paths), **options)
    import sys

    from .. import cache as cache_mod
    from .engine import result_from_json, result_to_json

    def compute():
        for entry in sys.path:  # an installed or removed plugin changes a folder of sys.path
            if entry:
                cache_mod.observe_now(entry)
        result = _lint(list(paths), cache=cache, **options)
        from .registry import registry

        # a rule's code edited in place (a plugin being written, an editable install) changes the result too
        for module in sorted({rule.__module__ for rule in registry()}):
            source = getattr(sys.modules.get(module), "__file__", None)
            if source:
                cache_mod.observe_now(source)
        return result

    registry_mod = sys.modules.get("evalfmt.lint.registry")
    loaded = getattr(registry_mod, "_REGISTRY", None)
    rules = registry_mod.fingerprint(loaded) if loaded is not None else None  # (else its probes say)
    return cache_mod.cached(cache, ("lint", list(paths), sorted(options.items()), rules), compute, result_to_json,
                            result_from_json)
