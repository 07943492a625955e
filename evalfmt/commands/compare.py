"""``evalfmt compare``: compare recorded sessions of two or more arms and give terum's verdict."""

from __future__ import annotations

import os

import click

from ..discover import skill_root
from ..fsview import DISK
from ..run.arms import CompareRequest, compare_arms
from ..run.layout import run_arms
from ..run.library import text_lines as library_lines
from ..run.library_compare import compare_trigger_runs, is_trigger_folder, sources
from ._arms import exit_code, text_lines
from ._common import detection_option, echo_json, echo_line, from_option, read_sets, tag_option


@click.command("compare")
@click.argument("skill_dir", type=click.Path())
@click.option("--arm", "arms", multiple=True, metavar="NAME=RUNS_DIR",
              help="An arm and its runs folder: candidate=DIR, baseline=DIR, optionally incumbent=DIR (repeatable).")
@click.option("--runs", "runs_dirs", multiple=True, metavar="[ARM=]DIR",
              help="The output folder of `evalfmt run`: its arm folders (DIR/candidate, DIR/baseline, ...) are the "
                   "arms, and the eval format it ran is the default of --from. Trigger runs (`run EVAL --skills`): "
                   "one run over two libraries, or baseline=RUN_A and candidate=RUN_B, one library each.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--k", type=click.IntRange(min=1), help="Repetitions per case (default: as many as the runs folders "
                                                      "hold).")
@detection_option
@click.option("--judge", "judge_name", default="none", show_default=True, metavar="NAME",
              help="Who decides rows whose checks tie on a case with a judge rubric: none, command, or a plugin.")
@click.option("--judge-command", metavar="CMD",
              help='The command judge\'s program: reads {"task","rubric","a","b"} on stdin, prints {"winner": '
                   '"A"|"B"|"tie"}.')
@click.option("--receipt", type=click.Path(dir_okay=False), help="Write the receipt (JSON) to this file.")
@click.option("--selections", type=click.Path(dir_okay=False),
              help="Recorded trigger selections to score into the receipt's triggers.")
@click.option("--run-id", metavar="ID", help="The receipt's run_id (default: now, YYYYMMDDTHHMMSSZ).")
@click.option("--require-pass", is_flag=True, help="Exit 1 unless the verdict is PASS (default: only FAIL exits 1).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=120.0, show_default=True,
              help="Seconds a command_succeeds check may run.")
@tag_option
@from_option
def command(skill_dir: str, arms: tuple[str, ...], runs_dirs: tuple[str, ...], fmt: str, k: int | None, detection: str,
            judge_name: str,
            judge_command: str | None, receipt: str | None, selections: str | None, run_id: str | None,
            require_pass: bool, timeout: float, from_: str | None, tags: tuple[str, ...] = ()) -> int:
    """Score each arm's recorded sessions over SKILL_DIR's cases and suite, decide every row, and print
    the rows, the verdict (PASS, NEUTRAL or FAIL) and the net-lift line.

    SKILL_DIR holding eval sets of several formats (terum evals and an EVAL.yaml) needs --from FORMAT.
    A runs folder holds <case>/transcript.jsonl (and optionally <case>/sandbox/), suite/ for the
    suite, and numbered folders <case>/1/, <case>/2/, ... for repetitions. A missing or unreadable
    transcript is a dead arm for its rows.

    Exit 0 for PASS or NEUTRAL, 1 for FAIL or when no row could be scored (with --require-pass also
    for NEUTRAL), 2 on unusable input.
    """
    given = _given(runs_dirs, arms)
    if given and _trigger_runs(given):
        return _compare_trigger_runs(skill_dir, given, fmt=fmt, from_=from_, judge=judge_name,
                                     judge_command=judge_command, run_id=run_id, receipt=receipt,
                                     require_pass=require_pass)
    if len(runs_dirs) > 1 or any("=" in r for r in runs_dirs):
        raise click.UsageError("--runs takes one output folder of `evalfmt run` (ARM=DIR only for trigger runs)")
    runs_dir = runs_dirs[0] if runs_dirs else None
    arm_dirs: dict[str, str] = {}
    if runs_dir is not None:
        found, ran = run_arms(runs_dir)
        arm_dirs.update(found)
        from_ = from_ or ran
    elif not arms:
        raise click.UsageError("give --arm NAME=RUNS_DIR (candidate and an opponent) or --runs DIR")
    for spec in arms:
        name, sep, folder = spec.partition("=")
        if not sep or not name or not folder:
            raise click.UsageError(f"--arm takes NAME=RUNS_DIR, not '{spec}'")
        if name in arm_dirs and runs_dir is None:
            raise click.UsageError(f"arm '{name}' given twice")
        arm_dirs[name] = folder
    sets = read_sets(skill_dir, from_, one=True)
    outcome = compare_arms(CompareRequest(
        where=skill_dir, sets=sets, arms=arm_dirs,
        skill_dir=skill_root(skill_dir, fs=DISK) if os.path.isdir(skill_dir) else None,
        k=k, detection=detection, judge=judge_name, judge_command=judge_command, tags=tags, selections=selections,
        receipt=receipt, run_id=run_id, check_timeout=timeout))
    if fmt == "json":
        echo_json(outcome.comparison.to_json())
    else:
        for line in text_lines(outcome.comparison, outcome.triggers):
            echo_line(line)
    return exit_code(outcome.comparison, require_pass)


def _given(runs_dirs: tuple[str, ...], arms: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """arm name -> (option, folder) for every --runs [ARM=]DIR and --arm NAME=DIR ("" for a plain --runs DIR)."""
    out: dict[str, tuple[str, str]] = {}
    for option, values in (("--runs", runs_dirs), ("--arm", arms)):
        for spec in values:
            name, sep, folder = spec.partition("=")
            if not sep and option == "--runs":
                name, folder = "", spec
            elif not sep or not name or not folder:
                raise click.UsageError(f"{option} takes {'[ARM=]DIR' if option == '--runs' else 'NAME=RUNS_DIR'}, "
                                       f"not '{spec}'")
            if name in out:
                raise click.UsageError(f"arm '{name}' given twice" if name else "--runs DIR given twice")
            out[name] = (option, folder)
    return out


def _trigger_runs(given: dict[str, tuple[str, str]]) -> bool:
    return any(is_trigger_folder(folder) for _, folder in given.values())


def _compare_trigger_runs(skill_dir: str, given: dict[str, tuple[str, str]], *, fmt: str, from_: str | None,
                          judge: str, judge_command: str | None, run_id: str | None, receipt: str | None,
                          require_pass: bool) -> int:
    """compare over trigger runs (evalfmt.run.library_compare): the run's text and exit code."""
    sources(given)  # a mixed or incomplete set of folders is refused before the eval set is read
    sets = read_sets(skill_dir, from_, one=True)
    run, data = compare_trigger_runs(skill_dir, sets, given, judge=judge, judge_command=judge_command, run_id=run_id,
                                     receipt_path=receipt)
    if fmt == "json":
        echo_json(data)
    else:
        for line in library_lines(run):
            echo_line(line)
        if run.receipt_path:
            echo_line(f"receipt: {run.receipt_path}")
    assert run.tally is not None
    return 1 if run.tally.verdict == "FAIL" or (require_pass and run.tally.verdict != "PASS") else 0
