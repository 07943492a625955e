"""Small helpers shared by the command modules (kept light: imported on every command start)."""

from __future__ import annotations

import sys
from typing import Any
from collections.abc import Iterable

import click
import orjson

from ..errors import EvalfmtError, UsageError, counts_line, one_line
from ..formats import FORMAT_MODULES

FORMAT_NAMES = list(FORMAT_MODULES)


def from_option(f):
    return click.option("--from", "from_", metavar="FORMAT", type=click.Choice(FORMAT_NAMES),
                        help="Read with this format instead of detecting it.")(f)


class AliasedOption(click.Option):
    """An option that also answers to older spellings, which ``--help`` does not show (they keep
    working for scripts written against them; see the README's changelog)."""

    def __init__(self, *args: Any, shown: tuple[str, ...] = (), **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.shown = list(shown)

    def get_help_record(self, ctx: click.Context):
        opts = self.opts
        self.opts = [o for o in opts if o in self.shown]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = opts


def out_option(dest: str, *old: str, **kwargs: Any):
    """The output option of every command that writes: ``-o/--out`` (older spellings ``old`` hidden)."""
    return click.option("-o", "--out", *old, dest, cls=AliasedOption, shown=("-o", "--out"), **kwargs)


DETECTION_HELP = ("How a skill-trigger check reads the session: first-call (the seed's rule: only the first "
                  "tool call), any-call (agentv 4.42.4), skill-used (an exact name in a successful Skill call).")
TAG_HELP = ("Only cases carrying this tag (repeatable, or comma-separated: a case with any of the tags is "
            "selected, as skillgym's --tag).")


def detection_option(f):
    return click.option("--trigger-detection", "detection", metavar="MODE", default="first-call", show_default=True,
                        help=DETECTION_HELP + " Plugins add more (entry points 'evalfmt.detectors').")(f)


def tag_option(f):
    return click.option("--tag", "tags", multiple=True, metavar="TAG", help=TAG_HELP)(f)


def read_sets(path: str, from_: str | None, one: bool = False) -> list:
    """The eval sets under ``path``; EvalfmtError when nothing usable was read. ``one``: the command acts
    on one eval set, so sets of several formats need ``--from`` (:func:`one_format`)."""
    from ..api import read, sort_diagnostics  # 6-9 ms to import (python -X importtime): a cached run never pays it
    result = read(path, from_)
    if not result.sets:
        errors = [d for d in sort_diagnostics(result.diagnostics) if d.severity == "error"]
        if errors:
            raise EvalfmtError(errors[0].format())
        if result.notes:  # a file left unread: say why, and how to read it anyway
            raise EvalfmtError(result.notes[0])
        raise EvalfmtError(f"{path}: no eval assets found")
    if one:
        one_format(path, result.sets, from_)
    return result.sets


def one_format(path: str, sets: list, from_: str | None) -> None:
    """Refuse eval sets of several formats (a skill folder holding terum evals and an EVAL.yaml) for a
    command that acts on one of them (score, compare, run, triggers): ``--from`` picks it."""
    formats = list(dict.fromkeys(s.format for s in sets))
    if from_ is None and len(formats) > 1:
        raise UsageError(f"{path} holds {len(sets)} eval sets ({', '.join(formats)}): pass "
                         + " or ".join(f"--from {f}" for f in formats))


def echo_json(data: Any) -> None:
    try:
        text = orjson.dumps(data, option=orjson.OPT_INDENT_2)
    except TypeError:  # an integer beyond 64 bits that no reader caught: written as JavaScript would
        from ..js import json_numbers  # 1.4 ms to import (python -X importtime): only for such an integer

        text = orjson.dumps(json_numbers(data), option=orjson.OPT_INDENT_2)
    sys.stdout.write(text.decode("utf-8") + "\n")


def err(message: str) -> None:
    """``evalfmt: <message>`` on stderr, on one line whatever the user strings in it hold (one_line)."""
    click.echo(err_text(message), err=True)


def err_text(message: str) -> str:
    """The line :func:`err` prints (without its line break)."""
    return f"evalfmt: {one_line(message)}"


def echo_line(line: str) -> None:
    """One line of text output on stdout, user strings made safe (one_line)."""
    click.echo(one_line(line))


def summary_line(diags: Iterable) -> str:
    """The counts line under a list of findings (files = the files that have one)."""
    diags = list(diags)
    errors, warnings, infos = (sum(1 for d in diags if d.severity == s) for s in ("error", "warning", "info"))
    return counts_line(errors, warnings, infos, len({d.path for d in diags}))
