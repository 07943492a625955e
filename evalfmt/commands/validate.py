"""``evalfmt validate``: structural validation (EV100-EV115), fast enough for pre-commit."""

from __future__ import annotations

import click

from ._common import echo_json, err, from_option, summary_line


@click.command("validate")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: one 'path:line:col: CODE message' line per finding and a summary; json: a document.")
@from_option
@click.option("--quiet", "-q", is_flag=True, help="Print findings only, no summary line.")
def command(paths: tuple[str, ...], fmt: str, from_: str | None, quiet: bool) -> int:
    """Check eval files for structural errors: invalid YAML/JSON, unknown keys, wrong types, missing
    required fields, unknown check kinds, bad regexes, unsafe paths, misplaced files, duplicates
    (the EV1xx rules of `evalfmt rules`).

    PATHS are files or folders (searched recursively). Exit 0 when no error is found (warnings
    alone exit 0), 1 when any is, 2 on unusable paths.
    """
    from ..api import read_many, sort_diagnostics

    result = read_many(list(paths), from_)
    for note in sorted(result.notes):
        err(f"note: {note}")
    diags = [d for d in sort_diagnostics(result.diagnostics) if d.code.startswith("EV1")]
    if fmt == "json":
        echo_json({"diagnostics": [d.to_json() for d in diags],
                   "summary": {"errors": sum(d.severity == "error" for d in diags),
                               "warnings": sum(d.severity == "warning" for d in diags),
                               "files": len({d.path for d in diags})}})
    else:
        for d in diags:
            click.echo(d.format())
        if diags and not quiet:
            click.echo(summary_line(diags))
    return 1 if any(d.severity == "error" for d in diags) else 0
