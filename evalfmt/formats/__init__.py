"""The format registry: one module per format, each exposing a :class:`Format`.

A format module defines ``FORMAT = Format(...)`` with:

- ``name``: the public name (``terum``, ``agentv``, ...; see CLI.md);
- ``detect(path, fs=...) -> bool``: structural detection by file name and, where needed, a cheap peek at the
  top-level keys (:func:`peek_keys`), never by trial parsing;
- ``read(path, fs=...) -> ReadResult``: never raises on bad content; structural problems become diagnostics
  (EV1xx) and the IR keeps whatever could be read;
- ``write(evalset, existing) -> WriteResult``: pure (no I/O); ``existing`` maps output paths to the
  current text of files about to be overwritten, so YAML writers can keep comments and key order;
  every field the format cannot hold is reported as a :class:`Loss`.

``detect`` and ``read`` look at the disk only through the :class:`evalfmt.fsview.View` they are given
(``fs``): never ``open``, ``os.stat`` and the like (tests/cli/test_command_layers.py checks it).

Modules are imported lazily (``get(name)``) so that the CLI starts fast.
"""

from __future__ import annotations

import importlib
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from ..errors import Diagnostic, EvalfmtError, LoadError, Severity, one_line
from ..paths import plain_name as plain_name, plain_relpath as plain_relpath  # writers import them from here
from ..fsview import DISK, View
from ..load import JSON_TOKEN, Loaded, load_file, type_name

from ..suggest import near

if TYPE_CHECKING:  # pragma: no cover
    from ..ir import EvalSet, Span


@dataclass
class Loss:
    """Something a writer could not carry into the target format as the target's own meaning.

    ``kept`` is None for a real loss (the output does not hold it: ``lost:``); otherwise it names where
    the output keeps the value although the target's tools do not act on it (``metadata.terum.files``,
    a custom assertion type): converting back restores it. ``feature`` is the key of the writer's loss
    rule (``feature`` or ``feature/variant``; the feature is a row of ``docs/conversions.md``)."""

    where: str  # "file:line" of the source, or an IR path when there is no span
    what: str
    kept: str | None = None
    feature: str | None = None

    @property
    def lost(self) -> bool:
        return self.kept is None

    def format(self) -> str:
        return one_line(f"{'lost' if self.kept is None else 'kept'}: {self.where}: {self.what}")


def loss_at(span: Span | None, fallback: str, what: str, kept: str | None = None,
            feature: str | None = None) -> Loss:
    """A Loss located at a node's span (``file:line``), or at ``fallback`` when it has none."""
    return Loss(f"{span.file}:{span.line}" if span is not None else fallback, what, kept, feature)


class ReadResult:
    """What a reader read: eval sets (IR, built by the reader), diagnostics, and the loaded documents
    by path."""

    def __init__(self, sets: list[EvalSet] | None = None, diagnostics: list[Diagnostic] | None = None,
                 documents: dict[str, Loaded] | None = None):
        self.sets: list[EvalSet] = list(sets or [])
        self.diagnostics: list[Diagnostic] = list(diagnostics or [])
        self.documents: dict[str, Loaded] = dict(documents or {})
        #: files left unread for want of evidence of their format, as ``path: why`` lines (never a
        #: failure: commands print them on stderr as ``evalfmt: note: ...``)
        self.notes: list[str] = []

    def extend(self, other: ReadResult) -> None:
        self.sets.extend(other.sets)
        self.diagnostics.extend(other.diagnostics)
        self.documents.update(other.documents)
        self.notes.extend(n for n in other.notes if n not in self.notes)


@dataclass
class WriteResult:
    files: dict[str, str] = field(default_factory=dict)  # relative output path -> text
    losses: list[Loss] = field(default_factory=list)
    #: why nothing was written (``files`` empty): a file the format's tools and evalfmt could not read
    #: as that format is never produced
    nothing: str | None = None


@dataclass
class Format:
    name: str
    module: str
    description: str
    detect: Callable[..., bool]  # (path, *, fs)
    read: Callable[..., ReadResult]
    write: Callable[..., WriteResult] | None = None
    #: True when the writer produces exactly one file (so ``convert`` without ``-o`` can print it).
    single_file: bool = True
    #: default output file name for ``convert -o DIR``.
    default_name: str | None = None
    #: True when the format's trigger prompts belong to one skill: ``convert`` writes an eval set whose
    #: tests name several skills as one set per skill (:mod:`evalfmt.formats.by_skill`).
    one_skill: bool = False


#: Public names, in the order detection tries them, and their modules.
FORMAT_MODULES: dict[str, str] = {
    "ir": "ir_json",
    "terum": "terum",
    "agentv": "agentv",
    "agent-skills": "agent_skills",
    "skill-creator-triggers": "skill_creator_triggers",
    "skillgym": "skillgym",
    "promptfoo": "promptfoo",
}

_cache: dict[str, Format] = {}


def names() -> list[str]:
    return list(FORMAT_MODULES)


def get(name: str) -> Format:
    if name in _cache:
        return _cache[name]
    mod = FORMAT_MODULES.get(name)
    if mod is None:
        raise EvalfmtError(f"unknown format '{name}' (known: {', '.join(FORMAT_MODULES)})")
    try:
        module = importlib.import_module(f"{__name__}.{mod}")
    except ModuleNotFoundError as exc:
        if exc.name == f"{__name__}.{mod}":
            raise EvalfmtError(f"format '{name}' is not implemented yet") from None
        raise
    fmt: Format = module.FORMAT
    _cache[name] = fmt
    return fmt


def read_file(name: str, path: str, *, fs: View = DISK, **options: Any) -> ReadResult:
    """Read ``path`` through ``fs`` with format ``name`` (``options``: the reader's keyword arguments,
    such as terum's ``forced``), then the checks every format shares (EV116: a control character in a
    name or id). Every command reads through here (:func:`read_unit` for discovered units)."""
    from .names import check  # it loads the IR: 11 ms to import (python -X importtime), which a cached run never pays

    result = get(name).read(path, fs=fs, **options)
    check(result.sets, result.diagnostics, result.documents)
    return result


#: A cheap first look by name (no import, no I/O) before a format module's own ``detect`` runs, so
#: that finding a terum case file never imports the modules of the other formats.
_MAY_BE: dict[str, Callable[[str, View], bool]] = {
    "ir": lambda p, fs: p.lower().endswith(".json"),
    "terum": lambda p, fs: "evals" in parts(p)[:-1] or fs.isdir(p),
    "agentv": lambda p, fs: p.lower().endswith((".yaml", ".yml", ".jsonl", ".json")),
    "agent-skills": lambda p, fs: p.lower().endswith(".json"),
    "skill-creator-triggers": lambda p, fs: p.lower().endswith(".json"),
    "skillgym": lambda p, fs: p.lower().endswith((".ts", ".mts", ".cts", ".js", ".mjs")),
    "promptfoo": lambda p, fs: p.lower().endswith((".yaml", ".yml", ".json")),
}


def read_unit(unit: Any, *, fs: View = DISK) -> ReadResult:
    """Read one :class:`~evalfmt.discover.Unit`: its format's reader with the unit's options, or, for a
    file discovery left unread, just its note."""
    if unit.note is not None:
        result = ReadResult()
        result.notes.append(f"{unit.path}: {unit.note}")
        return result
    return read_file(unit.format, unit.path, fs=fs, **dict(unit.options))


def detect(path: str, *, fs: View = DISK) -> Format | None:
    """The format of one file, by structure; None when no format claims it."""
    for name in FORMAT_MODULES:
        may_be = _MAY_BE.get(name)
        if may_be is not None and not may_be(path, fs):
            continue
        try:
            fmt = get(name)
        except EvalfmtError:
            continue
        try:
            if fmt.detect(path, fs=fs):
                return fmt
        except OSError:
            return None
    return None


# ------------------------------------------------------------------------- detection helpers

_KEY_LINE = re.compile(r'^(?:"([^"\n]+)"|\'([^\'\n]+)\'|([A-Za-z_][\w.-]*))[ \t]*:(?:[ \t]|$)', re.M)



def head(path: str, size: int = 65536, *, fs: View = DISK) -> str:
    """The first ``size`` bytes of a file as text (errors replaced); '' when unreadable."""
    try:
        return fs.read_head(path, size).decode("utf-8", errors="replace")
    except OSError:
        return ""


def peek_keys(path: str, *, fs: View = DISK) -> set[str]:
    """Top-level keys of a YAML file (unindented ``key:`` lines) or the keys seen in a JSON file's head.
    A cheap structural look for detection, not a parse."""
    text = head(path, fs=fs)
    if path.lower().endswith(".json"):
        return {m.group(1) for m in JSON_TOKEN.finditer(text) if m.group(2)}
    return set(top_keys(text))


def top_keys(text: str) -> list[str]:
    """The unindented ``key:`` lines of a YAML text, in order, each once (what :func:`peek_keys` looks at)."""
    return list(dict.fromkeys(m.group(1) or m.group(2) or m.group(3) for m in _KEY_LINE.finditer(text)))


def first_char(path: str, *, fs: View = DISK) -> str:
    text = head(path, 4096, fs=fs).lstrip("\ufeff \t\r\n")
    return text[:1]


def basename(path: str) -> str:
    return os.path.basename(path.rstrip("/\\"))


def parts(path: str) -> list[str]:
    return os.path.normpath(path).replace("\\", "/").split("/")


# ------------------------------------------------------------------------------- output names


def hinted_name(name: object, default: str, where: str, losses: list[Loss]) -> str:
    """The output file name a hint asks for when it is :func:`plain_name`; otherwise ``default``, with a
    Loss naming the refused name (an IR file can hold any hint: ``../escaped.ts`` must not escape)."""
    if name is None or name == default:
        return default
    if plain_name(name):
        return name  # type: ignore[return-value]
    losses.append(Loss(where, f"file name '{name}' (not a plain file name; written as '{default}')"))
    return default


# ------------------------------------------------------------------------------- reading helpers


class Reporter:
    """Diagnostics at exact positions of one loaded document, and the spans of its nodes."""

    def __init__(self, loaded: Loaded, result: ReadResult):
        self.loaded = loaded
        self.result = result

    def span(self, *path: Any) -> Span:
        from ..ir import Span  # 11 ms to import (python -X importtime): loaded by the readers, not by a cached run

        p = self.loaded.pos(*path)
        return Span(self.loaded.path, p.line, p.column)

    def add(self, code: str, message: str, *path: Any, key: bool = False, severity: Severity = "error",
            fixable: bool = False, data: dict[str, Any] | None = None) -> None:
        p = self.loaded.key_pos(*path) if key else self.loaded.pos(*path)
        self.result.diagnostics.append(
            Diagnostic(self.loaded.path, p.line, p.column, code, message, severity, fixable, data or {}))

    def unknown_key(self, key: str, known: tuple[str, ...], *path: Any, severity: Severity = "warning",
                    otherwise: str = " (it is kept, but skill-creator ignores it)") -> None:
        close = near(key, known)
        hint = f" (did you mean '{close}'?)" if close else otherwise
        self.add("EV101", f"unknown key '{key}'{hint}", *path, key=True, severity=severity,
                 fixable=bool(close), data={"suggestion": close, "old": key} if close else None)

    def wrong_type(self, what: str, expected: str, value: Any, *path: Any) -> None:
        self.add("EV102", f"'{what}' must be {expected}, not a {type_name(value)}", *path)

    def duplicates(self) -> None:
        for dup in self.loaded.duplicates:
            self.result.diagnostics.append(Diagnostic(
                self.loaded.path, dup.second.line, dup.second.column, "EV114",
                f"duplicate key '{dup.key}' (first at line {dup.first.line}; the later value wins): remove one"))


def open_document(path: str, result: ReadResult, kind: str | None = None,
                  loader: Callable[..., Loaded] | None = None, *, fs: View) -> Reporter | None:
    """Load one file for a reader: on failure its EV100 goes into ``result`` and the answer is None;
    otherwise the document is recorded in ``result.documents``, its duplicate keys are EV114, and
    the answer is a :class:`Reporter` for it. ``loader`` (``loader(path, kind=...)``) loads the file
    as the format's own tool reads it (default: :func:`evalfmt.load.load_file`)."""
    try:
        loaded = (loader or load_file)(path, fs=fs, kind=kind)
    except LoadError as exc:
        result.diagnostics.append(exc.to_diagnostic())
        return None
    result.documents[path] = loaded
    rep = Reporter(loaded, result)
    rep.duplicates()
    return rep


def span_at(path: str, line: int = 1, column: int = 1) -> Span:
    """The span of a position in ``path`` (the whole file: 1:1)."""
    from ..ir import Span  # 11 ms to import (python -X importtime): loaded by the readers, not by a cached run

    return Span(path, line, column)
