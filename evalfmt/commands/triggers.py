"""``evalfmt triggers``: score trigger prompts against recorded selections; print a selector's catalog."""

from __future__ import annotations

import click

from ._common import echo_json, echo_line, err, from_option, read_sets


@click.command("triggers")
@click.argument("path", metavar="SKILL_OR_TRIGGERS", type=click.Path())
@click.option("--selections", type=click.Path(dir_okay=False),
              help='Recorded selections, JSON lines: {"prompt": ..., "selected": [...]} or {"prompt": ..., "error": ...}.')
@click.option("--catalog", "show_catalog", is_flag=True,
              help="Print the catalog a selector is shown (one '- name: description' line per sibling skill) and exit.")
@click.option("--skill", metavar="NAME", help="The skill whose selection counts as a fire (default: the trigger set's skill).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--selector", "selector_name", metavar="NAME",
              help="Make the selections now instead of reading --selections: command (--selector-command), or a "
                   "plugin (entry points 'evalfmt.selectors').")
@click.option("--selector-command", metavar="TEMPLATE",
              help='The command selector\'s program, split like a shell would (no shell); it reads the selection '
                   'prompt on stdin and prints {"selected": [...]}. {model} and {prompt} are replaced inside words.')
@click.option("--runs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Ask each prompt this many times; the skill fires when its fire rate reaches --threshold.")
@click.option("--threshold", type=click.FloatRange(0, 1), default=0.5, show_default=True,
              help="Fire rate at which a prompt counts as firing (with --runs > 1).")
@click.option("--record", type=click.Path(dir_okay=False),
              help="Write the selections made by --selector to this file (JSON lines, the format --selections reads).")
@click.option("--model", metavar="NAME", help="The model, for the selector template's {model}.")
@click.option("--selector-timeout", type=click.FloatRange(min=0, min_open=True), default=120.0, show_default=True,
              help="Seconds one selection may take.")
@from_option
def command(path: str, selections: str | None, show_catalog: bool, skill: str | None, fmt: str, from_: str | None,
            selector_name: str | None = None, selector_command: str | None = None, runs: int = 1,
            threshold: float = 0.5, record: str | None = None, model: str | None = None,
            selector_timeout: float = 120.0) -> int:
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
                echo_line(line)
        return 0
    if selector_name is not None:
        if selections is not None:
            raise click.UsageError("give --selections FILE or --selector NAME, not both")
        return _select(path, from_, skill, fmt, selector_name, selector_command, runs, threshold, record, model,
                       selector_timeout)
    if selector_command is not None or record is not None:
        raise click.UsageError("--selector-command and --record need --selector command")
    if selections is None:
        raise click.UsageError("give --selections FILE (or --selector command --selector-command TEMPLATE, or --catalog)")
    from ..run.triggers import read_selections, score_triggers

    evalset, name = _trigger_set(path, from_, skill)
    result = score_triggers(evalset.triggers, read_selections(selections), name)
    if fmt == "json":
        echo_json(result.to_json())
    else:
        for line in result.lines():
            echo_line(line)
    return 1 if result.misses or result.false_fires else 0


def _trigger_set(path: str, from_: str | None, skill: str | None):
    """The one trigger set under ``path`` and the skill whose selection counts (None when unnamed)."""
    from ..errors import EvalfmtError

    sets = [s for s in read_sets(path, from_) if s.triggers is not None and s.triggers.prompts]
    if not sets:
        raise EvalfmtError(f"{path}: no trigger prompts found")
    if len(sets) > 1:
        raise EvalfmtError(f"{path} holds {len(sets)} trigger sets; give one skill folder or triggers file")
    evalset = sets[0]
    return evalset, skill or evalset.triggers.skill or (evalset.skill.name if evalset.skill else None)


def _select(path: str, from_: str | None, skill: str | None, fmt: str, selector_name: str,
            selector_command: str | None, runs: int, threshold: float, record: str | None, model: str | None,
            timeout: float) -> int:
    """``--selector``: make the selections (run.selectors), record them, and score them."""
    import os

    from ..discover import skill_root
    from ..errors import EvalfmtError
    from ..run import selectors
    from ..run.triggers import catalog, score_triggers

    evalset, name = _trigger_set(path, from_, skill)
    if not name:
        raise EvalfmtError(f"{path}: the trigger set names no skill (give the skill folder or --skill)")
    root = path if os.path.isfile(os.path.join(path, "SKILL.md")) else skill_root(path)
    if root is None or not os.path.isfile(os.path.join(root, "SKILL.md")):
        raise EvalfmtError(f"{path}: not in a skill folder (no SKILL.md): the selector needs the catalog of its library")
    selector = selectors.make(selector_name, selectors.SelectorOptions(
        command=selector_command, model=model, timeout=timeout, cwd=os.getcwd()))
    results = selectors.run_selections(selector, evalset.triggers, catalog(root), runs)
    if record is not None:
        from ..api import atomic_write

        atomic_write(record, b"".join(selectors.record_lines(results)))
    chosen = {pr.prompt: pr.selection(name, threshold) for pr in results}
    result = score_triggers(evalset.triggers, chosen, name)
    for pr in results:
        for c in pr.choices:
            if c.selected is None:
                err(f"selection failed: {pr.prompt}: {c.error}")
    if fmt == "json":
        data = result.to_json()
        data["runs"] = runs
        data["threshold"] = threshold
        data["prompts"] = [pr.to_json(name) for pr in results]
        echo_json(data)
    else:
        if runs > 1:
            for pr in results:
                rate = pr.rate(name)
                shown = "n/a" if rate is None else f"{rate:.2f}"
                kind = "should trigger" if pr.should_trigger else "should not trigger"
                echo_line(f"fire rate {pr.fired(name)}/{pr.answered} = {shown} ({kind}): {pr.prompt}")
        for line in result.lines():
            echo_line(line)
    return 1 if result.misses or result.false_fires else 0
