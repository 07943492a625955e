"""terum's transcript checks: ``transcript_mentions`` and ``transcript_omits``, a case-insensitive substring
search of the transcript text (the final output, the agent's message text and its tool calls' arguments)."""

from __future__ import annotations

from typing import Literal

from ..node import CheckBase, node
from .spec import Absent, Agentv, AgentvField, Evidence, KindSpec, Outcome, Skillgym, Terum


@node
class TranscriptMentions(CheckBase):
    """Passes when ``text`` occurs in the transcript, case-insensitively."""

    kind: Literal["transcript_mentions"] = "transcript_mentions"
    text: str

    @property
    def arg(self) -> str:
        return self.text


@node
class TranscriptOmits(CheckBase):
    """Passes when ``text`` does not occur in the transcript (case-insensitive)."""

    kind: Literal["transcript_omits"] = "transcript_omits"
    text: str

    @property
    def arg(self) -> str:
        return self.text


def _score(check: TranscriptMentions | TranscriptOmits, ev: Evidence) -> Outcome:
    found = ev.session.transcript_contains(check.text.lower())
    detail = "found in the transcript" if found else "not found in the transcript"
    return found == isinstance(check, TranscriptMentions), detail


def _spec(cls: type[TranscriptMentions] | type[TranscriptOmits], opposite: str, present: bool, description: str,
          sentence: str) -> KindSpec:
    kind = cls.__dataclass_fields__["kind"].default
    return KindSpec(
        kind=kind, cls=cls, description=description, feature="check.transcript", looks_at="transcript",
        asserts="presence" if present else "absence", graded=False, score=_score,
        sentence=lambda c: sentence.format(c.text),
        terum=Terum("text", negated=opposite),
        agentv=Agentv(kind.replace("_", "-"), (AgentvField("text", "value", "str", True),), form="custom"),
        promptfoo=Absent("promptfoo's contains checks only the final output, not the transcript"),
        skillgym=Skillgym("transcript", positive=present),
        opposite=opposite)


MENTIONS = _spec(TranscriptMentions, "transcript_omits", True,
                 "Passes when this text occurs in the transcript (case-insensitive).", "The transcript mentions '{}'")
OMITS = _spec(TranscriptOmits, "transcript_mentions", False,
              "Passes when this text does not occur in the transcript.", "The transcript does not mention '{}'")
SPECS = (MENTIONS, OMITS)
