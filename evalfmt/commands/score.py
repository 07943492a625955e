"""``evalfmt score``: score one recorded session against the checks of one case (or a suite)."""

from __future__ import annotations

import click

from ..run import detect as detect_mod
from ..run.targets import ScoreRequest, score_session
from ._common import detection_option, echo_json, echo_line, from_option, read_sets, tag_option


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
    detect_mod.get(detection)  # unknown mode: exit 2 before reading anything
    outcome = score_session(ScoreRequest(where=case, sets=read_sets(case, from_), transcript=transcript,
                                         case=case_name, tags=tags, sandbox=sandbox, subagent=subagent,
                                         detection=detection, check_timeout=timeout))
    session, results = outcome.session, outcome.results
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
            echo_line(f"{'PASS' if r.counts_as_passed else 'FAIL'} {r.name} ({n_ok}/{len(scored)} checks "
                      f"passed{status})")
            for c in r.checks:
                mark = "ok  " if c.passed else ("skip" if c.passed is None else "FAIL")
                echo_line(f"  {mark} {c.check}: {c.detail}")
    return 0 if all(r.counts_as_passed for r in results) else 1
