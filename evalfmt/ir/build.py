"""IR from data in the IR's JSON shape, without pydantic: for a reader that assembles its eval set as
plain data first (promptfoo's, until it builds the classes itself). The data is the reader's own, so
it is trusted: this builds, it does not validate (IR from outside goes through :func:`evalfmt.ir.validate`).
"""

from __future__ import annotations

from typing import Any, Callable

from . import (CHECK_MODELS, Case, Check, ContentPart, EvalSet, Message, Opaque, SkillInfo, Span, Suite,
               SuiteEntry, TriggerPrompt, TriggerSet)


def span(data: Any) -> Span | None:
    if isinstance(data, Span):
        return data
    return Span(data["file"], data.get("line", 1), data.get("column", 1)) if isinstance(data, dict) else None


def check(data: dict[str, Any]) -> Check:
    fields = dict(data)
    cls = CHECK_MODELS.get(fields.pop("kind", "opaque"), Opaque)
    fields["span"] = span(fields.get("span"))
    return cls(**fields)  # type: ignore[return-value]


def _part(data: Any) -> ContentPart | None:
    if not isinstance(data, dict) or not isinstance(data.get("type"), str) or \
            not set(data) <= {"type", "value", "extra", "span"}:
        return None
    return ContentPart(**{**data, "span": span(data.get("span"))})


def message(data: dict[str, Any]) -> Message:
    fields = dict(data)
    fields["span"] = span(fields.get("span"))
    content = fields.get("content")
    if isinstance(content, list):
        parts = [_part(p) for p in content]
        if all(p is not None for p in parts):
            fields["content"] = parts
    return Message(**fields)


def _input(data: Any) -> Any:
    return [message(m) for m in data] if isinstance(data, list) else data


def _checks(data: Any) -> list[Check]:
    return [check(c) for c in data or ()]


_CASE: dict[str, Callable[[Any], Any]] = {"span": span, "input": _input, "checks": _checks}


def case(data: dict[str, Any], cls: type[Case] = Case) -> Case:
    fields = {k: _CASE[k](v) if k in _CASE else v for k, v in data.items()}
    if "entries" in fields:
        fields["entries"] = [SuiteEntry(**{**e, "span": span(e.get("span")), "checks": _checks(e.get("checks"))})
                             for e in fields["entries"]]
    if isinstance(fields.get("timeout_ms"), float) and fields["timeout_ms"].is_integer():
        fields["timeout_ms"] = int(fields["timeout_ms"])
    return cls(**fields)


def triggers(data: dict[str, Any]) -> TriggerSet:
    fields = dict(data)
    fields["span"] = span(fields.get("span"))
    fields["prompts"] = [TriggerPrompt(**{**p, "span": span(p.get("span"))}) for p in fields.get("prompts") or ()]
    return TriggerSet(**fields)


def evalset(data: dict[str, Any]) -> EvalSet:
    """An :class:`EvalSet` from the IR's JSON shape (what :func:`evalfmt.ir.dump` gives)."""
    fields = {k: v for k, v in data.items() if v is not None}
    fields["span"] = span(fields.get("span"))
    if "skill" in fields:
        fields["skill"] = SkillInfo(**{**fields["skill"], "span": span(fields["skill"].get("span"))})
    if "input" in fields:
        fields["input"] = _input(fields["input"])
    fields["checks"] = _checks(fields.get("checks"))
    fields["cases"] = [case(c) for c in fields.get("cases") or ()]
    if "suite" in fields:
        fields["suite"] = case(fields["suite"], Suite)
    if "triggers" in fields:
        fields["triggers"] = triggers(fields["triggers"])
    return EvalSet(**fields)
