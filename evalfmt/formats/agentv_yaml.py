"""YAML as agentv 4.42.4 reads it: the ``yaml`` npm package (YAML 1.2 core schema, ``merge: true``).

evalfmt's loader already follows the 1.2 core schema; two things need care on top of it:

- merge keys (``<<: *defaults``): agentv merges them (a key already present wins; with a list of
  sources the first source wins; a later explicit key overrides a merged one in place).
  :func:`resolve_merges` does the same on a loaded tree, keeping positions;
- duplicate keys: the ``yaml`` package refuses them (``Map keys must be unique``) where evalfmt's
  loader records them. :func:`duplicate_key_error` gives agentv's message, on one line.

Kept free of pydantic: the agentv transpile layout imports it on its fast path.
"""

from __future__ import annotations

from typing import Any

from ..load import Loaded, YMap, YSeq, plain

MERGE_KEY = "<<"


def resolve_merges(node: Any) -> Any:
    """Apply YAML merge keys in place throughout a loaded tree; returns the tree."""
    seen: set[int] = set()
    stack = [node]
    while stack:
        cur = stack.pop()
        if id(cur) in seen:
            continue
        seen.add(id(cur))
        if isinstance(cur, dict):
            if MERGE_KEY in cur:
                _merge_one(cur)
            stack.extend(v for v in cur.values() if isinstance(v, (dict, list)))
        elif isinstance(cur, list):
            stack.extend(v for v in cur if isinstance(v, (dict, list)))
    return node


def _merge_one(mapping: dict) -> None:
    items = list(mapping.items())
    kpos = dict(getattr(mapping, "kpos", {}))
    vpos = dict(getattr(mapping, "vpos", {}))
    new_items: dict = {}
    new_kpos: dict = {}
    new_vpos: dict = {}
    for key, value in items:
        if key == MERGE_KEY and isinstance(value, (dict, list)):
            sources = value if isinstance(value, list) else [value]
            for src in sources:
                if not isinstance(src, dict):
                    continue
                for skey, sval in src.items():
                    if skey not in new_items:
                        new_items[skey] = sval
                        new_kpos[skey] = getattr(src, "kpos", {}).get(skey, kpos.get(key, (1, 1)))
                        new_vpos[skey] = getattr(src, "vpos", {}).get(skey, vpos.get(key, (1, 1)))
        else:
            new_items[key] = value
            new_kpos[key] = kpos.get(key, (1, 1))
            new_vpos[key] = vpos.get(key, (1, 1))
    mapping.clear()
    mapping.update(new_items)
    if isinstance(mapping, YMap):
        mapping.kpos = new_kpos
        mapping.vpos = new_vpos


def duplicate_key_error(loaded: Loaded) -> str | None:
    """The first duplicate key as one line, ``path:line:col: Map keys must be unique (...)``, at the
    position the ``yaml`` package reports (agentv adds a code frame below it; evalfmt's errors are one
    line); None when there is none."""
    dups = [d for d in loaded.duplicates if d.key != MERGE_KEY]
    if not dups:
        return None
    first = min(dups, key=lambda d: (d.second.line, d.second.column))
    return (f"{loaded.path}:{first.second.line}:{first.second.column}: Map keys must be unique "
            f"(duplicate key '{first.key}', first at line {first.first.line})")


__all__ = ["resolve_merges", "duplicate_key_error", "plain", "YMap", "YSeq"]
