"""The lint engine: read the eval assets once, run the enabled rules over the IR and the loaded
documents, then apply configuration (selection, per-file ignores, severities) and suppression
comments.

The readers' own diagnostics (EV1xx and the agentv reader's EV5xx) are taken as they are; the rule
modules add everything else. Nothing from an eval file is ever executed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol
from collections.abc import Callable

from ..discover import discover, searched, skill_root
from ..errors import Diagnostic, EvalfmtError, one_line, sort_diagnostics
from ..formats import ReadResult, read_unit
from ..fsview import View
from ..globs import Exclude
from ..paths import seed_output
from . import config as config_mod
from . import suppress
from .context import Context, SkillFolder, scan_skill, single_file, skill_name
from .registry import Registry, registry
from .result import LintResult

if TYPE_CHECKING:  # pragma: no cover
    from multiprocessing.context import BaseContext


class Parts(Protocol):
    """Where the lint of each skill folder may be read back from (the result cache's parts,
    :class:`evalfmt.cache.Parts`): ``part(key, compute)`` gives ``compute(fs)``, or the result stored
    under ``key`` when nothing it read changed; ``compute`` reads through the view it is given."""

    def part(self, key: tuple, compute: Callable[[View], LintResult]) -> LintResult: ...


# --------------------------------------------------------------------------------------- targets


@dataclass
class Work:
    """One piece of work: the units a reader reads, and the skill folder hygiene looks at."""

    units: list = field(default_factory=list)
    skill: str | None = None  # skill folder
    whole: bool = True  # the folder itself is linted (else only ``files``)
    files: list[str] = field(default_factory=list)  # files given explicitly (hygiene per file)


SKILL_FILE = "SKILL.md"


def plan(path: str, fmt: str | None = None, skip_unrecognized: bool = False, exclude=None, *,
         fs: View) -> list[Work]:
    """The work for one PATH: its units, and the skill folders under it (a SKILL.md given as a file
    means its folder), found through ``fs``. ``exclude`` (:class:`evalfmt.globs.Exclude`) skips what it
    matches."""
    if not fs.exists(path):
        raise EvalfmtError(f"{path}: no such file or directory")
    norm = os.path.normpath(path)
    if exclude and exclude(norm):
        return []
    if fs.isfile(norm):
        return _plan_file(norm, fmt, skip_unrecognized, fs)
    by_folder: dict[str, Work] = {}
    order: list[Work] = []
    for unit in discover(norm, force=fmt, exclude=exclude, fs=fs):
        if unit.format == "terum":
            key = os.path.normpath(unit.path)
            w = Work(units=[unit], skill=key if _holds_skill(key, fs) else None)
            by_folder[key] = w
            order.append(w)
        else:
            order.append(Work(units=[unit]))
    # Skill folders without eval assets still get hygiene.
    for root in _skill_roots(norm, exclude, fs):
        key = os.path.normpath(root)
        if key in by_folder:
            by_folder[key].skill = key
        else:
            w = Work(skill=key)
            by_folder[key] = w
            order.append(w)
    return order


def _holds_skill(folder: str, fs: View) -> bool:
    return fs.isfile(os.path.join(folder, SKILL_FILE))


def _plan_file(norm: str, fmt: str | None, skip_unrecognized: bool, fs: View) -> list[Work]:
    """The work for one file: a SKILL.md means its folder; any other file its units, with the hygiene of
    that one file when it sits in a skill folder."""
    if os.path.basename(norm) == SKILL_FILE:
        return [Work(skill=os.path.dirname(norm) or ".", whole=True)]
    units = _file_units(norm, fmt, skip_unrecognized, fs)
    if units is None:
        return []
    root = skill_root(norm, fs=fs)
    skill = root if root is not None and _holds_skill(root, fs) else None
    return [Work(units=units, skill=skill, whole=False, files=[norm])]


def _skill_roots(norm: str, exclude, fs: View) -> list[str]:
    """The skill folders under the folder ``norm`` (for an ``evals`` folder: the skill holding it)."""
    if os.path.basename(norm) == "evals":
        start = skill_root(norm, fs=fs)
        return [start] if start is not None and _holds_skill(start, fs) else []
    roots: list[str] = []
    for current, dirs, files in fs.walk(norm):
        parent = os.path.basename(os.path.abspath(current))
        dirs[:] = sorted(d for d in dirs if searched(parent, d) and not _excluded(exclude, current, d))
        if SKILL_FILE in files and not _excluded(exclude, current, SKILL_FILE):
            roots.append(current)
            # a skill's evals/ and fixtures/ hold test material (a fixture may look like a skill)
            dirs[:] = [d for d in dirs if d not in ("evals", "fixtures")]
    return roots


def _excluded(exclude, folder: str, name: str) -> bool:
    return bool(exclude and exclude(os.path.join(folder, name)))


def _file_units(path: str, fmt: str | None, skip_unrecognized: bool, fs: View) -> list | None:
    """The units of one file; None for a file skipped as unrecognised. A file ``transpile`` writes
    (``.agentv/skills/<skill>/evals.json``) is linted whatever it holds now: EV505 compares it."""
    try:
        return discover(path, force=fmt, fs=fs)
    except EvalfmtError:
        if seed_output(path) is not None:
            return []
        if skip_unrecognized:
            return None
        raise


# ---------------------------------------------------------------------------------------- running


def run_work(works: list[Work], cfg: config_mod.Config, reg: Registry, fs: View) -> LintResult:
    """Read (through ``fs``) and lint some work items; the result before configuration and suppressions."""
    read = ReadResult()
    for unit in (unit for w in works for unit in w.units):
        read.extend(read_unit(unit, fs=fs))
    ctx = Context(read.documents, cfg.rule_options, fs=fs)
    ctx.given = [f for w in works if not w.whole for f in w.files]
    set_rules = _rules(reg, cfg, "set")
    _check_sets(read.sets, set_rules, ctx)
    skill_rules = _rules(reg, cfg, "skill")
    hygiene_files = _check_skills(works, skill_rules, ctx, read.documents, fs) if skill_rules else {}
    for rule in set_rules + skill_rules:
        rule.finish(ctx)
    diags = list(read.diagnostics) + ctx.diagnostics
    files = set(read.documents) | set(hygiene_files) | {d.path for d in diags}
    return LintResult(diags, len(files), _texts(read.documents, hygiene_files), list(read.notes), paths=files)


def _rules(reg: Registry, cfg: config_mod.Config, scope: str) -> list:
    """An instance of each enabled rule of ``scope`` (``set`` or ``skill``)."""
    return [r() for r in reg if r.scope == scope and cfg.enabled(r.code)]


def _check_sets(sets: list, rules: list, ctx: Context) -> None:
    for es in sets:
        for rule in rules:
            if rule.formats is None or es.format in rule.formats:
                rule.check_set(es, ctx)


def _texts(documents, hygiene_files: dict[str, str | None]) -> dict[str, str]:
    """The texts a fix or the suppression scan may use: each document's, then each hygiene file's read."""
    texts = {p: d.text for p, d in documents.items()}
    for p, t in hygiene_files.items():
        if t is not None and p not in texts:
            texts[p] = t
    return texts


def _check_skills(works: list[Work], rules: list, ctx: Context, documents, fs: View) -> dict[str, str | None]:
    """Run the hygiene rules over the skill folder of each work item (a file outside one gets none).
    Returns the files they looked at, each with its text when it was read (the suppression scan reuses it)."""
    files: dict[str, str | None] = {}
    for w in works:
        folder = _skill_folder(w, w.skill, documents, fs) if w.skill is not None else None
        if folder is None:
            continue
        files.update((f.path, None) for f in folder.files)
        for rule in rules:
            rule.check_skill(folder, ctx)
        files.update((f.path, f._text) for f in folder.files if f._read and f._text is not None)
        md = folder._md
        if md is not None and md.text is not None:
            files[folder.skill_md] = md.text
    return files


def _skill_folder(w: Work, skill: str, documents, fs: View) -> SkillFolder:
    """The folder ``skill`` (``w.skill``) as hygiene sees it."""
    folder = SkillFolder(path=skill, name=skill_name(skill), fs=fs, whole=w.whole)
    if w.whole:
        folder.files = scan_skill(skill, documents, fs)
    else:
        folder.files = [f for f in (single_file(p, skill, documents, fs) for p in w.files) if f is not None]
    return folder


def finalize(result: LintResult, cfg: config_mod.Config, reg: Registry, fs: View) -> LintResult:
    """Selection, per-file ignores, severity overrides, suppression comments (and EV001), sorting."""
    kept: list[Diagnostic] = []
    for d in result.diagnostics:
        if not cfg.enabled(d.code) or cfg.ignored_for_file(d.path, d.code):
            continue
        if cfg.severity:
            d.severity = cfg.severity_of(d.code, d.severity)
        d.message = one_line(d.message)
        kept.append(d)
    sups: dict[str, list[suppress.Suppression]] = {}
    for path, text in result.texts.items():
        found = suppress.scan(path, text, reg.rules)
        if found:
            sups[path] = found
    for d in kept:
        if d.path not in sups and d.path not in result.texts:
            read_back = _read_text(d.path, fs)
            if read_back is not None:
                result.texts[d.path] = read_back
                found = suppress.scan(d.path, read_back, reg.rules)
                if found:
                    sups[d.path] = found
    kept = suppress.apply(kept, sups)
    if cfg.enabled("EV001"):
        kept.extend(_unused(sups, cfg, reg))
    result.diagnostics = sort_diagnostics(kept)
    return result


def _unused(sups: dict[str, list[suppress.Suppression]], cfg: config_mod.Config, reg: Registry) -> list[Diagnostic]:
    meta = reg.get("EV001")
    severity = cfg.severity_of("EV001", meta.severity if meta else "warning")
    out = []
    for path, items in sups.items():
        if cfg.ignored_for_file(path, "EV001"):
            continue
        for s in items:
            if s.problem is not None:
                out.append(Diagnostic(path, s.line, s.column, "EV001", s.problem, severity))
                continue
            for code in s.codes:
                if code not in reg.rules:
                    out.append(Diagnostic(path, s.line, s.column, "EV001",
                                          f"unknown rule code '{code}' in suppression: remove it", severity))
                elif code not in s.used and cfg.enabled(code):
                    where = "in this file" if s.file_level else "on this line"
                    out.append(Diagnostic(path, s.line, s.column, "EV001",
                                          f"unused suppression: no {code} finding {where}; remove '{code}'", severity))
    return out


def _read_text(path: str, fs: View) -> str | None:
    raw = fs.virtual_bytes(path)
    if raw is not None:
        return raw.decode("utf-8", errors="replace")
    try:
        return fs.read_head(path, 4 * 1024 * 1024).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


# ------------------------------------------------------------------------------------------- API


def lint(paths: list[str], *, fs: View, select: list[str] | None = None, ignore: list[str] | None = None,
         config_file: str | None = None, isolated: bool = False, fmt: str | None = None,
         skip_unrecognized: bool = False, jobs: int = 1, exclude: list[str] | None = None,
         parts: Parts | None = None) -> LintResult:
    """Lint the eval assets and skill folders under ``paths``, looking at the disk through ``fs``.
    ``exclude``: glob patterns relative to the working folder, added to the configuration's
    ``exclude``. ``parts`` (the result cache's): each skill folder's findings are read back from it
    when nothing they depend on changed. Raises EvalfmtError for unusable paths or configuration (exit 2)."""
    reg = registry()
    _check_cli_codes(reg, select, ignore)
    groups: dict[int, _Group] = {}
    fixed_cfg = _fixed_config(isolated, config_file, fs)
    seen: set[tuple] = set()
    empty: list[str] = []
    found: dict[str, config_mod.Config] = {}
    for path in paths:
        base = fixed_cfg or config_mod.find(path, fs=fs, memo=found)
        if id(base) not in groups:
            groups[id(base)] = _Group(base.with_cli(select, ignore), [], exclusions(base, exclude))
        group = groups[id(base)]
        works = plan(path, fmt, skip_unrecognized, group.exclude, fs=fs)
        if not any(w.skill or any(u.note is None for u in w.units) for w in works) and not fs.isfile(path):
            empty.append(path)  # nothing at all, or only files left unread (each has its note)
        group.add_new(works, seen)
    for group in groups.values():
        config_mod.check_codes(group.cfg, reg.rules)
        config_mod.check_rule_options(group.cfg, reg.rules)
    total = LintResult(empty=empty)
    for group in groups.values():
        _add_part(total, group.run(reg, fs, jobs, parts))
    total.diagnostics = sort_diagnostics(total.diagnostics)
    return total


def _check_cli_codes(reg: Registry, select: list[str] | None, ignore: list[str] | None) -> None:
    """Refuse a code of ``--select`` or ``--ignore`` that names no rule."""
    for option, codes in (("--select", select), ("--ignore", ignore)):
        for code in codes or ():
            message = config_mod.unknown_code(code, option, reg.rules)
            if message is not None:
                raise EvalfmtError(message)


def _fixed_config(isolated: bool, config_file: str | None, fs: View) -> config_mod.Config | None:
    """The one configuration of every path (``--isolated``: none; ``--config FILE``), or None: each path's own."""
    if isolated:
        return config_mod.Config(layers=[config_mod.Layer()])
    if config_file is not None:
        return config_mod.load_file(config_file, fs=fs) or config_mod.Config(path=config_file,
                                                                           layers=[config_mod.Layer()])
    return None


@dataclass
class _Group:
    """The paths under one configuration: that configuration (with the command line's selection), their
    work, and what is excluded."""

    cfg: config_mod.Config
    works: list[Work]
    exclude: Exclude

    def add_new(self, works: list[Work], seen: set[tuple]) -> None:
        """Add each work item not already planned (two paths may overlap)."""
        for w in works:
            sig = (tuple(u.path for u in w.units), w.skill, w.whole, tuple(w.files))
            if sig not in seen:
                seen.add(sig)
                self.works.append(w)

    def run(self, reg: Registry, fs: View, jobs: int, parts: Parts | None) -> LintResult:
        """Lint the work: skill folder by skill folder through the cache's ``parts``, in ``jobs`` processes,
        or at once; files read as part of a skill's evals/ that a pattern names are left out."""
        if parts is not None and jobs == 1:
            part = _run_parts(self.works, self.cfg, reg, fs, parts)
        elif jobs > 1 and len(self.works) > 1:
            part = _run_parallel(self.works, self.cfg, jobs, fs)
        else:
            part = finalize(run_work(self.works, self.cfg, reg, fs), self.cfg, reg, fs)
        if self.exclude:
            part.diagnostics = [d for d in part.diagnostics if not self.exclude(d.path)]
        return part


def _add_part(total: LintResult, part: LintResult) -> None:
    total.diagnostics.extend(part.diagnostics)
    total.files += part.files
    total.texts.update(part.texts)
    total.notes.extend(n for n in part.notes if n not in total.notes)


def _run_parts(works: list[Work], cfg: config_mod.Config, reg: Registry, fs: View, parts: Parts) -> LintResult:
    """Lint each skill folder's work on its own, as a part of the run that ``parts`` may read back
    (its key: the configuration that applies and the work; what it read is recorded by the view it is
    given); the rest together, as always (rules may compare the eval files of one folder)."""
    results: list[LintResult] = []
    rest = [w for w in works if w.skill is None]
    for w in works:
        if w.skill is None:
            continue
        sig = ([[u.format, u.path, [[k, sorted(v) if isinstance(v, (set, frozenset)) else v] for k, v in u.options],
                 u.note] for u in w.units] + [w.skill, w.whole, w.files])  # (a set's repr changes with the process)

        def compute(view: View, w: Work = w) -> LintResult:
            return finalize(run_work([w], cfg, reg, view), cfg, reg, view)

        results.append(parts.part(("lint-skill", repr(cfg), sig), compute))
    if rest:
        results.append(finalize(run_work(rest, cfg, reg, fs), cfg, reg, fs))
    out = LintResult()
    for part in results:
        out.diagnostics.extend(part.diagnostics)
        out.paths |= part.paths  # two works may share files (a SKILL.md and a case of its skill)
        out.texts.update(part.texts)
        out.notes.extend(n for n in part.notes if n not in out.notes)
    out.files = len(out.paths)
    return out


def exclusions(cfg: config_mod.Config, cli: list[str] | None) -> Exclude:
    """The configuration's ``exclude`` patterns (relative to its folder) and the command line's
    (relative to the working folder)."""
    return Exclude([(cfg.root, p) for p in cfg.exclude] + [(os.getcwd(), p) for p in cli or ()])


def _chunks(works: list[Work], n: int) -> list[list[Work]]:
    """Split work into ``n`` chunks of similar size, keeping the units of one folder together
    (rules such as EV505 compare EVAL.yaml files that share an output folder)."""
    groups: dict[str, list[Work]] = {}
    for w in works:
        key = w.skill or (os.path.dirname(w.units[0].path) if w.units else "")
        groups.setdefault(key, []).append(w)
    chunks: list[list[Work]] = [[] for _ in range(n)]
    sizes = [0] * n
    for group in sorted(groups.values(), key=len, reverse=True):
        i = sizes.index(min(sizes))
        chunks[i].extend(group)
        sizes[i] += len(group)
    return [c for c in chunks if c]


def _worker(args) -> tuple[list[Diagnostic], int, list[str]]:
    """Lint one chunk completely (suppressions are per file, so a chunk can apply its own) and send
    back only the findings: the file texts stay in the worker."""
    works, cfg, virtual = args
    reg = registry()
    fs = View(virtual)
    part = finalize(run_work(works, cfg, reg, fs), cfg, reg, fs)
    return part.diagnostics, part.files, part.notes


def _run_parallel(works: list[Work], cfg: config_mod.Config, jobs: int, fs: View) -> LintResult:
    import multiprocessing as mp  # 5 ms to import (python -X importtime): only for --jobs above 1

    chunks = _chunks(works, jobs)
    ctx: BaseContext
    try:
        ctx = mp.get_context("fork")
    except ValueError:  # pragma: no cover - platforms without fork
        ctx = mp.get_context()
    with ctx.Pool(len(chunks)) as pool:
        found = pool.map(_worker, [(c, cfg, fs.virtual) for c in chunks])
    out = LintResult()
    for diags, files, notes in found:
        out.diagnostics.extend(diags)
        out.files += files
        out.notes.extend(notes)
    return out
