"""terum's command checks: ``command_matching`` and ``no_command_matching``, an ECMAScript regex searched in
every Bash command the agent ran (with ``flags``, those of a skillgym regex literal that change a match)."""

from __future__ import annotations

from typing import Literal

from ..node import CheckBase, node
from .spec import Agentv, AgentvField, Evidence, KindSpec, Outcome, Promptfoo, Skillgym, Terum


@node
class CommandMatching(CheckBase):
    """Passes when some Bash command matches the ECMAScript regex ``pattern`` (a search) with ``flags``, those
    that change what it matches (``i``, ``m``, ``s``, ``u``, ``v``, ``y``: a skillgym regex literal's)."""

    kind: Literal["command_matching"] = "command_matching"
    pattern: str
    flags: str | None = None

    @property
    def arg(self) -> str:
        return self.pattern


@node
class NoCommandMatching(CheckBase):
    """Passes when no Bash command matches ``pattern`` (with ``flags``, as :class:`CommandMatching`)."""

    kind: Literal["no_command_matching"] = "no_command_matching"
    pattern: str
    flags: str | None = None

    @property
    def arg(self) -> str:
        return self.pattern


def _cut(s: str, n: int = 120) -> str:
    s = s.replace("\n", " ")
    return s if len(s) <= n else s[: n - 1] + "…"


def _score(check: CommandMatching | NoCommandMatching, ev: Evidence) -> Outcome:
    commands = ev.session.bash_commands()
    index = ev.first_match(check.pattern, check.flags or "", commands)
    if index is not None:
        what = f"matched by Bash command: {_cut(commands[index])}"
    else:
        what = f"no Bash command matched ({len(commands)} run)"
    return (index is not None) == isinstance(check, CommandMatching), what


def _spec(cls: type[CommandMatching] | type[NoCommandMatching], opposite: str, present: bool, description: str,
          sentence: str) -> KindSpec:
    kind = cls.__dataclass_fields__["kind"].default
    return KindSpec(
        kind=kind, cls=cls, description=description, feature="check.command", looks_at="commands",
        asserts="presence" if present else "absence", graded=False, score=_score,
        sentence=lambda c: sentence.format(c.pattern),
        terum=Terum("pattern", negated=opposite, argument="regex"),
        agentv=Agentv(kind.replace("_", "-"), (AgentvField("pattern", "value", "str", True),), form="custom",
                      regex=("pattern", None)),
        promptfoo=Promptfoo("trajectory:step-count", form="step-count"),
        skillgym=Skillgym("commands", positive=present),
        opposite=opposite)


MATCHING = _spec(CommandMatching, "no_command_matching", True,
                 "Passes when a Bash command matches this ECMAScript regex (a search).",
                 "A command matching /{}/ is run")
NO_MATCHING = _spec(NoCommandMatching, "command_matching", False,
                    "Passes when no Bash command matches this ECMAScript regex.", "No command matching /{}/ is run")
SPECS = (MATCHING, NO_MATCHING)
