"""``evalfmt transpile``: route skill-trigger tests into per-skill evals.json files."""

from __future__ import annotations

import click

from ._common import err, from_option


@click.command("transpile")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("-d", "--out-dir", type=click.Path(), default=None,
              help="Output folder. seed: default .agentv/skills/ beside each input; agentv: the input's folder.")
@click.option("--layout", type=click.Choice(["seed", "agentv"]), default="seed", show_default=True,
              help="seed: <out-dir>/<skill>/evals.json with {tests: [{id, input, should_trigger}]}; "
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
    from ..transpile import apply, check, plan

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
            err(f"{len(drift)} of {len(p.files)} file{'s' if len(p.files) != 1 else ''} out of date; "
                f"run 'evalfmt transpile' without --check to update")
            return 1
        return 0
    for path in apply(p, notify=err):
        err(f"wrote {path}")
    return 0
