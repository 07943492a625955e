"""``evalfmt score``: score one recorded session against the checks of one case (or a suite)."""

from __future__ import annotations

import click

from typing import TYPE_CHECKING

from ._common import echo_json, echo_line, from_option
from ..run.tags import parse as parse_tags, selected as tag_selected, tag_option

if TYPE_CHECKING:  # pragma: no cover
    from .. import ir

DETECTION_HELP = ("How a skill-trigger check reads the session: first-call (the seed's rule: only the first "
                  "tool call), any-call (agentv 4.42.4), skill-used (an exact name in a successful Skill call).")


def detection_option(f):
    return click.option("--trigger-detection", "detection", metavar="MODE", default="first-call", show_default=True,
                        help=DETECTION_HELP + " Plugins add more (entry points 'evalfmt.detectors').")(f)


@click.command("score")
@click.argument("case", type=click.Path())
@click.option("--transcript", "transcript", required=True, type=click.Path(),
              help="The recorded session: Claude Code stream-json or a session JSONL file (detected by content).")
@click.option("--sandbox", type=click.Path(file_okay=False),
              help="The sandbox folder after the session (file checks and command_succeeds need it).")
@click.option("--subagent", is_flag=True,
              help="Score the subagent's entries of a Claude Code session file (isSidechain: true, as in "
                   "<session>/subagents/agent-*.jsonl) instead of the main agent's.")
@click.option("--case", "case_name", metavar="NAME", help="Pick one case or test out of a file that holds several.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@detection_option
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=120.0, show_default=True,
              help="Seconds a command_succeeds check may run.")
@tag_option
@from_option
def command(case: str, transcript: str, sandbox: str | None, subagent: bool, case_name: str | None, fmt: str,
            detection: str, timeout: float, from_: str | None, tags: tuple[str, ...] = ()) -> int:
    """Score the checks of CASE (a case file, a suite scored entry by entry, or one test picked with
    --case) against one recorded session.

    Exit 0 when every case passed, 1 when a check failed, 2 on unreadable input.
    """
    from ..errors import EvalfmtError
    from ..run import detect as detect_mod
    from ..run.checks import score_case, score_suite
    from ..run.transcripts import read_session

    detect_mod.get(detection)  # unknown mode: exit 2 before reading anything
    targets = pick_targets(case, case_name, from_, parse_tags(tags))
    session = read_session(transcript, subagent=subagent)
    if sandbox is not None:
        import os

        if not os.path.isdir(sandbox):
            raise EvalfmtError(f"{sandbox}: no such sandbox folder")
    results = []
    for target, extra in targets:
        from .. import ir

        if isinstance(target, ir.Suite):
            results.extend(score_suite(target, session, sandbox, detection, timeout))
        else:
            results.append(score_case(target, session, sandbox, detection, extra, timeout))
    if fmt == "json":
        echo_json({"cases": [r.to_json() for r in results]})
    else:
        src = f"{transcript} ({session.source}, {session.records} records"
        other = session.skipped_lines - session.long_lines
        if other:
            src += f", {other} non-JSON line{'s' if other != 1 else ''} skipped"
        if session.long_lines:
            src += (f", {session.long_lines} line{'s' if session.long_lines != 1 else ''} longer than the "
                    "EVALFMT_TRANSCRIPT_MAX_LINE limit skipped")
        echo_line(f"transcript: {src})")
        for r in results:
            scored = r.scored
            n_ok = sum(1 for c in scored if c.passed)
            status = f"; {r.status}" if r.expected_fail else ""
            echo_line(f"{'PASS' if r.counts_as_passed else 'FAIL'} {r.name} ({n_ok}/{len(scored)} checks passed{status})")
            for c in r.checks:
                mark = "ok  " if c.passed else ("skip" if c.passed is None else "FAIL")
                echo_line(f"  {mark} {c.check}: {c.detail}")
    return 0 if all(r.counts_as_passed for r in results) else 1


def read_sets(path: str, from_: str | None):
    """The eval sets under ``path``; EvalfmtError when nothing usable was read."""
    from ..api import read, sort_diagnostics
    from ..errors import EvalfmtError

    result = read(path, from_)
    if not result.sets:
        errors = [d for d in sort_diagnostics(result.diagnostics) if d.severity == "error"]
        if errors:
            raise EvalfmtError(errors[0].format())
        if result.notes:  # a file left unread: say why, and how to read it anyway
            raise EvalfmtError(result.notes[0])
        raise EvalfmtError(f"{path}: no eval assets found")
    return result.sets


def pick_targets(path: str, name: str | None, from_: str | None,
                 tags: list[str] | None = None) -> list[tuple["ir.Case", list]]:
    """``(case or suite, extra checks)`` pairs to score; extra checks are agentv's file-level assertions.
    With ``tags``, only the cases carrying one of them (skillgym's ``--tag``)."""
    from .. import ir
    from ..errors import EvalfmtError

    found: list[tuple[ir.Case, list]] = []
    for evalset in read_sets(path, from_):
        extra = list(evalset.checks) if evalset.format == "agentv" else []
        for case in evalset.cases:
            found.append((case, extra))
        if evalset.suite is not None:
            found.append((evalset.suite, []))
    if tags:
        found = [t for t in found if tag_selected(t[0], tags)]
        if not found:
            raise EvalfmtError(f"{path}: no case has the tag{'s' if len(tags) > 1 else ''} {', '.join(tags)}")
    if name is not None:
        picked = [t for t in found if t[0].name == name]
        if not picked:
            for suite, _ in found:
                if isinstance(suite, ir.Suite):
                    entry = next((e for e in suite.entries if e.name == name), None)
                    if entry is not None:
                        return [(ir.Case(name=entry.name, checks=entry.checks), [])]
            known = ", ".join(t[0].name for t in found) or "none"
            raise EvalfmtError(f"{path}: no case named '{name}' (cases: {known})")
        return picked[:1]
    if not found:
        raise EvalfmtError(f"{path}: no cases to score")
    if len(found) > 1:
        raise EvalfmtError(f"{path} holds {len(found)} cases ({', '.join(t[0].name for t in found)}); pick one with --case NAME")
    return found
