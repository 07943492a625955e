"""agentv's ``code-grader``: a program grades the session (agentv's contract: a JSON payload on stdin, a score
on stdout); it runs only under ``evalfmt run``."""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from ... import js
from ...js import UNDEFINED, coalesce, get
from ..node import CheckBase, node
from ._words import PROMPTFOO_NONE, TERUM_NO_OUTPUT
from .spec import Absent, Agentv, AgentvField, Evidence, KindSpec, Outcome


@node
class CodeGrader(CheckBase):
    """A program that grades the answer: ``command`` as a string or argv list (``script``: agentv's older key
    for it, run when there is no ``command``), run in ``cwd`` (relative to the eval file's folder; None: that
    folder), given ``config`` (the assertion's own settings: agentv's keys of the assertion it does not
    define) on stdin."""

    kind: Literal["code-grader"] = "code-grader"
    command: str | list[str] | None = None
    script: str | list[str] | None = None
    cwd: str | None = None
    config: dict[str, Any] | None = None

    @property
    def arg(self) -> str:
        return self.command if isinstance(self.command, str) else " ".join(self.command or [])


#: why a grader program is not run outside ``evalfmt run``
ONLY_IN_RUN = "not scored: code graders run only under evalfmt run (they execute a program)"


def _score(check: CodeGrader, ev: Evidence) -> Outcome:
    return ev.program_grade(check)


def answer_score(answer: dict[str, Any]) -> float:
    """A grader program's ``score``, clamped to [0, 1] (0 when it gives none)."""
    score = answer.get("score")
    if isinstance(score, (int, float)) and not isinstance(score, bool) and math.isfinite(score):
        return min(1.0, max(0.0, float(score)))
    return 0.0


def answer_texts(answer: dict[str, Any]) -> str:
    """A grader program's ``assertions``: the failed ones' texts (else every text) joined."""
    found = answer.get("assertions")
    items: list[Any] = found if isinstance(found, list) else []
    texts = [(a["text"], bool(a.get("passed"))) for a in items
             if isinstance(a, dict) and isinstance(a.get("text"), str)]
    failed = [t for t, ok in texts if not ok]
    return "; ".join(failed or [t for t, _ in texts]) or "no assertions given"


_CODE_FILE = re.compile(r"(?<![^/])([^/]+)\.(ts|js|mts|mjs)\Z", re.S)  # a match starts after the last '/'.


def grader_instruction(name: str, description: Any) -> str:
    """agentv transpile's sentence for a code grader: how to run it."""
    desc = f" This grader: {description}." if js.truthy(description) else ""
    return (f"Run `agentv eval assert {name} --agent-output <agent_output> --agent-input <original_prompt>` "
            f"and check the result.{desc} The command accepts --agent-output (the agent's full response text) "
            "and --agent-input (the original user prompt). It returns JSON on stdout: "
            '{"score": 0-1, "reasoning": "..."}. A score >= 0.5 means pass (exit 0); below 0.5 means fail (exit 1).')


def grader_name_from_command(command: Any) -> Any:
    """The stem of the first argument naming a script file (``.ts``, ``.js``, ``.mts``, ``.mjs``), else undefined."""
    if not isinstance(command, list) or not command:
        return UNDEFINED
    for arg in command:
        if not isinstance(arg, str):
            continue
        m = _CODE_FILE.search(arg)
        if m:
            return m.group(1) or UNDEFINED
    return UNDEFINED


def _transpiled(entry: Any) -> str:
    name = coalesce(get(entry, "name"), grader_name_from_command(get(entry, "command")), "code-grader")
    desc = get(entry, "description")
    return grader_instruction(js.string(name), desc if isinstance(desc, str) else UNDEFINED)


SPEC = KindSpec(
    kind="code-grader", cls=CodeGrader, description="A program grades the session (agentv's code-grader contract).",
    feature="check.code_grader", looks_at="program", asserts="score", graded=True, score=_score,
    sentence=lambda c: f"Passes the check '{c.label()}'",
    terum=Absent(TERUM_NO_OUTPUT),
    agentv=Agentv("code-grader", (AgentvField("command", "command", "command"),
                                  AgentvField("script", "script", "command?"), AgentvField("cwd", "cwd", "str?")),
                  form="code-grader", spellings=("code_grader",), sentence=_transpiled),
    promptfoo=Absent(PROMPTFOO_NONE),
    skillgym=Absent(""),
    aliases={"code-judge": "code-grader"},
    paths={"command": "command"})
SPECS = (SPEC,)
