"""``evalfmt triggers``: score trigger prompts against recorded selections; print a selector's catalog."""

from __future__ import annotations

import click

from ._common import echo_json, from_option


@click.command("triggers")
@click.argument("path", metavar="SKILL_OR_TRIGGERS", type=click.Path())
@click.option("--selections", type=click.Path(dir_okay=False),
              help='Recorded selections, JSON lines: {"prompt": ..., "selected": [...]} or {"prompt": ..., "error": ...}.')
@click.option("--catalog", "show_catalog", is_flag=True,
              help="Print the catalog a selector is shown (one '- name: description' line per sibling skill) and exit.")
@click.option("--skill", metavar="NAME", help="The skill whose selection counts as a fire (default: the trigger set's skill).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@from_option
def command(path: str, selections: str | None, show_catalog: bool, skill: str | None, fmt: str, from_: str | None) -> int:
    """Score the trigger prompts of SKILL_OR_TRIGGERS (a skill folder or its evals/triggers.yaml)
    against recorded selections: recall, precision, a MISS line per missed should-trigger prompt and
    a FALSE-FIRE line per fired should-not prompt.

    Exit 0 when every prompt went the right way, 1 on any miss or false fire, 2 on unreadable input.
    """
    import os

    from ..discover import skill_root
    from ..errors import EvalfmtError

    if show_catalog:
        from ..run.triggers import catalog

        root = skill_root(path) if not os.path.isfile(os.path.join(path, "SKILL.md")) else path
        if root is None or not os.path.isfile(os.path.join(root, "SKILL.md")):
            raise EvalfmtError(f"{path}: not a skill folder (no SKILL.md)")
        lines = catalog(root)
        if fmt == "json":
            echo_json({"catalog": lines})
        else:
            for line in lines:
                click.echo(line)
        return 0
    if selections is None:
        raise click.UsageError("give --selections FILE (or --catalog)")
    from ..run.triggers import read_selections, score_triggers
    from .score import read_sets

    sets = [s for s in read_sets(path, from_) if s.triggers is not None and s.triggers.prompts]
    if not sets:
        raise EvalfmtError(f"{path}: no trigger prompts found")
    if len(sets) > 1:
        raise EvalfmtError(f"{path} holds {len(sets)} trigger sets; give one skill folder or triggers file")
    evalset = sets[0]
    name = skill or evalset.triggers.skill or (evalset.skill.name if evalset.skill else None)
    result = score_triggers(evalset.triggers, read_selections(selections), name)
    if fmt == "json":
        echo_json(result.to_json())
    else:
        for line in result.lines():
            click.echo(line)
    return 1 if result.misses or result.false_fires else 0
