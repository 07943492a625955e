"""What a rule sees: the eval sets, the documents they were read from, skill folders, and helpers
that turn IR spans into exact positions. Rules never open or parse files; this module does it once
(SKILL.md frontmatter, the bytes of a skill's other files) and caches what it read. Whatever a rule
must look at on disk beyond that (a committed transpile output, a path a SKILL.md names) it looks at
through ``ctx.fs`` (:class:`evalfmt.fsview.View`): what it looked at is then an input of its cached
result like every file the readers read.
"""

from __future__ import annotations

import bisect
import os
import re
import stat as statmod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import frontmatter
from ..errors import Diagnostic, LoadError, Pos, Severity, one_line
from ..fsview import TooLarge, View
from ..load import Loaded, YMap, YSeq, load_text

if TYPE_CHECKING:  # pragma: no cover
    from ..ir import Node, Span

#: How much of a file decides whether it is text (terum: no NUL in the first 8 KiB).
TEXT_PROBE = 8192
#: a skill's files are read whole, whatever their size (hygiene looks at every byte, as terum does)
_UNLIMITED = 1 << 62


def shown(text: str, limit: int = 80) -> str:
    """A value quoted in a message: on one line (whitespace collapsed), cut to ``limit`` characters."""
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


#: What the YAML parser (libyaml, YAML 1.1) counts as a line break: CRLF as one, a lone CR, LF, NEL,
#: U+2028 and U+2029. A position the loader reports is a line of this count.
_YAML_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_RARE_BREAKS = ("\r", "\x85", "\u2028", "\u2029")


def line_starts(text: str, yaml: bool = False) -> list[int]:
    """Offsets where each line begins: lines end at LF, or (``yaml``) wherever the YAML parser ends
    one (see ``_YAML_BREAK``), so that a (line, column) from the YAML loader maps to its offset."""
    if yaml and any(b in text for b in _RARE_BREAKS):
        return [0] + [m.end() for m in _YAML_BREAK.finditer(text)]
    starts = [0]
    find = text.find
    i = find("\n")
    while i >= 0:
        starts.append(i + 1)
        i = find("\n", i + 1)
    return starts


def offset_to_pos(text: str, offset: int, starts: list[int] | None = None) -> Pos:
    """1-based line and column (in characters) of ``offset`` in ``text``."""
    if starts is None:
        line = text.count("\n", 0, offset) + 1
        return Pos(line, offset - (text.rfind("\n", 0, offset) + 1) + 1)
    i = bisect.bisect_right(starts, offset) - 1
    return Pos(i + 1, offset - starts[i] + 1)


# ------------------------------------------------------------------------------------ skill folders


@dataclass
class SkillFile:
    """One regular file of a skill folder, as hygiene sees it."""

    rel: str  # relative to the skill folder, '/'-separated
    path: str  # as printed in diagnostics
    fs: View = field(repr=False)  # where its text is read
    mode: int = 0
    size: int = 0
    _text: Any = field(default=None, repr=False)
    _read: bool = field(default=False, repr=False)
    #: text already loaded by a reader (BOM stripped); used instead of reading the file again
    loaded_text: str | None = field(default=None, repr=False)

    @property
    def executable(self) -> bool:
        return bool(self.mode & 0o111)

    @property
    def text(self) -> str | None:
        """The file decoded as terum decodes it: None for binary (a NUL in the first 8 KiB) or
        invalid UTF-8; a leading BOM is kept (HYG2 counts it)."""
        if not self._read:
            self._read = True
            self._text = self._decode()
        return self._text

    def _decode(self) -> str | None:
        raw = self.fs.virtual_bytes(self.path)  # an editor's unsaved text (evalfmt lsp), or stdin
        if raw is not None:
            if b"\x00" in raw[:TEXT_PROBE]:
                return None
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError:
                return None
        if self.loaded_text is not None:
            text = self.loaded_text
            # The loader drops a leading BOM; the byte count says whether there was one.
            utf8_len = len(text) if text.isascii() else len(text.encode("utf-8"))
            if self.size - utf8_len == 3:
                text = "\ufeff" + text
            return text
        try:
            raw = self.fs.read_head(self.path, TEXT_PROBE)
            if b"\x00" in raw:
                return None
            if len(raw) == TEXT_PROBE:  # (a binary file is told by its head: only a text one is read whole)
                raw = self.fs.read_bytes(self.path, _UNLIMITED)
        except (OSError, TooLarge):
            return None
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return None


@dataclass
class SkillFolder:
    """A skill folder (holding SKILL.md) that skill-scope rules look at.

    ``whole`` is True when the folder itself was linted (every file is checked by the per-file
    hygiene rules); False when only some of its files were given (``files`` holds just those, and
    the folder-level rules are not run).
    """

    path: str
    name: str
    fs: View = field(repr=False)  # where its files are looked at
    whole: bool = True
    files: list[SkillFile] = field(default_factory=list)
    _md: Any = field(default=None, repr=False)

    @property
    def skill_md(self) -> str:
        return os.path.join(self.path, "SKILL.md")

    @property
    def md(self) -> SkillMd:
        if self._md is None:
            self._md = SkillMd.read(self.skill_md, self._file("SKILL.md"), self.fs)
        return self._md

    def _file(self, rel: str) -> SkillFile | None:
        for f in self.files:
            if f.rel == rel:
                return f
        return None


@dataclass
class SkillMd:
    """SKILL.md as terum reads it: the text (BOM kept), the frontmatter block and its YAML."""

    path: str
    exists: bool = False
    text: str | None = None
    match: Any = None  # the frontmatter block (``frontmatter.Block``), terum's rule
    loaded: Loaded | None = None  # the frontmatter YAML, positions relative to the block
    data: Any = None  # the parsed frontmatter (None when absent or invalid)
    error: LoadError | None = None
    line_offset: int = 0  # lines before the frontmatter block

    @classmethod
    def read(cls, path: str, file: SkillFile | None, fs: View) -> SkillMd:
        md = cls(path)
        if file is None:
            if not fs.exists(path):
                return md
            file = SkillFile("SKILL.md", path, fs)
        md.exists = fs.isfile(path)
        md.text = file.text
        if md.text is None:
            return md
        md.match = frontmatter.find(md.text)
        if md.match is None:
            return md
        md.line_offset = md.text.count("\n", 0, md.match.start)
        try:
            loaded = load_text(md.match.yaml, path)
        except LoadError as exc:
            md.error = exc
            return md
        if loaded.duplicates:
            # terum's YAML parser refuses duplicate keys: the frontmatter does not parse.
            dup = loaded.duplicates[0]
            md.error = LoadError(f"duplicate key '{dup.key}'", path, dup.second.line, dup.second.column)
            md.loaded = loaded
            return md
        md.loaded = loaded
        md.data = loaded.data
        return md

    def pos(self, *path: str | int) -> Pos:
        """Position in SKILL.md of a frontmatter value (the block's start when absent)."""
        if self.loaded is None:
            return Pos(1, 1)
        p = self.loaded.pos(*path)
        return Pos(p.line + self.line_offset, p.column)

    def key_pos(self, *path: str | int) -> Pos:
        if self.loaded is None:
            return Pos(1, 1)
        p = self.loaded.key_pos(*path)
        return Pos(p.line + self.line_offset, p.column)

    @property
    def body_start(self) -> int:
        """Offset in ``text`` where the body starts (after the frontmatter block, terum's rule)."""
        if self.text is None:
            return 0
        block = frontmatter.find(self.text, spaced_close=True)
        return block.after if block else 0


def skill_name(folder: str) -> str:
    """The name terum validates a skill folder under: its basename, or for a published version
    folder ``skills/<name>/v<N>/`` the ``<name>``."""
    full = os.path.abspath(folder)
    base = os.path.basename(full)
    if re.fullmatch(r"v\d+", base):
        return os.path.basename(os.path.dirname(full))
    return base


def scan_skill(folder: str, documents: dict[str, Loaded], fs: View) -> list[SkillFile]:
    """Every regular file under a skill folder (symlinks are not followed), sorted by relative path."""
    out: list[SkillFile] = []
    stack = [(folder, "")]
    while stack:
        current, rel = stack.pop()
        try:
            entries = fs.scandir(current)
        except OSError:
            continue
        for entry in entries:
            key = f"{rel}/{entry.name}" if rel else entry.name
            if entry.kind == "d":
                stack.append((entry.path, key))
                continue
            if entry.kind != "f":
                continue
            st = fs.lstat(entry.path)
            if st is None or not statmod.S_ISREG(st[0]):
                continue
            f = SkillFile(key, entry.path, fs, st[0], st[1])
            doc = documents.get(entry.path)
            if doc is not None:
                f.loaded_text = doc.text
            out.append(f)
    out.sort(key=lambda f: f.rel)
    return out


def single_file(path: str, skill_dir: str | None, documents: dict[str, Loaded], fs: View) -> SkillFile | None:
    st = fs.lstat(path)
    if st is None or not statmod.S_ISREG(st[0]):
        return None
    rel = os.path.relpath(path, skill_dir).replace(os.sep, "/") if skill_dir else os.path.basename(path)
    f = SkillFile(rel, path, fs, st[0], st[1])
    doc = documents.get(path)
    if doc is not None:
        f.loaded_text = doc.text
    return f


# ------------------------------------------------------------------------------------------ context


class Context:
    """Shared state of one lint run over some eval sets and skill folders."""

    def __init__(self, documents: dict[str, Loaded], options: dict[str, dict[str, Any]] | None = None, *,
                 fs: View):
        self.documents = documents
        #: the file system as the readers saw it: what a rule looks at beyond the documents and the skill
        #: folders' files goes through it (so that a cached result knows it as an input)
        self.fs = fs
        self.diagnostics: list[Diagnostic] = []
        self._options = options or {}
        self._index: dict[str, dict[tuple[int, int], tuple]] = {}
        self._starts: dict[str, list[int]] = {}
        #: per-rule scratch space (code -> anything) for rules with a ``finish`` step
        self.state: dict[str, Any] = {}
        #: the files named on the command line (as pre-commit passes them), normalised, whether or not
        #: a reader read them (EV505 finds the sources of a generated file given by its path)
        self.given: list[str] = []

    # ------------------------------------------------------------------------------ reporting

    def options(self, rule) -> dict[str, Any]:
        merged = dict(rule.options)
        merged.update(self._options.get(rule.code, {}))
        return merged

    def report(self, rule, path: str, pos: Pos | tuple[int, int], message: str, severity: Severity | None = None,
               **data) -> None:
        line, column = (pos.line, pos.column) if isinstance(pos, Pos) else pos
        fix = bool(rule.fixable and data.get("fix"))
        message = one_line(message)
        self.diagnostics.append(Diagnostic(path, line, column, rule.code, message, severity or rule.severity,
                                           fixable=fix, data=data))

    # ------------------------------------------------------------------------------ positions

    def doc(self, path: str | None) -> Loaded | None:
        return self.documents.get(path) if path else None

    def locate(self, span: Span | None) -> tuple[Loaded, tuple] | None:
        """The document and the data path of the node an IR span points at."""
        if span is None:
            return None
        loaded = self.documents.get(span.file)
        if loaded is None:
            return None
        index = self._index.get(span.file)
        if index is None:
            index = self._index[span.file] = _index_positions(loaded.located)
        path = index.get((span.line, span.column))
        return None if path is None else (loaded, path)

    def value_pos(self, node: Node, key: str | None = None) -> Pos:
        """Position of a node's value (of its ``key`` when given and present), else of its span."""
        span = node.span
        found = self.locate(span)
        if found is not None and key is not None:
            loaded, path = found
            if loaded.has(*path, key):
                return loaded.pos(*path, key)
        if span is None:
            return Pos(1, 1)
        return Pos(span.line, span.column)

    def check_arg_pos(self, check: Node) -> Pos:
        """Position of a terum check's argument (``{transcript_mentions: X}``: where X is)."""
        found = self.locate(check.span)
        if found is not None:
            loaded, path = found
            node = _get(loaded.located, path)
            if isinstance(node, dict) and len(node) == 1:
                return loaded.pos(*path, next(iter(node)))
        return self.value_pos(check)

    def text_pos(self, path: str, value_pos: Pos, value: str, offset: int, length: int = 1) -> Pos:
        """Position of character ``offset`` of the string ``value`` written at ``value_pos`` in the
        document ``path``: exact for literal blocks (``|``) and one-line scalars; for other styles
        the same text is looked up in the source after the value's start."""
        loaded = self.documents.get(path)
        if loaded is None or offset < 0:
            return value_pos
        text = loaded.text
        starts = self._starts.get(path)
        if starts is None:
            starts = self._starts[path] = line_starts(text, yaml=loaded.kind == "yaml")
        if not (1 <= value_pos.line <= len(starts)):
            return value_pos
        start = starts[value_pos.line - 1] + value_pos.column - 1
        if start >= len(text):
            return value_pos
        head = text[start]
        before = value[:offset]
        exact = None
        if head == "|":
            exact = _literal_block_pos(text, starts, start, value_pos, before, offset)
        elif "\n" not in before and head != ">":
            exact = _one_line_pos(text, start, value_pos, before, offset)
        if exact is not None:
            return exact
        needle = value[offset: offset + max(1, length)]
        return _search_pos(text, starts, start, needle, value.count(needle, 0, offset)) or value_pos


def _literal_block_pos(text: str, starts: list[int], start: int, value_pos: Pos, before: str,
                       offset: int) -> Pos | None:
    """In a literal block (``|`` at ``start``), where character ``offset`` (after ``before``) is: its
    content line, at the block's indentation plus its column in that line."""
    if text.find("\n", start) < 0:
        return None
    line_idx = value_pos.line + before.count("\n")  # 0-based index of the content line
    col_in_line = offset - (before.rfind("\n") + 1)
    indent = _block_indent(text, starts, value_pos.line)
    if indent is not None and line_idx < len(starts):
        return Pos(line_idx + 1, indent + col_in_line + 1)
    return None


def _one_line_pos(text: str, start: int, value_pos: Pos, before: str, offset: int) -> Pos | None:
    """In a scalar on one line (quoted or plain, at ``start``), where character ``offset`` (after ``before``) is."""
    line_end = text.find("\n", start)
    line_text = text[start: len(text) if line_end < 0 else line_end]
    head = text[start]
    if head in ("'", '"'):
        inner = _quoted_prefix_len(line_text, head, offset)
        return Pos(value_pos.line, value_pos.column + 1 + inner) if inner is not None else None
    if line_text.startswith(before):
        return Pos(value_pos.line, value_pos.column + offset)
    return None


def _search_pos(text: str, starts: list[int], start: int, needle: str, earlier: int) -> Pos | None:
    """The position of the occurrence of ``needle`` after ``earlier`` others, looked up from ``start``."""
    if not needle:
        return None
    i = start
    for _ in range(earlier + 1):
        i = text.find(needle, i)
        if i < 0:
            return None
        i += 1
    return offset_to_pos(text, i - 1, starts)


def _get(node: Any, path: tuple) -> Any:
    for step in path:
        node = node[step]
    return node


def _index_positions(root: Any) -> dict[tuple[int, int], tuple]:
    """(line, column) -> data path of every mapping and sequence node (outermost wins)."""
    # Outermost first: shorter paths must win over the first key of a block mapping at the same spot.
    final: dict[tuple[int, int], tuple] = {}
    stack2: list[tuple[Any, tuple, tuple[int, int] | None]] = [(root, (), getattr(root, "pos", None))]
    while stack2:
        node, path, pos = stack2.pop()
        if pos is not None:
            prev = final.get(pos)
            if prev is None or len(path) < len(prev):
                final[pos] = path
        if isinstance(node, YMap):
            for key, value in node.items():
                stack2.append((value, path + (key,), node.vpos.get(key)))
        elif isinstance(node, YSeq):
            for i, value in enumerate(node):
                stack2.append((value, path + (i,), node.ipos[i] if i < len(node.ipos) else None))
    return final


def _block_indent(text: str, starts: list[int], header_line: int) -> int | None:
    """Indentation of a block scalar's content (the first non-blank line after the header)."""
    header = text[starts[header_line - 1]: text.find("\n", starts[header_line - 1])]
    m = re.search(r"[|>]([1-9])?[+-]?([1-9])?\s*(?:#|\Z)", header)  # header: one line
    explicit = None
    if m and (m.group(1) or m.group(2)):
        parent_indent = len(header) - len(header.lstrip(" "))
        explicit = parent_indent + int(m.group(1) or m.group(2))
    if explicit is not None:
        return explicit
    for i in range(header_line, len(starts)):
        end = starts[i + 1] - 1 if i + 1 < len(starts) else len(text)
        line = text[starts[i]:end]
        if line.strip():
            return len(line) - len(line.lstrip(" "))
    return None


def _quoted_prefix_len(line: str, quote: str, offset: int) -> int | None:
    """Source characters (after the opening quote) that encode the first ``offset`` characters."""
    i = 1
    produced = 0
    while produced < offset:
        if i >= len(line):
            return None
        ch = line[i]
        if ch == quote:
            if quote == "'" and i + 1 < len(line) and line[i + 1] == "'":
                i += 2
                produced += 1
                continue
            return None
        if quote == '"' and ch == "\\":
            nxt = line[i + 1: i + 2]
            width = {"x": 4, "u": 6, "U": 10}.get(nxt, 2)
            i += width
            produced += 1
            continue
        i += 1
        produced += 1
    return i - 1
