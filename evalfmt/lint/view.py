"""Read-only views of IR-shaped data, so rules run without building the pydantic IR.

Readers may hand over an eval set as plain data in the IR's JSON shape (``ReadResult.raw_sets``);
building the pydantic models from it costs more than linting it. A :class:`View` gives the same
attribute access the IR has (``evalset.cases[0].checks[0].text``, ``case.task``, ``check.label()``),
so a rule works unchanged on IR objects and on views. Absent fields read as the IR's defaults.
"""

from __future__ import annotations

from typing import Any

from ..kinds import TERUM_ARG_FIELD

_LISTS = {"cases": "Case", "checks": "Check", "entries": "SuiteEntry", "prompts": "TriggerPrompt"}
_ONE = {"suite": "Suite", "triggers": "TriggerSet", "skill": "SkillInfo"}
_DICTS = ("extra", "hints")


class Span:
    __slots__ = ("file", "line", "column")

    def __init__(self, file: str, line: int = 1, column: int = 1):
        self.file, self.line, self.column = file, line, column

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class View:
    """Attribute access to one IR-shaped mapping. A field is computed on first access and stored on
    the instance, so later reads are plain attribute reads (``__getattr__`` is not called again)."""

    def __init__(self, data: dict, type_: str = ""):
        self._d = data
        self._type = type_

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_d", "_type"):
            raise AttributeError(name)
        d = self._d
        raw = d.get(name)
        if name == "span":
            value = Span(raw["file"], raw.get("line", 1), raw.get("column", 1)) if isinstance(raw, dict) else None
        elif name in _LISTS:
            value = [View(x, _LISTS[name]) for x in raw] if isinstance(raw, list) else []
        elif name in _ONE:
            value = View(raw, _ONE[name]) if isinstance(raw, dict) else None
        elif name in _DICTS:
            value = raw if isinstance(raw, dict) else {}
        elif name == "name" and raw is None and self._type == "Suite":
            value = "suite"
        else:
            value = raw
        self.__dict__[name] = value
        return value

    # --------------------------------------------------------------------- IR conveniences

    @property
    def task(self) -> str | None:
        return input_text(self._d.get("input"))

    @property
    def arg(self) -> str:
        d = self._d
        kind = d.get("kind")
        if kind in TERUM_ARG_FIELD:
            value = d.get(TERUM_ARG_FIELD[kind]) or ""
            return value[:60] if kind == "command_succeeds" else value
        if kind == "opaque":
            return d.get("type") or ""
        for key in ("value", "skill", "prompt", "mode"):
            if isinstance(d.get(key), str):
                return d[key]
        return ""

    def label(self) -> str:
        kind = self._d.get("kind")
        if kind == "opaque":
            return self._d.get("type") or "opaque"
        arg = self.arg
        return f"{kind}:{arg}" if arg != "" else str(kind)


def input_text(value: Any) -> str | None:
    """The prompt as plain text (same rule as :func:`evalfmt.ir.input_text`, on plain data)."""
    if value is None or isinstance(value, str):
        return value
    if not isinstance(value, list):
        return None
    chunks: list[str] = []
    for msg in value:
        if isinstance(msg, dict):
            role, content = msg.get("role"), msg.get("content")
        else:
            role, content = getattr(msg, "role", None), getattr(msg, "content", None)
        if role != "user":
            continue
        if isinstance(content, str):
            chunks.append(content)
        elif isinstance(content, list):
            for part in content:
                ptype = part.get("type") if isinstance(part, dict) else getattr(part, "type", None)
                pval = part.get("value") if isinstance(part, dict) else getattr(part, "value", None)
                if ptype == "text" and isinstance(pval, str):
                    chunks.append(pval)
                elif ptype == "file":
                    chunks.append(f"[file: {pval}]")
    return "\n\n".join(chunks)


def evalsets(read) -> list:
    """The eval sets of a ReadResult as IR objects or views, without building IR that is not built."""
    items = read.raw_sets() if hasattr(read, "raw_sets") else read.sets
    return [View(item, "EvalSet") if isinstance(item, dict) else item for item in items]
