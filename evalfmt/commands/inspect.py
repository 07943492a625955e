"""``evalfmt inspect``: show what evalfmt read (a summary, or the IR as JSON)."""

from __future__ import annotations

import os

import click

from ..api import read, sort_diagnostics
from ..formats.ir_doc import document
from ..summary import describe
from ._common import echo_json, err, from_option


@click.command("inspect")
@click.argument("path", type=click.Path())
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: a readable summary; json: the IR (the 'ir' format, readable with --from ir).")
@click.option("--no-spans", is_flag=True, help="With --format json, leave out source positions.")
@from_option
def command(path: str, fmt: str, no_spans: bool, from_: str | None) -> int:
    """Print what was read from the eval assets at PATH: each eval set with its cases, checks,
    suite entries and trigger prompts. Structural errors are printed on stderr (exit 1 when there
    are any, as `validate` does); a folder holding no eval file is named on stderr (exit 0)."""
    result = read(path, from_)
    diags = sort_diagnostics(result.diagnostics)
    if fmt == "json":
        echo_json(document(result.sets, spans=not no_spans))
    else:
        click.echo(describe(result.sets), nl=False)
    for note in sorted(result.notes):
        err(f"note: {note}")
    if not result.sets and not diags and os.path.isdir(path):  # as lint and validate say it
        err(f"no eval files found under {path}")
    for d in diags:
        if d.severity == "error":
            err(d.format())
    return 1 if any(d.severity == "error" for d in diags) else 0
