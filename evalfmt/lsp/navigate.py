"""Completion and go-to-definition for ``evalfmt lsp``, without any protocol.

Both read the document with evalfmt's own loader (positions of every key and value):

- completion puts a marker where the cursor is (as a key, or as the value of the key on the line),
  loads the text and finds the marker's path; the keys and values offered there come from the JSON
  Schema evalfmt ships for the file's format (``evalfmt schema``): keys, check kinds, assertion
  types, buckets; after ``skill:`` / ``skill_name:``, the skills of the library. A text that does not
  load even with the marker gets no completion (never a guess);
- definition finds the scalar under the cursor and, by its key, the file it names: a terum
  ``fixture`` (a folder, relative to the case file's folder), a path in ``files``/``input_files`` or a
  ``type: file`` part (relative to the eval file's folder, else the skill's), agentv's ``tests: PATH``,
  a skill name (its SKILL.md).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import cache
from collections.abc import Iterator

from ..errors import LoadError
from ..ir import BUCKETS
from ..load import YMap, YSeq, kind_of, load_text
from .analysis import skill_of

MARKER = "evalfmt_cursor_0x5f3759df"
Path = tuple[str | int, ...]

#: file name -> the schema of its format (evalfmt/schemas/)
_SCHEMAS = (
    (re.compile(r"(?:^|/)evals/cases/[^/]+\.ya?ml$"), "terum-case"),
    (re.compile(r"(?:^|/)evals/suite\.ya?ml$"), "terum-suite"),
    (re.compile(r"(?:^|/)evals/triggers\.ya?ml$"), "terum-triggers"),
    (re.compile(r"(?:^|/)(?:EVAL|[^/]+\.eval)\.ya?ml$"), "agentv-eval"),
    (re.compile(r"(?:^|/)evals\.json$"), "agent-skills-evals"),
)
_SKILL_KEYS = ("skill", "skill_name")


@dataclass
class Item:
    label: str
    kind: str  # "key" | "value" | "skill"
    detail: str = ""


# ------------------------------------------------------------------------------------- schemas


def schema_name(path: str) -> str | None:
    p = path.replace(os.sep, "/")
    return next((name for pattern, name in _SCHEMAS if pattern.search(p)), None)


@cache
def _schema(name: str) -> dict:
    here = os.path.join(os.path.dirname(os.path.dirname(__file__)), "schemas", f"{name}.schema.json")
    with open(here, encoding="utf-8") as fh:
        return json.load(fh)


def _resolve(root: dict, node: object, depth: int = 0) -> list[dict]:
    """The alternatives a schema node stands for ($ref followed; anyOf/oneOf/allOf and if/then spread)."""
    if not isinstance(node, dict) or depth > 12:
        return []
    out = [node]
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: object = root
        for part in ref[2:].split("/"):
            target = target.get(part) if isinstance(target, dict) else None
        out += _resolve(root, target, depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in node.get(key) or ():
            out += _resolve(root, sub, depth + 1)
    for key in ("if", "then", "else"):
        if key in node:
            out += _resolve(root, node[key], depth + 1)
    return out


def _at(root: dict, path: Path) -> list[dict]:
    nodes = _resolve(root, root)
    for step in path:
        nxt: list[dict] = []
        for n in nodes:
            if isinstance(step, int):
                nxt += _resolve(root, n.get("items"))
            else:
                props = n.get("properties")
                if isinstance(props, dict) and step in props:
                    nxt += _resolve(root, props[step])
        nodes = nxt
    return nodes


def _keys(root: dict, path: Path) -> list[Item]:
    seen: dict[str, Item] = {}
    for n in _at(root, path):
        for key, sub in (n.get("properties") or {}).items():
            if key.startswith("$") or key in seen:
                continue
            desc = sub.get("description", "") if isinstance(sub, dict) else ""
            seen[key] = Item(key, "key", desc)
    return list(seen.values())


def _values(root: dict, path: Path) -> list[Item]:
    found: list[str] = []
    for n in _at(root, path):
        values = list(n.get("enum") or ()) + ([n["const"]] if "const" in n else [])
        for v in values:
            if isinstance(v, str) and v not in found:
                found.append(v)
    if path and path[-1] == "bucket" and not found:
        found = list(BUCKETS)
    return [Item(v, "value") for v in found]


# ------------------------------------------------------------------------------------- library


def library_skills(path: str, roots: list[str]) -> dict[str, str]:
    """Skill name -> SKILL.md: the folders holding SKILL.md beside the file's skill and under the
    workspace folders (four levels down at most)."""
    out: dict[str, str] = {}
    starts = [os.path.abspath(r) for r in roots]
    folder = os.path.dirname(os.path.abspath(path))
    for _ in range(6):  # the library the file's skill sits in (its parent folder)
        if os.path.isfile(os.path.join(folder, "SKILL.md")):
            starts.append(os.path.dirname(folder))
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    for start in starts:
        base = start.rstrip(os.sep).count(os.sep)
        for current, dirs, files in os.walk(start):
            if "SKILL.md" in files:
                out.setdefault(os.path.basename(current), os.path.join(current, "SKILL.md"))
                dirs[:] = []
                continue
            if current.count(os.sep) - base >= 4:
                dirs[:] = []
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("node_modules", "evals"))
    return out


# ------------------------------------------------------------------------------------ completion


def completions(path: str, text: str, line: int, column: int, roots: list[str]) -> list[Item]:
    """What may be typed at 0-based (``line``, ``column``) of a YAML eval file."""
    name = schema_name(path)
    if name is None or kind_of(path) != "yaml":
        return []
    lines = text.split("\n")
    if line >= len(lines):
        return []
    current = lines[line]
    head = current[:column]
    m = re.match(r"^(?P<lead>[ \t]*(?:-[ \t]+)*)(?P<key>[^\s:#'\"{}\[\],-][^:#]*?)?$", head)
    v = re.match(r"^(?P<lead>[ \t]*(?:-[ \t]+)*)(?P<key>[A-Za-z_][\w-]*):[ \t]+[^\s#]*$", head)
    if v is not None:  # a value after "key: "
        probe = f"{v.group('lead')}{v.group('key')}: {MARKER}"
        found = _find(path, lines, line, probe, as_key=False)
        if found is None:
            return []
        if found and found[-1] in _SKILL_KEYS:
            return [Item(n, "skill", md) for n, md in sorted(library_skills(path, roots).items())]
        return _values(_schema(name), found)
    if m is not None:  # a key
        probe = f"{m.group('lead')}{MARKER}: 0"
        found = _find(path, lines, line, probe, as_key=True)
        if found is None:
            return []
        return _keys(_schema(name), found)
    return []


def _find(path: str, lines: list[str], line: int, probe: str, as_key: bool) -> Path | None:
    """The path of the marker in the text with ``lines[line]`` replaced by ``probe`` (for a key: the
    path of the mapping holding it), or None when that text does not load."""
    text = "\n".join(lines[:line] + [probe] + lines[line + 1:])
    try:
        loaded = load_text(text, path, "yaml")
    except LoadError:
        return None
    for where, node, key in _walk(loaded.located, ()):
        if as_key and key == MARKER:
            return where
        if not as_key and node == MARKER and key is not None:
            return where + (key,)
    return None


def _walk(node: object, where: Path) -> Iterator[tuple[Path, object, str | None]]:
    """(path of the container, value, key in a mapping) for every value; keys show up with their map."""
    if isinstance(node, YMap):
        for key, value in node.items():
            yield where, value, key
            yield from _walk(value, where + (key,))
    elif isinstance(node, YSeq):
        for i, value in enumerate(node):
            yield where, value, None
            yield from _walk(value, where + (i,))


# ------------------------------------------------------------------------------------ definition


def definition(path: str, text: str, line: int, column: int, roots: list[str]) -> str | None:
    """The file (or folder) named by the scalar at 0-based (``line``, ``column``), when it exists."""
    try:
        loaded = load_text(text, path, kind_of(path))
    except LoadError:
        return None
    hit = _scalar_at(loaded.located, text.split("\n"), line + 1, column + 1)
    if hit is None:
        return None
    where, value, parent = hit
    here = os.path.dirname(os.path.abspath(path))
    key = next((k for k in reversed(where) if isinstance(k, str)), None)
    if where and where[-1] in _SKILL_KEYS:
        return library_skills(path, roots).get(value)
    if where == ("fixture",):
        return _existing([os.path.join(here, value)])
    is_file_part = where and where[-1] == "value" and isinstance(parent, dict) and parent.get("type") == "file"
    if where == ("tests",) or key in ("files", "input_files") or is_file_part:
        skill = skill_of(path)
        return _existing([os.path.join(here, value)] + ([os.path.join(skill, value)] if skill else []))
    return None


def _existing(candidates: list[str]) -> str | None:
    for c in candidates:
        if os.path.exists(c):
            return os.path.normpath(c)
    return None


def _scalar_at(node: object, lines: list[str], line: int, column: int) -> tuple[Path, str, object] | None:
    """(path, text, the container) of the string scalar whose token holds 1-based (line, column)."""
    stack: list[tuple[object, Path]] = [(node, ())]
    while stack:
        current, where = stack.pop()
        if isinstance(current, YMap):
            items = [(k, v, current.vpos.get(k)) for k, v in current.items()]
        elif isinstance(current, YSeq):
            items = [(i, v, p) for i, (v, p) in enumerate(zip(current, current.ipos))]
        else:
            continue
        for k, v, pos in items:
            if isinstance(v, (YMap, YSeq)):
                stack.append((v, where + (k,)))
            elif isinstance(v, str) and pos is not None and pos[0] == line:
                start = pos[1]
                width = len(v) + (2 if lines[line - 1][start - 1:start] in ("'", '"') else 0)
                if start <= column <= start + width:
                    return where + (k,), v, current
    return None
