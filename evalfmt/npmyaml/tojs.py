"""From YAML nodes to data, as the ``yaml`` npm package's ``toJS`` does it for agentv: aliases resolved
to the last anchor of that name before them in the document, merge keys (``<<``) applied, and the
package's three refusals at this stage: an alias with no anchor before it, a merge source that is not
a mapping, and aliases used more than its budget allows (``count * aliases inside > 100`` for one
anchor: "Excessive alias count indicates a resource exhaustion attack").

Those refusals carry no position in the package; :class:`~.compose.YamlError` gets the offset of the
alias or merge value concerned (``code`` None) so that evalfmt can still point at it.

The data is built as evalfmt's loader builds it (:class:`~evalfmt.load.YMap` / ``YSeq`` with
positions); mapping keys are strings, as in a JavaScript object.
"""

from __future__ import annotations

import math

from ..js import number_string as js_number
from ..load import YMap, YSeq
from . import scalars as sc
from .compose import Node
from .error import YamlError

MAX_ALIAS_COUNT = 100
#: The package accepts an alias inside its own anchor and gives a circular structure; agentv then fails
#: on it ("Maximum call stack size exceeded" from ``agentv validate``), so evalfmt refuses it (a code of
#: its own: the package has none).
CIRCULAR = "CIRCULAR_ALIAS"
EXCESSIVE = "Excessive alias count indicates a resource exhaustion attack"


class _Anchor:
    __slots__ = ("alias_count", "count", "res", "done")

    def __init__(self):
        self.alias_count = 0
        self.count = 1
        self.res = None
        self.done = False


class ToJS:
    """Converts one document; ``pos(offset)`` gives (line, column) for positions in the data."""

    def __init__(self, contents: Node | None, pos):
        self.contents = contents
        self.pos = pos
        self.anchors: dict[int, _Anchor] = {}
        self._order: list[Node] | None = None
        self._building: set[int] = set()  # anchored nodes being converted (an alias to one is a cycle)

    def run(self):
        return self.value(self.contents)

    # -- aliases -------------------------------------------------------------------------------

    def _ordered(self) -> list[Node]:
        """Aliases and anchored nodes in document order (keys before values)."""
        if self._order is None:
            out: list[Node] = []
            stack = [self.contents]
            while stack:
                node = stack.pop()
                if node is None:
                    continue
                if node.kind == "alias" or node.anchor:
                    out.append(node)
                if node.kind in ("map", "seq"):
                    children = []
                    for item in node.items:
                        if isinstance(item, tuple):
                            children.append(item[0])
                            children.append(item[1])
                        else:
                            children.append(item)
                    stack.extend(reversed(children))
            self._order = out
        return self._order

    def _find(self, alias: Node) -> Node | None:
        found = None
        for node in self._ordered():
            if node is alias:
                break
            if node.kind != "alias" and node.anchor == alias.value:
                found = node
        return found

    def resolve(self, alias: Node) -> Node | None:
        found = self._find(alias)
        if found is None:
            return None
        data = self.anchors.get(id(found))
        if data is None:
            self.value(found)
            data = self.anchors[id(found)]
        data.count += 1
        if data.alias_count == 0:
            data.alias_count = self._alias_count(found)
        if data.count * data.alias_count > MAX_ALIAS_COUNT:
            raise YamlError(alias.range[0], None, EXCESSIVE)
        return found

    def _alias_count(self, node: Node | None) -> int:
        if node is None:
            return 1
        if node.kind == "alias":
            source = self._find(node)
            data = self.anchors.get(id(source)) if source is not None else None
            return data.count * data.alias_count if data is not None else 0
        if node.kind in ("map", "seq"):
            count = 0
            for item in node.items:
                c = max(self._alias_count(item[0]), self._alias_count(item[1])) if isinstance(item, tuple) \
                    else self._alias_count(item)
                count = max(count, c)
            return count
        return 1

    # -- values --------------------------------------------------------------------------------

    def value(self, node: Node | None):
        if node is None:
            return None
        if node.kind == "alias":
            source = self.resolve(node)
            if source is None:
                raise YamlError(node.range[0], None,
                                f"Unresolved alias (the anchor must be set before the alias): {node.value}")
            if id(source) in self._building:
                raise YamlError(node.range[0], CIRCULAR,
                                f"Alias *{node.value} is inside the node its anchor names (a circular structure)")
            return self.anchors[id(source)].res
        if not node.anchor:
            return self._build(node, None)
        data = _Anchor()
        self.anchors[id(node)] = data
        self._building.add(id(node))
        try:
            res = self._build(node, data)
        finally:
            self._building.discard(id(node))
        if not data.done:
            data.res, data.done = res, True
        return res

    def _build(self, node: Node, data: _Anchor | None):
        kind = node.kind
        if kind == "scalar":
            return "<<" if node.value is sc.MERGE else node.value
        if kind == "seq" and node.cls is None:
            seq = YSeq()
            seq.pos = self.pos(node.range[0])
            if data is not None:
                data.res, data.done = seq, True
            for item in node.items:
                seq.append(self.value(item))
                seq.ipos.append(self.pos(item.range[0]))
            return seq
        if kind == "seq":  # !!omap, !!pairs
            pairs: YSeq | YMap = YSeq() if node.cls == "pairs" else YMap()
            pairs.pos = self.pos(node.range[0])
            if data is not None:
                data.res, data.done = pairs, True
            seen: set = set()
            for key, value in node.items:
                if isinstance(pairs, YSeq):  # node.cls == "pairs"
                    one = YMap()
                    one.pos = self.pos(key.range[0])
                    self._pair(one, key, value)
                    pairs.append(one)
                    pairs.ipos.append(one.pos)
                else:
                    k = self.value(key)
                    v = self.value(value)
                    if _canon(k) in seen:
                        raise YamlError(key.range[0], None, "Ordered maps must not include duplicate keys")
                    seen.add(_canon(k))
                    self._put(pairs, _js_key(k, key), v, key, value)
            return pairs
        out = YMap()
        out.pos = self.pos(node.range[0])
        if data is not None:
            data.res, data.done = out, True
        for key, value in node.items:
            if node.cls == "set":
                k = self.value(key)
                self._put(out, _js_key(k, key), None, key, None)
            else:
                self._pair(out, key, value)
        return out

    def _pair(self, out: YMap, key: Node, value: Node | None) -> None:
        if key.merge or (key.kind == "scalar" and key.style == sc.PLAIN and key.value == "<<"):
            self._merge(out, value)
            return
        k = self.value(key)
        name = "*" + key.value if key.kind == "alias" and isinstance(k, (dict, list)) else _js_key(k, key)
        self._put(out, name, self.value(value), key, value)

    def _put(self, out: YMap, name: str, v, key: Node, value: Node | None) -> None:
        out[name] = v
        out.kpos[name] = self.pos(key.range[0])
        out.vpos[name] = self.pos((value or key).range[0])

    def _merge(self, out: YMap, value: Node | None) -> None:
        source = self.resolve(value) if value is not None and value.kind == "alias" else value
        sources = source.items if source is not None and source.kind == "seq" and source.cls is None else [source]
        for item in sources:
            src = self.resolve(item) if item is not None and item.kind == "alias" else item
            if src is not None and id(src) in self._building:
                # the package merges the mapping into itself again and again, each time counting one
                # more use of the alias, until its alias budget runs out
                assert item is not None  # src is item or the node it aliases
                raise YamlError(item.range[0], None, EXCESSIVE)
            if src is None or src.kind != "map" or src.cls not in (None, "set"):
                at = item if item is not None else value
                raise YamlError(at.range[0] if at is not None else 0, None, "Merge sources must be maps or map aliases")
            for _canon, (k, v, kpos, vpos) in self._as_map(src).items():
                name = "null" if k is None else _js_key(k, None)
                if name not in out:
                    out[name] = v
                    out.kpos[name] = kpos
                    out.vpos[name] = vpos

    def _as_map(self, src: Node) -> dict:
        """A mapping converted to a JavaScript ``Map`` (keys kept as values, the first merged key wins,
        a later explicit key overrides): {canonical key: (key, value, key position, value position)}."""
        entries: dict = {}
        for key, value in src.items:
            if src.cls != "set" and (key.merge or (key.kind == "scalar" and key.style == sc.PLAIN
                                                   and key.value == "<<")):
                merged = YMap()
                self._merge(merged, value)
                for name, v in merged.items():
                    entries.setdefault(("s", name), (name, v, merged.kpos[name], merged.vpos[name]))
                continue
            k = self.value(key)
            v = None if src.cls == "set" else self.value(value)
            canon = _canon(k)
            kpos, vpos = self.pos(key.range[0]), self.pos((value or key).range[0])
            if canon in entries:
                kpos = entries[canon][2]
            entries[canon] = (k, v, kpos, vpos)
        return entries


def _canon(value):
    """A JavaScript value as a ``Map`` key compares (SameValueZero)."""
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, (int, float)):
        return ("n", "nan") if isinstance(value, float) and math.isnan(value) else ("n", float(value))
    if isinstance(value, str):
        return ("s", value)
    return ("o", id(value))


def _js_key(value, key: Node | None) -> str:
    """A mapping key as JavaScript object keys are: a string."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (list, dict)):
        return _flow_text(value)
    return str(value)


def _flow_text(value) -> str:
    """A collection used as a key, as the package writes it (flow style)."""
    if isinstance(value, dict):
        inner = ", ".join(f"{k}: {_flow_text(v)}" if v is not None else f"{k}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, list):
        inner = ", ".join(_flow_text(v) for v in value)
        return "[ " + inner + " ]" if inner else "[]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    return str(value)
