"""The intermediate representation (IR): the one thing formats, linter, router and executor share.

The IR is plain stdlib dataclasses (``slots``, keyword-only): readers build it directly, and building or
reading it never imports pydantic, so one-file ``validate`` stays fast. pydantic works at the boundary
only (:mod:`evalfmt.ir.adapter`, imported lazily): validating IR JSON (the ``ir`` format), the JSON
Schema of the IR, ``inspect --format json``.

Design rules (read before adding a field):

- Every node carries ``span`` (file, 1-based line and column) of the source it was read from.
  Spans are provenance, not content: :func:`content` / :func:`same` compare IR ignoring them.
- Nothing is dropped. A key a format defines but the IR does not model goes to ``extra`` (in source
  order). A value of the wrong type (``files: 3``, ``checks: foo``) is *also* kept in ``extra`` under
  its own key, with a diagnostic from the reader, so a writer can put it back unchanged.
- Closed for the stages after the readers: whatever the executor, the transpiler or the reports act on is
  a typed field a reader fills (a regex's flags, a trajectory's minimums, a code grader's ``cwd`` and
  ``config``, the checks every case of a set gets), named for its meaning so any format can fill it.
  ``extra``, ``hints``, an opaque check's ``raw``/``origin`` and the set's ``format`` are for the writers
  (round trips, losses) only; ``tests/cli/test_closed_ir.py`` fails on a new read of them in run/,
  transpile/ or report/. A field a target format cannot hold is a loss of its writer, in the words it
  used for the extra key the value was before.
- ``hints`` hold presentation choices of the source format (e.g. an agentv assertion written as a
  plain string) that its own writer honours so that read(write(ir)) == ir. They carry no meaning
  for other formats. Legacy spellings are *not* hints: they are normalised and reported (EV501).
- Checks are a union tagged by the literal ``kind``; anything no class fits is an :class:`Opaque` check
  that carries the original value in ``raw``. Serialise only with :func:`dump` (None fields are left
  out, ``kind`` always written); copy with :func:`replace` / :func:`copy.deepcopy`.
- Numbers declared ``float`` are floats (``weight: 1`` reads as ``1.0``, as JSON and the IR file show it).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from ..kinds import BUCKETS, TERUM_ARG_FIELD, TERUM_KINDS  # noqa: F401 - re-exported

IR_VERSION = 1

#: How every node class is declared. ``__eq__`` and ``__repr__`` are written once on :class:`Node` rather
#: than generated per class: generating them would double the import time of this module, and
#: ``validate`` (run by pre-commit on every commit) pays for that import.
N = TypeVar("N", bound="Node")

if TYPE_CHECKING:  # pragma: no cover
    from typing import dataclass_transform

    @dataclass_transform(kw_only_default=True, eq_default=False)
    def _dc(cls: type[N]) -> type[N]:
        """What type checkers see: a dataclass decorator with keyword-only fields (the runtime one below)."""
        ...
else:
    _dc = dataclass(slots=True, kw_only=True, eq=False, repr=False, match_args=False)


def _float(value: Any) -> Any:
    """``int`` -> ``float`` for fields declared float (bool stays bool: it is an int in Python)."""
    return float(value) if type(value) is int else value


@dataclass(slots=True, frozen=True)
class Span:
    """Where a node was written: file path as given, 1-based line and column."""

    file: str
    line: int = 1
    column: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@_dc
class Node:
    """The base of every IR node: where it was read from."""

    span: Span | None = None

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in field_names(type(self)))

    __hash__ = None  # type: ignore[assignment]  # mutable, like the lists and dicts it holds

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={getattr(self, f)!r}" for f in field_names(type(self)))
        return f"{type(self).__name__}({shown})"


# ------------------------------------------------------------------------------------ messages


@_dc
class ContentPart(Node):
    """One part of a message's content: agentv ``{type: text|file|image, value}``."""

    type: str
    value: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


@_dc
class Message(Node):
    """A chat message. ``content`` is a string, a list of parts, or any structured value
    (agentv ``expected_output`` messages may hold a mapping)."""

    role: str
    content: str | list[ContentPart] | Any = None
    extra: dict[str, Any] = field(default_factory=dict)


Input = str | list[Message]


def input_text(value: Input | None) -> str | None:
    """The prompt as plain text: the string itself, or the text parts of the user messages joined
    by blank lines (file parts are named as ``[file: path]``). None when there is no input."""
    if value is None or isinstance(value, str):
        return value
    if not isinstance(value, list):
        return None
    chunks: list[str] = []
    for msg in value:
        if not isinstance(msg, Message) or msg.role != "user":
            continue
        if isinstance(msg.content, str):
            chunks.append(msg.content)
        elif isinstance(msg.content, list):
            for part in msg.content:
                if not isinstance(part, ContentPart):
                    continue
                if part.type == "text" and isinstance(part.value, str):
                    chunks.append(part.value)
                elif part.type == "file":
                    chunks.append(f"[file: {part.value}]")
    return "\n\n".join(chunks)


# ---------------------------------------------------------------------------------------- checks


@_dc
class CheckBase(Node):
    """Fields every check may carry. The agentv common fields are None when absent."""

    if TYPE_CHECKING:  # each concrete class declares its own literal tag as a field (after these)
        kind: str
    name: str | None = None
    weight: float | None = None
    required: bool | float | None = None
    min_score: float | None = None
    negate: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    hints: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if type(self.weight) is int:
            self.weight = float(self.weight)
        if type(self.min_score) is int:
            self.min_score = float(self.min_score)
        if type(self.required) is int:
            self.required = float(self.required)

    @property
    def arg(self) -> str:
        """The check's argument as text (used in ``kind:arg`` labels)."""
        return ""

    def label(self) -> str:
        """``kind:arg`` as terum receipts name a check (command_succeeds cut to 60 chars)."""
        arg = self.arg
        return f"{self.kind}:{arg}" if arg != "" else self.kind


# terum's seven kinds ---------------------------------------------------------------------------


@_dc
class TranscriptMentions(CheckBase):
    """Passes when ``text`` occurs in the transcript, case-insensitively."""

    kind: Literal["transcript_mentions"] = "transcript_mentions"
    text: str

    @property
    def arg(self) -> str:
        return self.text


@_dc
class TranscriptOmits(CheckBase):
    """Passes when ``text`` does not occur in the transcript (case-insensitive)."""

    kind: Literal["transcript_omits"] = "transcript_omits"
    text: str

    @property
    def arg(self) -> str:
        return self.text


@_dc
class CommandMatching(CheckBase):
    """Passes when some Bash command matches the ECMAScript regex ``pattern`` (a search) with ``flags``, those
    that change what it matches (``i``, ``m``, ``s``, ``u``, ``v``, ``y``: a skillgym regex literal's)."""

    kind: Literal["command_matching"] = "command_matching"
    pattern: str
    flags: str | None = None

    @property
    def arg(self) -> str:
        return self.pattern


@_dc
class NoCommandMatching(CheckBase):
    """Passes when no Bash command matches ``pattern`` (with ``flags``, as :class:`CommandMatching`)."""

    kind: Literal["no_command_matching"] = "no_command_matching"
    pattern: str
    flags: str | None = None

    @property
    def arg(self) -> str:
        return self.pattern


@_dc
class FileExists(CheckBase):
    """Passes when ``path`` exists in the sandbox after the session."""

    kind: Literal["file_exists"] = "file_exists"
    path: str

    @property
    def arg(self) -> str:
        return self.path


@_dc
class FileAbsent(CheckBase):
    """Passes when ``path`` does not exist in the sandbox after the session."""

    kind: Literal["file_absent"] = "file_absent"
    path: str

    @property
    def arg(self) -> str:
        return self.path


@_dc
class CommandSucceeds(CheckBase):
    """Passes when ``/bin/sh -ce command`` exits 0 in the sandbox within 120 s."""

    kind: Literal["command_succeeds"] = "command_succeeds"
    command: str

    @property
    def arg(self) -> str:
        return self.command[:60]


# AgentV assertion types -------------------------------------------------------------------------


@_dc
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


@_dc
class _ValueCheck(CheckBase):
    """A check on the final output with one text ``value``."""

    value: str

    @property
    def arg(self) -> str:
        return self.value


@_dc
class Contains(_ValueCheck):
    """Final output contains ``value`` (case-sensitive)."""

    kind: Literal["contains"] = "contains"


@_dc
class Icontains(_ValueCheck):
    """Final output contains ``value`` ignoring case."""

    kind: Literal["icontains"] = "icontains"


@_dc
class StartsWith(_ValueCheck):
    """Final output starts with ``value``."""

    kind: Literal["starts-with"] = "starts-with"


@_dc
class EndsWith(_ValueCheck):
    """Final output ends with ``value``."""

    kind: Literal["ends-with"] = "ends-with"


@_dc
class _ValuesCheck(CheckBase):
    """A check on the final output with a list of ``values``."""

    values: list[str]

    @property
    def arg(self) -> str:
        return ",".join(self.values)


@_dc
class ContainsAny(_ValuesCheck):
    """Final output contains one of ``values``."""

    kind: Literal["contains-any"] = "contains-any"


@_dc
class ContainsAll(_ValuesCheck):
    """Final output contains every one of ``values``."""

    kind: Literal["contains-all"] = "contains-all"


@_dc
class IcontainsAny(_ValuesCheck):
    """Final output contains one of ``values``, ignoring case."""

    kind: Literal["icontains-any"] = "icontains-any"


@_dc
class IcontainsAll(_ValuesCheck):
    """Final output contains every one of ``values``, ignoring case."""

    kind: Literal["icontains-all"] = "icontains-all"


@_dc
class Regex(CheckBase):
    """Final output matches the ECMAScript regex ``value`` with ``flags``."""

    kind: Literal["regex"] = "regex"
    value: str
    flags: str | None = None

    @property
    def arg(self) -> str:
        return self.value


@_dc
class Equals(CheckBase):
    """Final output equals ``value`` (after trimming, as agentv does)."""

    kind: Literal["equals"] = "equals"
    value: Any = None

    @property
    def arg(self) -> str:
        return self.value if isinstance(self.value, str) else str(self.value)


@_dc
class IsJson(CheckBase):
    """Final output is valid JSON."""

    kind: Literal["is-json"] = "is-json"


@_dc
class LlmGrader(CheckBase):
    """An LLM grader; ``prompt`` is inline text or a path to a prompt file; ``template`` an executable prompt
    template instead (agentv ``prompt: {command: [argv...], config: {...}}``, held as written: a program
    evalfmt does not run)."""

    kind: Literal["llm-grader"] = "llm-grader"
    prompt: str | None = None
    template: dict[str, Any] | None = None

    @property
    def arg(self) -> str:
        return self.prompt or ""


@_dc
class Rubrics(CheckBase):
    """A rubric: criteria strings (or agentv criterion objects) an LLM grades."""

    kind: Literal["rubrics"] = "rubrics"
    criteria: list[str | dict[str, Any]] = field(default_factory=list)

    @property
    def arg(self) -> str:
        return "; ".join(c if isinstance(c, str) else str(c.get("outcome") or c.get("description") or c)
                         for c in self.criteria)


@_dc
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


@_dc
class ToolTrajectory(CheckBase):
    """agentv ``tool-trajectory``: ``mode`` (any_order, in_order, exact, ...), ``expected`` steps and, for
    any_order, ``minimums`` (tool name -> the calls it needs at least)."""

    kind: Literal["tool-trajectory"] = "tool-trajectory"
    mode: str | None = None
    expected: list[Any] | None = None
    minimums: dict[str, Any] | None = None

    @property
    def arg(self) -> str:
        return self.mode or ""


@_dc
class Latency(CheckBase):
    """agentv ``latency``: the run took at most ``threshold`` ms."""

    kind: Literal["latency"] = "latency"
    threshold: float | None = None

    def __post_init__(self) -> None:
        CheckBase.__post_init__(self)
        self.threshold = _float(self.threshold)

    @property
    def arg(self) -> str:
        return "" if self.threshold is None else f"{self.threshold:g}"


@_dc
class Cost(CheckBase):
    """agentv ``cost``: the run cost at most ``budget``."""

    kind: Literal["cost"] = "cost"
    budget: float | None = None

    def __post_init__(self) -> None:
        CheckBase.__post_init__(self)
        self.budget = _float(self.budget)

    @property
    def arg(self) -> str:
        return "" if self.budget is None else f"{self.budget:g}"


@_dc
class TokenUsage(CheckBase):
    """agentv ``token-usage``: the session's tokens at most ``max_total`` (input and output), ``max_input``,
    ``max_output``."""

    kind: Literal["token-usage"] = "token-usage"
    max_total: float | None = None
    max_input: float | None = None
    max_output: float | None = None

    def __post_init__(self) -> None:
        CheckBase.__post_init__(self)
        self.max_total, self.max_input, self.max_output = (
            _float(self.max_total), _float(self.max_input), _float(self.max_output))


@_dc
class Opaque(CheckBase):
    """A check no class fits: an unknown terum kind, an agentv custom or composite assertion, a
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


#: Every check class, in the order the IR's JSON Schema lists them.
CHECK_CLASSES: tuple[type[CheckBase], ...] = (
    TranscriptMentions, TranscriptOmits, CommandMatching, NoCommandMatching, FileExists, FileAbsent,
    CommandSucceeds, SkillTrigger, Contains, Icontains, ContainsAny, ContainsAll, IcontainsAny, IcontainsAll,
    StartsWith, EndsWith, Regex, Equals, IsJson, LlmGrader, Rubrics, CodeGrader, ToolTrajectory, Latency, Cost,
    TokenUsage, Opaque,
)

class _TaggedByKind:
    """Annotation marker: the union is tagged by ``kind`` (pydantic validates it as a discriminated union;
    the hook runs only when :mod:`evalfmt.ir.adapter` builds its schema)."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from .adapter import tagged_by_kind  # lazy facade: the pydantic boundary (see validate below)

        return tagged_by_kind(source, handler)


#: A check: one of :data:`CHECK_CLASSES` (tagged by ``kind``).
Check = Annotated[
    TranscriptMentions | TranscriptOmits | CommandMatching | NoCommandMatching | FileExists | FileAbsent
    | CommandSucceeds | SkillTrigger | Contains | Icontains | ContainsAny | ContainsAll | IcontainsAny | IcontainsAll
    | StartsWith | EndsWith | Regex | Equals | IsJson | LlmGrader | Rubrics | CodeGrader | ToolTrajectory | Latency
    | Cost | TokenUsage | Opaque,
    _TaggedByKind()]

#: kind -> check class
CHECK_MODELS: dict[str, type[CheckBase]] = {
    m.__dataclass_fields__["kind"].default: m for m in CHECK_CLASSES
}
#: agentv assertion types the IR models (besides skill-trigger and the opaque rest).
AGENTV_TYPES = tuple(k for k in CHECK_MODELS if k not in TERUM_KINDS and k != "opaque")


# ----------------------------------------------------------------------------------------- cases


@_dc
class Case(Node):
    """One thing to run and score: a terum case, an agentv test, a skill-creator eval, a skillgym case.

    ``input`` is the prompt (terum ``task``): a string, or agentv messages. ``judge`` is a rubric for
    the whole answer (terum ``judge``, agentv ``criteria``). Fields a format lacks stay None.
    """

    name: str
    input: Input | None = None
    checks: list[Check] = field(default_factory=list)
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
    extra: dict[str, Any] = field(default_factory=dict)
    hints: dict[str, Any] = field(default_factory=dict)

    @property
    def task(self) -> str | None:
        """The prompt as text (see :func:`input_text`)."""
        return input_text(self.input)


@_dc
class SuiteEntry(Node):
    """A scored row of a suite: a name and its checks, judged against the suite's one transcript."""

    name: str
    checks: list[Check] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@_dc
class Suite(Case):
    """terum ``evals/suite.yaml``: a case whose ``entries`` are scored against one session.
    Its own ``checks``, ``judge`` and ``bucket`` are parsed and discarded by the engine (kept here)."""

    name: str = "suite"
    entries: list[SuiteEntry] = field(default_factory=list)


@_dc
class TriggerPrompt(Node):
    """One prompt of a trigger set and whether it should make the selector pick the skill."""

    text: str
    should_trigger: bool
    extra: dict[str, Any] = field(default_factory=dict)


@_dc
class TriggerSet(Node):
    """Prompts that should / should not make a selector pick ``skill``, in source order."""

    skill: str | None = None
    prompts: list[TriggerPrompt] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    hints: dict[str, Any] = field(default_factory=dict)

    @property
    def should(self) -> list[TriggerPrompt]:
        return [p for p in self.prompts if p.should_trigger]

    @property
    def should_not(self) -> list[TriggerPrompt]:
        return [p for p in self.prompts if not p.should_trigger]


@_dc
class SkillInfo(Node):
    """The skill an eval set belongs to (from SKILL.md when there is one)."""

    name: str
    description: str | None = None
    path: str | None = None


@_dc
class EvalSet(Node):
    """Everything read from one unit: a skill's evals/ folder, one EVAL.yaml, one evals.json, ...

    ``input`` at this level is prepended to every case's input (agentv's suite-level ``input``);
    ``checks`` are the checks every case gets, scored before the case's own (agentv's suite-level
    ``assertions``, promptfoo's ``defaultTest.assert``). Any reader may fill them; the executor applies
    them to every case whatever the format.
    """

    format: str
    source: str | None = None
    skill: SkillInfo | None = None
    name: str | None = None
    description: str | None = None
    tags: list[str] | None = None
    input: Input | None = None
    checks: list[Check] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)
    suite: Suite | None = None
    triggers: TriggerSet | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    hints: dict[str, Any] = field(default_factory=dict)


#: Every node class but the checks (for field-name hints and the boundary's configuration).
NODE_CLASSES: tuple[type[Node], ...] = (EvalSet, Case, Suite, SuiteEntry, TriggerSet, TriggerPrompt, SkillInfo,
                                        Message, ContentPart)


# -------------------------------------------------------------------------------------- helpers

_FIELDS: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """The fields of an IR class in their order (the order :func:`dump` writes them)."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def _json(value: Any, spans: bool) -> Any:
    if isinstance(value, Node):
        return _node(value, spans)
    if isinstance(value, list | tuple):
        return [_json(v, spans) for v in value]
    if isinstance(value, dict):
        return {k: _json(v, spans) for k, v in value.items()}
    if isinstance(value, Span):
        return {"file": value.file, "line": value.line, "column": value.column}
    return value


def _node(node: Node, spans: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in field_names(type(node)):
        value = getattr(node, name)
        if value is None or (name == "span" and not spans):
            continue
        out[name] = _json(value, spans)
    return out


def dump(node: Node, spans: bool = True) -> dict[str, Any]:
    """The IR as JSON-ready data: every field that is set (None means absent everywhere in the IR,
    so leaving None out loses nothing), tags always included. ``spans=False`` drops provenance."""
    return _node(node, spans)


def strip_spans(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: strip_spans(v) for k, v in data.items() if k != "span"}
    if isinstance(data, list):
        return [strip_spans(v) for v in data]
    return data


def content(node: Node) -> dict[str, Any]:
    """The IR's content without spans, for comparisons."""
    return dump(node, spans=False)


def same(a: Node, b: Node) -> bool:
    """True when two IR nodes hold the same content (spans ignored)."""
    return content(a) == content(b)


def replace(node: N, **changes: Any) -> N:
    """A shallow copy of ``node`` with ``changes`` (what pydantic's ``model_copy(update=...)`` did)."""
    return dataclasses.replace(node, **changes)


def validate(data: Any) -> EvalSet:
    """An :class:`EvalSet` from IR JSON data, validated (raises ``pydantic.ValidationError``). The one
    door for IR from outside (an ``.ir.json`` file): it imports pydantic (:mod:`evalfmt.ir.adapter`)."""
    from .adapter import validate_evalset  # lazy facade: pydantic and the adapter, 61 ms (python -X importtime)

    return validate_evalset(data)
