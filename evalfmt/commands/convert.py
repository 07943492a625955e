"""``evalfmt convert``: one format to another, naming everything the target cannot hold."""

from __future__ import annotations

import click

from ..api import ConvertRequest, plan_convert, write_conversion
from ..errors import EvalfmtError
from ._common import FORMAT_NAMES, err, from_option


@click.command("convert")
@click.argument("src", type=click.Path())
@click.option("--to", "to", required=True, type=click.Choice(FORMAT_NAMES), help="The format to write.")
@click.option("-o", "--out", type=click.Path(), default=None,
              help="Output file, or folder for formats that write several files (terum) or several "
                   "eval sets. Without it a single-file result goes to stdout.")
@click.option("--strict", is_flag=True, help="Write nothing and exit 1 if anything would be lost.")
@click.option("--force", is_flag=True, help="Convert even when a source file cannot be read.")
@click.option("-v", "--verbose", is_flag=True,
              help="Also list each field kept in a form the target's tools do not act on (metadata, custom "
                   "assertion types, expectation sentences), one 'kept:' line each.")
@from_option
def command(src: str, to: str, out: str | None, strict: bool, force: bool, verbose: bool, from_: str | None) -> int:
    """Convert the eval assets at SRC to another format.

    Every field the target cannot hold is listed on stderr as `evalfmt: lost: <where>: <what>`;
    with --strict such a conversion writes nothing and exits 1. Fields the output keeps in a form
    the target's tools do not act on (e.g. terum's setup under agentv's metadata.terum) are not lost:
    one line counts them, and --verbose lists them as `evalfmt: kept: <where>: <what>`. Structural
    errors in the source are printed on stderr; a source file that cannot be read at all (EV100)
    stops the conversion (exit 1) unless --force. Files are written atomically, unchanged files are
    not rewritten, and YAML written over an existing file keeps its comments and key order.
    """
    outcome = plan_convert(ConvertRequest(src, to, out, from_, strict=strict, force=force, verbose=verbose))
    for line in outcome.said:
        err(line)
    if outcome.error is not None:
        raise EvalfmtError(outcome.error)
    if outcome.stdout is not None:
        click.echo(outcome.stdout, nl=False)
    if outcome.writes:
        for line in write_conversion(outcome.conversion, notify=err):
            err(line)
    return outcome.status
