"""``evalfmt report``: render receipts as a self-contained HTML page or a Markdown summary."""

from __future__ import annotations

import sys

import click

from ..formats import detect
from ..receipt import ReceiptError
from ..report import render
from ..writeset import atomic_write
from ._common import out_option


@click.command("report")
@click.argument("receipts", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["html", "markdown"]), default="html", show_default=True,
              help="html: one self-contained page; markdown: a summary for a pull-request comment or "
                   "$GITHUB_STEP_SUMMARY.")
@out_option("output", "--output", type=click.Path(dir_okay=False), metavar="OUT",
            help="Write the report to this file (default: stdout).")
def command(receipts: tuple[str, ...], fmt: str, output: str | None) -> int:
    """Render one or more RECEIPTS (written by `compare --receipt` or `run`): the verdict and the
    net-lift line, run status, wins / losses / ties per case, the checks that failed or passed in
    both arms, trigger recall and precision with the misses, efficiency per arm, the rows, and, for
    several receipts of one skill, the trend across runs.

    Exit 0 when the report was written, 2 when a receipt cannot be read (not JSON, another
    schema_version, a missing field).
    """
    try:
        text = render(list(receipts), fmt)
    except ReceiptError as exc:
        if not exc.foreign or exc.path is None:
            raise
        raise ReceiptError(_not_a_receipt(exc.path, exc.message), exc.path) from None
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        atomic_write(output, text.encode("utf-8"))
    return 0


def _not_a_receipt(path: str, message: str) -> str:
    """``message`` about a file that is no receipt, naming the eval format the file is in, if any, and
    what ``report`` reads instead."""
    fmt = detect(path)
    if fmt is not None:
        message = f"not a receipt but an eval file ({fmt.name})"
    return f"{message}; report renders the receipt.json that 'evalfmt run' or 'evalfmt compare --receipt' writes"
