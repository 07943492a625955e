"""YAML as agentv 4.42.4 reads it: the ``yaml`` npm package (YAML 1.2 core schema, ``merge: true``).

evalfmt's loader already follows the 1.2 core schema; two things need care on top of it:

- merge keys (``<<: *defaults``): agentv merges them (a key already present wins; with a list of
  sources the first source wins; a later explicit key overrides a merged one in place).
  :func:`resolve_merges` does the same on a loaded tree, keeping positions;
- duplicate keys: the ``yaml`` package refuses them (``Map keys must be unique``) where evalfmt's
  loader records them. :func:`duplicate_key_error` gives the message agentv prints.

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
    """The error the ``yaml`` package raises for the first duplicate key, or None when there is none."""
    dups = [d for d in loaded.duplicates if d.key != MERGE_KEY]
    if not dups:
        return None
    first = min(dups, key=lambda d: (d.second.line, d.second.column))
    return _prettify(loaded.text, "Map keys must be unique", first.second.line, first.second.column)


def _prettify(src: str, message: str, line: int, col: int) -> str:
    """The ``yaml`` package's error text: message, position, and the source line with a caret."""
    message += f" at line {line}, column {col}"
    starts = [0]
    for i, ch in enumerate(src):
        if ch == "\n":
            starts.append(i + 1)
    starts.append(len(src))

    def line_text(n: int) -> str:
        return src[starts[n - 1]:starts[n]] if n < len(starts) else ""

    ci = col - 1
    line_str = line_text(line).rstrip("\r\n")
    if ci >= 60 and len(line_str) > 80:
        trim_start = min(ci - 39, len(line_str) - 79)
        line_str = "\u2026" + line_str[trim_start:]
        ci -= trim_start - 1
    if len(line_str) > 80:
        line_str = line_str[:79] + "\u2026"
    if line > 1 and line_str[:ci].strip(" ") == "":
        prev = line_text(line - 1)
        if len(prev) > 80:
            prev = prev[:79] + "\u2026\n"
        line_str = prev + line_str
    if line_str.strip(" "):
        message += f":\n\n{line_str}\n{' ' * ci}^\n"
    return message


__all__ = ["resolve_merges", "duplicate_key_error", "plain", "YMap", "YSeq"]
