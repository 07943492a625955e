"""Reports people look at, rendered from receipts: a self-contained HTML page and a Markdown summary.

- ``model.py``: reads and checks receipts (:func:`model.load`) and turns them into :class:`model.Report`,
  the facts both formats show (verdict, net-lift lines, rows, per-case tallies, the checks that do not
  tell the arms apart, triggers, efficiency, the trend across runs of one skill). Numbers come from the
  receipt; the lines terum prints come from ``evalfmt.verdict``. Nothing here re-scores a run.
- ``text.py``: the escaping and display helpers (invisible and bidi control characters made visible,
  long values cut).
- ``html.py`` / ``markdown.py``: the two renderers, plain Python (no template engine).
- ``triggerrun.py``: what the report of a trigger run's receipt shows (``evalfmt run EVAL.yaml --skills DIR``,
  ``evalfmt compare EVAL.yaml --runs ...``); ``triggerhtml.py`` / ``triggermd.py`` render it.

Entry point: :func:`render` (paths in, text out). See docs/report.md.
"""

from __future__ import annotations

import json

from ..receipt import ReceiptError
from . import model, triggerhtml, triggermd, triggerrun
from .html import render_html
from .markdown import render_markdown
from .triggerrun import is_trigger_run

FORMATS = ("html", "markdown")


def render(paths: list[str], fmt: str = "html") -> str:
    """Read the receipts at ``paths`` and render them (``fmt`` is ``html`` or ``markdown``).
    Raises :class:`evalfmt.report.model.ReceiptError` for an unreadable receipt."""
    runs = [_trigger_run(p) for p in paths]
    if any(r is not None for r in runs):
        if not all(r is not None for r in runs):
            raise ReceiptError("a trigger-run receipt (evalfmt run --skills) cannot be rendered with arm receipts: "
                               "give them separately")
        return _render_trigger_runs([triggerrun.read(r, p) for r, p in zip(runs, paths) if r is not None], fmt)
    report = model.build([model.load(p) for p in paths])
    if fmt == "html":
        return render_html(report)
    if fmt == "markdown":
        return render_markdown(report)
    raise ValueError(f"unknown report format {fmt!r}")


def _render_trigger_runs(runs: list, fmt: str) -> str:
    if fmt == "html":
        return triggerhtml.render_html(runs)
    return triggermd.render_markdown(runs)


def _trigger_run(path: str) -> dict | None:
    """The receipt at ``path`` when it is a trigger run's (``"kind": "trigger-run"``), else None."""

    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
            if b'"kind"' not in head:
                return None
            data = json.loads(head + fh.read())
    except (OSError, ValueError):
        return None
    return data if is_trigger_run(data) else None
