"""Small helpers shared by the command modules (kept light: imported on every command start)."""

from __future__ import annotations

import sys
from typing import Any, Iterable

import click

from ..errors import counts_line, one_line
from ..formats import FORMAT_MODULES

FORMAT_NAMES = list(FORMAT_MODULES)


def from_option(f):
    return click.option("--from", "from_", metavar="FORMAT", type=click.Choice(FORMAT_NAMES),
                        help="Read with this format instead of detecting it.")(f)


def echo_json(data: Any) -> None:
    import orjson

    sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n")


def err(message: str) -> None:
    """``evalfmt: <message>`` on stderr, on one line whatever the user strings in it hold (one_line)."""
    click.echo(f"evalfmt: {one_line(message)}", err=True)


def echo_line(line: str) -> None:
    """One line of text output on stdout, user strings made safe (one_line)."""
    click.echo(one_line(line))


def summary_line(diags: Iterable) -> str:
    """The counts line under a list of findings (files = the files that have one)."""
    diags = list(diags)
    return counts_line(*(sum(1 for d in diags if d.severity == s) for s in ("error", "warning", "info")),
                       len({d.path for d in diags}))
