"""The result cache of ``lint`` and ``validate``, on ruff's model: a run whose inputs have not changed
reads its result back instead of computing it.

**The key.** A run's entry is found by a digest of what decides its result besides the files: the
command and its paths and options as given, the working folder, the ``EVALFMT_*`` environment,
evalfmt's version and a fingerprint of its own code (every file of the package: path, size and
times; an editable install is seen when a module is edited), of every plugin distribution (each
distribution declaring an ``evalfmt.*`` entry point: its name and version and every file of the
modules its entry points name) and of the interpreter (executable, version, ``sys.path`` and the
distributions installed on it). :func:`fingerprint` computes that once per process.

**The inputs.** The files are not guessed: the reading code (discovery, the readers, the
configuration, the lint engine and its rules) looks at the disk only through the
:class:`evalfmt.fsview.View` it is given, and a recording view keeps every observation it made: each
file read with its size and modification and change times (and a hash of its content when it changed
within the last two seconds, where times alone cannot be trusted), each folder listed with its names,
each path whose type was asked, each glob and resolved path. An entry is used only when every one of
them is observed the same again, so a change to any file a run read (or a file appearing where it
looked) is a miss. A lint run is also kept in parts, one per skill folder with its own inputs: when
one skill changed, the others are read back.

**The entries.** One JSON file per run key (``v2/<key>.json``): a format number, the run's inputs, its
result and its parts. It is checked field by field when read; anything else (truncated, edited,
another version, a type out of place, a symlink) is a miss, never an error and never a result. An
entry is written to a temporary file renamed into place, so two runs at once each read a whole entry
or none. A run is recorded the first time it is seen. Nothing is signed: the cache is trusted as
much as the files being linted (docs/security.md says what is refused instead).

**The folder** (:func:`open_folder`): a folder that is a symlink, is not a folder, belongs to another
user or is writable by others is not used (one warning, the run goes on without a cache); inside it,
evalfmt opens every file relative to the folder without following symlinks, and deletes only files
whose name and first bytes are an entry's.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import stat as statmod
import sys
import time
from typing import Any, Generic, TypeVar
from collections.abc import Callable

import orjson

from . import __version__, guard
from .errors import Diagnostic, Validation
from .fsview import View, observe, unchanged

FORMAT = 2
DEFAULT_DIR = ".evalfmt_cache"
#: an entry file larger than this is not read
MAX_ENTRY = 64 * 1024 * 1024
#: entries kept in a cache folder (past it, the least recently written half goes)
MAX_FILES = 1024
#: a temporary file older than this (s) was left by a run that died: it may be deleted
STALE_TMP = 3600

#: how every entry starts (what tells an entry from any other file when pruning)
HEAD = b'{"evalfmt_cache":2,'
_ENTRY = re.compile(r"[0-9a-f]{64}\.json\Z")
_TMP = re.compile(r"[0-9a-f]{64}\.json\.[0-9]+\.[0-9a-f]{16}\.tmp\Z")
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC

T = TypeVar("T")
#: how the guard's messages name the root of the cache's writes and deletes
WHAT = "the cache folder"


# ------------------------------------------------------------------------------------ fingerprint

_FINGERPRINT: list[object] | None = None


def fingerprint() -> list[object]:
    """evalfmt's code, the plugin distributions and the interpreter, as one key part (computed once
    per process: a module edited while a process runs is not loaded by it either)."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        dists, plugins = _distributions()
        _FINGERPRINT = [_code(os.path.dirname(os.path.abspath(__file__))), plugins,
                        [sys.executable, sys.version, sys.implementation.cache_tag, list(sys.path), dists]]
    return _FINGERPRINT


def _code(top: str) -> list[list[object]]:
    """Every file of a package folder (byte-compiled files aside) with its ``f`` state."""
    out: list[list[object]] = []
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if not name.endswith((".pyc", ".pyo")):
                path = os.path.join(folder, name)
                out.append([os.path.relpath(path, top), observe("f", path)])
    return out


def _distributions() -> tuple[list[str], list[list[object]]]:
    """The distributions installed on ``sys.path`` (their metadata folders' names: name and version),
    and for each one declaring an ``evalfmt.*`` entry point, its name with the state of every file of
    the modules its entry points name (read from ``entry_points.txt``, nothing imported)."""
    names: list[str] = []
    plugins: list[list[object]] = []
    for entry in sys.path:
        try:
            listed = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for name in listed:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            names.append(name)
            try:
                with open(os.path.join(entry or ".", name, "entry_points.txt"), encoding="utf-8") as fh:
                    text = fh.read()
            except (OSError, UnicodeDecodeError):
                continue
            if "[evalfmt." in text:
                plugins.append([name, *(_module_files(m) for m in sorted(_plugin_modules(text)))])
    return names, plugins


def _plugin_modules(text: str) -> set[str]:
    """The top-level modules named by the ``evalfmt.*`` sections of an ``entry_points.txt``."""
    found: set[str] = set()
    ours = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            ours = line.startswith("[evalfmt.")
        elif ours and "=" in line:
            target = line.split("=", 1)[1].strip()
            top = target.split(":", 1)[0].split(".", 1)[0].strip()
            if top:
                found.add(top)
    return found


def _module_files(top: str) -> list[object]:
    """A top-level module's files with their states, found as an import would find it (an editable
    install's finder included), without importing it."""
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return [top, None]
    folders = list(spec.submodule_search_locations or [])
    if folders:
        return [top, [_code(f) for f in folders]]
    return [top, observe("f", spec.origin) if spec.origin and os.path.isabs(spec.origin) else spec.origin]


def _environment() -> list[list[str]]:
    return sorted([k, v] for k, v in os.environ.items()
                  if k.startswith("EVALFMT_") and k not in ("EVALFMT_CACHE_DIR", "EVALFMT_NO_CACHE"))


def key(parts: object) -> str:
    """The digest a run's entry is named by (see the module docstring)."""
    text = repr((FORMAT, __version__, fingerprint(), os.getcwd(), _environment(), parts))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# ------------------------------------------------------------------------------------------ runs


class Entry:
    """A run's entry as read back: its own inputs, its result (still JSON data) and its parts
    (part key -> (inputs, result))."""

    def __init__(self, inputs: list[list[Any]], result: Any, parts: dict[str, tuple[list[list[Any]], Any]]) -> None:
        self.inputs = inputs
        self.result = result
        self.parts = parts

    def unchanged(self) -> bool:
        """True when every input of the run and of all its parts is observed the same now."""
        return unchanged(self.inputs + [i for inputs, _ in self.parts.values() for i in inputs])


class Parts(Generic[T]):
    """The parts of one run (the lint of each skill folder): read back from the run's last entry when
    their own inputs are unchanged, else computed through a recording view of their own. ``encode``
    and ``decode`` as :meth:`Cache.run` takes them."""

    def __init__(self, found: dict[str, tuple[list[list[Any]], Any]], encode: Callable[[T], Any],
                 decode: Callable[[Any], T | None]) -> None:
        self.found = found
        self.out: dict[str, tuple[list[list[Any]], Any]] = {}
        self._encode = encode
        self._decode = decode

    def part(self, key_parts: tuple[Any, ...], compute: Callable[[View], T]) -> T:
        k = hashlib.sha256(repr(key_parts).encode("utf-8", "surrogatepass")).hexdigest()
        previous = self.found.get(k)
        if previous is not None and unchanged(previous[0]):
            found = _decoded(previous[1], self._decode)
            if found is not None:
                self.out[k] = previous
                return found
        view = View(record=True)
        result = compute(view)
        data = self._encode(result)
        if data is not None:
            self.out[k] = (view.recorded(), data)
        return result


class Cache:
    """A cache folder that :func:`open_folder` accepted."""

    def __init__(self, folder: str) -> None:
        self.folder = os.path.abspath(folder)

    def run(self, key_parts: tuple[Any, ...], compute: Callable[[View, Parts[T]], T], encode: Callable[[T], Any],
            decode: Callable[[Any], T | None]) -> T:
        """``compute(view, parts)`` (reading through ``view``), or its result read back when nothing it
        read changed. ``encode`` turns a result into JSON data (None: not stored), ``decode`` turns such
        data back into a result (None or an exception: unusable, computed again)."""
        k = key(key_parts)
        entry = self._read(k)
        if entry is not None and entry.unchanged():
            found = _decoded(entry.result, decode)
            if found is not None:
                return found
        view = View(record=True)
        parts = Parts(entry.parts if entry is not None else {}, encode, decode)
        result = compute(view, parts)
        data = encode(result)
        if data is not None:
            self._write(k, {"evalfmt_cache": FORMAT, "inputs": view.recorded(), "result": data,
                            "parts": {pk: {"inputs": i, "result": r} for pk, (i, r) in parts.out.items()}})
        return result

    # ------------------------------------------------------------------------------ the folder

    def _open(self, create: bool) -> int | None:
        """A descriptor of the entries' folder (``v2``), opened without following a symlink at the
        folder or in it, after the checks of :func:`problem`; None when it is missing (and not
        ``create``) or fails them."""
        if create and not os.path.lexists(self.folder):
            try:
                os.makedirs(self.folder, mode=0o755, exist_ok=True)
            except OSError:
                return None
            created = True
        else:
            created = False
        try:
            top = os.open(self.folder, _DIR_FLAGS)
        except OSError:
            return None
        try:
            if _unsafe(os.fstat(top)):
                return None
            if created:
                _mark(top)
            sub = f"v{FORMAT}"
            if create:
                try:
                    os.mkdir(sub, 0o755, dir_fd=top)
                except FileExistsError:
                    pass
                except OSError:
                    return None
            try:
                fd = os.open(sub, _DIR_FLAGS, dir_fd=top)
            except OSError:
                return None
            if _unsafe(os.fstat(fd)):
                os.close(fd)
                return None
            return fd
        finally:
            os.close(top)

    def _read(self, k: str) -> Entry | None:
        fd = self._open(create=False)
        if fd is None:
            return None
        try:
            raw = _read_file(fd, k + ".json")
        finally:
            os.close(fd)
        return _parse(raw) if raw is not None else None

    def _write(self, k: str, entry: dict[str, Any]) -> None:
        try:
            body = orjson.dumps(entry)
        except TypeError:
            return  # something JSON cannot hold (a path that is not UTF-8): not stored
        if not body.startswith(HEAD) or len(body) > MAX_ENTRY:
            return
        fd = self._open(create=True)
        if fd is None:
            return
        try:
            name = k + ".json"
            guard.check(self.folder, os.path.join(self.folder, f"v{FORMAT}", name), what=WHAT)
            _replace(fd, name, body)
            _prune(fd, self.folder)
        except (OSError, guard.Outside):
            return  # a read-only or full disk, a folder swapped for a link: the run goes on without a cache
        finally:
            os.close(fd)


def _unsafe(st: os.stat_result) -> bool:
    """Not a folder of this user's that only this user can write."""
    return not statmod.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or bool(st.st_mode & 0o022)


def _mark(top: int) -> None:
    """A new cache folder, as ruff marks its own: never committed by accident, skipped by backups."""
    for name, text in ((".gitignore", "# created by evalfmt\n*\n"),
                       ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"
                                        "# This file is a cache directory tag created by evalfmt.\n")):
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=top)
        except OSError:
            continue
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(text)


def _read_file(folder: int, name: str) -> bytes | None:
    """An entry file's bytes (a regular file of this user's, opened without following a symlink)."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=folder)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not statmod.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_size > MAX_ENTRY:
            return None
        return fh.read(MAX_ENTRY + 1)


def _replace(folder: int, name: str, body: bytes) -> None:
    """Write ``name`` whole or not at all: a temporary file of this run's own, renamed over it (never
    over something that is not a regular file: a symlink there is left alone)."""
    try:
        st = os.stat(name, dir_fd=folder, follow_symlinks=False)
        if not statmod.S_ISREG(st.st_mode):
            return
    except FileNotFoundError:
        pass
    tmp = f"{name}.{os.getpid()}.{os.urandom(8).hex()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(body)
        os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=folder)
        except OSError:
            pass
        raise


def _prune(folder: int, top: str) -> None:
    """Past :data:`MAX_FILES` entries, the least recently written half goes, with temporary files a
    dead run left; a file goes only when its name and its first bytes are an entry's (``folder``: the
    entries' folder, opened; ``top``: the cache folder's path, the root the guard checks against)."""
    names = os.listdir(folder)
    entries = [n for n in names if _ENTRY.match(n)]
    if len(entries) <= MAX_FILES:
        return
    aged: list[tuple[int, str]] = []
    for n in entries:
        try:
            aged.append((os.stat(n, dir_fd=folder, follow_symlinks=False).st_mtime_ns, n))
        except OSError:
            continue
    doomed = [n for _, n in sorted(aged)[: len(aged) - MAX_FILES // 2]]
    limit = time.time_ns() - STALE_TMP * 1_000_000_000
    for n in names:
        if _TMP.match(n):
            try:
                if os.stat(n, dir_fd=folder, follow_symlinks=False).st_mtime_ns < limit:
                    doomed.append(n)
            except OSError:
                continue
    sub = os.path.join(top, f"v{FORMAT}")
    for n in doomed:
        if _ours(folder, n):
            try:
                guard.check_entry(top, os.path.join(sub, n), what=WHAT)
                os.unlink(n, dir_fd=folder)
            except (OSError, guard.Outside):
                continue


def _ours(folder: int, name: str) -> bool:
    """A regular file of this user's in the entries' folder that starts as an entry does."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=folder)
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        return statmod.S_ISREG(st.st_mode) and st.st_uid == os.geteuid() and os.read(fd, len(HEAD)) == HEAD
    except OSError:
        return False
    finally:
        os.close(fd)


# --------------------------------------------------------------------------------- reading back


def _parse(raw: bytes) -> Entry | None:
    """The entry ``raw`` holds, or None unless it is exactly what :meth:`Cache.run` writes."""
    if not raw.startswith(HEAD) or len(raw) > MAX_ENTRY:
        return None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not (isinstance(data, dict) and data.get("evalfmt_cache") == FORMAT and set(data) == {
            "evalfmt_cache", "inputs", "result", "parts"} and isinstance(data["parts"], dict)):
        return None
    inputs = _inputs(data["inputs"])
    if inputs is None:
        return None
    parts: dict[str, tuple[list[list[Any]], Any]] = {}
    for k, part in data["parts"].items():
        if not (isinstance(part, dict) and set(part) == {"inputs", "result"}):
            return None
        found = _inputs(part["inputs"])
        if found is None:
            return None
        parts[k] = (found, part["result"])
    return Entry(inputs, data["result"], parts)


def _inputs(items: object) -> list[list[Any]] | None:
    """Recorded observations: a list of ``[kind, path, state]``, checked item by item when they are
    observed again (:func:`evalfmt.fsview.unchanged`: anything else there is a change). There is always
    one at least (a run looks at the paths it is given, a part at its skill folder): a result that
    depends on nothing was not recorded by evalfmt."""
    return items if isinstance(items, list) and items else None


def _decoded(data: Any, decode: Callable[[Any], T | None]) -> T | None:
    if data is None:
        return None
    try:
        return decode(data)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        return None


# ----------------------------------------------------------------------------------------- where


def folder_for(explicit: str | None) -> str | None:
    """The cache folder: ``--cache-dir``, else ``$EVALFMT_CACHE_DIR``, else ``.evalfmt_cache`` in the
    nearest folder up from the working folder holding ``.git``, ``pyproject.toml`` or
    ``evalfmt.toml`` (else the working folder). None when that folder would sit inside a skill
    folder (its files would be the skill's files)."""
    folder = explicit or os.environ.get("EVALFMT_CACHE_DIR") or os.path.join(_project_root(), DEFAULT_DIR)
    folder = os.path.abspath(folder)
    cur = os.path.dirname(folder)
    while True:
        if os.path.isfile(os.path.join(cur, "SKILL.md")):
            return None
        parent = os.path.dirname(cur)
        if parent == cur:
            return folder
        cur = parent


def _project_root() -> str:
    start = cur = os.getcwd()
    while True:
        if any(os.path.lexists(os.path.join(cur, m)) for m in (".git", "pyproject.toml", "evalfmt.toml")):
            return cur
        parent = os.path.dirname(cur)
        if parent == cur:
            return start
        cur = parent


def problem(folder: str) -> str | None:
    """Why ``folder`` must not be used as a cache folder (None: it may be, or it does not exist yet and
    will be made): a symlink (at the folder or at its entries' folder), not a folder, another user's,
    or writable by others."""
    for path in (folder, os.path.join(folder, f"v{FORMAT}")):
        try:
            guard.plain_root(path, below=os.path.dirname(path), what=WHAT)
        except guard.Outside:
            return f"{path} is a symlink"
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"cannot look at it ({exc.strerror or exc.errno})"
        if not statmod.S_ISDIR(st.st_mode):
            return f"{path} is not a folder"
        if st.st_uid != os.geteuid():
            return f"{path} belongs to another user (uid {st.st_uid})"
        if st.st_mode & 0o022:
            return f"{path} is writable by others (mode {statmod.S_IMODE(st.st_mode):o})"
    return None


def open_folder(explicit: str | None) -> tuple[Cache | None, str | None]:
    """The cache to use (``explicit``: ``--cache-dir``), and the warning to print when the folder is
    refused (then there is no cache: the run goes on without one)."""
    folder = folder_for(explicit)
    if folder is None:
        return None, None
    why = problem(folder)
    if why is not None:
        return None, f"warning: not using the cache folder {folder}: {why}; running without a cache"
    return Cache(folder), None


# ------------------------------------------------------------------------------------ the results


_SEVERITIES = ("error", "warning", "info")


def diagnostics_to_json(diags: list[Diagnostic]) -> list[list[Any]]:
    """Findings as the cache stores them (path, line, column, code, message, severity, fixable, data)."""
    return [[d.path, d.line, d.column, d.code, d.message, d.severity, d.fixable, d.data] for d in diags]


def diagnostics_from_json(rows: object) -> list[Diagnostic]:
    """The findings :func:`diagnostics_to_json` stored; ValueError unless ``rows`` is exactly that."""
    if not isinstance(rows, list):
        raise ValueError("not a list")
    out = []
    for row in rows:
        if not (isinstance(row, list) and len(row) == 8):
            raise ValueError("not a finding")
        path, line, column, code, message, severity, fixable, extra = row
        if not (isinstance(path, str) and _int(line) and _int(column) and isinstance(code, str)
                and isinstance(message, str) and severity in _SEVERITIES and isinstance(fixable, bool)
                and isinstance(extra, dict)):
            raise ValueError("not a finding")
        out.append(Diagnostic(path, line, column, code, message, severity, fixable, extra))
    return out


def strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def validation_to_json(result: Validation) -> dict[str, Any]:
    return {"diagnostics": diagnostics_to_json(result.diagnostics), "files": result.files, "empty": result.empty,
            "notes": result.notes}


def validation_from_json(data: Any) -> Validation | None:
    if not (isinstance(data, dict) and _int(data.get("files")) and strings(data.get("empty"))
            and strings(data.get("notes"))):
        return None
    return Validation(diagnostics_from_json(data.get("diagnostics")), data["files"], list(data["empty"]),
                      list(data["notes"]))

