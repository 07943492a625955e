"""evalfmt: one toolkit for the eval assets of agent skills.

The public API (imported lazily, so that ``import evalfmt`` stays cheap)::

    evalfmt.read(path, fmt=None)           -> ReadResult: IR eval sets (.sets), diagnostics, loaded documents
    evalfmt.validate(paths)                -> list[Diagnostic] (EV1xx from the readers)
    evalfmt.convert(src, to, out=None)     -> Conversion: files to write, losses, diagnostics
    evalfmt.write_files(files, root)       -> one locked, atomic set of writes, never outside ``root``
    evalfmt.route.route(evalsets)          -> Routed: skill-trigger tests per skill (seed layout)
    evalfmt.lint.lint(paths, **options)    -> LintResult (the ``lint`` package is the linter)
    evalfmt.read_session(path)             -> Session: a recorded agent session, normalised
    evalfmt.score_case(case, session, ...) -> CaseResult: a case's checks against one session
    evalfmt.compare(evalset, {arm: dir})   -> Comparison: rows, verdict, net lift, sign test

The IR itself is :mod:`evalfmt.ir`; the formats are in :mod:`evalfmt.formats`.
"""

import importlib

__version__ = "0.1.0"

_API = {
    "read": "api", "read_many": "api", "validate": "api", "convert": "api", "write_files": "api",
    "read_session": "run.transcripts",
    "score_case": "run.checks", "compare": "run.compare",
}


def __getattr__(name: str):
    if name in _API:
        module = importlib.import_module(f"{__name__}.{_API[name]}")
        return getattr(module, name)
    raise AttributeError(f"module 'evalfmt' has no attribute {name!r}")
