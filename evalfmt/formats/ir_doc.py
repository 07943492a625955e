"""The JSON document of the ``ir`` format: ``{"evalfmt_ir": <version>, "sets": [<EvalSet>, ...]}``.

``inspect --format json`` prints it and the ``ir`` format reads and writes it, so anything inspected
can be fed back with ``--from ir``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import ir

if TYPE_CHECKING:  # pragma: no cover
    from .. import ir

MARKER = "evalfmt_ir"


def document(sets: list[ir.EvalSet], spans: bool = True) -> dict[str, Any]:
    return {MARKER: ir.IR_VERSION, "sets": [ir.dump(s, spans=spans) for s in sets]}
