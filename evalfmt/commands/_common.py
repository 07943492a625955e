"""Small helpers shared by the command modules (kept light: imported on every command start)."""

from __future__ import annotations

import sys
from typing import Any, Iterable

import click

FORMAT_NAMES = ["ir", "terum", "agentv", "agent-skills", "skill-creator-triggers", "skillgym", "promptfoo"]


def from_option(f):
    return click.option("--from", "from_", metavar="FORMAT", type=click.Choice(FORMAT_NAMES),
                        help="Read with this format instead of detecting it.")(f)


def echo_json(data: Any) -> None:
    import orjson

    sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n")


def err(message: str) -> None:
    click.echo(f"evalfmt: {message}", err=True)


def summary_line(diags: Iterable, files: int | None = None) -> str:
    diags = list(diags)
    errors = sum(1 for d in diags if d.severity == "error")
    warnings = sum(1 for d in diags if d.severity == "warning")
    infos = sum(1 for d in diags if d.severity == "info")
    n_files = len({d.path for d in diags}) if files is None else files
    parts = [f"{errors} error{'s' if errors != 1 else ''}", f"{warnings} warning{'s' if warnings != 1 else ''}"]
    if infos:
        parts.append(f"{infos} info")
    return f"{', '.join(parts)} in {n_files} file{'s' if n_files != 1 else ''}"
