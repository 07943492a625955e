"""``evalfmt run``: run an agent on a skill's cases in staged sandboxes, score, compare, write a receipt."""

from __future__ import annotations

import os

import click

from ..api import read
from ..discover import skill_root
from ..errors import EvalfmtError
from ..fsview import DISK
from ..run.library import LIBRARY, LibraryRunRequest, find_library, run_library, text_lines as library_lines
from ..run.manifest import parse_shard
from ..run.skillrun import RunRequest, run_skill
from ._arms import exit_code, text_lines
from ._common import detection_option, echo_json, echo_line, err, from_option, one_format, tag_option


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in values:
        key, sep, value = v.partition("=")
        if not sep or not key:
            raise click.UsageError(f"{option} takes KEY=VALUE, not '{v}'")
        out[key] = value
    return out


@click.command("run")
@click.argument("skill_dir", type=click.Path())
@click.option("--out", "-o", "out", type=click.Path(file_okay=False), metavar="DIR",
              help="Where the receipt and the sessions go: DIR/receipt.json, DIR/<arm>/<case>/[<repetition>/]"
                   "{transcript.jsonl, stderr.log, sandbox/}.")
@click.option("--runner", "runner_name", default="command", show_default=True, metavar="NAME",
              help="How sessions run: command (the --agent-command template), replay (--replay-from), or a plugin "
                   "(entry points 'evalfmt.runners').")
@click.option("--agent-command", metavar="TEMPLATE",
              help="The command runner's program, split like a shell would (no shell runs it); {task}, {note}, "
                   "{max_turns} and {model} are replaced inside words. Its stdout is the transcript. "
                   "E.g. 'claude -p {task} --output-format stream-json --verbose'.")
@click.option("--replay-from", metavar="DIR", help="The replay runner's recorded sessions (DIR/<arm>/<case>/...).")
@click.option("--runner-opt", "runner_opts", multiple=True, metavar="KEY=VALUE", help="An option for a plugin runner.")
@click.option("--k", type=click.IntRange(min=1), default=1, show_default=True, help="Repetitions per case and arm.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Sessions run at once (a process pool; threads in a trigger run); results are the same for any "
                   "value.")
@click.option("--case", "case_names", multiple=True, metavar="NAME",
              help="Run only this case ('suite' for the suite; a test id in a trigger run); repeatable.")
@click.option("--model", metavar="NAME", help="The model, for the template's {model} and the receipt.")
@click.option("--timeout-minutes", type=click.FloatRange(min=0, min_open=True), default=120.0, show_default=True,
              help="Time limit of a session whose case sets no timeout_minutes.")
@click.option("--env", "env_pairs", multiple=True, metavar="KEY=VALUE", help="Add a variable to the agent's "
                                                                             "environment.")
@click.option("--dry-run", is_flag=True,
              help="Only seed every case and the suite in throwaway sandboxes (requires, fixture, files, setup) and "
                   "report each failure with its file and line; runs setup, no agent.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@detection_option
@click.option("--judge", "judge_name", default="none", show_default=True, metavar="NAME",
              help="Who decides rows whose checks tie on a case with a judge rubric, and (trigger runs) grades "
                   "model-graded assertions (llm-grader, rubrics, llm-rubric): none, command, or a plugin.")
@click.option("--judge-command", metavar="CMD", help="The command judge's program (see evalfmt compare --help; to "
                                                     "grade one session it gets {\"mode\": \"grade\", ...} and "
                                                     "prints {\"score\": 0..1}).")
@click.option("--selections", type=click.Path(dir_okay=False), help="Recorded trigger selections to score into the "
                                                                    "receipt.")
@click.option("--run-id", metavar="ID", help="The receipt's run_id (default: now, YYYYMMDDTHHMMSSZ).")
@click.option("--require-pass", is_flag=True, help="Exit 1 unless the verdict is PASS (default: only FAIL exits 1).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=120.0, show_default=True,
              help="Seconds a command_succeeds check may run.")
@click.option("--force", is_flag=True, help="Replace the sessions and receipt of an earlier run in --out.")
@click.option("--shard", metavar="I/N",
              help="Run only shard I of N: every N-th case (and the suite) from the I-th, with all its arms and "
                   "repetitions; combine the shards' folders with `evalfmt merge`.")
@click.option("--resume", is_flag=True,
              help="Continue the run in --out: keep the sessions that finished, run the missing or dead ones "
                   "again, then write the whole receipt (a folder with no run starts a fresh one).")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
@click.option("--skills", "skills", multiple=True, metavar="[ARM=]DIR",
              help="Run a trigger run: every test of the eval set (an EVAL.yaml, evals.json, trigger set, promptfoo "
                   "or skillgym suite) with the whole skill library DIR staged in .claude/skills/ (default: the "
                   "skill folders beside or above the file). Twice, baseline=DIR and candidate=DIR, compares two "
                   "libraries.")
@tag_option
@from_option
def command(skill_dir: str, out: str | None, runner_name: str, agent_command: str | None, replay_from: str | None,
            runner_opts: tuple[str, ...], k: int, jobs: int, case_names: tuple[str, ...], model: str | None,
            timeout_minutes: float, env_pairs: tuple[str, ...], dry_run: bool, fmt: str, detection: str,
            judge_name: str, judge_command: str | None, selections: str | None, run_id: str | None,
            require_pass: bool, timeout: float, force: bool, quiet: bool, shard: str | None = None,
            resume: bool = False, tags: tuple[str, ...] = (), from_: str | None = None,
            skills: tuple[str, ...] = ()) -> int:
    """Run an agent on SKILL_DIR's cases and suite: for each case, arm (candidate: the skill staged in
    .claude/skills/; baseline: no skill) and repetition, stage a sandbox (fixture, files, setup, skill),
    run the agent through a runner, score the checks, compare the arms and write DIR/receipt.json and
    the sessions in the layout `evalfmt compare` reads.

    A skill folder holding eval sets of several formats (terum evals and an EVAL.yaml) needs --from FORMAT.
    A case whose `requires` are missing is an environment skip; one whose files, fixture or setup
    fail is dropped; both are named in the receipt. An agent that exits non-zero or runs past
    timeout_minutes is a dead arm. Ctrl-C kills the running agents, keeps what finished and writes
    a partial receipt.

    Exit 0 for PASS or NEUTRAL, 1 for FAIL or when no row could be scored (with --require-pass also
    for NEUTRAL; with --dry-run when a case failed to seed), 2 on unusable input, 130 when interrupted.
    """
    env = _pairs(env_pairs, "--env")
    if resume and force:
        raise click.UsageError("--resume and --force contradict each other (continue the run, or replace it)")
    shard_of = parse_shard(shard) if shard is not None else None
    root = skill_root(skill_dir, fs=DISK) if os.path.isdir(skill_dir) else None
    if not os.path.exists(skill_dir):
        raise EvalfmtError(f"{skill_dir}: no such file or directory")
    result = read(root or skill_dir, from_)
    one_format(skill_dir, result.sets, from_)
    if skills or not any(s.format == "terum" for s in result.sets):
        return _library_run(skill_dir, result.sets, skills, shard=shard, resume=resume, out=out, runner=runner_name,
                            agent_command=agent_command,
                            replay_from=replay_from, runner_options=_pairs(runner_opts, "--runner-opt"), k=k,
                            model=model, timeout_minutes=timeout_minutes, env=env, detection=detection,
                            run_id=run_id, check_timeout=timeout, force=force, fmt=fmt, require_pass=require_pass,
                            cwd=os.getcwd(), jobs=jobs, cases=case_names, tags=tags, judge=judge_name,
                            judge_command=judge_command)
    if root is None:
        raise EvalfmtError(f"{skill_dir}: not a skill folder with evals/ (cases or a suite)")
    outcome = run_skill(RunRequest(
        skill_dir=root, sets=result.sets, documents=result.documents, out=out, runner=runner_name,
        agent_command=agent_command, replay_from=replay_from, runner_options=_pairs(runner_opts, "--runner-opt"),
        k=k, jobs=jobs, cases=case_names, tags=tags, model=model, timeout_minutes=timeout_minutes, env=env,
        dry_run=dry_run, detection=detection, judge=judge_name, judge_command=judge_command, selections=selections,
        run_id=run_id, check_timeout=timeout, force=force, quiet=quiet, cwd=os.getcwd(), shard=shard_of,
        resume=resume))
    if outcome.dry is not None:
        return _dry_run(outcome.dry, fmt)
    cmp, run = outcome.comparison, outcome.run
    assert cmp is not None and run is not None
    _print_skill_run(outcome, fmt)
    if run.interrupted:
        err(f"interrupted: {len([s for s in run.sessions if s.started])} of {run.planned} sessions ran; "
            f"receipt written ({cmp.status})")
        return 130
    return exit_code(cmp, require_pass)


def _print_skill_run(outcome, fmt: str) -> None:
    """What a run over a skill's cases prints: the contamination warnings, then the comparison (its JSON,
    or the rows and verdict with the skipped and dropped cases and the receipt's path)."""
    cmp, run = outcome.comparison, outcome.run
    for c in outcome.contamination:
        err(f"warning: {c['arm']} {c['case']} #{c['repetition']}: the agent reported skills "
            f"[{', '.join(c['skills'])}], which {'lack' if c['arm'] == 'candidate' else 'include'} "
            f"'{outcome.skill}'")
    if fmt == "json":
        data = cmp.to_json()
        data["environment_skips"] = run.skips
        data["dropped_cases"] = run.drops
        data["interrupted"] = run.interrupted
        echo_json(data)
        return
    for line in text_lines(cmp, outcome.triggers):
        echo_line(line)
    for name, missing in run.skips.items():
        echo_line(f"environment skip: {name} (missing {', '.join(missing)})")
    for name, d in run.drops.items():
        echo_line(f"dropped: {name} ({d['kind']}): {d['detail']}")
    echo_line(f"receipt: {outcome.receipt_path}")


def _library_run(where: str, sets: list, skills: tuple[str, ...], *, fmt: str, require_pass: bool, out: str | None,
                 shard: str | None, resume: bool, **options) -> int:
    """``run EVAL.yaml --skills DIR``: a trigger run over a skill library (evalfmt.run.library)."""
    if not sets:
        raise EvalfmtError(f"{where}: not a skill folder with evals/ (cases or a suite), and no eval file")
    if shard is not None or resume:
        raise click.UsageError(f"{'--shard' if shard is not None else '--resume'} works on a skill's cases and "
                               "suite, not yet on a trigger run over a skill library")
    libraries = _libraries(where, skills)
    if out is None:
        raise click.UsageError("give --out DIR (where the receipt and the sessions go)")
    run = run_library(LibraryRunRequest(where=where, sets=sets, libraries=libraries, out=out, **options),
                      notify=lambda note: err(f"note: {note}"))
    if fmt == "json":
        echo_json(run.receipt)  # the receipt written to the run folder, run_id and all
    else:
        for line in library_lines(run):
            echo_line(line)
        echo_line(f"receipt: {run.receipt_path}")
    if run.tally is not None:
        return 1 if run.tally.verdict == "FAIL" or (require_pass and run.tally.verdict != "PASS") else 0
    live = [s for s in run.sessions if not s.dead]
    return 0 if live and all(s.result is None or s.result.passed for s in live) else 1


def _libraries(where: str, skills: tuple[str, ...]) -> dict[str, str]:
    """``--skills [ARM=]DIR`` as arm -> folder (one library: ``library``), else the library found beside
    or above ``where``."""
    libraries: dict[str, str] = {}
    for spec in skills:
        arm, sep, folder = spec.partition("=")
        if not sep:
            arm, folder = LIBRARY, spec
        if arm in libraries:
            raise click.UsageError(f"--skills: library '{arm}' given twice")
        libraries[arm] = folder
    if not libraries:
        found = find_library(where)
        if found is None:
            raise EvalfmtError(f"{where}: no skill folders beside or above it: give --skills DIR")
        libraries[LIBRARY] = found
    return libraries


def _dry_run(results, fmt: str) -> int:
    failed = [r for r in results if r.status == "failed"]
    skipped = [r for r in results if r.status == "skipped"]
    if fmt == "json":
        echo_json({"cases": [r.to_json() for r in results], "seeded": len(results) - len(failed) - len(skipped),
                   "failed": len(failed), "skipped": len(skipped)})
    else:
        for r in results:
            if r.status != "ok":
                echo_line(r.format())
        echo_line(f"dry run: {len(results) - len(failed) - len(skipped)} of {len(results)} seeded, "
                   f"{len(failed)} failed, {len(skipped)} skipped (missing requirements)")
    return 1 if failed else 0
