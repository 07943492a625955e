"""``--fix``: the safe fixes of the rules marked (fix) in the catalogue.

- a key rename (EV101 with an unambiguous suggestion, EV501 ``{"rename": new}``) or a scalar value
  replacement (EV501 ``{"replace": new}``) is a splice of that one token at the diagnostic's position:
  every other byte of the file stays as it was (comments, key order, quoting, indentation, line
  endings). The token keeps its quote style. The position is counted the way the loader counts it
  (in YAML, a lone CR, NEL, U+2028 and U+2029 end a line too), and the token found there must be the
  very key or value the loader read at that position: anything else is refused, never guessed. The
  edited text is loaded again before it is written; an edit that would not load is dropped;
- a file rename (EV111 ``{"rename_to": path}``) moves the file, content byte for byte, never over an
  existing file and only within the skill's ``evals/`` folder the file is in (a folder named ``evals``
  with SKILL.md in the folder above it): a rename that would leave it, or a file outside one, is not
  done, and no folder is ever made outside it (the one path guard checks the move and its folders).

Why splices rather than re-emitting the document from ruamel's round-trip tree: a round-trip dump
re-indents sequences, re-spaces flow mappings and re-wraps long lines it did not need to touch, so a
one-word fix could rewrite the whole file. A splice at a position the loader reported cannot.
Fixes are idempotent: a fixed finding is gone on the next run, so a second ``--fix`` changes nothing.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass, field

from .. import guard
from ..errors import Diagnostic, EvalfmtError, LoadError
from ..fsio import atomic_write
from ..load import Loaded, YMap, YSeq, kind_of, load_text
from .context import line_starts

_PLAIN_SAFE = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")
#: Characters that end a line for the YAML parser (a token never spans one).
_BREAKS = "\r\n\x85\u2028\u2029"


@dataclass
class FixPlan:
    edits: dict[str, str] = field(default_factory=dict)  # path -> new text
    originals: dict[str, str] = field(default_factory=dict)  # path -> old text
    renames: list[tuple[str, str]] = field(default_factory=list)
    fixed: list[Diagnostic] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.edits and not self.renames


def _replacement(d: Diagnostic) -> tuple[str, str] | None:
    """(kind, new text) of a token fix: kind 'key' or 'value'."""
    fix = d.data.get("fix")
    if isinstance(fix, dict):
        if isinstance(fix.get("rename"), str):
            return "key", fix["rename"]
        if isinstance(fix.get("replace"), str):
            return "value", fix["replace"]
        return None
    if (fix is True or (fix is None and d.fixable)) and isinstance(d.data.get("suggestion"), str):
        return "key", d.data["suggestion"]
    return None


def can_fix(d: Diagnostic) -> bool:
    """True when ``--fix`` has a fix for this diagnostic."""
    if not d.fixable:
        return False
    return isinstance(d.data.get("rename_to"), str) or _replacement(d) is not None


def token_span(text: str, offset: int, kind: str) -> tuple[int, int, str] | None:
    """(start, end, quote) of the scalar token at ``offset``: a quoted string, or a plain scalar
    ending before ``: `` (a key), a comment, a flow indicator or the line end."""
    if offset >= len(text):
        return None
    c = text[offset]
    if c == '"':
        return _double_quoted_span(text, offset)
    if c == "'":
        return _single_quoted_span(text, offset)
    if c in "|>[{&*!%@`#" or c in _BREAKS:
        return None
    end = _plain_end(text, offset)
    while end > offset and text[end - 1] in " \t":
        end -= 1
    return (offset, end, "") if end > offset else None


def _double_quoted_span(text: str, offset: int) -> tuple[int, int, str] | None:
    """The span of the ``"..."`` string at ``offset`` (escapes skipped), None when a line ends first."""
    i = offset + 1
    while i < len(text) and text[i] != '"':
        if text[i] in _BREAKS:
            return None
        i += 2 if text[i] == "\\" else 1
    return (offset, i + 1, '"') if i < len(text) else None


def _single_quoted_span(text: str, offset: int) -> tuple[int, int, str] | None:
    """The span of the ``'...'`` string at ``offset`` (``''`` is a quote inside), None when a line ends first."""
    i = offset + 1
    while i < len(text):
        if text[i] == "'":
            if text[i + 1: i + 2] != "'":
                return offset, i + 1, "'"
            i += 2
            continue
        if text[i] in _BREAKS:
            return None
        i += 1
    return None


def _plain_end(text: str, offset: int) -> int:
    """Where the plain scalar at ``offset`` ends (trailing blanks included): at a line end, a flow
    indicator, a ``:`` followed by a blank or the end (a key), or a `` #`` comment."""
    i = offset
    while i < len(text):
        ch = text[i]
        if ch in _BREAKS or ch in ",]}":
            break
        if ch == ":" and (i + 1 >= len(text) or text[i + 1] in " \t\r\n,]}"):
            break
        if ch == "#" and i > offset and text[i - 1] in " \t":
            break
        i += 1
    return i


def _quote(new: str, quote: str) -> str:
    if quote == "'":
        return "'" + new.replace("'", "''") + "'"
    if quote == '"' or not _PLAIN_SAFE.match(new):
        return json.dumps(new, ensure_ascii=False)
    return new


def _plan_rename(p: FixPlan, d: Diagnostic, target: str) -> None:
    """Add the move of ``d``'s file to ``target`` unless it would leave the skill's evals/ folder the
    file is in (or there is none), or ``target`` exists or is already another move's target."""
    evals = skill_evals(d.path)
    if evals is None or not guard.inside(evals, target) or os.path.exists(target) \
            or any(t == target for _s, t in p.renames):
        return
    p.renames.append((d.path, target))
    p.fixed.append(d)


def plan(diagnostics: list[Diagnostic], texts: dict[str, str]) -> FixPlan:
    """The fixes for the fixable diagnostics (reading files not in ``texts``)."""
    p = FixPlan()
    read_back: dict[str, tuple | None] = {}
    by_file: dict[str, list[tuple[int, int, str, Diagnostic]]] = {}
    for d in diagnostics:
        if not d.fixable:
            continue
        if isinstance(d.data.get("rename_to"), str):
            _plan_rename(p, d, d.data["rename_to"])
            continue
        rep = _replacement(d)
        if rep is None:
            continue
        text = texts.get(d.path)
        if text is None:
            text = _read(d.path)
            if text is None:
                continue
            texts[d.path] = text
        read = _read_back(d.path, text, read_back)
        if read is None:
            continue
        starts, keys, values = read
        if not 1 <= d.line <= len(starts):
            continue
        offset = starts[d.line - 1] + d.column - 1
        span = token_span(text, offset, rep[0])
        if span is None:
            continue
        start, end, quote = span
        expected = (keys if rep[0] == "key" else values).get((d.line, d.column), _NOTHING)
        if "old" in d.data and d.data["old"] != expected or not _is_token_of(text[start:end], quote, expected):
            continue  # not the text the finding is about, or not what the loader read there: refuse
        new = _quote(rep[1], quote)
        if text[start:end] == new:
            continue
        by_file.setdefault(d.path, []).append((start, end, new, d))
    for path, edits in by_file.items():
        text = texts[path]
        edits.sort(key=lambda e: e[0])
        out, last, used = [], 0, []
        for start, end, new, d in edits:
            if start < last:
                continue  # overlapping edits: keep the first
            out.append(text[last:start])
            out.append(new)
            last = end
            used.append(d)
        out.append(text[last:])
        new_text = "".join(out)
        if not _loads(path, new_text):
            continue
        p.originals[path] = text
        p.edits[path] = new_text
        p.fixed.extend(used)
    return p


_NOTHING = object()


def _documents(path: str, text: str) -> list[tuple[Loaded, int]] | None:
    """The documents of a file and the line each starts on less one (a JSONL file holds one per
    line); None when it does not load."""
    try:
        if not path.lower().endswith(".jsonl"):
            return [(load_text(text, path, kind_of(path)), 0)]
        return [(load_text(line, path, "json"), i) for i, line in enumerate(text.split("\n")) if line.strip()]
    except LoadError:
        return None


def _loads(path: str, text: str) -> bool:
    return _documents(path, text) is not None


def _read_back(path: str, text: str, cache: dict) -> tuple | None:
    """(line starts, keys, values) of a file as its loader reads it: ``keys`` maps the (line,
    column) of every mapping key to the key, ``values`` that of every scalar value to the value."""
    if path in cache:
        return cache[path]
    docs = _documents(path, text)
    found = None
    if docs is not None:
        keys: dict[tuple[int, int], object] = {}
        values: dict[tuple[int, int], object] = {}
        for loaded, shift in docs:
            stack = [loaded.located]
            while stack:
                node = stack.pop()
                if isinstance(node, YMap):
                    for key, value in node.items():
                        kl, kc = node.kpos[key]
                        keys[(kl + shift, kc)] = key
                        _add_value(values, stack, value, node.vpos[key], shift)
                elif isinstance(node, YSeq):
                    for value, pos in zip(node, node.ipos):
                        _add_value(values, stack, value, pos, shift)
        found = (line_starts(text, yaml=docs[0][0].kind == "yaml"), keys, values)
    cache[path] = found
    return found


def _add_value(values: dict, stack: list, value: object, pos: tuple[int, int], shift: int) -> None:
    if isinstance(value, (YMap, YSeq)):
        stack.append(value)
    else:
        values[(pos[0] + shift, pos[1])] = value


def _is_token_of(token: str, quote: str, expected: object) -> bool:
    """True when the source token ``token`` spells the string ``expected``."""
    if not isinstance(expected, str):
        return False
    if not quote:
        return token == expected
    if quote == "'":
        return token[1:-1].replace("''", "'") == expected
    try:
        return load_text(token, "<token>", "yaml").data == expected
    except LoadError:
        return False


def _read(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text[1:] if text.startswith("\ufeff") else text


def _has_bom(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(3) == b"\xef\xbb\xbf"
    except OSError:
        return False


EVALS = "the skill's evals/ folder"
NOT_MOVED = "nothing moved"


def skill_evals(path: str) -> str | None:
    """The skill's ``evals/`` folder ``path`` lies in: the nearest folder above it named ``evals`` with
    SKILL.md in the folder above that; None when there is none (on disk, where the fix is applied)."""
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        if os.path.basename(folder) == "evals" and os.path.isfile(os.path.join(os.path.dirname(folder), "SKILL.md")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def apply(p: FixPlan) -> list[str]:
    """Write the edits (atomically, keeping a BOM the file had) and do the renames. Returns the
    paths changed."""
    changed = []
    for path, text in p.edits.items():
        data = text.encode("utf-8")
        if _has_bom(path):
            data = b"\xef\xbb\xbf" + data
        atomic_write(path, data)
        changed.append(path)
    for src, dst in p.renames:
        evals = skill_evals(src)
        if evals is None or os.path.exists(dst):
            continue
        try:
            guard.makedirs(evals, os.path.dirname(dst) or ".", what=EVALS, tail=NOT_MOVED)
            guard.check(evals, dst, "move a file to", what=EVALS, tail=NOT_MOVED)
            os.rename(src, dst)
        except OSError as exc:
            raise EvalfmtError(f"cannot move {src} to {dst}: {exc.strerror or exc}; move it by hand") from None
        changed.append(dst)
    return changed


def diff(p: FixPlan) -> str:
    """The plan as a unified diff (renames in git's style)."""
    out: list[str] = []
    for path in sorted(p.edits):
        a = p.originals[path].splitlines(keepends=True)
        b = p.edits[path].splitlines(keepends=True)
        rel = path.replace(os.sep, "/")
        for line in difflib.unified_diff(a, b, fromfile=f"a/{rel}", tofile=f"b/{rel}"):
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    for src, dst in p.renames:
        s, t = src.replace(os.sep, "/"), dst.replace(os.sep, "/")
        out.append(f"diff --git a/{s} b/{t}\nsimilarity index 100%\nrename from {s}\nrename to {t}\n")
    return "".join(out)
