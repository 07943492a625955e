"""The intermediate representation (IR): the one thing formats, linter and executor share.

Design rules (read before adding a field):

- Every node carries ``span`` (file, 1-based line and column) of the source it was read from.
  Spans are provenance, not content: :func:`content` / :func:`same` compare IR ignoring them.
- Nothing is dropped. A key a format defines but the IR does not model goes to ``extra`` (in source
  order). A value of the wrong type (``files: 3``, ``checks: foo``) is *also* kept in ``extra`` under
  its own key, with a diagnostic from the reader, so a writer can put it back unchanged.
- ``hints`` hold presentation choices of the source format (e.g. an agentv assertion written as a
  plain string) that its own writer honours so that read(write(ir)) == ir. They carry no meaning
  for other formats. Legacy spellings are *not* hints: they are normalised and reported (EV501).
- Checks are a discriminated union on the required literal ``kind``; anything no model fits is an
  :class:`Opaque` check that carries the original value in ``raw``. Never dump the IR with
  ``exclude_defaults`` (it would drop the tag); use :func:`dump`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

IR_VERSION = 1

from .kinds import BUCKETS, TERUM_ARG_FIELD, TERUM_KINDS  # noqa: E402,F401 - re-exported


class Span(BaseModel):
    """Where a node was written: file path as given, 1-based line and column."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    file: str
    line: int = 1
    column: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class Node(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False, defer_build=True)

    span: Span | None = None


# ------------------------------------------------------------------------------------ messages


class ContentPart(Node):
    """One part of a message's content: agentv ``{type: text|file|image, value}``."""

    type: str
    value: Any = None
    extra: dict[str, Any] = Field(default_factory=dict)


class Message(Node):
    """A chat message. ``content`` is a string, a list of parts, or any structured value
    (agentv ``expected_output`` messages may hold a mapping)."""

    role: str
    content: Union[str, list[ContentPart], Any] = None
    extra: dict[str, Any] = Field(default_factory=dict)


Input = Union[str, list[Message]]


def input_text(value: Input | None) -> str | None:
    """The prompt as plain text: the string itself, or the text parts of the user messages joined
    by blank lines (file parts are named as ``[file: path]``). None when there is no input."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    chunks: list[str] = []
    for msg in value:
        if msg.role != "user":
            continue
        if isinstance(msg.content, str):
            chunks.append(msg.content)
        elif isinstance(msg.content, list):
            for part in msg.content:
                if part.type == "text" and isinstance(part.value, str):
                    chunks.append(part.value)
                elif part.type == "file":
                    chunks.append(f"[file: {part.value}]")
    return "\n\n".join(chunks)


# ---------------------------------------------------------------------------------------- checks


class CheckBase(Node):
    """Fields every check may carry. The agentv common fields are None when absent."""

    name: str | None = None
    weight: float | None = None
    required: bool | float | None = None
    min_score: float | None = None
    negate: bool | None = None
    extra: dict[str, Any] = Field(default_factory=dict)
    hints: dict[str, Any] = Field(default_factory=dict)

    @property
    def arg(self) -> str:
        """The check's argument as text (used in ``kind:arg`` labels)."""
        return ""

    def label(self) -> str:
        """``kind:arg`` as terum receipts name a check (command_succeeds cut to 60 chars)."""
        arg = self.arg
        return f"{self.kind}:{arg}" if arg != "" else self.kind  # type: ignore[attr-defined]


# terum's seven kinds ---------------------------------------------------------------------------


class TranscriptMentions(CheckBase):
    """Passes when ``text`` occurs in the transcript, case-insensitively."""

    kind: Literal["transcript_mentions"] = "transcript_mentions"
    text: str

    @property
    def arg(self) -> str:
        return self.text


class TranscriptOmits(CheckBase):
    """Passes when ``text`` does not occur in the transcript (case-insensitive)."""

    kind: Literal["transcript_omits"] = "transcript_omits"
    text: str

    @property
    def arg(self) -> str:
        return self.text


class CommandMatching(CheckBase):
    """Passes when some Bash command matches the ECMAScript regex ``pattern`` (a search)."""

    kind: Literal["command_matching"] = "command_matching"
    pattern: str

    @property
    def arg(self) -> str:
        return self.pattern


class NoCommandMatching(CheckBase):
    """Passes when no Bash command matches ``pattern``."""

    kind: Literal["no_command_matching"] = "no_command_matching"
    pattern: str

    @property
    def arg(self) -> str:
        return self.pattern


class FileExists(CheckBase):
    """Passes when ``path`` exists in the sandbox after the session."""

    kind: Literal["file_exists"] = "file_exists"
    path: str

    @property
    def arg(self) -> str:
        return self.path


class FileAbsent(CheckBase):
    """Passes when ``path`` does not exist in the sandbox after the session."""

    kind: Literal["file_absent"] = "file_absent"
    path: str

    @property
    def arg(self) -> str:
        return self.path


class CommandSucceeds(CheckBase):
    """Passes when ``/bin/sh -ce command`` exits 0 in the sandbox within 120 s."""

    kind: Literal["command_succeeds"] = "command_succeeds"
    command: str

    @property
    def arg(self) -> str:
        return self.command[:60]


# AgentV assertion types -------------------------------------------------------------------------


class SkillTrigger(CheckBase):
    """agentv ``skill-trigger``: did the agent invoke ``skill``? ``should_trigger`` None means absent
    (agentv's default, true); use :attr:`expects_trigger` for the effective value."""

    kind: Literal["skill-trigger"] = "skill-trigger"
    skill: str | None = None
    should_trigger: bool | None = None

    @property
    def expects_trigger(self) -> bool:
        return self.should_trigger is not False

    @property
    def arg(self) -> str:
        return self.skill or ""


class _ValueCheck(CheckBase):
    value: str

    @property
    def arg(self) -> str:
        return self.value


class Contains(_ValueCheck):
    """Final output contains ``value`` (case-sensitive)."""

    kind: Literal["contains"] = "contains"


class Icontains(_ValueCheck):
    """Final output contains ``value`` ignoring case."""

    kind: Literal["icontains"] = "icontains"


class StartsWith(_ValueCheck):
    kind: Literal["starts-with"] = "starts-with"


class EndsWith(_ValueCheck):
    kind: Literal["ends-with"] = "ends-with"


class _ValuesCheck(CheckBase):
    values: list[str]

    @property
    def arg(self) -> str:
        return ",".join(self.values)


class ContainsAny(_ValuesCheck):
    kind: Literal["contains-any"] = "contains-any"


class ContainsAll(_ValuesCheck):
    kind: Literal["contains-all"] = "contains-all"


class IcontainsAny(_ValuesCheck):
    kind: Literal["icontains-any"] = "icontains-any"


class IcontainsAll(_ValuesCheck):
    kind: Literal["icontains-all"] = "icontains-all"


class Regex(CheckBase):
    """Final output matches the ECMAScript regex ``value`` with ``flags``."""

    kind: Literal["regex"] = "regex"
    value: str
    flags: str | None = None

    @property
    def arg(self) -> str:
        return self.value


class Equals(CheckBase):
    """Final output equals ``value`` (after trimming, as agentv does)."""

    kind: Literal["equals"] = "equals"
    value: Any = None

    @property
    def arg(self) -> str:
        return self.value if isinstance(self.value, str) else str(self.value)


class IsJson(CheckBase):
    kind: Literal["is-json"] = "is-json"


class LlmGrader(CheckBase):
    """An LLM grader; ``prompt`` is inline text or a path to a prompt file."""

    kind: Literal["llm-grader"] = "llm-grader"
    prompt: str | None = None

    @property
    def arg(self) -> str:
        return self.prompt or ""


class Rubrics(CheckBase):
    """A rubric: criteria strings (or agentv criterion objects) an LLM grades."""

    kind: Literal["rubrics"] = "rubrics"
    criteria: list[Union[str, dict[str, Any]]] = Field(default_factory=list)

    @property
    def arg(self) -> str:
        return "; ".join(c if isinstance(c, str) else str(c.get("outcome") or c.get("description") or c) for c in self.criteria)


class CodeGrader(CheckBase):
    """A program that grades the answer (``command`` as a string or argv list)."""

    kind: Literal["code-grader"] = "code-grader"
    command: Union[str, list[str], None] = None

    @property
    def arg(self) -> str:
        return self.command if isinstance(self.command, str) else " ".join(self.command or [])


class ToolTrajectory(CheckBase):
    """agentv ``tool-trajectory``: ``mode`` (any_order, in_order, exact, ...) and ``expected`` steps."""

    kind: Literal["tool-trajectory"] = "tool-trajectory"
    mode: str | None = None
    expected: list[Any] | None = None

    @property
    def arg(self) -> str:
        return self.mode or ""


class Latency(CheckBase):
    kind: Literal["latency"] = "latency"
    threshold: float | None = None

    @property
    def arg(self) -> str:
        return "" if self.threshold is None else f"{self.threshold:g}"


class Cost(CheckBase):
    kind: Literal["cost"] = "cost"
    budget: float | None = None

    @property
    def arg(self) -> str:
        return "" if self.budget is None else f"{self.budget:g}"


class TokenUsage(CheckBase):
    """agentv ``token-usage``: limits such as ``max_total`` stay in ``extra``."""

    kind: Literal["token-usage"] = "token-usage"


class Opaque(CheckBase):
    """A check no model fits: an unknown terum kind, an agentv custom or composite assertion, a
    malformed entry, a skillgym statement. ``type`` is its type/kind name when it has one, ``raw``
    the original value exactly as read, ``origin`` the format it came from."""

    kind: Literal["opaque"] = "opaque"
    type: str | None = None
    raw: Any = None
    origin: str | None = None

    @property
    def arg(self) -> str:
        return self.type or ""

    def label(self) -> str:
        return f"{self.type}" if self.type else "opaque"


Check = Annotated[
    Union[
        TranscriptMentions,
        TranscriptOmits,
        CommandMatching,
        NoCommandMatching,
        FileExists,
        FileAbsent,
        CommandSucceeds,
        SkillTrigger,
        Contains,
        Icontains,
        ContainsAny,
        ContainsAll,
        IcontainsAny,
        IcontainsAll,
        StartsWith,
        EndsWith,
        Regex,
        Equals,
        IsJson,
        LlmGrader,
        Rubrics,
        CodeGrader,
        ToolTrajectory,
        Latency,
        Cost,
        TokenUsage,
        Opaque,
    ],
    Field(discriminator="kind"),
]

CHECK_MODELS: dict[str, type[CheckBase]] = {
    m.model_fields["kind"].default: m  # type: ignore[misc]
    for m in Check.__origin__.__args__  # type: ignore[attr-defined]
}
#: agentv assertion types the IR models (besides skill-trigger and the opaque rest).
AGENTV_TYPES = tuple(k for k in CHECK_MODELS if k not in TERUM_KINDS and k != "opaque")


# ----------------------------------------------------------------------------------------- cases


class Case(Node):
    """One thing to run and score: a terum case, an agentv test, a skill-creator eval, a skillgym case.

    ``input`` is the prompt (terum ``task``): a string, or agentv messages. ``judge`` is a rubric for
    the whole answer (terum ``judge``, agentv ``criteria``). Fields a format lacks stay None.
    """

    name: str
    input: Input | None = None
    checks: list[Check] = Field(default_factory=list)
    judge: str | None = None
    expected_output: Any = None
    # terum
    files: dict[str, str] | None = None
    fixture: str | None = None
    setup: str | None = None
    bucket: str | None = None
    requires: list[str] | None = None
    timeout_minutes: int | float | None = None
    max_turns: int | None = None
    # agentv / skill-creator
    input_files: list[str] | None = None
    metadata: dict[str, Any] | None = None
    # skillgym
    tags: list[str] | None = None
    timeout_ms: int | None = None
    expected_fail: bool | None = None
    extra: dict[str, Any] = Field(default_factory=dict)
    hints: dict[str, Any] = Field(default_factory=dict)

    @property
    def task(self) -> str | None:
        """The prompt as text (see :func:`input_text`)."""
        return input_text(self.input)


class SuiteEntry(Node):
    """A scored row of a suite: a name and its checks, judged against the suite's one transcript."""

    name: str
    checks: list[Check] = Field(default_factory=list)
    extra: dict[str, Any] = Field(default_factory=dict)


class Suite(Case):
    """terum ``evals/suite.yaml``: a case whose ``entries`` are scored against one session.
    Its own ``checks``, ``judge`` and ``bucket`` are parsed and discarded by the engine (kept here)."""

    name: str = "suite"
    entries: list[SuiteEntry] = Field(default_factory=list)


class TriggerPrompt(Node):
    text: str
    should_trigger: bool
    extra: dict[str, Any] = Field(default_factory=dict)


class TriggerSet(Node):
    """Prompts that should / should not make a selector pick ``skill``, in source order."""

    skill: str | None = None
    prompts: list[TriggerPrompt] = Field(default_factory=list)
    extra: dict[str, Any] = Field(default_factory=dict)
    hints: dict[str, Any] = Field(default_factory=dict)

    @property
    def should(self) -> list[TriggerPrompt]:
        return [p for p in self.prompts if p.should_trigger]

    @property
    def should_not(self) -> list[TriggerPrompt]:
        return [p for p in self.prompts if not p.should_trigger]


class SkillInfo(Node):
    """The skill an eval set belongs to (from SKILL.md when there is one)."""

    name: str
    description: str | None = None
    path: str | None = None


class EvalSet(Node):
    """Everything read from one unit: a skill's evals/ folder, one EVAL.yaml, one evals.json, ...

    ``input`` and ``checks`` at this level are agentv's suite-level ``input`` / ``assertions``
    (prepended to / applied to every test).
    """

    format: str
    source: str | None = None
    skill: SkillInfo | None = None
    name: str | None = None
    description: str | None = None
    tags: list[str] | None = None
    input: Input | None = None
    checks: list[Check] = Field(default_factory=list)
    cases: list[Case] = Field(default_factory=list)
    suite: Suite | None = None
    triggers: TriggerSet | None = None
    extra: dict[str, Any] = Field(default_factory=dict)
    hints: dict[str, Any] = Field(default_factory=dict)


# -------------------------------------------------------------------------------------- helpers


def dump(node: BaseModel, spans: bool = True) -> dict:
    """The IR as JSON-ready data: every field that is set (None means absent everywhere in the IR,
    so leaving None out loses nothing), tags always included. ``spans=False`` drops provenance."""
    data = node.model_dump(mode="json", exclude_none=True)
    return data if spans else strip_spans(data)


def strip_spans(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: strip_spans(v) for k, v in data.items() if k != "span"}
    if isinstance(data, list):
        return [strip_spans(v) for v in data]
    return data


def content(node: BaseModel) -> dict:
    """The IR's content without spans, for comparisons."""
    return dump(node, spans=False)


def same(a: BaseModel, b: BaseModel) -> bool:
    """True when two IR nodes hold the same content (spans ignored)."""
    return content(a) == content(b)
