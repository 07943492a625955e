"""The ``terum`` format: a skill folder's ``evals/`` (cases, suite, triggers).

A unit is a skill folder (or its ``evals/`` folder) or one file inside ``evals/``. Reading a single
file reads just that asset (with the folder around it for context: fixture paths, case stems).
See :mod:`evalfmt.formats.terum_read` and :mod:`evalfmt.formats.terum_write`.
"""

from __future__ import annotations

import os

from .. import ir
from . import Format, ReadResult, parts
from .terum_read import (
    MISPLACED_TOP,
    CASE_DIR_VARIANTS,
    case_files,
    is_skill_dir,
    misplaced_diagnostic,
    misplaced_files,
    misplaced_is_terum,
    read_case_file,
    read_suite_file,
    read_triggers_file,
    skill_info,
    skill_root,
)

TERUM_FILES = ("suite.yaml", "triggers.yaml")


def at_terum_path(path: str) -> bool:
    """A file where a terum skill keeps (or wrongly names) its eval files: ``evals/suite.yaml``,
    ``evals/triggers.yaml``, ``evals/cases/*.yaml`` and the misspellings EV111 reports."""
    segs = parts(path)
    name = segs[-1]
    if len(segs) >= 2 and segs[-2] == "evals" and (name in TERUM_FILES or name in MISPLACED_TOP):
        return True
    if len(segs) >= 3 and segs[-3] == "evals" and segs[-2] in ("cases",) + CASE_DIR_VARIANTS:
        return name.lower().endswith((".yaml", ".yml")) or (segs[-2] == "cases" and name.lower().endswith(".json"))
    return False


def detect(path: str) -> bool:
    if os.path.isdir(path):
        root = skill_root(path)
        return root is not None and os.path.isdir(os.path.join(root, "evals"))
    return at_terum_path(path)


def read(path: str, forced: bool = False, exclude: frozenset = frozenset()) -> ReadResult:
    """Read a skill folder (or its ``evals/``) or one file of it. Unless ``forced`` (``--from terum``),
    a file that shows none of terum's fields is left unread with a note; files in ``exclude`` (read
    by an agentv eval file as its tests) are never read."""
    result = ReadResult()
    if os.path.isdir(path):
        root = skill_root(path) or path
        _read_folder(root, result, forced, exclude)
        return result
    root = skill_root(path)
    evals = os.path.dirname(path) if os.path.basename(os.path.dirname(path)) == "evals" else \
        os.path.dirname(os.path.dirname(path))
    info = _skill(root)
    evalset = _evalset(path, info)
    segs = parts(path)
    name = segs[-1]
    if len(segs) >= 2 and segs[-2] == "evals" and name == "suite.yaml":
        stems = {os.path.basename(p).rsplit(".", 1)[0] for p in case_files(evals)}
        evalset.suite = read_suite_file(path, result, root, stems, forced)
    elif len(segs) >= 2 and segs[-2] == "evals" and name == "triggers.yaml":
        evalset.triggers = read_triggers_file(path, result, info.name if info else None, forced)
    elif len(segs) >= 3 and segs[-2] == "cases" and name.endswith((".yaml", ".yml")):
        case = read_case_file(path, result, root, forced)
        if case is not None:
            evalset.cases.append(case)
    else:
        target = dict((p, t) for p, t in misplaced_files(evals)).get(path)
        if target is None:
            target = _guess_target(path, evals)
        if forced or misplaced_is_terum(path, result):
            result.diagnostics.append(misplaced_diagnostic(path, target))
    if result.notes:
        return result  # the file was left unread (not terum's): no eval set
    result.sets.append(evalset)
    return result


def _skill(root: str | None) -> ir.SkillInfo | None:
    """The skill an eval file belongs to: the folder holding SKILL.md above its ``evals/`` (the same
    rule as a skill-creator trigger set's), else none."""
    return skill_info(root) if root is not None and is_skill_dir(root) else None


def _evalset(source: str, info: ir.SkillInfo | None) -> ir.EvalSet:
    return ir.EvalSet(format="terum", source=source, skill=info, span=ir.Span(source, 1, 1))


def _guess_target(path: str, evals: str) -> str | None:
    name = os.path.basename(path)
    if name in MISPLACED_TOP:
        return os.path.join(evals, MISPLACED_TOP[name])
    stem = name.rsplit(".", 1)[0]
    return os.path.join(evals, "cases", stem + ".yaml")


def _read_folder(root: str, result: ReadResult, forced: bool, exclude: frozenset) -> None:
    evals = os.path.join(root, "evals")
    info = _skill(root)
    evalset = _evalset(root, info)

    def mine(p: str) -> bool:
        return not exclude or os.path.abspath(p) not in exclude

    files = [p for p in case_files(evals) if mine(p)]
    seen: dict[str, str] = {}
    for path in files:
        case = read_case_file(path, result, root, forced)
        if case is None:
            continue
        name = case.name
        if name in seen:
            from ..errors import Diagnostic

            result.diagnostics.append(Diagnostic(
                path, 1, 1, "EV115",
                f"case name '{name}' is also the name of {os.path.basename(seen[name])}: "
                "two files with one stem make two cases with the same name; rename one", "error"))
        seen.setdefault(name, path)
        evalset.cases.append(case)
    suite_path = os.path.join(evals, "suite.yaml")
    if os.path.isfile(suite_path) and mine(suite_path):
        evalset.suite = read_suite_file(suite_path, result, root, set(seen), forced)
    trig_path = os.path.join(evals, "triggers.yaml")
    if os.path.isfile(trig_path) and mine(trig_path):
        evalset.triggers = read_triggers_file(trig_path, result, info.name if info else None, forced)
    for path, target in misplaced_files(evals):
        if mine(path) and (forced or misplaced_is_terum(path, result)):
            result.diagnostics.append(misplaced_diagnostic(path, target))
    result.sets.append(evalset)


def write(evalset, existing=None):
    from .terum_write import write as _write  # the writer needs the IR and ruamel: load it only here

    return _write(evalset, existing)


FORMAT = Format(
    name="terum",
    module=__name__,
    description="terum skill evals: evals/cases/*.yaml, evals/suite.yaml, evals/triggers.yaml",
    detect=detect,
    read=read,
    write=write,
    single_file=False,
)
