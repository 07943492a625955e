"""``evalfmt transpile``: route skill-trigger tests into per-skill evals.json files."""

from __future__ import annotations

import re
import shlex

import click

from ..transpile import apply, check, plan
from ._common import err, from_option, out_option


@click.command("transpile")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@out_option("out_dir", "-d", "--out-dir", type=click.Path(), default=None, metavar="DIR",
            help="Output folder. seed: default .agentv/skills/ beside each input; agentv: the input's folder.")
@click.option("--layout", type=click.Choice(["seed", "agentv"]), default="seed", show_default=True,
              help="seed: <out>/<skill>/evals.json with {tests: [{id, input, should_trigger}]}; "
                   "agentv: the files 'agentv transpile' 4.42.4 writes, byte for byte.")
@click.option("--check", "check_only", is_flag=True,
              help="Write nothing; exit 1 naming every file that is missing or differs.")
@click.option("--stdout", "to_stdout", is_flag=True, help="Print the one output file instead of writing it.")
@click.option("--skill", default=None, metavar="NAME",
              help="Skill of a trigger set that names none (a skill-creator trigger file outside a skill folder).")
@from_option
def command(paths: tuple[str, ...], out_dir: str | None, layout: str, check_only: bool, to_stdout: bool,
            skill: str | None, from_: str | None) -> int:
    """Route the skill-trigger tests of EVAL.yaml files (or any eval assets) into per-skill evals.json.

    Every test with a skill-trigger assertion goes into the file of each skill it names, with that
    assertion's should_trigger (true when absent). A test without one is not routed: a line on stderr
    names it. On any error nothing is written. Files are written atomically, never outside the output
    folder, and a file whose content would not change is not rewritten.
    """
    p = plan(list(paths), layout=layout, out_dir=out_dir, fmt=from_, skill=skill)
    for d in p.errors:
        err(d.format())
    for note in p.notes:
        err(note)
    if not p.ok:
        if p.errors:
            n = len(p.errors)
            err(f"{n} error{'s' if n != 1 else ''}; nothing written")
        return 1
    if not p.files:
        err(f"no skill-trigger tests found; nothing to {'check' if check_only else 'write'}")
        return 0
    if to_stdout:
        if len(p.files) != 1:
            if layout == "agentv":
                err("--stdout is only valid when input produces a single evals.json "
                    "(multi-skill input produces multiple files)")
            else:
                err(f"--stdout needs exactly one output file; this transpile writes {len(p.files)}: "
                    + ", ".join(p.files))
            return 1
        (text,) = p.files.values()
        click.echo(text, nl=False)
        return 0
    if check_only:
        drift = check(p)
        for path, what in drift:
            err(f"{what}: {path}")
        if drift:
            fix = update_command(paths, layout, out_dir, skill, from_)
            err(f"{len(drift)} of {len(p.files)} file{'s' if len(p.files) != 1 else ''} out of date; "
                f"to update, run: {fix}")
            return 1
        return 0
    for path in apply(p, notify=err):
        err(f"wrote {path}")
    return 0


def update_command(paths: tuple[str, ...], layout: str, out_dir: str | None, skill: str | None,
                   from_: str | None) -> str:
    """The command that writes what ``--check`` found out of date: the same inputs and options
    without --check, quoted for a POSIX shell (copy, paste, run)."""
    args = ["evalfmt", "transpile"]
    if layout != "seed":
        args += ["--layout", layout]
    if out_dir is not None:
        args += ["--out", out_dir]
    if skill is not None:
        args += ["--skill", skill]
    if from_ is not None:
        args += ["--from", from_]
    if any(p.startswith("-") for p in paths):
        args.append("--")
    return " ".join(shell_quote(a) for a in args + list(paths))


def shell_quote(arg: str) -> str:
    """``arg`` as one shell word on one line: as is when safe, else in single quotes, else (for control
    characters and line separators, which would break the line) in ``$'...'`` with escapes (bash, zsh,
    and POSIX sh since its 2024 edition)."""
    if not re.search(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", arg):
        return shlex.quote(arg)
    out = []
    for ch in arg:
        if ch in "\\'":
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(ch, f"\\x{ord(ch):02x}"))
        elif 0x80 <= ord(ch) <= 0x9F or ch in "\u2028\u2029":  # \xHH would be a raw byte: \u is the character
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "$'" + "".join(out) + "'"
