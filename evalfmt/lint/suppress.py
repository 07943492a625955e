"""Suppression comments.

- ``# evalfmt: noqa: EV204`` (or ``EV204, EV205``) at the end of a line silences those codes on that
  line only;
- ``# evalfmt: noqa-file: EV203`` in a file's first comment block (the comment and blank lines at
  its top; in SKILL.md after the opening ``---``) silences them for the whole file.

In Markdown the same text may sit in an HTML comment: ``<!-- evalfmt: noqa: HYG2 -->``. A
suppression that silenced nothing is reported as EV001 (like ruff's unused-noqa), and so is one that
names no code or an unknown code: a blanket ``noqa`` is not accepted, say what you silence.

ruff's spelling works too: ``# noqa: EV204`` (``NOQA`` as well). Such a comment may also name other
tools' codes (``# noqa: E501, EV204``): only evalfmt's codes (``EV``/``HYG`` and installed plugins'
codes) are read from it, the rest is left to those tools, and a ``# noqa`` without evalfmt codes
(blanket, or only other tools' codes) is not evalfmt's and is ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import Diagnostic

MARK = "evalfmt:"
_COMMENT = re.compile(
    r"(?:#|<!--)[ \t]*(?:(?P<ours>evalfmt:)[ \t]*noqa(?P<file>-file)?|(?:noqa|NOQA)(?=[ \t]*:))"
    r"(?P<rest>[^\n]*?)[ \t]*(?:-->)?[ \t]*\r?$")
_OUR_CODE = re.compile(r"(?:EV|HYG)[0-9]+\Z")
_CODES = re.compile(r"[ \t]*:[ \t]*(?P<codes>[A-Za-z0-9][A-Za-z0-9 \t,]*)$")


@dataclass
class Suppression:
    path: str
    line: int
    column: int
    file_level: bool
    codes: list[str]
    problem: str | None = None
    used: set[str] = field(default_factory=set)


def scan(path: str, text: str, known=()) -> list[Suppression]:
    """The suppression comments in one file. ``known``: the codes of the rules installed (so that a
    plugin's code in ruff's ``# noqa:`` spelling counts as evalfmt's)."""
    if "noqa" not in text and "NOQA" not in text:
        return []
    out: list[Suppression] = []
    lines = text.split("\n")
    header_end = _first_block_end(lines)
    for i, line in enumerate(lines):
        if "noqa" not in line and "NOQA" not in line:
            continue
        for m in _COMMENT.finditer(line):
            if not _outside_quotes(line, m.start()):
                continue
            file_level = bool(m.group("file"))
            rest = m.group("rest")
            cm = _CODES.match(rest)
            codes = [c.upper() for c in re.split(r"[,\s]+", cm.group("codes")) if c] if cm else []
            if not m.group("ours"):  # ruff's spelling: only evalfmt's codes, the rest is another tool's
                codes = [c for c in codes if _OUR_CODE.match(c) or c in known]
                if not codes:
                    continue
            s = Suppression(path, i + 1, m.start() + 1, file_level, codes)
            if not codes:
                s.problem = "a suppression must name the codes it silences, like '# evalfmt: noqa: EV204'"
            elif file_level and i >= header_end:
                s.problem = ("'noqa-file' works only in the file's first comment block: move it to the top "
                             "of the file")
            out.append(s)
    return out


def _first_block_end(lines: list[str]) -> int:
    """Index of the first line after the leading comment block."""
    i = 0
    if lines and lines[0].strip() == "---":
        i = 1
    while i < len(lines):
        s = lines[i].strip()
        if s and not (s.startswith("#") or s.startswith("<!--")):
            break
        i += 1
    return i


def _outside_quotes(line: str, index: int) -> bool:
    """True when ``index`` is not inside a quoted YAML scalar on this line (a rough, line-local test)."""
    single = double = False
    i = 0
    while i < index:
        c = line[i]
        if c == "\\" and double:
            i += 2
            continue
        if c == "'" and not double:
            single = not single
        elif c == '"' and not single:
            double = not double
        i += 1
    return not single and not double


def apply(diags: list[Diagnostic], suppressions: dict[str, list[Suppression]]) -> list[Diagnostic]:
    """The diagnostics no suppression silences (suppressions record which codes they used)."""
    if not suppressions:
        return diags
    kept = []
    for d in diags:
        silenced = False
        for s in suppressions.get(d.path, ()):
            if s.problem is not None or d.code not in s.codes:
                continue
            if s.file_level or s.line == d.line:
                s.used.add(d.code)
                silenced = True
        if not silenced:
            kept.append(d)
    return kept
