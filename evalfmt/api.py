"""The library API behind the CLI: read, validate, convert, and safe writing of output files.

The CLI only parses arguments and prints; everything it does goes through here (or through the
API of a later stage: ``route``, ``lint``, ``run``). Nothing here prints.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from . import formats
from .discover import Unit, discover
from .errors import Diagnostic, EvalfmtError, Validation, sort_diagnostics  # noqa: F401 - the commands import them from here
from .formats import Loss, ReadResult
from .formats.computed import leave_out
from .fsio import atomic_write, copied_files, write_files  # noqa: F401 - the commands import them from here
from .fsview import DISK, View

from .formats.terum.paths import skill_root


def read_units(units: list[Unit], *, fs: View) -> ReadResult:
    result = ReadResult()
    for unit in units:
        result.extend(formats.read_unit(unit, fs=fs))
    return result


def read(path: str, fmt: str | None = None, *, fs: View = DISK) -> ReadResult:
    """Read every eval asset under ``path`` (a file or folder) into IR, with diagnostics (through
    ``fs``: the disk as it is, unless a caller gives its own view)."""
    return read_units(discover(path, force=fmt, fs=fs), fs=fs)


def read_many(paths: list[str], fmt: str | None = None, *, fs: View = DISK) -> ReadResult:
    result = ReadResult()
    for path in paths:
        result.extend(read(path, fmt, fs=fs))
    return result


def validate(paths: list[str], fmt: str | None = None, *, fs: View = DISK) -> list[Diagnostic]:
    """Structural validation (EV1xx): the readers' own diagnostics, sorted."""
    return sort_diagnostics(read_many(paths, fmt, fs=fs).diagnostics)


def validate_paths(paths: list[str], fmt: str | None = None, exclude=None, *, fs: View) -> Validation:
    """:func:`validate` that also counts the files read and names the folders holding none, looking at
    the disk through ``fs``. ``exclude``: a function giving the :class:`evalfmt.globs.Exclude` of a
    path (or None)."""
    out = Validation()
    result = ReadResult()
    files: set[str] = set()
    for path in paths:
        excl = exclude(path) if exclude is not None else None
        units = discover(path, force=fmt, exclude=excl, fs=fs)
        if all(u.note is not None for u in units) and fs.isdir(path):
            out.empty.append(path)  # nothing at all, or only files left unread (each has its note)
        part = read_units(units, fs=fs)
        if excl:  # files read as part of a skill's evals/ that a pattern names
            part.diagnostics = [d for d in part.diagnostics if not excl(d.path)]
        files.update(u.path for u in units if u.note is None and not fs.isdir(u.path))
        result.extend(part)
    files.update(result.documents)
    files.update(d.path for d in result.diagnostics)
    out.diagnostics = sort_diagnostics(result.diagnostics)
    out.files = len(files)
    out.notes = list(result.notes)
    return out


# ---------------------------------------------------------------------------------------- convert


@dataclass
class Conversion:
    files: dict[str, str] = field(default_factory=dict)  # output path -> text
    losses: list[Loss] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: the folder every file must stay inside (``-o DIR``, or the folder of ``-o FILE``); None without ``out``
    root: str | None = None
    #: ``where: why`` for each eval set the target format could not hold at all (nothing written for it)
    skipped: list[str] = field(default_factory=list)
    #: folders to copy into the output (output folder -> source folder): terum fixtures, which terum
    #: reads only inside the skill folder (see :mod:`evalfmt.rebase`)
    copies: dict[str, str] = field(default_factory=dict)
    #: files left unread for want of evidence of their format (see :mod:`evalfmt.discover`), one line each
    notes: list[str] = field(default_factory=list)
    #: output folders of terum files that hold no SKILL.md: every command skips such files (docs/discovery.md)
    no_skill_md: list[str] = field(default_factory=list)
    #: ``where: case 'name': why`` for each case left out because its prompt (or another field) is computed
    #: when its own tool runs it (:mod:`evalfmt.formats.computed`)
    left_out: list[str] = field(default_factory=list)


def convert(src: str, to: str, out: str | None = None, fmt: str | None = None) -> Conversion:
    """Convert the eval assets under ``src`` to format ``to``.

    Returns the files that would be written (paths joined onto ``out`` when given), the losses,
    the reader's diagnostics and the output folder (``root``) they must be written inside. Writes
    nothing: see :func:`write_files`.
    """
    target = formats.get(to)
    if target.write is None:
        raise EvalfmtError(f"format '{to}' cannot be written")
    result = read(src, fmt)
    errors = [d for d in result.diagnostics if d.severity == "error"]
    conv = Conversion(diagnostics=sort_diagnostics(result.diagnostics), notes=sorted(result.notes))
    if errors and not result.sets:
        return conv
    if not result.sets:  # a file left unread says why, and how to read it anyway
        raise EvalfmtError(conv.notes[0] if conv.notes else f"{src}: no eval assets found")
    sets = _per_skill(result.sets, target, conv.losses) if target.one_skill else result.sets
    several = len(sets) > 1
    if several and out is None:
        raise EvalfmtError(f"{src} holds {len(sets)} eval sets{_skills_of(sets, result.sets)}; give -o DIR to "
                           "write them all")
    conv.root = output_root(out, target, several)
    for i, evalset in enumerate(sets):
        _convert_set(conv, _Place(src, out, target, several, i), evalset)
    return conv


@dataclass
class _Place:
    """Where one eval set of a conversion goes: the source, ``-o``, the target, whether there are several
    sets, and this one's index among them."""

    src: str
    out: str | None
    target: Any
    several: bool
    index: int

    def folder(self, evalset) -> str:
        return _out_dir(self.out, self.src, self.target, self.several, evalset, self.index)

    def file(self, evalset, rel: str, main: bool) -> str:
        return _place(self.out, rel, self.target, self.several, evalset, self.index, main=main)


def _convert_set(conv: Conversion, at: _Place, evalset) -> None:
    """Rebase and write one eval set into ``conv``: its files, losses, copies, and what is skipped."""
    from .rebase import rebase  # 0.2 ms to import (python -X importtime): only to convert, not on validate's path

    out, target = at.out, at.target
    if evalset.format != target.name:
        evalset, left_out = leave_out(evalset)
        conv.left_out.extend(left_out)
    evalset, copies = rebase(evalset, target.name, at.folder(evalset), conv.losses if out is not None else None)
    if out is not None:
        conv.copies.update(copies)
    written = target.write(evalset)
    if not written.files:
        conv.losses.extend(written.losses)
        conv.skipped.append(f"{evalset.source or _subdir(evalset, at.index)}: {written.nothing or 'nothing to write'}")
        return
    places = {rel: at.file(evalset, rel, main=n == 0) for n, rel in enumerate(written.files)}
    if out is not None and target.name == "terum":
        _skill_folder_needed(at.folder(evalset), conv.no_skill_md)
    existing = _existing(places) if out is not None else {}
    if existing:  # write again over the current text, so YAML keeps its comments and key order
        written = target.write(evalset, existing=existing)
    conv.losses.extend(written.losses)
    for rel, text in written.files.items():
        conv.files[places.get(rel) or at.file(evalset, rel, main=False)] = text


def _skill_folder_needed(folder: str, missing: list[str]) -> None:
    if not os.path.isfile(os.path.join(folder, "SKILL.md")) and folder not in missing:
        missing.append(folder)


def _per_skill(sets: list, target, losses: list) -> list:
    """The eval sets a target whose trigger prompts belong to one skill writes: one per skill the tests
    of a set name (:mod:`evalfmt.formats.by_skill`); the tests that name none are losses."""
    from .formats.by_skill import split  # 0.2 ms to import (python -X importtime): only to convert (see rebase)

    out = []
    for evalset in sets:
        parts, lost = split(evalset)
        out.extend(parts)
        losses.extend(lost)
    return out


def _skills_of(sets: list, read: list) -> str:
    """`` (one per skill: a, b)`` when the sets are a split of what was read."""
    if len(sets) == len(read):
        return ""
    return f" (one per skill its tests name: {', '.join(s.skill.name for s in sets if s.skill)})"


def _out_dir(out: str | None, src: str, target, several: bool, evalset, index: int) -> str:
    """The folder the output of one eval set lives in (for terum: the skill folder). Without ``-o`` the
    output is taken to live where the source does."""
    if out is None:
        if evalset.format == "terum":
            return skill_root(evalset.source or src, fs=DISK) or src
        if evalset.source:
            return evalset.source if os.path.isdir(evalset.source) else os.path.dirname(evalset.source) or "."
        return src if os.path.isdir(src) else os.path.dirname(src) or "."
    if several:
        return os.path.join(out, _subdir(evalset, index))
    return output_root(out, target, several) or out


def _subdir(evalset, index: int) -> str:
    name = evalset.skill.name if evalset.skill else (evalset.name or "")
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in name).strip(".") or f"set-{index + 1}"
    return safe


def _out_is_file(out: str, target, several: bool) -> bool:
    """``-o FILE``: one eval set of a single-file format, and ``out`` not a folder."""
    return not several and target.single_file and not os.path.isdir(out) and not out.endswith(("/", os.sep))


def output_root(out: str | None, target, several: bool) -> str | None:
    """The folder a conversion writes inside: ``-o DIR`` itself, or the folder holding ``-o FILE``."""
    if out is None:
        return None
    return (os.path.dirname(out) or ".") if _out_is_file(out, target, several) else out


def _place(out: str | None, rel: str, target, several: bool, evalset, index: int, main: bool = True) -> str:
    """Where a written file goes. With ``-o FILE`` for a single-file format, the main (first) file is
    FILE and any file it refers to (a promptfoo config's ``file://`` tests) goes beside it."""
    if out is None:
        return rel
    if several:
        return os.path.join(out, _subdir(evalset, index), rel)
    if _out_is_file(out, target, several):
        return out if main else os.path.join(os.path.dirname(out), rel)
    return os.path.join(out, rel)


def _existing(places: dict[str, str]) -> dict[str, str]:
    """The current text of each output file that already exists (writer's name -> text)."""
    existing: dict[str, str] = {}
    for rel, path in places.items():
        try:
            with open(path, encoding="utf-8") as fh:
                existing[rel] = fh.read()
        except (OSError, UnicodeDecodeError):
            continue
    return existing
