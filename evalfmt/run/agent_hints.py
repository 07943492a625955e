"""Why an agent's session is dead, in words a user can act on.

- :func:`stderr_tail`: the last non-empty lines of the agent's ``stderr.log``, one line (``Error: not
  logged in | try claude login``), appended to ``agent exited 3`` so the text output, the receipt and the
  report say what the agent said, not only its exit code.
- :func:`transcript_hint`: when the agent exited 0 but its stdout is not a transcript evalfmt reads,
  the fix for the agents evalfmt knows (Claude Code prints one only with
  ``--output-format stream-json --verbose``), else how to add a reader.
"""

from __future__ import annotations

import os

#: how many non-empty stderr lines a dead arm's reason quotes, and how many characters of each
TAIL_LINES = 3
TAIL_CHARS = 200
#: bytes read from the end of stderr.log (an agent may print megabytes of diagnostics)
TAIL_BYTES = 16384

CLAUDE_FIX = "Claude Code prints a transcript evalfmt reads only with --output-format stream-json --verbose"


def stderr_lines(path: str, n: int = TAIL_LINES) -> list[str]:
    """The last ``n`` non-empty lines of the file at ``path`` (each stripped and cut), [] when unreadable."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - TAIL_BYTES))
            data = fh.read()
    except OSError:
        return []
    text = data.decode("utf-8", "replace")
    lines = [" ".join(line.split()) for line in text.splitlines()]
    lines = [line if len(line) <= TAIL_CHARS else line[: TAIL_CHARS - 1] + "…" for line in lines if line]
    return lines[-n:]


def stderr_tail(path: str) -> str:
    """The last lines of stderr as one line (`` | `` between them), "" when there are none."""
    return " | ".join(stderr_lines(path))


def with_stderr(dead: str, stderr_path: str) -> str:
    """``agent exited 3`` becomes ``agent exited 3; stderr: Error: not logged in``."""
    tail = stderr_tail(stderr_path)
    return f"{dead}; stderr: {tail}" if tail else dead


def _program(words: list[str] | None) -> str:
    if not words:
        return ""
    return os.path.basename(words[0]).lower()


def known_agent(words: list[str] | None) -> str | None:
    """The agent an ``--agent-command`` runs, when evalfmt knows it (``claude-code``), else None."""
    prog = _program(words)
    if prog in ("claude", "claude.exe", "claude-code"):
        return "claude-code"
    if prog in ("npx", "bunx", "pnpx") and words and any("claude-code" in w for w in words[1:3]):
        return "claude-code"
    return None


def claude_flags_missing(words: list[str]) -> list[str]:
    """What a Claude Code command line lacks for a stream-json transcript."""
    missing = []
    joined = " ".join(words)
    if "--output-format stream-json" not in joined and "--output-format=stream-json" not in joined:
        missing.append("--output-format stream-json")
    if "--verbose" not in words:
        missing.append("--verbose")
    return missing


def transcript_hint(words: list[str] | None) -> str:
    """What to do when an agent's stdout is not a transcript evalfmt reads."""
    if known_agent(words) == "claude-code":
        missing = claude_flags_missing(words or [])
        if missing:
            return f"{CLAUDE_FIX}: add {' '.join(missing)} to --agent-command"
        return CLAUDE_FIX + " (the command has them: is the transcript cut short? see stderr.log)"
    return ("make the agent print one of the known transcripts on stdout, or register a session source "
            "for its output (docs/scoring.md)")
