"""The normalised session model: what an agent did, whatever recorded it.

A :class:`Session` is an ordered list of blocks (:class:`TextBlock` and :class:`ToolCall`, each tool
call carrying its :class:`ToolResult` when one came back), the final result text, efficiency figures,
the model and how many lines of the recording were skipped. Readers (``transcripts.py`` and plugins)
build it; checks, detectors, judges and comparisons only read it.

Memory: a session keeps what scoring needs (the agent's text and tool inputs), never a tool's full
output: a result keeps ``is_error``, the skill folders its output names (``skills/<name>/``, for
agentv's trigger rule) and a short preview. It stays bounded whatever the recording's size: blocks
added with :meth:`Session.add` feed a :class:`TranscriptStore`, which keeps terum's transcript text in
memory up to ``EVALFMT_TRANSCRIPT_MEMORY`` bytes (default 32 MiB) and then moves it to a temporary
file, where transcript checks search it. From then on the session keeps no text blocks (only their
number; the final output is kept) and each tool call keeps at most ``KEEP_CHARS`` characters of a
long input string (a Bash command is kept whole): memory grows with the number of tool calls, by
about a kilobyte each at most, not with the text.
"""

from __future__ import annotations

import collections
import tempfile
from dataclasses import dataclass, field
from typing import Any, IO, final
from collections.abc import Iterator

import orjson

from .. import js
from ..load import bytes_setting

#: characters of a tool result kept for display
PREVIEW_CHARS = 300
#: transcript text kept in memory before it moves to a temporary file (bytes of UTF-8, about)
DEFAULT_MEMORY = 32 << 20
#: once the text is on disk: characters of a long tool-input string kept in a tool call
KEEP_CHARS = 1024
#: characters at the end of the transcript text kept for :meth:`Session.tail` once it is on disk
TAIL_CHARS = 65536
#: characters read at a time when a transcript check searches the text on disk
CHUNK_CHARS = 4 << 20


@dataclass(slots=True)
class ToolResult:
    """What came back for one tool call."""

    is_error: bool = False
    #: every ``<name>`` such that the output contains ``skills/<name>/``
    skill_refs: frozenset[str] = frozenset()
    preview: str = ""


@final  # (so that `type(b) is TextBlock` is false only for a ToolCall)
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


@final
@dataclass(slots=True)
class TextBlock:
    """A ``text`` block of an assistant or user message (thinking blocks are not kept)."""

    role: str
    text: str


Block = TextBlock | ToolCall


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
    #: tokens the agent reported (Claude Code's result record ``usage``; cache reads count as input)
    input_tokens: int | None = None
    output_tokens: int | None = None
    model: str | None = None
    session_id: str | None = None
    #: the skills the agent could load (from the init record), when recorded
    skills: list[str] | None = None
    #: lines that were not JSON objects (skipped, never fatal)
    skipped_lines: int = 0
    #: JSON records read
    records: int = 0
    #: lines longer than ``EVALFMT_TRANSCRIPT_MAX_LINE`` bytes, skipped unread
    long_lines: int = 0
    _lower: str | None = field(default=None, repr=False, compare=False)
    _bash: list[str] | None = field(default=None, repr=False, compare=False)
    _store: TranscriptStore | None = field(default=None, repr=False, compare=False)
    _last_text: str | None = field(default=None, repr=False, compare=False)
    _texts_dropped: int = field(default=0, repr=False, compare=False)

    # ---------------------------------------------------------------------------- building

    def add(self, block: Block) -> None:
        """Append a block, keeping memory bounded (see the module's docstring). Readers use this;
        appending to ``blocks`` directly works too, without the bound."""
        store = self._store
        if store is None:
            store = self._store = TranscriptStore()
        if store.spilled:
            if type(block) is TextBlock and block.role == "assistant":
                self._last_text = block.text
            store.write(_piece(block))
            self._keep(block)
            return
        self.blocks.append(block)
        store.size += len(block.text) if type(block) is TextBlock else _weight(block.input)
        if store.size > store.budget:  # past the budget: the text moves to disk, the blocks are slimmed
            self._last_text = next((b.text for b in reversed(self.blocks)
                                    if type(b) is TextBlock and b.role == "assistant"), None)
            store.spill(self.blocks)
            blocks, self.blocks = self.blocks, []
            for b in blocks:
                self._keep(b)

    def _keep(self, block: Block) -> None:
        """Keep a block of a session whose text is on disk: a tool call slimmed, a text block counted."""
        if type(block) is TextBlock:
            self._texts_dropped += 1
            return
        _slim(block)
        self.blocks.append(block)

    @property
    def on_disk(self) -> bool:
        """True when the transcript text moved to a temporary file (a very large session)."""
        return self._store is not None and self._store.spilled

    def _spilled(self) -> TranscriptStore | None:
        """The store of a session whose text is on disk (None while it is in memory)."""
        store = self._store
        return store if store is not None and store.spilled else None

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
        if self._last_text is not None and self.on_disk:
            return self._last_text
        for b in reversed(self.blocks):
            if isinstance(b, TextBlock) and b.role == "assistant":
                return b.text
        return ""

    def transcript_parts(self) -> Iterator[str]:
        """The pieces of terum's transcript text, in order: the result, then every text block and
        every tool call's input as ``JSON.stringify`` writes it (tool results are not part of it).
        (For a session whose text is on disk, the pieces are read back from there.)"""
        if self.result is not None:
            yield self.result
        store = self._spilled()
        if store is not None:
            yield store.text()  # (the whole text, in memory: checks use transcript_contains)
            return
        for b in self.blocks:
            if isinstance(b, TextBlock):
                yield b.text
            else:
                yield b.input_json()

    def transcript_contains(self, needle: str) -> bool:
        """True when the lower-cased transcript text contains ``needle`` (lower-cased already)."""
        store = self._spilled()
        if store is None:
            return needle in self.transcript_lower()
        self.prefetch([needle])
        return store.found[needle]

    def prefetch(self, needles: list[str]) -> None:
        """Look for all of ``needles`` at once (one pass over a transcript text on disk; nothing to
        do for one in memory). :meth:`transcript_contains` then answers from what was found."""
        store = self._spilled()
        if store is not None:
            head = "" if self.result is None else self.result.lower() + "\n"
            store.search(needles, head)

    def transcript_text(self) -> str:
        """The transcript text, pieces joined with newlines."""
        return "\n".join(self.transcript_parts())

    def transcript_lower(self) -> str:
        """The transcript text lower-cased (built once, kept for the session's other checks)."""
        if self._lower is None:
            self._lower = "\n".join(p.lower() for p in self.transcript_parts())
        return self._lower

    def tail(self, chars: int = 6000) -> str:
        """The last ``chars`` characters of the transcript text (what a judge sees; at most
        ``TAIL_CHARS`` for a session whose text is on disk)."""
        if chars <= 0:
            return ""
        store = self._spilled()
        text = store.tail(self.result) if store is not None else self.transcript_text()
        return text[-chars:]

    def efficiency(self) -> dict[str, Any]:
        return {"turns": self.num_turns, "duration_ms": self.duration_ms, "cost_usd": self.cost_usd}

    def summary(self) -> dict[str, Any]:
        """A JSON-ready digest (no text): counts, efficiency, model."""
        return {
            "source": self.source,
            "records": self.records,
            "skipped_lines": self.skipped_lines,
            "text_blocks": sum(1 for b in self.blocks if isinstance(b, TextBlock)) + self._texts_dropped,
            "tool_calls": sum(1 for b in self.blocks if isinstance(b, ToolCall)),
            "model": self.model,
            "num_turns": self.num_turns,
            "duration_ms": self.duration_ms,
            "cost_usd": self.cost_usd,
            "is_error": self.is_error,
        }


class TranscriptStore:
    """terum's transcript text (without the result, which comes last in a recording and first in the
    text), built as blocks are added: in memory until it passes ``EVALFMT_TRANSCRIPT_MEMORY`` bytes,
    then in an unnamed temporary file, one piece after another, separated by line breaks."""

    def __init__(self) -> None:
        self.budget = bytes_setting("EVALFMT_TRANSCRIPT_MEMORY", DEFAULT_MEMORY)
        self.size = 0
        self.spilled = False
        self._file: IO[str] | None = None  # opened by spill()
        self._written = False
        self._tail: collections.deque[str] = collections.deque()
        self._tail_size = 0
        self._tail_cut = False
        #: transcript checks already answered (needle -> found), for a text on disk
        self.found: dict[str, bool] = {}

    def spill(self, blocks: list[Block]) -> None:
        # kept open for the session's life (closed by close()): no context manager can hold it
        self._file = tempfile.TemporaryFile("w+", encoding="utf-8", errors="surrogatepass", newline="")  # noqa: SIM115
        self.spilled = True
        for b in blocks:
            self.write(_piece(b))

    def write(self, piece: str) -> None:
        f = self._file
        assert f is not None  # only a spilled store is written to
        if self._written:
            f.write("\n")
        self._written = True
        f.write(piece)
        self._tail.append(piece)
        self._tail_size += len(piece) + 1
        while self._tail_size - len(self._tail[0]) - 1 >= TAIL_CHARS:
            self._tail_size -= len(self._tail.popleft()) + 1
            self._tail_cut = True

    def tail(self, result: str | None) -> str:
        """The end of the transcript text (at least ``TAIL_CHARS`` characters of it when it is longer)."""
        pieces = list(self._tail)
        if result is not None and not self._tail_cut:
            pieces.insert(0, result)
        return "\n".join(pieces)

    def _chunks(self) -> Iterator[str]:
        """The text in pieces of about 4 MiB, each ending at a line break (so that lower-casing a
        piece is lower-casing that part of the whole)."""
        f = self._file
        assert f is not None  # only a spilled store is read back
        f.flush()
        f.seek(0)
        while True:
            chunk = f.read(CHUNK_CHARS)
            if not chunk:
                return
            rest = f.readline()
            yield chunk + rest

    def text(self) -> str:
        return "".join(self._chunks())

    def search(self, needles: list[str], head: str) -> None:
        """Fill ``found[needle]`` (``needle in (head + text).lower()``) for the needles not known yet,
        in one pass over the text, a chunk at a time (a match may span two chunks)."""
        todo = {n for n in needles if n not in self.found}
        for n in [n for n in todo if n in head]:
            self.found[n] = True
            todo.discard(n)
        if todo:
            keep = max(len(n) for n in todo) - 1
            carry = head[-keep:] if keep > 0 else ""
            for chunk in self._chunks():
                window = carry + chunk.lower()
                for n in [n for n in todo if n in window]:
                    self.found[n] = True
                    todo.discard(n)
                if not todo:
                    break
                carry = window[-keep:] if keep > 0 else ""
        for n in todo:
            self.found[n] = False


def _weight(value: Any) -> int:
    """About how many characters a tool input adds to the transcript text."""
    try:
        return len(orjson.dumps(value))
    except (TypeError, orjson.JSONEncodeError):  # big integers, lone surrogates, non-string keys
        return len(js.stringify(value))


def _piece(block: Block) -> str:
    return block.text if type(block) is TextBlock else block.input_json()


def _slim(block: ToolCall) -> None:
    """Cut what a tool call keeps once the transcript text is on disk (a Bash command stays whole)."""
    if type(block.input) is dict:
        for key, value in list(block.input.items()):
            if type(value) is str:
                if len(value) > KEEP_CHARS and not (key == "command" and block.name == "Bash"):
                    block.input[key] = value[:KEEP_CHARS]
            elif isinstance(value, (list, dict)) and len(js.stringify(value)) > KEEP_CHARS:
                block.input[key] = js.stringify(value)[:KEEP_CHARS]


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
    if type(content) is list and len(content) == 1 and type(content[0]) is dict \
            and type(content[0].get("text")) is str and len(content[0]) == 2:
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
