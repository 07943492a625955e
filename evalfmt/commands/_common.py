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


class AliasedOption(click.Option):
    """An option that also answers to older spellings, which ``--help`` does not show (they keep
    working for scripts written against them; see the README's changelog)."""

    def __init__(self, *args: Any, shown: tuple[str, ...] = (), **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.shown = list(shown)

    def get_help_record(self, ctx: click.Context):
        opts = self.opts
        self.opts = [o for o in opts if o in self.shown]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = opts


def out_option(dest: str, *old: str, **kwargs: Any):
    """The output option of every command that writes: ``-o/--out`` (older spellings ``old`` hidden)."""
    return click.option("-o", "--out", *old, dest, cls=AliasedOption, shown=("-o", "--out"), **kwargs)


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
