"""``evalfmt run``: run an agent on a skill's cases in staged sandboxes, score, compare, write a receipt."""

from __future__ import annotations

import click

from ._common import echo_json, echo_line, err
from .score import detection_option
from ..run.tags import filter_set, parse as parse_tags, tag_option


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
              help="Sessions run at once (a process pool); results are the same for any value.")
@click.option("--case", "case_names", multiple=True, metavar="NAME", help="Run only this case ('suite' for the suite); repeatable.")
@click.option("--model", metavar="NAME", help="The model, for the template's {model} and the receipt.")
@click.option("--timeout-minutes", type=click.FloatRange(min=0, min_open=True), default=120.0, show_default=True,
              help="Time limit of a session whose case sets no timeout_minutes.")
@click.option("--env", "env_pairs", multiple=True, metavar="KEY=VALUE", help="Add a variable to the agent's environment.")
@click.option("--dry-run", is_flag=True,
              help="Only seed every case and the suite in throwaway sandboxes (requires, fixture, files, setup) and "
                   "report each failure with its file and line; runs setup, no agent.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@detection_option
@click.option("--judge", "judge_name", default="none", show_default=True, metavar="NAME",
              help="Who decides rows whose checks tie on a case with a judge rubric: none, command, or a plugin.")
@click.option("--judge-command", metavar="CMD", help="The command judge's program (see evalfmt compare --help).")
@click.option("--selections", type=click.Path(dir_okay=False), help="Recorded trigger selections to score into the receipt.")
@click.option("--run-id", metavar="ID", help="The receipt's run_id (default: now, YYYYMMDDTHHMMSSZ).")
@click.option("--require-pass", is_flag=True, help="Exit 1 unless the verdict is PASS (default: only FAIL exits 1).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=120.0, show_default=True,
              help="Seconds a command_succeeds check may run.")
@click.option("--force", is_flag=True, help="Replace the sessions and receipt of an earlier run in --out.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
@tag_option
def command(skill_dir: str, out: str | None, runner_name: str, agent_command: str | None, replay_from: str | None,
            runner_opts: tuple[str, ...], k: int, jobs: int, case_names: tuple[str, ...], model: str | None,
            timeout_minutes: float, env_pairs: tuple[str, ...], dry_run: bool, fmt: str, detection: str,
            judge_name: str, judge_command: str | None, selections: str | None, run_id: str | None,
            require_pass: bool, timeout: float, force: bool, quiet: bool, tags: tuple[str, ...] = ()) -> int:
    """Run an agent on SKILL_DIR's cases and suite: for each case, arm (candidate: the skill staged in
    .claude/skills/; baseline: no skill) and repetition, stage a sandbox (fixture, files, setup, skill),
    run the agent through a runner, score the checks, compare the arms and write DIR/receipt.json and
    the sessions in the layout `evalfmt compare` reads.

    A case whose `requires` are missing is an environment skip; one whose files, fixture or setup
    fail is dropped; both are named in the receipt. An agent that exits non-zero or runs past
    timeout_minutes is a dead arm. Ctrl-C kills the running agents, keeps what finished and writes
    a partial receipt.

    Exit 0 for PASS or NEUTRAL, 1 for FAIL or when no row could be scored (with --require-pass also
    for NEUTRAL; with --dry-run when a case failed to seed), 2 on unusable input, 130 when interrupted.
    """
    import os

    from ..api import read
    from ..discover import skill_root
    from ..errors import EvalfmtError
    from ..run import execute as ex
    from ..run import runners as runners_mod

    env = _pairs(env_pairs, "--env")
    root = skill_root(skill_dir) if os.path.isdir(skill_dir) else None
    if root is None or not os.path.isdir(os.path.join(root, "evals")):
        raise EvalfmtError(f"{skill_dir}: not a skill folder with evals/ (cases or a suite)")
    result = read(root, "terum")
    sets = [s for s in result.sets if s.cases or (s.suite is not None and s.suite.entries)]
    if not sets:
        raise EvalfmtError(f"{skill_dir}: no cases or suite to run")
    evalset = filter_set(sets[0], parse_tags(tags))
    units = ex.units_of(evalset, list(case_names) or None)
    if not units:
        raise EvalfmtError(f"{skill_dir}: no cases or suite to run" + (" with those tags" if tags else ""))

    if dry_run:
        return _dry_run(units, result.documents, env, fmt)

    if out is None:
        raise click.UsageError("give --out DIR (where the receipt and the sessions go), or --dry-run")
    from ..run import detect as detect_mod
    from ..run import judges

    detect_mod.get(detection)
    judge = judges.make(judge_name, judge_command)
    options = runners_mod.RunnerOptions(agent_command=agent_command, replay_from=replay_from, model=model,
                                        options=_pairs(runner_opts, "--runner-opt"), cwd=os.getcwd(), env=env)
    runner = runners_mod.make(runner_name, options)
    from .compare import exit_code, score_selections, text_lines

    trig = score_selections(result.sets, selections, root) if selections else None
    cc_version = _claude_version(runner, env)
    _prepare_out(out, force)
    out_abs = os.path.abspath(out)
    skill_abs = os.path.abspath(root)
    extra = list(evalset.checks) if evalset.format == "agentv" else []
    jobs_list = ex.plan(units, k, out=out_abs, skill_dir=skill_abs, skill_name=os.path.basename(skill_abs),
                        runner=runner, extra_env=env, model=model, default_timeout_minutes=timeout_minutes,
                        detection=detection, check_timeout=timeout, keep_tail=False, extra_checks=extra,
                        exclude=(out_abs, *(os.path.join(out_abs, n) for n in ("candidate", "baseline", "receipt.json"))))
    for job in jobs_list:
        job.keep_tail = bool(job.unit.target.judge) and not job.unit.is_suite and judge.configured
    progress = ex.Progress(len(jobs_list), enabled=not quiet)
    run = ex.execute(units, jobs_list, jobs=jobs, probe_env=runners_mod.agent_env(None, env), progress=progress)

    from ..run.compare import compare

    target = ex.filtered(evalset, units)
    cmp = compare(target, {"candidate": os.path.join(out_abs, "candidate"), "baseline": os.path.join(out_abs, "baseline")},
                  k=k, detection=detection, judge=judge, timeout=timeout, prescored=run.prescored)
    contamination = _contamination(run, os.path.basename(skill_abs))
    for c in contamination:
        err(f"warning: {c['arm']} {c['case']} #{c['repetition']}: the agent reported skills "
            f"[{', '.join(c['skills'])}], which {'lack' if c['arm'] == 'candidate' else 'include'} "
            f"'{os.path.basename(skill_abs)}'")
    receipt = _receipt(cmp, root, trig, run, run_id, model, runner, runner_name, agent_command, jobs, k, timeout_minutes)
    receipt["provenance"]["cc_version"] = cc_version
    receipt["contamination"] = contamination
    from ..api import atomic_write
    from ..run import receipt as receipt_mod

    atomic_write(os.path.join(out, "receipt.json"), receipt_mod.dumps(receipt))
    if fmt == "json":
        data = cmp.to_json()
        data["environment_skips"] = run.skips
        data["dropped_cases"] = run.drops
        data["interrupted"] = run.interrupted
        echo_json(data)
    else:
        for line in text_lines(cmp, trig):
            echo_line(line)
        for name, missing in run.skips.items():
            echo_line(f"environment skip: {name} (missing {', '.join(missing)})")
        for name, d in run.drops.items():
            echo_line(f"dropped: {name} ({d['kind']}): {d['detail']}")
        echo_line(f"receipt: {os.path.join(out, 'receipt.json')}")
    if run.interrupted:
        err(f"interrupted: {len([s for s in run.sessions if s.started])} of {run.planned} sessions ran; "
            f"receipt written ({cmp.status})")
        return 130
    return exit_code(cmp, require_pass)


def _claude_version(runner, env: dict[str, str]) -> str | None:
    """``claude --version`` when the command runner runs a program named ``claude`` (terum records
    it the same way), else None."""
    import os
    import subprocess

    words = getattr(runner, "words", None)
    if getattr(runner, "name", None) != "command" or not words or os.path.basename(words[0]) != "claude":
        return None
    from ..run.runners import agent_env

    try:
        proc = subprocess.run([words[0], "--version"], capture_output=True, text=True, timeout=15,
                              stdin=subprocess.DEVNULL, env=agent_env(None, env))
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = proc.stdout.strip()
    return text.splitlines()[0] if proc.returncode == 0 and text else None


def _contamination(run, skill: str) -> list[dict]:
    """Sessions whose recorded skill list (the init record's ``skills``) contradicts their arm: the
    skill missing from a candidate session, or present in a baseline one. terum refuses such a run;
    evalfmt reports them (stderr and the receipt's ``contamination``)."""
    out = []
    for (arm, unit, rep), r in sorted(run.prescored.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0])):
        if r.dead or r.skills is None:
            continue
        if (skill in r.skills) != (arm == "candidate"):
            out.append({"arm": arm, "case": unit, "repetition": rep, "skills": list(r.skills)})
    return out


def _prepare_out(out: str, force: bool) -> None:
    import os
    import shutil

    from ..errors import EvalfmtError

    if os.path.exists(out) and not os.path.isdir(out):
        raise EvalfmtError(f"--out {out}: not a folder")
    ours = ("candidate", "baseline", "receipt.json")
    present = [n for n in ours if os.path.lexists(os.path.join(out, n))]
    if present and not force:
        raise EvalfmtError(f"--out {out} already holds a run ({', '.join(present)}); give --force to replace it")
    for name in present:
        path = os.path.join(out, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as exc:
        raise EvalfmtError(f"--out {out}: {exc.strerror or exc}") from None


def _receipt(cmp, root, trig, run, run_id, model, runner, runner_name, agent_command, jobs, k, timeout_minutes) -> dict:
    from ..run import receipt as receipt_mod

    provenance = {"runner": runner_name, "jobs": jobs, "default_timeout_minutes": timeout_minutes}
    if runner_name == "command":
        provenance["agent_command"] = agent_command
    if runner_name == "replay":
        provenance["replay_from"] = getattr(runner, "source", None)
    data = receipt_mod.build(cmp, skill_dir=root, triggers=trig, rid=run_id, model=model,
                             extra_provenance=provenance)
    out: dict = {}
    for key, value in data.items():
        out[key] = value
        if key == "arm_scores":
            out["environment_skips"] = dict(run.skips)
            out["dropped_cases"] = dict(run.drops)
    out["interrupted"] = run.interrupted
    return out


def _dry_run(units, documents, env, fmt: str) -> int:
    from ..run import execute as ex

    results = ex.dry_run(units, documents, env)
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
