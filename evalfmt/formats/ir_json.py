"""Format ``ir``: evalfmt's own JSON dump of the IR, and its exact inverse.

A file is one JSON object::

    {"evalfmt_ir": 1, "sets": [<ir.dump(EvalSet)>, ...]}

``evalfmt_ir`` is the IR version (:data:`ir.IR_VERSION`); detection looks for that key. This is the
document ``evalfmt inspect --format json`` prints (:mod:`evalfmt.formats.ir_doc`), so inspected output
reads back. Every field that is set is written, spans included, so ``read(write(x))`` gives back exactly ``x``
(provenance too), and ``write(read(f))`` gives back the bytes of a file this writer wrote. The writer writes one set per
file; the reader accepts any number.

Bad content never raises: the IR is validated set by set with pydantic, and each validation error
becomes a diagnostic at the line and column of the offending value (EV103 for a missing field, EV101
for an unknown one, EV104 for an unknown check kind, EV102 for the rest).
"""

from __future__ import annotations

from typing import Any, TYPE_CHECKING

import orjson

from .. import ir
from ..fsview import DISK, View
from ..js import json_numbers
from ..load import type_name
from ..suggest import near
from . import Format, ReadResult, Reporter, WriteResult, first_char, open_document, peek_keys
from .ir_doc import MARKER, document

if TYPE_CHECKING:  # pragma: no cover
    from pydantic_core import ErrorDetails

    from .. import ir

NAME = "ir"

DEFAULT_NAME = "evalset.ir.json"


def detect(path: str, *, fs: View = DISK) -> bool:
    return path.lower().endswith(".json") and first_char(path, fs=fs) == "{" and MARKER in peek_keys(path, fs=fs)


def read(path: str, *, fs: View = DISK) -> ReadResult:
    from pydantic import ValidationError  # pydantic: 20 ms to import (python -X importtime), only for an IR file


    result = ReadResult()
    rep = open_document(path, result, kind="json", fs=fs)
    if rep is None:
        return result
    data = rep.loaded.data
    if not isinstance(data, dict) or MARKER not in data:
        rep.add("EV103", f"not an evalfmt IR file: the top level must be a mapping with '{MARKER}' and 'sets'")
        return result
    version = data[MARKER]
    if not isinstance(version, int) or isinstance(version, bool):
        rep.wrong_type(MARKER, "an integer (the IR version)", version, MARKER)
        return result
    if version != ir.IR_VERSION:
        rep.add("EV100", f"IR version {version} is not supported (this evalfmt reads version {ir.IR_VERSION}): "
                         "convert it with the evalfmt that wrote it", MARKER)
        return result
    for key in data:
        if key not in (MARKER, "sets"):
            rep.unknown_key(key, (MARKER, "sets"), key, severity="error", otherwise=": remove it")
    sets = data.get("sets")
    if "sets" not in data:
        rep.add("EV103", "missing required key 'sets' (a list of eval sets)")
        return result
    if not isinstance(sets, list):
        rep.wrong_type("sets", "a list", sets, "sets")
        return result
    for i, raw in enumerate(sets):
        try:
            result.sets.append(ir.validate(raw))
        except ValidationError as exc:
            for err in exc.errors(include_url=False):
                _report(rep, ("sets", i) + tuple(err["loc"]), err, raw)
    return result


def _report(rep: Reporter, loc: tuple[Any, ...], err: ErrorDetails, raw: Any) -> None:
    # pydantic puts the union member's tag in the location ("checks", 0, "contains", "value"): drop it.
    path: list[Any] = []
    node: Any = rep.loaded.data
    for step in loc:
        if (isinstance(node, dict) and step in node) \
                or (isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node)):
            path.append(step)
            node = node[step]
        elif isinstance(step, str) and isinstance(node, dict) and step in ir.CHECK_MODELS:
            continue
        else:
            break
    where = ".".join(str(s) for s in loc[2:] if not (isinstance(s, str) and s in ir.CHECK_MODELS)) or "set"
    kind = err["type"]
    if kind in ("missing", "missing_argument"):
        rep.add("EV103", f"missing required field '{loc[-1]}' at {where}", *path)
    elif kind in ("extra_forbidden", "unexpected_keyword_argument"):
        field = loc[-1]
        parent = _model_fields(rep.loaded.data, path[:-1])
        close = near(str(field), parent)
        hint = f" (did you mean '{close}'?)" if close else ": remove it"
        rep.add("EV101", f"unknown IR field '{field}' at {where}{hint}", *path, key=True)
    elif kind in ("union_tag_invalid", "union_tag_not_found"):
        tag = node.get("kind") if isinstance(node, dict) else None
        close = near(str(tag), ir.CHECK_MODELS)
        hint = f" (did you mean '{close}'?)" if close else ""
        what = f"unknown check kind '{tag}'" if tag is not None else "a check without 'kind'"
        rep.add("EV104", f"{what} at {where}{hint}", *(path + (["kind"] if tag is not None else [])))
    else:
        rep.add("EV102", f"{err['msg'].lower()} at {where} (found a {type_name(node)})", *path)


def _model_fields(data: Any, path: list[Any]) -> list[str]:
    """The field names of the IR model at ``path`` (best effort, for 'did you mean' hints)."""
    node = data
    for step in path:
        node = node[step]
    if isinstance(node, dict) and isinstance(node.get("kind"), str) and node["kind"] in ir.CHECK_MODELS:
        return list(ir.field_names(ir.CHECK_MODELS[node["kind"]]))
    names: set[str] = set()
    for model in (*ir.NODE_CLASSES, ir.Span):
        names.update(ir.field_names(model))
    return sorted(names)


def dumps(sets: list[ir.EvalSet]) -> str:
    """The IR file text for ``sets`` (deterministic: model field order, two-space indent, newline)."""

    doc = document(sets)
    try:
        text = orjson.dumps(doc, option=orjson.OPT_INDENT_2)
    except TypeError:  # an integer beyond 64 bits that no reader caught: written as JavaScript would
        text = orjson.dumps(json_numbers(doc), option=orjson.OPT_INDENT_2)
    return text.decode("utf-8") + "\n"


def write(evalset: ir.EvalSet, existing: dict[str, str] | None = None) -> WriteResult:
    return WriteResult(files={DEFAULT_NAME: dumps([evalset])})


FORMAT = Format(
    name=NAME,
    module=__name__,
    description="evalfmt's own JSON dump of the IR (lossless)",
    detect=detect,
    read=read,
    write=write,
    single_file=True,
    default_name=DEFAULT_NAME,
)
