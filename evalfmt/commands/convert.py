"""``evalfmt convert``: one format to another, naming everything the target cannot hold."""

from __future__ import annotations

import os

import click

from ..api import convert, copied_files, write_files
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
    conv = convert(src, to, out, from_)
    for note in conv.notes:
        err(f"note: {note}")
    unread = [d for d in conv.diagnostics if d.code == "EV100"]
    for d in unread:
        err(d.format())
    others = sum(1 for d in conv.diagnostics if d.severity == "error" and d.code != "EV100")
    if others:
        err(f"note: the source has {others} structural error{'s' if others != 1 else ''} "
            f"(see 'evalfmt validate {src}'); they are carried over as they are")
    if unread and not force:
        err(f"{src}: {len(unread)} file{'s' if len(unread) != 1 else ''} could not be read, so "
            "converting would drop them; fix them or use --force")
        return 1
    # errors that end the conversion come before any loss line
    if not conv.files and conv.skipped:
        raise EvalfmtError(f"nothing written: {conv.skipped[0]}")
    if out is None and len(conv.files) != 1:
        err(f"the {to} output is {len(conv.files)} files: give -o DIR")
        return 2
    for line in conv.skipped:
        err(f"not written: {line}")
    for line in conv.left_out:
        err(f"not converted: {line}")
    lost = [x for x in conv.losses if x.lost]
    kept = [x for x in conv.losses if not x.lost]
    for loss in lost:
        err(loss.format())
    if verbose:
        for item in kept:
            err(item.format())
    elif kept:
        err(f"kept {len(kept)} field{'s' if len(kept) != 1 else ''} as metadata or custom types {to} does not act "
            "on (converting back restores them): --verbose lists them")
    if strict and conv.left_out:
        n = len(conv.left_out)
        err(f"--strict: {n} case{'s' if n != 1 else ''} would be left out; nothing written")
        return 1
    if strict and lost:
        err(f"--strict: {len(lost)} field{'s' if len(lost) != 1 else ''} would be lost; nothing written")
        return 1
    if out is None:
        (text,) = conv.files.values()
        click.echo(text, nl=False)
        return 0
    assert conv.root is not None  # convert() sets it whenever out is given
    copied = copied_files(conv.copies)
    written = write_files({**conv.files, **copied}, conv.root, notify=err)
    for dst, origin in conv.copies.items():
        err(f"copied fixture {origin} to {dst} (terum reads fixtures only inside the skill folder)")
    total = len(conv.files) + len(copied)
    err(f"wrote {len(written)} file{'s' if len(written) != 1 else ''}"
        + (f" ({total - len(written)} unchanged)" if len(written) != total else ""))
    for folder in conv.no_skill_md:
        err(f"warning: {folder} has no SKILL.md, so evalfmt does not read its evals/ and terum has no skill to run "
            f"them with: add {os.path.join(folder, 'SKILL.md')}, or convert into the skill's folder")
    return 0
