"""Builders for the executor tests: stream-json transcripts, skills and runs folders in tmp_path."""

from __future__ import annotations

import json
import pathlib

CLAUDE = "claude-code"


def stream_lines(*, texts=(), bash=(), tools=(), result="done", model="claude-test", skill_results=None,
                 extra_lines=()) -> list[str]:
    """A stream-json transcript: init, assistant text blocks, tool calls (Bash commands, then ``tools``
    as (name, input, result_text, is_error)), their results, and a result record."""
    lines = [json.dumps({"type": "system", "subtype": "init", "session_id": "s", "model": model, "skills": []})]
    calls = [("Bash", {"command": c}, "ok", False) for c in bash] + list(tools)
    for text in texts:
        lines.append(json.dumps({"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}}))
    for n, (name, inp, out, err) in enumerate(calls, 1):
        lines.append(json.dumps({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": f"t{n}", "name": name, "input": inp}]}}))
        lines.append(json.dumps({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": f"t{n}", "content": out, "is_error": err}]}}))
    lines.extend(extra_lines)
    lines.append(json.dumps({"type": "result", "subtype": "success", "is_error": False, "result": result,
                             "num_turns": len(calls) + 1, "duration_ms": 1000 * (len(calls) + 1),
                             "total_cost_usd": 0.01 * (len(calls) + 1)}))
    return lines


def write_stream(path: pathlib.Path, **kw) -> pathlib.Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(stream_lines(**kw)) + "\n", encoding="utf-8")
    return path


def make_skill(root: pathlib.Path, name: str, cases: dict[str, str], suite: str | None = None,
               triggers: str | None = None, description: str = "Does the thing.") -> pathlib.Path:
    skill = root / name
    (skill / "evals" / "cases").mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n", encoding="utf-8")
    for stem, text in cases.items():
        (skill / "evals" / "cases" / f"{stem}.yaml").write_text(text, encoding="utf-8")
    if suite is not None:
        (skill / "evals" / "suite.yaml").write_text(suite, encoding="utf-8")
    if triggers is not None:
        (skill / "evals" / "triggers.yaml").write_text(triggers, encoding="utf-8")
    return skill
