"""``evalfmt triggers``: score trigger prompts against recorded selections; print a selector's catalog."""

from __future__ import annotations

import os

import click

from ..run.trigger_check import TriggersRequest, catalog_of, check_triggers
from ._common import echo_json, echo_line, err, from_option, read_sets


@click.command("triggers")
@click.argument("path", metavar="SKILL_OR_TRIGGERS", type=click.Path())
@click.option("--selections", type=click.Path(dir_okay=False),
              help='Recorded selections, JSON lines: {"prompt": ..., "selected": [...]} or {"prompt": ..., "error": '
                   '...}.')
@click.option("--catalog", "show_catalog", is_flag=True,
              help="Print the catalog a selector is shown (one '- name: description' line per sibling skill) and exit.")
@click.option("--skill", metavar="NAME", help="The skill whose selection counts as a fire (default: the trigger set's "
                                              "skill).")
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

    if show_catalog:
        _print_lines(catalog_of(path), fmt, "catalog")
        return 0
    _check_sources(selections, selector_name, selector_command, record)
    outcome = check_triggers(TriggersRequest(
        where=path, sets=read_sets(path, from_), skill=skill, selections=selections, selector=selector_name,
        selector_command=selector_command, runs=runs, threshold=threshold, record=record, model=model,
        timeout=selector_timeout, cwd=os.getcwd()))
    result = outcome.score
    if outcome.prompts is None:
        if fmt == "json":
            echo_json(result.to_json())
        else:
            _print_lines(result.lines(), fmt, "")
    else:
        _print_made(outcome, fmt, runs, threshold)
    return 1 if result.misses or result.false_fires else 0


def _check_sources(selections: str | None, selector_name: str | None, selector_command: str | None,
                   record: str | None) -> None:
    """Recorded selections, or a selector that makes them: one of the two."""
    if selector_name is not None:
        if selections is not None:
            raise click.UsageError("give --selections FILE or --selector NAME, not both")
    elif selector_command is not None or record is not None:
        raise click.UsageError("--selector-command and --record need --selector command")
    elif selections is None:
        raise click.UsageError("give --selections FILE (or --selector command --selector-command TEMPLATE, or "
                               "--catalog)")


def _print_lines(lines: list[str], fmt: str, key: str) -> None:
    if fmt == "json":
        echo_json({key: lines})
    else:
        for line in lines:
            echo_line(line)


def _print_made(outcome, fmt: str, runs: int, threshold: float) -> None:
    """The score of selections a selector made now: its failures on stderr, fire rates with --runs > 1."""
    result, name = outcome.score, outcome.skill or ""
    for pr in outcome.prompts:
        for c in pr.choices:
            if c.selected is None:
                err(f"selection failed: {pr.prompt}: {c.error}")
    if fmt == "json":
        data = result.to_json()
        data["runs"] = runs
        data["threshold"] = threshold
        data["prompts"] = [pr.to_json(name) for pr in outcome.prompts]
        echo_json(data)
        return
    if runs > 1:
        for pr in outcome.prompts:
            rate = pr.rate(name)
            shown = "n/a" if rate is None else f"{rate:.2f}"
            kind = "should trigger" if pr.should_trigger else "should not trigger"
            echo_line(f"fire rate {pr.fired(name)}/{pr.answered} = {shown} ({kind}): {pr.prompt}")
    for line in result.lines():
        echo_line(line)
