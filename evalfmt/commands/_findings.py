"""What ``lint`` and ``validate`` share, as ruff users expect it: ``--exit-zero``, ``--statistics``,
``--exclude``, reading one file from stdin (``-`` with ``--stdin-filename``), and the warning for a
folder that holds no eval file. Kept light: imported on every start of those two commands."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable

import click
import orjson

from .. import cache as cache_mod
from ..errors import EvalfmtError, Validation
from ..fsview import View
from ..load import max_bytes_default
from ._common import err


def options(f):
    """The shared options, in the order ``--help`` shows them."""
    for opt in reversed((
        click.option("--exit-zero", is_flag=True,
                     help="Exit 0 even when findings remain (2 still means a usage or internal error)."),
        click.option("--statistics", is_flag=True,
                     help="Print how many findings each code has (count, code, name; [*]: fixable) instead of "
                          "the findings (text or json)."),
        click.option("--exclude", "exclude", multiple=True, metavar="PATTERNS",
                     help="Skip files and folders matching these globs (comma-separated, repeatable; relative to "
                          "the working folder), on top of the configuration's exclude. Also files named directly."),
        click.option("--stdin-filename", metavar="PATH",
                     help="With '-' as the path: the name of the file read from stdin, for format detection, "
                          "configuration and the paths printed. It need not exist."),
    )):
        f = opt(f)
    return f


def cache_options(f):
    """``--no-cache`` and ``--cache-dir`` (lint and validate)."""
    f = click.option("--cache-dir", metavar="DIR", default=None,
                     help="Keep the result cache in DIR (default: $EVALFMT_CACHE_DIR, else .evalfmt_cache in the "
                          "project folder).")(f)
    return click.option("--no-cache", is_flag=True,
                        help="Neither read nor write the result cache (also EVALFMT_NO_CACHE=1; docs/lint.md).")(f)


def open_cache(no_cache: bool, cache_dir: str | None) -> cache_mod.Cache | None:
    """The result cache to use, or None (``--no-cache`` or ``EVALFMT_NO_CACHE=1``, or no folder may be
    used: a refused one is named in one warning line, and the run goes on without a cache)."""
    if no_cache or os.environ.get("EVALFMT_NO_CACHE", "") not in ("", "0"):
        return None
    cache, warning = cache_mod.open_folder(cache_dir)
    if warning is not None:
        err(warning)
    return cache


def cached_validation(cache: cache_mod.Cache | None, fs: View, key: tuple,
                      compute: Callable[[View], Validation]) -> Validation:
    """``compute(view)`` (an :class:`evalfmt.api.Validation`) through the result cache; without one, or
    for text read from stdin, ``compute(fs)``."""
    if cache is None or fs.virtual:
        return compute(fs)
    return cache.run(key, lambda view, _parts: compute(view), cache_mod.validation_to_json,
                     cache_mod.validation_from_json)


def patterns(values: Iterable[str]) -> list[str]:
    return [p for v in values for p in (s.strip() for s in v.split(",")) if p]


def stdin_paths(paths: tuple[str, ...], stdin_filename: str | None, from_: str | None,
                refuse: str | None = None) -> tuple[list[str], View]:
    """The paths to read and the view of the disk to read them through; ``-`` is the file on stdin,
    read under the name ``--stdin-filename`` (or ``-`` with ``--from``): the view holds its text as a
    virtual file. ``refuse``: an option given that cannot work on stdin (``--fix``)."""
    if not paths and stdin_filename is None:
        paths = (".",)  # as ruff: no path is the current folder
    if "-" not in paths:
        if stdin_filename is not None:
            raise click.UsageError("--stdin-filename names the file read from stdin: give '-' as the path")
        return list(paths), View()
    if len(paths) != 1:
        raise click.UsageError("'-' (read from stdin) must be the only path")
    if refuse:
        raise click.UsageError(f"{refuse} does not work on stdin")
    if stdin_filename is None and (from_ is None or from_ == "terum"):
        raise click.UsageError("reading from stdin needs --stdin-filename PATH (its name decides the format and "
                               "the configuration) or --from FORMAT (a single-file format)")
    name = stdin_filename or "-"
    if os.path.isdir(name):
        raise click.UsageError(f"--stdin-filename {name}: is a folder; name the file the text stands for")
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise EvalfmtError("cannot read stdin")
    data = stream.read(max_bytes_default() + 1)
    return [name], View({name: data})


def warn_empty(folders: Iterable[str]) -> None:
    """ruff's "No Python files found": a warning on stderr, exit status unchanged."""
    for line in empty_lines(folders):
        err(line)


def empty_lines(folders: Iterable[str]) -> list[str]:
    """What :func:`warn_empty` says."""
    return [f"no eval files found under {folder}" for folder in folders]


def statistics(diags: list, fmt: str) -> str:
    """Per code: how many findings, the rule's name, and whether they can be fixed (``[*]``), most
    frequent first; text as ruff prints it (tab-separated), or a JSON list."""
    # the rules' names and the fixer, only for --statistics (python -X importtime, after a cached run's modules):
    from ..lint.fix import can_fix  # 5 ms to import
    from ..lint.registry import registry  # 1.2 ms to import; registry() loads the rules (29 ms)

    reg = registry()
    counts: dict[str, list[int]] = {}
    for d in diags:
        c = counts.setdefault(d.code, [0, 0])
        c[0] += 1
        c[1] += bool(can_fix(d))
    rows = sorted(counts.items(), key=lambda kv: (-kv[1][0], kv[0]))
    named = [(code, n, fixable, getattr(reg.get(code), "name", "")) for code, (n, fixable) in rows]
    if fmt == "json":
        data = [{"code": code, "name": name, "count": n, "fixable": fixable > 0} for code, n, fixable, name in named]
        return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n"
    if fmt != "text":
        raise EvalfmtError(f"--statistics prints text or json, not {fmt}")
    width = max((len(str(n)) for _c, n, _f, _n in named), default=1)
    cwidth = max((len(code) for code, *_ in named), default=1)
    return "".join(f"{n:>{width}}\t{code:<{cwidth}}\t{'[*] ' if fixable else ''}{name}\n"
                   for code, n, fixable, name in named)


def exit_code(failing: bool, exit_zero: bool) -> int:
    return 1 if failing and not exit_zero else 0
