"""``evalfmt schema``: write the JSON Schemas of the eval file formats."""

from __future__ import annotations

import os
import sys

import click


@click.command("schema")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="schemas", show_default=True,
              help="Folder to write the *.schema.json files into.")
@click.option("--name", default=None, metavar="FILE",
              help="Print one schema (e.g. terum-case.schema.json) to stdout instead of writing files.")
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 naming each file that is missing or differs.")
def command(out_dir: str, name: str | None, check_only: bool) -> int:
    """Write the JSON Schemas of terum case, suite and triggers files, AgentV EVAL.yaml, Agent Skills
    evals.json and skill-creator trigger sets (the files in the repository's schemas/ and in the
    installed package). Attach one in an editor with a first line such as
    '# yaml-language-server: $schema=schemas/terum-case.schema.json' (docs/lint.md).
    """
    from ..api import write_files
    from ..errors import EvalfmtError
    from ..schemas_models import SCHEMAS, all_schemas, render
    from ._common import err

    if name is not None:
        if name not in SCHEMAS:
            raise EvalfmtError(f"unknown schema '{name}' (known: {', '.join(SCHEMAS)})")
        sys.stdout.write(render(name))
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
