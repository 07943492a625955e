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
from .errors import Diagnostic, EvalfmtError, Validation, plural, sort_diagnostics  # noqa: F401 - the commands import them from here
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



# ------------------------------------------------------------------------------ the convert command


@dataclass
class ConvertRequest:
    """What ``evalfmt convert`` asks for: the source, the target format, ``-o`` and ``--from``, and the
    policy flags (``strict``: write nothing and fail when anything would be lost or left out; ``force``:
    convert even when a source file cannot be read; ``verbose``: one line per field kept in a form the
    target's tools do not act on, instead of one line counting them)."""

    src: str
    to: str
    out: str | None = None
    fmt: str | None = None
    strict: bool = False
    force: bool = False
    verbose: bool = False


@dataclass
class ConvertOutcome:
    """What a :class:`ConvertRequest` comes to, before anything is written: the lines to say (stderr, in
    order), the exit status, a failure to report after them (``error``: nothing written), the text for
    stdout (no ``-o``: the one file), and whether the files are to be written (:func:`write_conversion`)."""

    conversion: Conversion
    said: list[str] = field(default_factory=list)
    status: int = 0
    error: str | None = None
    stdout: str | None = None
    writes: bool = False


def plan_convert(request: ConvertRequest) -> ConvertOutcome:
    """Convert as :func:`convert` does and decide, by the request's policy, what to say and whether to write
    (or print) the result. Writes nothing."""
    conv = convert(request.src, request.to, request.out, request.fmt)
    outcome = ConvertOutcome(conv, said=_source_lines(conv, request.src))
    if not _may_go_on(outcome, request):
        return outcome
    outcome.said += _loss_lines(conv, request.to, request.verbose)
    refusal = _strict_refusal(conv) if request.strict else None
    if refusal is not None:
        outcome.said.append(refusal)
        outcome.status = 1
    elif request.out is None:
        (outcome.stdout,) = conv.files.values()
    else:
        outcome.writes = True
    return outcome


def _source_lines(conv: Conversion, src: str) -> list[str]:
    """The notes on the source: files left unread, files that cannot be read, structural errors."""
    said = [f"note: {note}" for note in conv.notes]
    said += [d.format() for d in conv.diagnostics if d.code == "EV100"]
    others = sum(1 for d in conv.diagnostics if d.severity == "error" and d.code != "EV100")
    if others:
        said.append(f"note: the source has {plural(others, 'structural error')} (see 'evalfmt validate {src}'); "
                    "they are carried over as they are")
    return said


def _may_go_on(outcome: ConvertOutcome, request: ConvertRequest) -> bool:
    """False (with the status or error set) when the conversion ends before any loss line: unreadable
    source files without ``force``, nothing the target can hold, or several files and no ``-o``."""
    conv = outcome.conversion
    unread = sum(1 for d in conv.diagnostics if d.code == "EV100")
    if unread and not request.force:
        outcome.said.append(f"{request.src}: {plural(unread, 'file')} could not be read, so converting would drop "
                            "them; fix them or use --force")
        outcome.status = 1
    elif not conv.files and conv.skipped:
        outcome.error = f"nothing written: {conv.skipped[0]}"
    elif request.out is None and len(conv.files) != 1:
        outcome.said.append(f"the {request.to} output is {len(conv.files)} files: give -o DIR")
        outcome.status = 2
    else:
        return True
    return False


def _loss_lines(conv: Conversion, to: str, verbose: bool) -> list[str]:
    """What is not written, not converted, lost, and kept in a form ``to`` does not act on (each, or counted)."""
    said = [f"not written: {line}" for line in conv.skipped] + [f"not converted: {line}" for line in conv.left_out]
    said += [loss.format() for loss in conv.losses if loss.lost]
    kept = [loss for loss in conv.losses if not loss.lost]
    if verbose:
        said += [item.format() for item in kept]
    elif kept:
        said.append(f"kept {plural(len(kept), 'field')} as metadata or custom types {to} does not act on "
                    "(converting back restores them): --verbose lists them")
    return said


def _strict_refusal(conv: Conversion) -> str | None:
    """Why ``--strict`` writes nothing (cases left out, fields lost), or None."""
    if conv.left_out:
        return f"--strict: {plural(len(conv.left_out), 'case')} would be left out; nothing written"
    lost = sum(1 for loss in conv.losses if loss.lost)
    if lost:
        return f"--strict: {plural(lost, 'field')} would be lost; nothing written"
    return None


def write_conversion(conv: Conversion, notify=None) -> list[str]:
    """Write the files of ``conv`` and the fixtures it copies, as one set (``notify``: see :func:`write_files`).
    Returns the lines that say what was done: each copy, the files written, each output skill folder that
    holds no SKILL.md."""
    assert conv.root is not None  # convert() sets it whenever out is given
    copied = copied_files(conv.copies)
    written = write_files({**conv.files, **copied}, conv.root, notify=notify)
    said = [f"copied fixture {origin} to {dst} (terum reads fixtures only inside the skill folder)"
            for dst, origin in conv.copies.items()]
    total = len(conv.files) + len(copied)
    said.append(f"wrote {plural(len(written), 'file')}"
                + (f" ({total - len(written)} unchanged)" if len(written) != total else ""))
    said += [f"warning: {folder} has no SKILL.md, so evalfmt does not read its evals/ and terum has no skill to run "
             f"them with: add {os.path.join(folder, 'SKILL.md')}, or convert into the skill's folder"
             for folder in conv.no_skill_md]
    return said


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
