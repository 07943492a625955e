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
  that carries the original value in ``raw``. Each kind's class is declared beside its spec (its shape in
  every format, how it is scored: :mod:`evalfmt.ir.kinds`); this module re-exports them. Serialise only
  with :func:`dump` (None fields are left out, ``kind`` always written); copy with :func:`replace` /
  :func:`copy.deepcopy`.
- Numbers declared ``float`` are floats (``weight: 1`` reads as ``1.0``, as JSON and the IR file show it).
"""

from __future__ import annotations

import dataclasses
from dataclasses import field
from typing import Annotated, Any

from .kinds.budget import Cost, Latency, TokenUsage
from .kinds.code import Code
from .kinds.code_grader import CodeGrader
from .kinds.command_succeeds import CommandSucceeds
from .kinds.commands import CommandMatching, NoCommandMatching
from .kinds.composite import Aggregator, AnyCheck, Composite
from .kinds.equals import Equals
from .kinds.execution_metrics import ExecutionMetrics
from .kinds.field_accuracy import FieldAccuracy
from .kinds.file_reads import FileReadMatching, NoFileReadMatching
from .kinds.files import FileAbsent, FileExists
from .kinds.inline_assert import InlineAssert
from .kinds.is_json import IsJson
from .kinds.llm_grader import LlmGrader
from .kinds.model_graded import ModelGraded
from .kinds.opaque import Opaque
from .kinds.output_text import Contains, EndsWith, Icontains, StartsWith
from .kinds.output_values import ContainsAll, ContainsAny, IcontainsAll, IcontainsAny
from .kinds.regex import Regex
from .kinds.rubric import Rubric
from .kinds.rubrics import Rubrics
from .kinds.skill_trigger import SkillTrigger
from .kinds.tool_trajectory import ToolTrajectory
from .kinds.transcript import TranscriptMentions, TranscriptOmits
from .kinds import SPECS, TERUM_KINDS, Terum
from .node import CheckBase, N, Node, Span, field_names
from .node import node as _dc

IR_VERSION = 1

#: terum's buckets, in the order its docs list them.
BUCKETS = ("explicit", "implicit", "contextual", "negative", "adversarial")
#: The IR field that holds each terum kind's argument.
TERUM_ARG_FIELD = {k: s.terum.field for k, s in SPECS.items() if k in TERUM_KINDS and isinstance(s.terum, Terum)}


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


#: Every check class, in the order the IR's JSON Schema lists them (the order of :data:`~evalfmt.ir.kinds.SPECS`).
CHECK_CLASSES: tuple[type[CheckBase], ...] = tuple(s.cls for s in SPECS.values())


class _TaggedByKind:
    """Annotation marker: the union is tagged by ``kind`` (pydantic validates it as a discriminated union;
    the hook runs only when :mod:`evalfmt.ir.adapter` builds its schema)."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from .adapter import tagged_by_kind  # lazy facade: the pydantic boundary (see validate below)

        return tagged_by_kind(source, handler)


#: A check: one of :data:`CHECK_CLASSES` (tagged by ``kind``).
Check = Annotated[
    TranscriptMentions | TranscriptOmits | CommandMatching | NoCommandMatching | FileExists | FileAbsent
    | CommandSucceeds | FileReadMatching | NoFileReadMatching | SkillTrigger
    | Contains | Icontains | StartsWith | EndsWith | ContainsAny | ContainsAll | IcontainsAny | IcontainsAll | Regex
    | Equals | IsJson | LlmGrader | Rubrics | Rubric | ModelGraded | CodeGrader | Code | Composite | ToolTrajectory
    | Latency | Cost | TokenUsage | ExecutionMetrics | FieldAccuracy | InlineAssert | Opaque,
    _TaggedByKind()]

AnyCheck.union = Check  # a composite's members are checks of any kind

#: kind -> check class
CHECK_MODELS: dict[str, type[CheckBase]] = {k: s.cls for k, s in SPECS.items()}


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


__all__ = [
    "BUCKETS", "CHECK_CLASSES", "CHECK_MODELS", "Case", "Check", "CheckBase", "CodeGrader", "CommandMatching",
    "CommandSucceeds", "Contains", "ContainsAll", "ContainsAny", "ContentPart", "Cost", "EndsWith", "Equals",
    "EvalSet", "FileAbsent", "FileExists", "IR_VERSION", "Icontains", "IcontainsAll", "IcontainsAny", "Input",
    "FileReadMatching", "NoFileReadMatching",
    "IsJson", "Latency", "LlmGrader", "Message", "NODE_CLASSES", "NoCommandMatching", "Node", "Opaque", "Regex",
    "Rubrics", "SkillInfo", "SkillTrigger", "Span", "StartsWith", "Suite", "SuiteEntry", "TERUM_ARG_FIELD",
    "TERUM_KINDS", "TokenUsage", "ToolTrajectory", "TranscriptMentions", "TranscriptOmits", "TriggerPrompt",
    "TriggerSet", "content", "dump", "field_names", "input_text", "replace", "same", "strip_spans", "validate",
    "Aggregator", "Composite", "ExecutionMetrics", "FieldAccuracy", "InlineAssert", "Rubric",
]
__all__ += ["Code", "ModelGraded"]
