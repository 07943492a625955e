#!/usr/bin/env python3
"""A stand-in agent that picks one skill of the library staged in ``.claude/skills/`` by its description.

    python fake_picker.py TASK

The words of each staged skill's ``description`` (six letters or more, lower-cased) are its keywords;
the first skill (in name order) with a keyword in the task fires: a ``Skill`` tool call naming it. A task
holding ``PICK:<name>`` fires that skill whatever the descriptions say (a chosen skill, right or wrong);
``PICK:none`` fires none. It prints Claude Code stream-json and a result ``used <skill>`` or ``no skill``.
"""

from __future__ import annotations

import json
import os
import re
import sys


def skills() -> dict[str, str]:
    base = os.path.join(".claude", "skills")
    out = {}
    for name in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        try:
            with open(os.path.join(base, name, "SKILL.md"), encoding="utf-8") as fh:
                text = fh.read()
        except OSError:
            continue
        m = re.search(r"^description:\s*(.*)$", text, re.M)
        out[name] = m.group(1) if m else ""
    return out


def pick(task: str, library: dict[str, str]) -> str | None:
    forced = re.search(r"PICK:([\w-]+)", task)
    if forced:
        return None if forced.group(1) == "none" else forced.group(1)
    words = set(re.findall(r"[a-z]{6,}", task.lower()))
    for name, desc in library.items():
        if words & set(re.findall(r"[a-z]{6,}", desc.lower())):
            return name
    return None


def main() -> int:
    task = sys.argv[-1]
    library = skills()
    chosen = pick(task, library)
    emit = lambda rec: print(json.dumps(rec))  # noqa: E731
    emit({"type": "system", "subtype": "init", "session_id": "p", "model": "fake-picker", "skills": list(library)})
    if chosen:
        emit({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": "t1", "name": "Skill", "input": {"skill": chosen}}]}})
        emit({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": f"Launching skill: {chosen}", "is_error": False}]}})
    text = f"used {chosen}" if chosen else "no skill"
    emit({"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}})
    emit({"type": "result", "subtype": "success", "is_error": False, "result": text, "num_turns": 1,
          "duration_ms": 1000, "total_cost_usd": 0.001})
    return 0


if __name__ == "__main__":
    sys.exit(main())
