"""``evalfmt lint``: the rule catalogue over eval assets and skill folders."""

from __future__ import annotations

import os
import sys
import click

from ..lint import reporters
from ..lint.request import LintRequest, run
from ..lint.config import parse_codes
from . import _findings
from ._common import err, from_option

FORMATS = ["text", "json", "sarif", "github"]


def _codes(values: tuple[str, ...]) -> list[str] | None:
    if not values:
        return None
    out: list[str] = []
    for v in values:
        out.extend(parse_codes(v, "--select/--ignore"))
    return out


@click.command("lint")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "--output-format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Output: text (default; github when GITHUB_ACTIONS=true), json, sarif (2.1.0), github "
                   "(workflow commands).")
@click.option("--select", multiple=True, metavar="CODES",
              help="Only these codes or prefixes (comma-separated; ALL for every rule). Wins over the config.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Skip these codes or prefixes. Wins over the config.")
@click.option("--fix", is_flag=True, help="Apply the safe fixes in place, then report what remains.")
@click.option("--diff", "show_diff", is_flag=True,
              help="Print the fixes as a unified diff and write nothing (exit 1 when there is any).")
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
              help="Use this evalfmt.toml / pyproject.toml instead of looking upward from each path.")
@click.option("--isolated", is_flag=True, help="Ignore every configuration file.")
@click.option("--skip-unrecognized", is_flag=True,
              help="Skip files no format recognises instead of failing (for pre-commit file lists).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Lint in N processes (pays off on large trees; see benchmarks/RESULTS.md).")
@click.option("--quiet", "-q", is_flag=True, help="Text output: findings only, no summary line.")
@from_option
@_findings.options
@_findings.cache_options
def command(paths: tuple[str, ...], fmt: str | None, select: tuple[str, ...], ignore: tuple[str, ...], fix: bool,
            show_diff: bool, strict: bool, config_file: str | None, isolated: bool, skip_unrecognized: bool,
            jobs: int, quiet: bool, from_: str | None, exit_zero: bool, statistics: bool, exclude: tuple[str, ...],
            stdin_filename: str | None, no_cache: bool, cache_dir: str | None) -> int:
    """Lint eval assets and skill folders: structure (EV1xx), eval quality (EV2xx), triggers (EV3xx),
    generated assets (EV4xx), AgentV specifics (EV5xx) and terum hygiene (HYG1-HYG8).

    PATHS are files or folders (searched recursively; a skill folder also gets the hygiene checks;
    none: the current folder); '-' reads one file from stdin (name it with --stdin-filename).
    Configuration: [tool.evalfmt] in pyproject.toml or an evalfmt.toml, found upward from each path
    (docs/lint.md). Silence a finding
    with '# evalfmt: noqa: CODE' (or ruff's '# noqa: CODE') at the end of its line.

    Exit 0 when no error remains (warnings alone exit 0 unless --strict), 1 when one does, 2 on
    unusable paths or configuration. A folder holding nothing to lint is named on stderr (exit 0).
    """
    if fmt is None:
        fmt = "github" if os.environ.get("GITHUB_ACTIONS") == "true" and not statistics else "text"
    if statistics and fmt not in ("text", "json"):
        raise click.UsageError("--statistics prints text or json (give --format text or --format json)")
    request = LintRequest(
        options={"select": _codes(select), "ignore": _codes(ignore), "config_file": config_file,
                 "isolated": isolated, "fmt": from_, "skip_unrecognized": skip_unrecognized, "jobs": jobs,
                 "exclude": _findings.patterns(exclude)},
        fix=fix, diff=show_diff, strict=strict)
    request.paths, request.fs = _findings.stdin_paths(paths, stdin_filename, from_, request.stdin_refusal)
    if request.uses_cache:
        request.cache = _findings.open_cache(no_cache, cache_dir)
    outcome = run(request)
    for line in [f"note: {note}" for note in outcome.notes] + ([] if quiet else _findings.empty_lines(outcome.empty)):
        err(line)
    if outcome.diff is not None:
        sys.stdout.write(outcome.diff)
    elif statistics:
        sys.stdout.write(_findings.statistics(outcome.result.diagnostics, fmt))
    else:  # the rule registry loads only where the output names the rules (sarif): a cached run loads no rule
        sys.stdout.write(reporters.render(fmt, outcome.result, None, outcome.fixed, quiet))
    return _findings.exit_code(outcome.failing, exit_zero)
