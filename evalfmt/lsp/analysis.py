"""What the language server knows, without any protocol: which folder to lint for an open file, the
findings of that lint over the editor's unsaved texts, the quick fixes and noqa comments for a
finding, and the rule documentation shown on hover.

Everything goes through the lint engine's public entry points (:func:`evalfmt.lint.lint`, the fix
planner of ``--fix``, the suppression scanner, the rule registry), so the editor shows exactly what
``evalfmt lint`` prints for the same files and configuration. The editor's texts are handed to the
readers the way ``evalfmt lint -`` hands them stdin: as the virtual files of the
:class:`evalfmt.fsview.View` the lint reads through (never through state shared by the process).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field

from ..errors import Diagnostic, EvalfmtError, LoadError, one_line
from ..fsview import View
from ..lint import fix, lint, suppress
from ..lint.docs import rule_markdown
from ..lint.fix import token_span
from ..lint.registry import registry
from ..load import load_text, max_bytes_default

SKILL_FILE = "SKILL.md"
#: how many folders up from an open file a SKILL.md is looked for
_SKILL_DEPTH = 6


# ------------------------------------------------------------------------------------- overlay


class Overlay:
    """The texts the editor holds open (path -> text), seen by the readers in place of the files."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}
        self._bytes: dict[str, bytes] = {}

    def put(self, path: str, text: str) -> None:
        key = os.path.abspath(path)
        self.texts[key] = text
        self._bytes[key] = text.encode("utf-8", errors="surrogateescape")

    def drop(self, path: str) -> None:
        key = os.path.abspath(path)
        self.texts.pop(key, None)
        self._bytes.pop(key, None)

    def view(self) -> View:
        """The disk as the readers see it with the editor's texts in place of the files."""
        return View(self._bytes)

    def exists(self, path: str) -> bool:
        return os.path.abspath(path) in self.texts or os.path.isfile(path)


def read_unopened(path: str) -> str | None:
    """The text of a file the editor has not opened (a request may name any URI): only a regular file
    within the size limit (``EVALFMT_MAX_BYTES``), opened without blocking (a FIFO, a device, a socket
    is never read), decoded as UTF-8; None for anything else."""

    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
        limit = max_bytes_default()
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        data = b""
        while len(data) <= limit:  # the file may grow while it is read: never past the limit
            chunk = os.read(fd, limit + 1 - len(data))
            if not chunk:
                break
            data += chunk
        if len(data) > limit:
            return None
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    finally:
        os.close(fd)


def skill_of(path: str, overlay: Overlay | None = None) -> str | None:
    """The skill folder (holding SKILL.md, saved or open) an open file belongs to, or None."""
    folder = os.path.dirname(os.path.abspath(path))
    for _ in range(_SKILL_DEPTH):
        md = os.path.join(folder, SKILL_FILE)
        if os.path.isfile(md) or (overlay is not None and md in overlay.texts):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return None


# ---------------------------------------------------------------------------------- diagnostics


@dataclass
class Findings:
    """One lint of an open file: the findings per file (absolute path), and the run's problem (a
    configuration error: what ``evalfmt lint`` would exit 2 with) if any."""

    by_path: dict[str, list[Diagnostic]] = field(default_factory=dict)
    problem: str | None = None
    skill: str | None = None


def diagnose(path: str, overlay: Overlay) -> Findings:
    """Lint what ``evalfmt lint`` would lint for the open file ``path``: its whole skill folder when
    it sits in one (rules that compare the skill's files need all of them), else the file alone. A
    file no format recognises gets no findings (as with ``--skip-unrecognized``)."""
    path = os.path.abspath(path)
    skill = skill_of(path, overlay)
    targets = [skill] if skill is not None else []
    if skill is None or not os.path.exists(path):  # an unsaved new file is not found by the folder walk
        targets.append(path)
    out = Findings(skill=skill)
    try:
        result = lint(targets, skip_unrecognized=True, fs=overlay.view())
    except EvalfmtError as exc:
        out.problem = one_line(str(exc))
        return out
    for d in result.diagnostics:
        out.by_path.setdefault(os.path.abspath(d.path), []).append(d)
    return out


def token_end(line: str, column: int) -> int:
    """The end (0-based, exclusive) of the word, key or quoted scalar starting at 0-based ``column``
    of ``line``: what an editor underlines for a finding there (at least one character)."""
    span = token_span(line, column, "key") if column < len(line) else None
    if span is None:
        return min(len(line), column + 1) if column < len(line) else column
    return span[1]


# ------------------------------------------------------------------------------------ quick fixes


@dataclass
class Edit:
    """One change to the text of an open file: replace [start, end) (offsets) with ``new``."""

    start: int
    end: int
    new: str


def fix_edit(d: Diagnostic, text: str) -> Edit | tuple[str, str] | None:
    """The ``--fix`` fix of one finding against the editor's text: a text edit, a file move
    ``(from, to)``, or None when ``--fix`` has none (or refuses it for this text)."""
    if not fix.can_fix(d):
        return None
    plan = fix.plan([d], {d.path: text})
    if plan.renames:
        return plan.renames[0]
    new = plan.edits.get(d.path)
    if new is None:
        return None
    return minimal_edit(text, new)


def fix_title(d: Diagnostic, fix: Edit | tuple[str, str]) -> str:
    """What the quick fix does, as the editor lists it."""
    if isinstance(fix, tuple):
        return f"Fix {d.code}: move the file to {fix[1]}"
    data = d.data.get("fix")
    new = None
    if isinstance(data, dict):
        new = data.get("rename", data.get("replace"))
    if not isinstance(new, str):
        new = d.data.get("suggestion")
    return f"Fix {d.code}: write '{new}'" if isinstance(new, str) else f"Fix {d.code}"


def minimal_edit(old: str, new: str) -> Edit:
    """The one replacement turning ``old`` into ``new`` (common prefix and suffix kept)."""
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    return Edit(start, end_old, new[start:end_new])


_NOQA = re.compile(r"(?:#|<!--)[ \t]*evalfmt:[ \t]*noqa:")
_CODE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 \t,")


def _with_code(body: str, code: str) -> str | None:
    """``body`` with ``code`` added to the line-level noqa comment that ends it, or None."""
    found = list(_NOQA.finditer(body))
    m = found[-1] if found else None
    if m is None:
        return None
    rest = body[m.end():]
    tail = ""
    if body[m.start()] == "<":
        stripped = rest.rstrip(" \t")
        if not stripped.endswith("-->"):
            return None
        tail = rest[len(stripped) - 3:]
        rest = stripped[:-3]
    if not rest.strip(" \t,") or not set(rest) <= _CODE_CHARS:
        return None
    codes = rest.rstrip(" \t,")
    return body[:m.end()] + codes + f", {code}" + (" " + tail.lstrip(" \t") if tail else "")
_HASH_SUFFIXES = (".yaml", ".yml", ".sh", ".bash", ".py", ".toml", ".txt")


def noqa_edit(d: Diagnostic, text: str) -> Edit | None:
    """The edit adding ``# evalfmt: noqa: CODE`` (``<!-- ... -->`` in Markdown) at the end of the
    finding's line, or adding CODE to the noqa comment already there. None where the file type has
    no comments (JSON, TypeScript) or where the comment would change what the file means (inside a
    YAML block scalar): the edited text must load to the same data and the scanner must read the
    suppression back."""
    lines = text.split("\n")
    if not 1 <= d.line <= len(lines):
        return None
    line = lines[d.line - 1]
    body = line[:-1] if line.endswith("\r") else line
    name = d.path.lower()
    extended = _with_code(body, d.code)
    if extended is not None:
        new_line = extended
    elif name.endswith(".md"):
        front = _in_front_matter(lines, d.line)
        comment = f"# evalfmt: noqa: {d.code}" if front else f"<!-- evalfmt: noqa: {d.code} -->"
        new_line = body.rstrip(" \t") + ("  " if body.strip() else "") + comment
    elif name.endswith(_HASH_SUFFIXES):
        new_line = body.rstrip(" \t") + ("  " if body.strip() else "") + f"# evalfmt: noqa: {d.code}"
    else:
        return None
    offset = sum(len(x) + 1 for x in lines[: d.line - 1])
    new_text = text[:offset] + new_line + text[offset + len(body):]
    found = [s for s in suppress.scan(d.path, new_text, registry().rules)
             if s.line == d.line and d.code in s.codes and s.problem is None and not s.file_level]
    if not found or not _same_data(d.path, text, new_text):
        return None
    return Edit(offset, offset + len(body), new_line)


def _in_front_matter(lines: list[str], line: int) -> bool:
    if not lines or lines[0].rstrip("\r") != "---":
        return False
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r") in ("---", "..."):
            return 1 < line <= i
    return False


def _same_data(path: str, old: str, new: str) -> bool:
    """True unless ``path`` is YAML and the edit changed what it loads to (or made it unloadable)."""
    if not path.lower().endswith((".yaml", ".yml")):
        return True
    try:
        before = load_text(old, path, "yaml").data
    except LoadError:
        return True  # a file that does not load: the comment cannot make it worse
    try:
        return bool(load_text(new, path, "yaml").data == before)
    except LoadError:
        return False


# ------------------------------------------------------------------------------------------ hover

_WORD = re.compile(r"[A-Za-z0-9_-]+")
_CODE = re.compile(r"(?:EV|HYG)[0-9]+\Z")


def word_at(line: str, column: int) -> str | None:
    """The word (letters, digits, ``_``, ``-``) under 0-based ``column``."""
    for m in _WORD.finditer(line):
        if m.start() <= column <= m.end():
            return m.group()
    return None


def rule_help(code: str) -> str | None:
    """The rule's documentation as Markdown (what ``rules --explain`` says), or None for no rule."""
    rule = registry().rules.get(code)
    if rule is None:
        return None
    return rule_markdown(rule)


def hover_text(line: str, column: int, findings: list[Diagnostic]) -> str | None:
    """Hover on a rule code (in a noqa comment, say) or on a flagged token: the explanation of the
    rule(s). ``findings``: the findings whose range holds the position."""
    parts: list[str] = []
    word = word_at(line, column)
    if word is not None and _CODE.match(word):
        doc = rule_help(word)
        if doc is not None:
            parts.append(doc)
    seen = set()
    for d in findings:
        if d.code in seen:
            continue
        seen.add(d.code)
        doc = rule_help(d.code)
        parts.append(f"**{d.code}** {d.message}\n\n" + (doc or ""))
    return "\n---\n\n".join(p.rstrip("\n") for p in parts) if parts else None
