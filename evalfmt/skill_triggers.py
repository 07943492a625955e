"""The rules of a skill-trigger shared by the agentv reader (validate, lint) and the router
(transpile), so that both report the same problem in the same words."""

from __future__ import annotations


def missing_skill_message(test: str | None) -> str:
    where = f"in test '{test}'" if test is not None else "at the suite level"
    return f"skill-trigger {where} has no 'skill': name the skill it should (or should not) trigger"


def conflict_message(test: str, skill: str, want: bool, other: bool) -> str:
    return (f"test '{test}' asks skill '{skill}' both to trigger and not to trigger (should_trigger "
            f"{str(want).lower()} here, {str(other).lower()} before); keep one")


def skill_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a folder name in the output, or None."""
    if name == "":
        return "is empty"
    if name in (".", ".."):
        return f"is '{name}'"
    for ch, what in (("/", "'/'"), ("\\", "'\\'"), ("\x00", "a NUL character")):
        if ch in name:
            return f"holds {what}" if not name.startswith("/") else "is an absolute path"
    return None
