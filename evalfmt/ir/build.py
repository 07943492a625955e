"""IR messages from data in the IR's JSON shape, without pydantic: for a reader that takes a list of
``{role, content}`` messages as they are (the seed layout's ``input``). The data is the reader's own
selection, so this builds, it does not validate (IR from outside goes through :func:`evalfmt.ir.validate`).
:func:`canonical_input` goes the other way: an input as evals.json writes it (route, the seed writer);
:func:`as_written` a message with every key its source gave it (the executor's code-grader payload).
"""

from __future__ import annotations

from typing import Any

from . import ContentPart, Input, Message, Span


def span(data: Any) -> Span | None:
    if isinstance(data, Span):
        return data
    return Span(data["file"], data.get("line", 1), data.get("column", 1)) if isinstance(data, dict) else None


def _part(data: Any) -> ContentPart | None:
    if not isinstance(data, dict) or not isinstance(data.get("type"), str) or \
            not set(data) <= {"type", "value", "extra", "span"}:
        return None
    return ContentPart(**{**data, "span": span(data.get("span"))})


def message(data: dict[str, Any]) -> Message:
    """A :class:`Message`; its content is a list of :class:`ContentPart` when every part is one."""
    fields = dict(data)
    fields["span"] = span(fields.get("span"))
    content = fields.get("content")
    if isinstance(content, list):
        parts = [_part(p) for p in content]
        if all(p is not None for p in parts):
            fields["content"] = parts
    return Message(**fields)


def canonical_input(value: Input | None) -> Any:
    """A test's input for evals.json: the string, or messages as ``{role, content}`` (content parts as
    ``{type, value}``)."""
    if value is None or isinstance(value, str):
        return value
    return [{"role": m.role, "content": _content(m.content)} for m in value]


def as_written(node: Any) -> Any:
    """A message (or content part) as the source wrote it: its fields, then its extra keys (what agentv
    hands a code grader as ``input``); anything else as it is."""
    if isinstance(node, Message):
        content = [as_written(p) for p in node.content] if isinstance(node.content, list) else node.content
        return {"role": node.role, "content": content, **node.extra}
    if isinstance(node, ContentPart):
        return {"type": node.type, "value": node.value, **node.extra}
    return node


def _content(content: Any) -> Any:
    if isinstance(content, list):
        return [{"type": p.type, "value": p.value} if isinstance(p, ContentPart) else
                {"type": p["type"], "value": p.get("value")} if isinstance(p, dict) and isinstance(p.get("type"), str)
                else p for p in content]
    return content
