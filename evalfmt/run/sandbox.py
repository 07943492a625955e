"""Sandbox staging, in terum's order: fixture, inline files, setup, then the skill (candidate arm only).

A sandbox is a plain directory the agent runs in (its working directory and Claude Code project).
:func:`stage` fills it for one case (or the suite) and one arm:

1. every inline ``files`` path is checked first (absolute, a ``..`` segment, or a first real
   segment ``.claude`` is refused), so a refused path means nothing at all was written;
2. the ``fixture`` directory (relative to the case file's folder; the suite's relative to
   ``evals/``) is copied in; a fixture that is missing, not a directory, or outside the skill folder
   (absolute, ``../``, or through a symlink: validate's EV107) drops the case;
3. the inline files are written (a path ending ``.sh`` or whose first real segment is ``bin`` gets
   mode 0755, the rest the usual 0644 under the umask);
4. ``setup`` runs as ``/bin/sh -ce`` in the sandbox for at most 60 s; a non-zero exit or a timeout
   drops the case;
5. for the candidate arm, the skill folder is copied to ``.claude/skills/<name>/`` without its
   top-level ``evals/`` and ``fixtures/`` (the agent never sees its own answer key).

A failure in steps 1-4 raises :class:`StageError` with ``kind`` ``staging`` or ``setup`` (terum's
two reasons for dropping a case) and ``where``, the field to point at in the case file. The checks of
steps 1-2 are :func:`check`, which writes nothing: a runner that stages on another machine (``ray``)
runs them where the case files are, then :func:`stage` itself on that machine.

Copies (:func:`copy_tree`, and the archives of :mod:`sandbox_tar`: both take :func:`walk_tree`'s
decisions) never follow a symlink out of the source tree: a symlink whose target resolves inside the
tree being copied is recreated as a relative link to that target, one that leads out is left out
and reported in :attr:`StageReport.notes`. Files are never written through a symlink that leads out of the sandbox.

``requires`` is probed separately, before any sandbox is made (:func:`missing_requirements`): a
binary with ``/bin/sh -c 'command -v -- "$1"'``, ``python3:<module>`` by importing it, each value
passed as an argument (never interpolated into shell text), 30 s per probe.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from .. import guard
from ..formats.terum.paths import file_path_violation as rule, fixture_outside
from ..fsview import DISK
from . import shell
from .shell import contained

#: terum's cap on a case's ``setup``, in seconds
SETUP_TIMEOUT = 60.0
#: terum's cap on one ``requires`` probe, in seconds
PROBE_TIMEOUT = 30.0
#: top-level folders of a skill that are never staged
SKILL_EXCLUDED = ("evals", "fixtures")
EXEC_MODE = 0o755


class StageError(Exception):
    """A case that cannot start. ``kind`` is ``staging`` (files, fixture, skill copy) or ``setup``;
    ``where`` names the case-file field at fault (``("files", path)``, ``("fixture",)``, ``("setup",)``)."""

    def __init__(self, kind: str, detail: str, where: tuple = (), output: str = ""):
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.where = where
        self.output = output  # the tail of setup's output, for setup.log


@dataclass
class StageSpec:
    """What to stage: one unit (a case or the suite) for one arm.

    ``case_dir`` is the folder the fixture resolves against (the case file's folder; ``evals/`` for
    the suite); ``fixture_root``, when set, is the folder the fixture must stay inside (the skill
    folder: validate's EV107). ``skill_dir``/``skill_name`` are set for the candidate arm only.
    ``exclude`` lists absolute paths never copied with the skill (e.g. a run's output folder placed
    inside it).
    """

    name: str
    case_dir: str
    fixture: str | None = None
    files: dict[str, str] | None = None
    setup: str | None = None
    skill_dir: str | None = None
    skill_name: str | None = None
    exclude: tuple[str, ...] = ()
    fixture_root: str | None = None


@dataclass
class StageReport:
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    setup_seconds: float | None = None


def file_path_violation(rel: str) -> str | None:
    """Why terum refuses an inline ``files`` path (the reader's rule), or None."""
    if "\x00" in rel:  # no file can have that name (the engine's write throws)
        return "holds a NUL character"
    return rule(rel)


def _fixture_outside(case_dir: str, fixture: str, skill_dir: str) -> bool:
    return fixture_outside(case_dir, fixture, skill_dir, fs=DISK)


def _segments(rel: str) -> list[str]:
    return [s for s in rel.replace("\\", "/").split("/") if s not in ("", ".")]


def is_executable_path(rel: str) -> bool:
    """terum's rule: a ``.sh`` file, or anything whose first real segment is ``bin``, gets 0755."""
    segs = _segments(rel)
    return rel.endswith(".sh") or (bool(segs) and segs[0] == "bin")


def check(spec: StageSpec) -> str | None:
    """Steps 1 and 2's checks of :func:`stage`, writing nothing: every inline path is allowed and the
    fixture is a folder inside the skill folder. Returns the fixture folder to copy (None without
    one); raises :class:`StageError` as :func:`stage` would. A runner that stages elsewhere (``ray``)
    calls it where the case files are, before anything travels."""
    for rel in spec.files or {}:
        problem = file_path_violation(rel)
        if problem is not None:
            shown = rel.replace("\x00", "\\0")
            raise StageError("staging", f"unsafe file path '{shown}': {problem}", ("files", rel))
    if spec.fixture is None:
        return None
    if "\x00" in spec.fixture:  # no folder has such a name (and the path functions refuse it)
        shown = spec.fixture.replace("\x00", "\\0")
        raise StageError("staging", f"fixture '{shown}' holds a NUL character (EV107): not copied", ("fixture",))
    source = os.path.normpath(os.path.join(spec.case_dir, spec.fixture))
    if spec.fixture_root is not None and _fixture_outside(spec.case_dir, spec.fixture, spec.fixture_root):
        raise StageError("staging", f"fixture '{spec.fixture}' is outside the skill folder (EV107): not copied; "
                                    "keep fixtures under evals/", ("fixture",))
    if not os.path.isdir(source):
        what = "not a directory" if os.path.exists(source) else "not found"
        raise StageError("staging", f"fixture directory {what}: {source}", ("fixture",))
    return source


def stage(spec: StageSpec, sandbox: str, env: dict[str, str] | None = None,
          setup_timeout: float = SETUP_TIMEOUT) -> StageReport:
    """Fill the (existing, empty) directory ``sandbox`` for ``spec``. Raises :class:`StageError`."""
    start = time.monotonic()
    report = StageReport()
    # 1. every inline path is checked before anything is written; 2. the fixture
    source = check(spec)
    if source is not None:
        try:
            report.notes.extend(copy_tree(source, sandbox))
        except guard.Outside as exc:
            raise StageError("staging", f"cannot copy fixture {source}: {exc.message}", ("fixture",)) from None
        except OSError as exc:
            raise StageError("staging", f"cannot copy fixture {source}: {exc.strerror or exc}", ("fixture",)) from None
    # 3. inline files
    root_real = guard.real(sandbox)
    for rel, content in (spec.files or {}).items():
        _write_inline(sandbox, root_real, rel, content)
    # 4. setup
    if spec.setup is not None:
        report.setup_seconds = _run_setup(spec.setup, sandbox, env, setup_timeout)
    # 5. the skill, candidate arm only
    if spec.skill_dir is not None:
        report.notes.extend(_stage_skill(spec, sandbox, root_real))
    report.seconds = time.monotonic() - start
    return report


def _write_inline(sandbox: str, root_real: str, rel: str, content: object) -> None:
    """One inline file of the case (executable when its path says so), never through a link out."""
    target = os.path.join(sandbox, *_segments(rel))
    try:
        if not guard.contains(root_real, guard.real(target)):
            raise StageError("staging", f"unsafe file path '{rel}': leads out of the sandbox through a symlink",
                             ("files", rel))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8", newline="") as fh:
            fh.write(content if isinstance(content, str) else str(content))
        if is_executable_path(rel):
            os.chmod(target, EXEC_MODE)
    except OSError as exc:
        raise StageError("staging", f"cannot write '{rel}': {exc.strerror or exc}", ("files", rel)) from None


def _run_setup(script: str, sandbox: str, env: dict[str, str] | None, setup_timeout: float) -> float:
    """The case's ``setup`` in the sandbox; the seconds it took."""
    t0 = time.monotonic()
    try:
        res = shell.run_shell(script, sandbox, setup_timeout, env=env)
    except ValueError as exc:  # a NUL in the script cannot be passed to a program
        raise StageError("setup", f"setup cannot run: {exc}", ("setup",)) from None
    if not res.ok:
        raise StageError("setup", f"setup failed: {res.describe(setup_timeout)}", ("setup",), res.output_tail)
    return time.monotonic() - t0


def _stage_skill(spec: StageSpec, sandbox: str, root_real: str) -> list[str]:
    """The skill in ``.claude/skills/<name>/`` (the candidate arm); the notes on what was left out."""
    assert spec.skill_dir is not None
    name = spec.skill_name or os.path.basename(os.path.abspath(spec.skill_dir))
    staged = os.path.join(sandbox, ".claude", "skills", name)
    try:
        # checked before anything is created: setup may have left a symlink on the way
        if not guard.contains(root_real, guard.real(staged)):
            raise StageError("staging", "cannot stage the skill: .claude/skills leads out of the sandbox")
        os.makedirs(staged, exist_ok=True)
        return copy_tree(spec.skill_dir, staged, exclude_top=SKILL_EXCLUDED, exclude=spec.exclude)
    except guard.Outside as exc:  # setup left a symlink inside .claude/skills/<name>/
        raise StageError("staging", f"cannot stage the skill: {exc.message}") from None
    except OSError as exc:
        raise StageError("staging", f"cannot stage the skill: {exc.strerror or exc}") from None


def copy_tree(src: str, dst: str, exclude_top: tuple[str, ...] = (), exclude: tuple[str, ...] = ()) -> list[str]:
    """Copy the contents of ``src`` into the existing directory ``dst``, never following a symlink
    out of ``src`` and never writing through one out of ``dst`` (each name is checked by the one path
    guard, :func:`evalfmt.guard.check_entry`, and a symlink already where a folder or file goes is
    replaced: :class:`evalfmt.guard.Outside` when a folder on the way leads out). Top-level names in
    ``exclude_top`` and absolute paths in ``exclude`` are left out. Returns notes on what was left out
    (symlinks leading out, special files)."""
    notes: list[str] = []
    checked: set[str] = set()  # folders already resolved inside dst (one check per folder)
    for entry in walk_tree(src, notes, exclude_top, exclude):
        target = os.path.join(dst, entry.rel)
        if os.path.dirname(target) not in checked:
            guard.check_entry(dst, target, "write", what="the sandbox folder")
            checked.add(os.path.dirname(target))
        if entry.link is not None:
            if os.path.lexists(target):
                _remove(target)
            os.symlink(entry.link, target)
        elif entry.is_dir:
            if os.path.islink(target):
                _remove(target)
            os.makedirs(target, exist_ok=True)
        else:
            if os.path.lexists(target) and (os.path.islink(target) or os.path.isdir(target)):
                _remove(target)
            shutil.copy2(entry.path, target, follow_symlinks=False)
    return notes


@dataclass(frozen=True)
class TreeEntry:
    """One thing :func:`walk_tree` keeps: a folder, a regular file, or a symlink (``link``: the
    relative path to recreate it with). ``rel`` uses ``/``; ``path`` is where it is now."""

    rel: str
    path: str
    is_dir: bool = False
    link: str | None = None


def walk_tree(src: str, notes: list[str], exclude_top: tuple[str, ...] = (),
              exclude: tuple[str, ...] = ()) -> Iterator[TreeEntry]:
    """What :func:`copy_tree` copies, in order (a folder before what it holds); what is left out is
    added to ``notes``. The one place that decides what of a tree travels into a sandbox (copied
    here, or packed for a remote node by :mod:`sandbox_tar`)."""
    excluded = {guard.real(p) for p in exclude}
    yield from _walk_dir(src, guard.real(src), "", exclude_top, excluded, notes)


def _walk_dir(src: str, root_real: str, rel: str, exclude_top: tuple[str, ...], excluded: set[str],
              notes: list[str]) -> Iterator[TreeEntry]:
    with os.scandir(src) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        sub = f"{rel}/{entry.name}" if rel else entry.name
        if not rel and entry.name in exclude_top:
            continue
        if excluded and guard.real(entry.path) in excluded:
            continue
        if entry.is_symlink():
            link = os.readlink(entry.path)
            real = guard.real(entry.path)
            if not guard.contains(root_real, real):
                notes.append(f"left out symlink {sub} -> {link}: it leads out of {root_real}")
                continue
            # Recreated as the relative path to where it leads, never as written: a link may climb
            # out of the tree and back in ('../fixture/data'), which in the copy would lead out of
            # the sandbox (back to the original fixture).
            yield TreeEntry(sub, entry.path, link=os.path.relpath(real, guard.real(os.path.dirname(entry.path))))
        elif entry.is_dir(follow_symlinks=False):
            yield TreeEntry(sub, entry.path, is_dir=True)
            yield from _walk_dir(entry.path, root_real, sub, exclude_top, excluded, notes)
        elif entry.is_file(follow_symlinks=False):
            yield TreeEntry(sub, entry.path)
        else:
            notes.append(f"left out {sub}: not a regular file, folder or symlink")


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def clear_dir(path: str) -> None:
    """Remove everything inside ``path`` (symlinks are removed, never followed)."""
    with os.scandir(path) as it:
        for entry in it:
            _remove(entry.path)


# ------------------------------------------------------------------------------------ requires


def probe(requirement: str, env: dict[str, str] | None = None, timeout: float = PROBE_TIMEOUT) -> bool:
    """True when ``requirement`` (a binary name or ``python3:<module>``) is present."""
    if requirement.startswith("python3:"):
        argv = ["python3", "-c", "import importlib, sys; importlib.import_module(sys.argv[1])",
                requirement[len("python3:"):]]
    else:
        argv = ["/bin/sh", "-c", 'command -v -- "$1"', "probe", requirement]
    try:  # contained like every command (an imported module could start processes of its own)
        return contained(argv, timeout, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=env) == 0
    except OSError:
        return False


def missing_requirements(requires: list[str] | None, env: dict[str, str] | None = None,
                         timeout: float = PROBE_TIMEOUT) -> list[str]:
    """The entries of ``requires`` that are not present on this machine, in order."""
    return [r for r in (requires or []) if not probe(r, env, timeout)]
