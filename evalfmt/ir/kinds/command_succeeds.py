"""terum's ``command_succeeds``: a shell command run in the sandbox after the session must exit 0."""

from __future__ import annotations

from typing import Literal

from ..node import CheckBase, node
from .files import NO_WORKSPACE
from .spec import Absent, Agentv, AgentvField, Evidence, KindSpec, Outcome, Terum


@node
class CommandSucceeds(CheckBase):
    """Passes when ``/bin/sh -ce command`` exits 0 in the sandbox within 120 s."""

    kind: Literal["command_succeeds"] = "command_succeeds"
    command: str

    @property
    def arg(self) -> str:
        return self.command[:60]


def _score(check: CommandSucceeds, ev: Evidence) -> Outcome:
    return ev.sandbox_command(check.command)


SPEC = KindSpec(
    kind="command_succeeds", cls=CommandSucceeds,
    description="Passes when `/bin/sh -ce <command>` exits 0 in the sandbox within 120 s.",
    feature="check.workspace", looks_at="sandbox", asserts="presence", graded=False, score=_score,
    sentence=lambda c: f"The command '{c.command}' succeeds after the session",
    terum=Terum("command"),
    agentv=Agentv("command-succeeds", (AgentvField("command", "value", "str", True),), form="custom"),
    promptfoo=Absent("promptfoo does not run commands after the session"),
    skillgym=Absent(NO_WORKSPACE))
SPECS = (SPEC,)
