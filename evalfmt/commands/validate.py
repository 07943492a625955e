"""``evalfmt validate``: structural validation (EV100-EV115), fast enough for pre-commit."""

from __future__ import annotations

import os
from collections.abc import Callable

import click

from ..errors import Validation
from ..fsview import View
from ..globs import Exclude
from ..lint.config import Config, find
from . import _findings
from ._common import echo_json, err, from_option, summary_line


@click.command("validate")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "--output-format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True,
              help="text: one 'path:line:col: CODE message' line per finding and a summary; json: a document.")
@from_option
@click.option("--quiet", "-q", is_flag=True, help="Print findings only, no summary line.")
@click.option("--isolated", is_flag=True, help="Ignore every configuration file (validate reads only its exclude).")
@_findings.options
@_findings.cache_options
def command(paths: tuple[str, ...], fmt: str, from_: str | None, quiet: bool, isolated: bool, exit_zero: bool,
            statistics: bool, exclude: tuple[str, ...], stdin_filename: str | None, no_cache: bool,
            cache_dir: str | None) -> int:
    """Check eval files for structural errors: invalid YAML/JSON, unknown keys, wrong types, missing
    required fields, unknown check kinds, bad regexes, unsafe paths, misplaced files, duplicates
    (the EV1xx rules of `evalfmt rules`), and the other errors the readers find (an AgentV test
    agentv skips, EV502; conflicting skill triggers, EV503).

    PATHS are files or folders (searched recursively; none: the current folder); '-' reads one file
    from stdin (name it with --stdin-filename). Of the configuration ([tool.evalfmt] or evalfmt.toml,
    docs/lint.md) validate uses only exclude / extend-exclude. Exit 0 when no error is found
    (warnings alone exit 0), 1 when any is, 2 on unusable paths. A folder holding no eval file is
    named on stderr (exit 0).
    """
    targets, fs = _findings.stdin_paths(paths, stdin_filename, from_)
    patterns = _findings.patterns(exclude)
    result = _findings.cached_validation(
        _findings.open_cache(no_cache, cache_dir), fs, ("validate", targets, from_, isolated, patterns),
        lambda view: _validate(targets, from_, isolated, patterns, view))
    for note in sorted(result.notes):
        err(f"note: {note}")
    diags = [d for d in result.diagnostics if d.code.startswith("EV1") or d.severity == "error"]
    if not quiet:
        _findings.warn_empty(result.empty)
    if statistics:
        click.echo(_findings.statistics(diags, fmt), nl=False)
    elif fmt == "json":
        echo_json({"diagnostics": [d.to_json() for d in diags],
                   "summary": {"errors": sum(d.severity == "error" for d in diags),
                               "warnings": sum(d.severity == "warning" for d in diags),
                               "files": result.files}})
    else:
        for d in diags:
            click.echo(d.format())
        if diags and not quiet:
            click.echo(summary_line(diags))
    return _findings.exit_code(any(d.severity == "error" for d in diags), exit_zero)


def _validate(targets: list[str], from_: str | None, isolated: bool, patterns: list[str], fs: View) -> Validation:
    # the API: 6 ms to import (python -X importtime), not paid by a run read back
    from ..api import validate_paths

    return validate_paths(targets, from_, exclude=_excluder(isolated, patterns, fs), fs=fs)


def _excluder(isolated: bool, cli: list[str], fs: View) -> Callable[[str], Exclude]:
    """path -> the Exclude for it: the exclude of the configuration found upward from it through ``fs``
    (unless --isolated), plus --exclude."""
    found: dict[str, Config] = {}

    def exclude_for(path: str) -> Exclude:
        if isolated:
            patterns = []
        else:
            cfg = find(path, fs=fs, memo=found)
            patterns = [(cfg.root, p) for p in cfg.exclude]
        return Exclude(patterns + [(os.getcwd(), p) for p in cli])

    return exclude_for
