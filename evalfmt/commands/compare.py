"""``evalfmt compare``: compare recorded sessions of two or more arms and give terum's verdict."""

from __future__ import annotations

import click

from ._common import echo_json, echo_line, from_option
from .score import detection_option
from ..run.tags import filter_set, parse as parse_tags, tag_option


@click.command("compare")
@click.argument("skill_dir", type=click.Path())
@click.option("--arm", "arms", multiple=True, required=True, metavar="NAME=RUNS_DIR",
              help="An arm and its runs folder: candidate=DIR, baseline=DIR, optionally incumbent=DIR (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--k", type=click.IntRange(min=1), help="Repetitions per case (default: as many as the runs folders hold).")
@detection_option
@click.option("--judge", "judge_name", default="none", show_default=True, metavar="NAME",
              help="Who decides rows whose checks tie on a case with a judge rubric: none, command, or a plugin.")
@click.option("--judge-command", metavar="CMD",
              help='The command judge\'s program: reads {"task","rubric","a","b"} on stdin, prints {"winner": "A"|"B"|"tie"}.')
@click.option("--receipt", type=click.Path(dir_okay=False), help="Write the receipt (JSON) to this file.")
@click.option("--selections", type=click.Path(dir_okay=False),
              help="Recorded trigger selections to score into the receipt's triggers.")
@click.option("--run-id", metavar="ID", help="The receipt's run_id (default: now, YYYYMMDDTHHMMSSZ).")
@click.option("--require-pass", is_flag=True, help="Exit 1 unless the verdict is PASS (default: only FAIL exits 1).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=120.0, show_default=True,
              help="Seconds a command_succeeds check may run.")
@tag_option
@from_option
def command(skill_dir: str, arms: tuple[str, ...], fmt: str, k: int | None, detection: str, judge_name: str,
            judge_command: str | None, receipt: str | None, selections: str | None, run_id: str | None,
            require_pass: bool, timeout: float, from_: str | None, tags: tuple[str, ...] = ()) -> int:
    """Score each arm's recorded sessions over SKILL_DIR's cases and suite, decide every row, and print
    the rows, the verdict (PASS, NEUTRAL or FAIL) and the net-lift line.

    A runs folder holds <case>/transcript.jsonl (and optionally <case>/sandbox/), suite/ for the
    suite, and numbered folders <case>/1/, <case>/2/, ... for repetitions. A missing or unreadable
    transcript is a dead arm for its rows.

    Exit 0 for PASS or NEUTRAL, 1 for FAIL or when no row could be scored (with --require-pass also
    for NEUTRAL), 2 on unusable input.
    """
    import os

    from ..errors import EvalfmtError
    from ..run import detect as detect_mod
    from ..run import judges
    from ..run.compare import compare
    from .score import read_sets

    detect_mod.get(detection)
    arm_dirs: dict[str, str] = {}
    for spec in arms:
        name, sep, folder = spec.partition("=")
        if not sep or not name or not folder:
            raise click.UsageError(f"--arm takes NAME=RUNS_DIR, not '{spec}'")
        if name in arm_dirs:
            raise click.UsageError(f"arm '{name}' given twice")
        if not os.path.isdir(folder):
            raise EvalfmtError(f"{folder}: no such runs folder (arm '{name}')")
        arm_dirs[name] = folder
    if "candidate" not in arm_dirs or len(arm_dirs) < 2:
        raise click.UsageError("give --arm candidate=RUNS_DIR and at least one opponent (--arm baseline=RUNS_DIR)")
    judge = judges.make(judge_name, judge_command)
    selected = parse_tags(tags)
    all_sets = read_sets(skill_dir, from_)
    trig = score_selections(all_sets, selections, skill_dir) if selections is not None else None
    sets = [filter_set(s, selected) for s in all_sets]
    sets = [s for s in sets if s.cases or (s.suite is not None and s.suite.entries)]
    if not sets:
        raise EvalfmtError(f"{skill_dir}: no cases or suite to compare"
                           + (f" with the tag{'s' if len(selected) > 1 else ''} {', '.join(selected)}" if selected else ""))
    if len(sets) > 1:
        raise EvalfmtError(f"{skill_dir} holds {len(sets)} eval sets; give one skill folder")
    cmp = compare(sets[0], arm_dirs, k=k, detection=detection, judge=judge, timeout=timeout)
    if receipt is not None:
        from ..api import atomic_write
        from ..discover import skill_root
        from ..run import receipt as receipt_mod

        root = skill_root(skill_dir) if os.path.isdir(skill_dir) else None
        data = receipt_mod.build(cmp, skill_dir=root, triggers=trig, rid=run_id)
        atomic_write(receipt, receipt_mod.dumps(data))
    if fmt == "json":
        echo_json(cmp.to_json())
    else:
        for line in text_lines(cmp, trig):
            echo_line(line)
    return exit_code(cmp, require_pass)


def score_selections(sets, selections: str, where: str):
    """``--selections`` scored against the trigger prompts of ``sets`` (read before any session is
    scored or run, so a bad file fails fast). Shared with ``evalfmt run``."""
    from ..errors import EvalfmtError
    from ..run.triggers import read_selections, score_triggers

    tsets = [s for s in sets if s.triggers is not None and s.triggers.prompts]
    if not tsets:
        raise EvalfmtError(f"{where}: --selections given but the skill has no trigger prompts")
    t = tsets[0]
    return score_triggers(t.triggers, read_selections(selections), t.triggers.skill or (t.skill.name if t.skill else None))


def text_lines(cmp, trig=None) -> list[str]:
    """The text report: one line per row (with the failed checks, or why a row was not scored),
    then terum's report lines and the trigger lines. Shared with ``evalfmt run``."""
    out = []
    for row in cmp.rows:
        rep = f" #{row.repetition}" if cmp.k > 1 else ""
        line = f"{row.case}{rep} vs {row.opponent}: {row.outcome} ({row.reason})"
        failed = []
        for arm, res in (("candidate", row.candidate), (row.opponent, row.opponent_result)):
            if res is not None and res.failed:
                failed.append(f"{arm} failed {', '.join(res.failed)}")
        if failed:
            line += " — " + "; ".join(failed)
        elif row.detail and not row.scored:
            line += f" — {row.detail}"
        out.append(line)
    out.extend(cmp.report_lines())
    if trig is not None:
        out.extend(trig.lines())
    return out


def exit_code(cmp, require_pass: bool = False) -> int:
    """1 for FAIL or when no row could be scored (with ``require_pass`` also for NEUTRAL), else 0."""
    if cmp.verdict == "FAIL" or cmp.status == "failed":
        return 1
    if require_pass and cmp.verdict != "PASS":
        return 1
    return 0
