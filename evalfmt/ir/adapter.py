"""The IR's boundary with pydantic: validation of IR JSON and the IR's JSON Schema.

Imported only where IR comes from outside or is described (the ``ir`` format's reader, ``evalfmt
schema``, ``inspect --format json``): importing pydantic costs more than a one-file ``validate``, so
nothing on the reading, linting or scoring path imports this module.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any

from pydantic import ConfigDict, Discriminator, TypeAdapter

from . import CHECK_CLASSES, Aggregator, EvalSet, NODE_CLASSES, Node, Span

_FORBID = ConfigDict(extra="forbid")

for _cls in (Node, Span, *NODE_CLASSES, *CHECK_CLASSES, Aggregator):
    _cls.__pydantic_config__ = _FORBID  # type: ignore[attr-defined]


def tagged_by_kind(source: Any, handler: Any) -> Any:
    """The core schema of the check union as a union discriminated by ``kind``."""
    return handler.generate_schema(Annotated[source, Discriminator("kind")])


@lru_cache(maxsize=1)
def evalset_adapter() -> TypeAdapter[EvalSet]:
    return TypeAdapter(EvalSet)


def validate_evalset(data: Any) -> EvalSet:
    """An :class:`EvalSet` from IR JSON data (raises ``pydantic.ValidationError`` naming what is wrong)."""
    return evalset_adapter().validate_python(data)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of one eval set in the IR's JSON shape."""
    return evalset_adapter().json_schema()
