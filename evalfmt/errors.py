"""Errors and diagnostics shared by every stage.

A :class:`Diagnostic` is a finding about an input file (a structural error, a lint finding);
an :class:`EvalfmtError` is a failure that stops a command (unreadable path, bad usage). Both print as
one line; neither ever carries a traceback to the user.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning", "info"]
SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}

#: Characters no name or id may hold (EV116) and no output file name is written with: C0 and C1
#: controls, DEL, the Unicode line and paragraph separators, and the bidi embeddings, overrides and
#: isolates (they reorder the text printed after them).
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
#: Line breaks and tabs: a run of them prints as one space on a one-line output.
_BREAK_CHARS = "\t\n\v\f\r\x85\u2028\u2029"
_BREAKS = re.compile(f"[{_BREAK_CHARS}]+")
#: Other characters that are invisible or reorder text: printed as ``[U+XXXX]``.
_INVISIBLE_CHARS = ("\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\u061c\u200b-\u200f\u202a-\u202e"
                    "\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb")
_INVISIBLE = re.compile(f"[{_INVISIBLE_CHARS}]")
_UNSAFE = re.compile(f"[{_BREAK_CHARS}{_INVISIBLE_CHARS}]")


def one_line(text: str) -> str:
    """``text`` safe to print as (part of) one line: every run of line breaks and tabs becomes one
    space (a value cannot start a new line, so it cannot forge a diagnostic or a CI annotation), and
    every other control, invisible or bidi character is shown as ``[U+XXXX]`` (an escape sequence
    cannot drive the terminal, an override cannot flip the rest of the line)."""
    if not _UNSAFE.search(text):
        return text
    text = _BREAKS.sub(" ", text)
    return _INVISIBLE.sub(_codepoint, text)


def _codepoint(m: re.Match) -> str:
    return f"[U+{ord(m.group()):04X}]"


def control_char(text: str) -> str | None:
    """The first character of ``text`` that no name may hold, as ``U+XXXX``; None when there is none."""
    m = CONTROL.search(text)
    return None if m is None else f"U+{ord(m.group()):04X}"


@dataclass(frozen=True, order=True)
class Pos:
    """A 1-based line and column (columns count characters, not bytes)."""

    line: int = 1
    column: int = 1


@dataclass
class Diagnostic:
    """One finding: ``path:line:col: CODE message``."""

    path: str
    line: int
    column: int
    code: str
    message: str
    severity: Severity = "error"
    fixable: bool = False
    # Extra data a fixer or reporter may use (never printed as is).
    data: dict = field(default_factory=dict, compare=False, repr=False)

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, self.code, self.message)

    def format(self) -> str:
        """One line: the path and message go through :func:`one_line`."""
        return f"{one_line(self.path)}:{self.line}:{self.column}: {self.code} {one_line(self.message)}"

    def to_json(self) -> dict:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
        }


def sort_diagnostics(diags: list[Diagnostic]) -> list[Diagnostic]:
    """Sorted by path, line, column, code; exact duplicates removed."""
    seen: set[tuple[str, int, int, str, str]] = set()
    out = []
    for d in sorted(diags, key=Diagnostic.sort_key):
        key = (d.path, d.line, d.column, d.code, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


@dataclass
class Validation:
    """What ``validate`` found (:func:`evalfmt.api.validate_paths`); here so the result cache can rebuild it."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: how many files were read (with findings or not)
    files: int = 0
    #: the folders given that hold no eval file
    empty: list[str] = field(default_factory=list)
    #: files left unread for want of evidence of their format (``path: why``)
    notes: list[str] = field(default_factory=list)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def counts_line(errors: int, warnings: int, infos: int, files: int) -> str:
    """``N errors, M warnings in K files`` (``, I info`` when there are any), as validate and lint print it."""
    parts = [plural(errors, "error"), plural(warnings, "warning")]
    if infos:
        parts.append(f"{infos} info")
    return f"{', '.join(parts)} in {plural(files, 'file')}"


class EvalfmtError(Exception):
    """A failure that ends a command with exit code 2 and one line on stderr."""

    exit_code = 2

    def __init__(self, message: str, path: str | None = None, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.column = column

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        return where + self.message


class UsageError(EvalfmtError):
    """Options that do not fit together (exit 2). Raised below the CLI (which never imports click
    there); the CLI prints it as click prints its own usage errors, with the command's ``--help`` hint."""


class LoadError(EvalfmtError):
    """A file that cannot be loaded (not valid YAML/JSON, too large, too deep, ...). Reported as EV100."""

    code = "EV100"

    def to_diagnostic(self) -> Diagnostic:
        return Diagnostic(self.path or "-", self.line or 1, self.column or 1, self.code, self.message, "error")
