"""The normalised session model: what an agent did, whatever recorded it.

A :class:`Session` is an ordered list of blocks (:class:`TextBlock` and :class:`ToolCall`, each tool
call carrying its :class:`ToolResult` when one came back), the final result text, efficiency figures,
the model and how many lines of the recording were skipped. Readers (``transcripts.py`` and plugins)
build it; checks, detectors, judges and comparisons only read it.

Memory: a session keeps what scoring needs (the agent's text and tool inputs), never a tool's full
output: a result keeps ``is_error``, the skill folders its output names (``skills/<name>/``, for
agentv's trigger rule) and a short preview.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Union

from .. import js

#: characters of a tool result kept for display
PREVIEW_CHARS = 300


@dataclass(slots=True)
class ToolResult:
    """What came back for one tool call."""

    is_error: bool = False
    #: every ``<name>`` such that the output contains ``skills/<name>/``
    skill_refs: frozenset[str] = frozenset()
    preview: str = ""


@dataclass(slots=True)
class ToolCall:
    """A ``tool_use`` block: ``input`` as recorded (usually a dict)."""

    id: str | None
    name: str
    input: Any
    result: ToolResult | None = None

    def input_json(self) -> str:
        """The input as ``JSON.stringify`` writes it (what terum puts in the transcript)."""
        return js.stringify(self.input)

    def arg(self, key: str) -> str | None:
        """``input[key]`` when the input is an object and the value a string."""
        if isinstance(self.input, dict):
            v = self.input.get(key)
            return v if isinstance(v, str) else None
        return None


@dataclass(slots=True)
class TextBlock:
    """A ``text`` block of an assistant or user message (thinking blocks are not kept)."""

    role: str
    text: str


Block = Union[TextBlock, ToolCall]


@dataclass
class Session:
    """One recorded agent session, normalised."""

    source: str
    path: str | None = None
    blocks: list[Block] = field(default_factory=list)
    result: str | None = None
    is_error: bool | None = None
    num_turns: int | None = None
    duration_ms: float | None = None
    cost_usd: float | None = None
    model: str | None = None
    session_id: str | None = None
    #: the skills the agent could load (from the init record), when recorded
    skills: list[str] | None = None
    #: lines that were not JSON objects (skipped, never fatal)
    skipped_lines: int = 0
    #: JSON records read
    records: int = 0
    _lower: str | None = field(default=None, repr=False, compare=False)
    _bash: list[str] | None = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------------------------- views

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [b for b in self.blocks if isinstance(b, ToolCall)]

    @property
    def texts(self) -> list[TextBlock]:
        return [b for b in self.blocks if isinstance(b, TextBlock)]

    def bash_commands(self) -> list[str]:
        """``input.command`` of every tool call named exactly ``Bash``, in order (computed once)."""
        if self._bash is None:
            out = []
            for b in self.blocks:
                if type(b) is ToolCall and b.name == "Bash" and type(b.input) is dict:
                    cmd = b.input.get("command")
                    if type(cmd) is str:
                        out.append(cmd)
            self._bash = out
        return list(self._bash)

    @property
    def final_output(self) -> str:
        """The agent's final answer: the ``result`` text, else the last assistant text block."""
        if self.result is not None:
            return self.result
        for b in reversed(self.blocks):
            if isinstance(b, TextBlock) and b.role == "assistant":
                return b.text
        return ""

    def transcript_parts(self) -> Iterator[str]:
        """The pieces of terum's transcript text, in order: the result, then every text block and
        every tool call's input as ``JSON.stringify`` writes it (tool results are not part of it)."""
        if self.result is not None:
            yield self.result
        for b in self.blocks:
            if isinstance(b, TextBlock):
                yield b.text
            else:
                yield b.input_json()

    def transcript_text(self) -> str:
        """The transcript text, pieces joined with newlines."""
        return "\n".join(self.transcript_parts())

    def transcript_lower(self) -> str:
        """The transcript text lower-cased (built once, kept for the session's other checks)."""
        if self._lower is None:
            self._lower = "\n".join(p.lower() for p in self.transcript_parts())
        return self._lower

    def tail(self, chars: int = 6000) -> str:
        """The last ``chars`` characters of the transcript text (what a judge sees)."""
        text = self.transcript_text()
        return text[-chars:] if chars > 0 else ""

    def efficiency(self) -> dict[str, Any]:
        return {"turns": self.num_turns, "duration_ms": self.duration_ms, "cost_usd": self.cost_usd}

    def summary(self) -> dict[str, Any]:
        """A JSON-ready digest (no text): counts, efficiency, model."""
        return {
            "source": self.source,
            "records": self.records,
            "skipped_lines": self.skipped_lines,
            "text_blocks": sum(1 for b in self.blocks if isinstance(b, TextBlock)),
            "tool_calls": sum(1 for b in self.blocks if isinstance(b, ToolCall)),
            "model": self.model,
            "num_turns": self.num_turns,
            "duration_ms": self.duration_ms,
            "cost_usd": self.cost_usd,
            "is_error": self.is_error,
        }


_EMPTY: frozenset[str] = frozenset()


def skill_refs(text: str) -> frozenset[str]:
    """Every ``<name>`` such that ``text`` contains ``skills/<name>/`` (names end at ``/``, whitespace,
    quotes or a backslash; at most 200 characters)."""
    if "skills/" not in text:
        return _EMPTY
    out: set[str] = set()
    i = text.find("skills/")
    n = len(text)
    while i != -1:
        j = i + 7
        k = j
        limit = min(n, j + 200)
        while k < limit and text[k] not in '/ \t\r\n"\'\\':
            k += 1
        if k < n and text[k] == "/" and k > j:
            out.add(text[j:k])
        i = text.find("skills/", i + 1)
    return frozenset(out)


def output_strings(content: Any) -> Iterator[str]:
    """Every string inside a tool result's content (a string, or blocks of any shape)."""
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for item in content:
            yield from output_strings(item)
    elif isinstance(content, dict):
        for k, v in content.items():
            if k not in ("type", "id", "tool_use_id"):
                yield from output_strings(v)


def make_result(content: Any, is_error: Any) -> ToolResult:
    if type(content) is str:  # the common shapes first: a string, or one text block
        return ToolResult(is_error is True, skill_refs(content), content[:PREVIEW_CHARS])
    if type(content) is list and len(content) == 1 and type(content[0]) is dict and type(content[0].get("text")) is str \
            and len(content[0]) == 2:
        text = content[0]["text"]
        return ToolResult(is_error is True, skill_refs(text), text[:PREVIEW_CHARS])
    refs: set[str] = set()
    preview = ""
    for s in output_strings(content):
        if not preview:
            preview = s[:PREVIEW_CHARS]
        r = skill_refs(s)
        if r:
            refs.update(r)
    return ToolResult(is_error=is_error is True, skill_refs=frozenset(refs), preview=preview)
