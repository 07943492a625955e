"""Claude Code recordings: ``--output-format stream-json`` and the session files on disk.

stream-json (``claude -p ... --output-format stream-json --verbose``): ``system``/``init``, then
``assistant`` and ``user`` records with ``message.content[]``, then one ``result`` record. With
``--include-partial-messages`` there are also ``stream_event`` records; a message known only from its
stream events (no complete ``assistant`` record follows) is rebuilt from them, and one that does get
its complete record is taken from that record alone.

Session files (``~/.claude/projects/<cwd>/<session>.jsonl``): ``user``/``assistant`` entries of the
main agent; ``progress`` entries (which embed a subagent's messages) and sidechain entries are left
out, so a subagent's tool calls are never counted as the main agent's. They have no ``result`` record:
the final output is the last assistant text, ``num_turns`` the number of assistant messages and
``duration_ms`` the time from the first to the last entry.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .. import js
from .session import Session, TextBlock, ToolCall, make_result
from .sources import LineCounter, Probe, SessionError, SessionSource, json_lines

STREAM = "claude-code-stream-json"
SESSION = "claude-code-session"

_SESSION_TYPES = {"progress", "file-history-snapshot", "summary", "queue-operation"}
_STREAM_TYPES = {"stream_event", "result"}


# --------------------------------------------------------------------------------- detection


def detect_stream(p: Probe) -> int:
    score = 0
    for r in p.records:
        t = r.get("type")
        if t in _STREAM_TYPES or (t == "system" and r.get("subtype") == "init"):
            return 3
        if "session_id" in r and t in ("assistant", "user"):
            score = max(score, 2)
        elif t in ("assistant", "user") and isinstance(r.get("message"), dict):
            score = max(score, 1)
    return score


def detect_session(p: Probe) -> int:
    for r in p.records:
        if r.get("type") in _SESSION_TYPES or "sessionId" in r or "parentUuid" in r:
            return 4
    return 0


# ----------------------------------------------------------------------------------- readers


class _Builder:
    """Shared state: blocks in order, tool calls by id (to attach results)."""

    def __init__(self, source: str, path: str):
        self.session = Session(source=source, path=path)
        self.by_id: dict[str, ToolCall] = {}

    def content(self, role: str, content: Any) -> None:
        if not isinstance(content, list):
            return
        add = self.session.add
        for item in content:
            if type(item) is not dict:
                continue
            t = item.get("type")
            if t == "text":
                text = item.get("text")
                if type(text) is str:
                    add(TextBlock(role, text))
            elif t == "tool_result":
                self.tool_result(item.get("tool_use_id"), item.get("content"), item.get("is_error"))
            elif t == "tool_use":
                self.tool_use(item.get("id"), item.get("name"), item.get("input"))

    def tool_use(self, id_: Any, name: Any, input_: Any) -> None:
        call = ToolCall(id_ if isinstance(id_, str) else None, name if isinstance(name, str) else "",
                        {} if input_ is None else input_)
        self.session.add(call)
        if call.id is not None:
            self.by_id[call.id] = call

    def tool_result(self, tool_use_id: Any, content: Any, is_error: Any) -> None:
        call = self.by_id.pop(tool_use_id, None) if type(tool_use_id) is str else None
        if call is not None:
            call.result = make_result(content, is_error)


class _Partial:
    """Messages seen only as ``stream_event`` records, rebuilt block by block."""

    def __init__(self) -> None:
        self.current: str | None = None  # message id of the message being streamed
        self.confirmed: set[str] = set()  # messages whose complete assistant record arrived
        self.pending: list[tuple[str | None, dict]] = []  # (message id, block being built)

    def event(self, ev: Any) -> None:
        if type(ev) is not dict:
            return
        t = ev.get("type")
        if t == "message_start":
            msg = ev.get("message")
            self.current = msg.get("id") if isinstance(msg, dict) and isinstance(msg.get("id"), str) else None
            return
        if self.current is not None and self.current in self.confirmed:
            return
        if t == "content_block_start":
            block = ev.get("content_block")
            if isinstance(block, dict):
                b = dict(block)
                b["_json"] = []
                b["_text"] = [b.get("text") or ""] if b.get("type") == "text" else []
                self.pending.append((self.current, b))
        elif t == "content_block_delta" and self.pending:
            delta = ev.get("delta")
            if not isinstance(delta, dict):
                return
            b = self.pending[-1][1]
            if delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
                b["_text"].append(delta["text"])
            elif delta.get("type") == "input_json_delta" and isinstance(delta.get("partial_json"), str):
                b["_json"].append(delta["partial_json"])

    def confirm(self, message_id: Any) -> None:
        if self.current is None and not self.pending:
            return  # no partial messages in this recording
        if isinstance(message_id, str):
            self.confirmed.add(message_id)
            if self.pending:
                self.pending = [(m, b) for m, b in self.pending if m != message_id]

    def flush(self, builder: _Builder) -> None:
        for _mid, b in self.pending:
            if b.get("type") == "text":
                builder.session.add(TextBlock("assistant", "".join(b["_text"])))
            elif b.get("type") == "tool_use":
                raw = "".join(b["_json"])
                try:
                    inp = js.loads(raw) if raw.strip() else b.get("input") or {}
                except ValueError:
                    inp = b.get("input") or {}
                builder.tool_use(b.get("id"), b.get("name"), inp)
        self.pending = []


def read_stream(path: str) -> Session:
    counter = LineCounter()
    builder = _Builder(STREAM, path)
    s = builder.session
    partial = _Partial()
    for rec in json_lines(path, counter):
        t = rec.get("type")
        if t == "stream_event":
            partial.event(rec.get("event"))
            continue
        msg = rec.get("message")
        if t == "assistant":
            if type(msg) is dict:
                if partial.current is not None or partial.pending:
                    partial.confirm(msg.get("id"))
                    if partial.pending and msg.get("id") is None:
                        partial.pending = []
                if s.model is None and type(msg.get("model")) is str:
                    s.model = msg["model"]
                builder.content("assistant", msg.get("content"))
            continue
        if partial.pending:
            partial.flush(builder)
        if t == "user":
            if isinstance(msg, dict):
                builder.content("user", msg.get("content"))
        elif t == "result":
            _result(s, rec)
        elif t == "system" and rec.get("subtype") == "init":
            _init(s, rec)
    partial.flush(builder)
    s.records = counter.records
    s.skipped_lines = counter.skipped
    s.long_lines = counter.long
    return s


def _result(s: Session, rec: dict) -> None:
    """The stream's ``result`` record: the final output, error flag, turns, time, cost and tokens."""
    if isinstance(rec.get("result"), str):
        s.result = rec["result"]
    if isinstance(rec.get("is_error"), bool):
        s.is_error = rec["is_error"]
    s.num_turns = _num(rec.get("num_turns"), int)
    s.duration_ms = _num(rec.get("duration_ms"))
    cost = _num(rec.get("total_cost_usd"))
    s.cost_usd = cost if cost is not None else _num(rec.get("cost_usd"))
    usage = rec.get("usage")
    if isinstance(usage, dict):
        ins = [_num(usage.get(k), int) for k in ("input_tokens", "cache_creation_input_tokens",
                                                 "cache_read_input_tokens")]
        if ins[0] is not None:
            s.input_tokens = sum(x for x in ins if x is not None)
        s.output_tokens = _num(usage.get("output_tokens"), int)


def _init(s: Session, rec: dict) -> None:
    """The stream's ``system``/``init`` record: the model, the session id and the skills on offer."""
    if isinstance(rec.get("model"), str):
        s.model = rec["model"]
    if isinstance(rec.get("session_id"), str):
        s.session_id = rec["session_id"]
    skills = rec.get("skills")
    if isinstance(skills, list):
        s.skills = [str(x) for x in skills]


def read_session_file(path: str, subagent: bool = False) -> Session:
    """The main agent's entries of a session file; with ``subagent``, the subagent's (sidechain) entries
    instead, as in the ``<session>/subagents/agent-*.jsonl`` files Claude Code writes."""
    counter = LineCounter()
    builder = _Builder(SESSION, path)
    s = builder.session
    first: datetime | None = None
    last: datetime | None = None
    messages: set[str] = set()
    kept = other = 0
    for rec in json_lines(path, counter):
        if rec.get("type") not in ("user", "assistant"):
            continue
        if (rec.get("isSidechain") is True) != subagent:
            other += 1
            continue
        kept += 1
        stamp = _time(rec.get("timestamp"))
        if stamp is not None:
            first = stamp if first is None else first
            last = stamp
        _session_entry(builder, rec, messages)
    if not kept and other:
        raise _other_agent_only(path, subagent, other)
    s.records = counter.records
    s.skipped_lines = counter.skipped
    s.long_lines = counter.long
    s.num_turns = len(messages) or None
    if first is not None and last is not None:
        s.duration_ms = round((last - first).total_seconds() * 1000)
    return s


def _session_entry(builder: _Builder, rec: dict, messages: set[str]) -> None:
    """One user or assistant entry of a session file: the session id, the model and the id of an assistant
    message (``messages``: one per turn), and its content."""
    s = builder.session
    if s.session_id is None and isinstance(rec.get("sessionId"), str):
        s.session_id = rec["sessionId"]
    msg = rec.get("message")
    if not isinstance(msg, dict):
        return
    if rec["type"] == "assistant":
        model = msg.get("model")
        if s.model is None and isinstance(model, str) and not model.startswith("<"):
            s.model = model
        mid = msg.get("id")
        if isinstance(mid, str):
            messages.add(mid)
    builder.content(rec["type"], msg.get("content"))


def _other_agent_only(path: str, subagent: bool, other: int) -> SessionError:
    """A session file that holds entries of the other agent only (the subagent's, or the main agent's)."""
    if subagent:
        return SessionError(f"{path}: holds no subagent records (no entry has isSidechain: true): score it "
                            "without --subagent")
    return SessionError(f"{path}: holds only subagent records ({other} entries with isSidechain: true, as in "
                        "<session>/subagents/agent-*.jsonl), so the main agent did nothing here: score the "
                        "main session file <session>.jsonl, or score this subagent's own work with --subagent")


def _num(v: Any, kind: type = float) -> Any:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return None
    return int(v) if kind is int else v


def _time(v: Any) -> datetime | None:
    if not isinstance(v, str):
        return None
    try:
        return datetime.fromisoformat(v.replace("Z", "+00:00"))
    except ValueError:
        return None


STREAM_SOURCE = SessionSource(STREAM, "Claude Code --output-format stream-json (with or without partial messages)",
                              detect_stream, read_stream)
SESSION_SOURCE = SessionSource(SESSION, "Claude Code session file (~/.claude/projects/<cwd>/<session>.jsonl), "
                               "main agent only", detect_session, read_session_file)
SOURCES = [STREAM_SOURCE, SESSION_SOURCE]
