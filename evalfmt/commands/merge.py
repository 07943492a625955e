"""``evalfmt merge``: combine the run folders of a run's shards (``run --shard I/N``) into one run."""

from __future__ import annotations

import os

import click

from ..api import read
from ..run.merge import MergeRequest, locate_skill, merge_runs
from ._arms import exit_code, text_lines
from ._common import echo_json, echo_line, err


@click.command("merge")
@click.argument("shard_dirs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--out", "-o", "out", required=True, type=click.Path(file_okay=False), metavar="DIR",
              help="Where the merged run goes (its receipt and every shard's sessions, the layout of `evalfmt run`).")
@click.option("--skill", "skill_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="The skill the shards ran (default: the folder their plan names, as an absolute path, then "
                   "relative to the current folder).")
@click.option("--run-id", metavar="ID", help="The receipt's run_id (default: the first shard's).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--require-pass", is_flag=True, help="Exit 1 unless the verdict is PASS (default: only FAIL exits 1).")
@click.option("--force", is_flag=True, help="Replace the sessions and receipt of an earlier run in --out.")
def command(shard_dirs: tuple[str, ...], out: str, skill_dir: str | None, run_id: str | None, fmt: str,
            require_pass: bool, force: bool) -> int:
    """Merge the run folders SHARD_DIR... of the N shards of one run (`evalfmt run --shard I/N`, e.g. the
    jobs of a CI matrix) into one run folder DIR: every shard's sessions, and the receipt of the whole
    run, the same as a run done in one go would write (apart from its run_id and timestamp). No agent
    and no check runs: the sessions' scores are kept in the shards.

    Shards of different skills, eval sets, k, arms, shard counts or settings, a shard given twice or
    missing, and a shard that did not finish are refused on one line naming the difference.

    Exit codes are those of `evalfmt run`: 0 for PASS or NEUTRAL, 1 for FAIL or when no row could be
    scored (with --require-pass also for NEUTRAL), 2 on unusable input.
    """
    root = locate_skill(shard_dirs, skill_dir, os.getcwd())
    result = read(root, "terum")
    outcome = merge_runs(MergeRequest(shard_dirs=shard_dirs, out=out, skill_dir=root, sets=result.sets,
                                      run_id=run_id, force=force))
    cmp, run = outcome.comparison, outcome.run
    assert cmp is not None and run is not None
    if fmt == "json":
        data = cmp.to_json()
        data.update(environment_skips=run.skips, dropped_cases=run.drops, interrupted=run.interrupted)
        echo_json(data)
    else:
        for line in text_lines(cmp, outcome.triggers):
            echo_line(line)
        echo_line(f"receipt: {outcome.receipt_path}")
    if run.interrupted:
        err("a shard was interrupted: the merged receipt is partial")
    return exit_code(cmp, require_pass)
