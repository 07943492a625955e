"""The base of every IR node: :class:`Span` (where it was read), :class:`Node` and :class:`CheckBase` (the
fields every check may carry). The check classes are declared with their kind's spec in
:mod:`evalfmt.ir.kinds`; the rest of the tree (cases, sets, messages) in :mod:`evalfmt.ir`."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

#: How every node class is declared. ``__eq__`` and ``__repr__`` are written once on :class:`Node` rather
#: than generated per class: generating them would double the import time of the IR, and ``validate`` (run
#: by pre-commit on every commit) pays for that import.
N = TypeVar("N", bound="Node")

if TYPE_CHECKING:  # pragma: no cover
    from typing import dataclass_transform

    @dataclass_transform(kw_only_default=True, eq_default=False)
    def node(cls: type[N]) -> type[N]:
        """What type checkers see: a dataclass decorator with keyword-only fields (the runtime one below)."""
        ...
else:
    node = dataclass(slots=True, kw_only=True, eq=False, repr=False, match_args=False)


def as_float(value: Any) -> Any:
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


_FIELDS: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """The fields of an IR class in their order (the order :func:`evalfmt.ir.dump` writes them)."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


@node
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


@node
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
