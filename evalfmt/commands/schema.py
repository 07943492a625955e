"""``evalfmt schema``: write the JSON Schemas of the eval file formats."""

from __future__ import annotations

import difflib
import os
import sys

import click

from ..api import write_files
from ..errors import EvalfmtError
from ..schemas_models import SCHEMAS, all_schemas, render
from ._common import err, out_option


@click.command("schema")
@out_option("out_dir", type=click.Path(file_okay=False), default="schemas", show_default=True, metavar="DIR",
            help="Folder to write the *.schema.json files into.")
@click.option("--name", default=None, metavar="NAME",
              help="Print one schema (e.g. terum-case, or terum-case.schema.json) to stdout instead of writing files.")
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 naming each file that is missing or "
                                                          "differs.")
def command(out_dir: str, name: str | None, check_only: bool) -> int:
    """Write the JSON Schemas of terum case, suite and triggers files, AgentV EVAL.yaml, Agent Skills
    evals.json and skill-creator trigger sets (the files in the repository's schemas/ and in the
    installed package). Attach one in an editor with a first line such as
    '# yaml-language-server: $schema=schemas/terum-case.schema.json' (docs/lint.md).
    """
    if name is not None:
        full = name if name in SCHEMAS else f"{name}.schema.json"
        if full not in SCHEMAS:
            short = [n.removesuffix(".schema.json") for n in SCHEMAS]
            close = difflib.get_close_matches(name.removesuffix(".schema.json"), short, n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise EvalfmtError(f"unknown schema '{name}' ({hint}known: {', '.join(short)})")
        sys.stdout.write(render(full))
        return 0
    files = {os.path.join(out_dir, n): text for n, text in all_schemas().items()}
    if check_only:
        stale = []
        for path, text in files.items():
            try:
                with open(path, encoding="utf-8") as fh:
                    same = fh.read() == text
            except OSError:
                same = False
            if not same:
                stale.append(path)
                err(f"out of date: {path}")
        return 1 if stale else 0
    for path in write_files(files, out_dir, notify=err):
        err(f"wrote {path}")
    return 0
