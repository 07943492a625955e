"""The result cache of ``lint`` and ``validate`` (ruff's model: a run with nothing changed reads its
results back instead of computing them).

An entry is the result of one piece of work (a whole ``lint``/``validate`` run, or the lint of one
skill folder) together with everything that work read from the file system: while it runs, every
``stat``/``lstat``, folder listing, ``readlink`` and file opened for reading is recorded (:class:`Recorder`),
with what was seen (a file's mode, size, inode, device and modification and change times in
nanoseconds; a folder's names; a link's target). The entry is used again only when every one of
those still looks the same: so a change to any input, a file of the skill, a fixture folder, a path
a rule probed outside the skill, the configuration, an installed package, is a miss. Its key holds
the evalfmt version, the command, its options, the working folder and the ``EVALFMT_*`` environment.

Never stale: an entry is not stored when a file it read was modified within the last
:data:`RACY_NS` (a later change in the same clock tick could keep its size and times), nor when the
work read something the recorder cannot name (a file descriptor). Never trusted: an entry is a
checksummed JSON document checked field by field on load; anything unexpected (truncated, edited,
another version, a type out of place) is a miss, never an error and never a result. Safe under
concurrent runs: entries are written to a temporary file and renamed into place.
"""

from __future__ import annotations

import builtins
import contextlib
try:  # CPython's own SHA-256: hashlib would load OpenSSL first (~3 ms on every pre-commit run)
    from _sha256 import sha256  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - other interpreters, Python >= 3.12
    try:
        from _sha2 import sha256  # type: ignore[import-not-found]
    except ImportError:
        from hashlib import sha256
import io
import os
import time
from typing import Any, Callable

from . import __version__

FORMAT = 1
DEFAULT_DIR = ".evalfmt_cache"
#: files modified this recently (ns) make an entry racy: it is not stored
RACY_NS = 2_000_000_000
#: an entry file larger than this is not read
MAX_ENTRY = 64 * 1024 * 1024
#: run files kept in a cache folder (then the oldest half goes)
MAX_FILES = 1024

State = Any  # list[int] (stat), ["E", errno], list[str] (a listing), str (a link target)


# ------------------------------------------------------------------------------------- recording


def _stat_state(st: os.stat_result) -> list[int]:
    return [st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]


def observe(kind: str, path: str) -> State:
    """What ``kind`` shows of ``path`` now: ``s`` stat, ``l`` lstat, ``d`` the sorted names of a
    folder, ``r`` a link's target; ``["E", errno]`` when it fails."""
    try:
        if kind == "s":
            return _stat_state(_REAL["stat"](path))
        if kind == "l":
            return _stat_state(_REAL["lstat"](path))
        if kind == "d":
            return sorted(_REAL["listdir"](path))
        if kind == "r":
            return _REAL["readlink"](path)
    except OSError as exc:
        return ["E", exc.errno or 0]
    except (ValueError, TypeError):
        return ["E", -1]
    return ["E", -2]


_REAL: dict[str, Callable] = {"stat": os.stat, "lstat": os.lstat, "listdir": os.listdir, "scandir": os.scandir,
                              "readlink": os.readlink, "open": builtins.open}
_ACTIVE: list["Recorder"] = []


class _Listing:
    """What a recorded ``os.scandir`` returns: an iterator over the entries read, usable as
    scandir's own (``with``, ``next``, ``close``)."""

    def __init__(self, entries: list) -> None:
        self._it = iter(entries)

    def __iter__(self) -> "_Listing":
        return self

    def __next__(self) -> Any:
        return next(self._it)

    def __enter__(self) -> "_Listing":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def close(self) -> None:
        return None


def _name(path: object) -> str | None:
    """The path as the work named it (the working folder is part of every key)."""
    if isinstance(path, str):
        return path
    if isinstance(path, os.PathLike):
        p = os.fspath(path)
        return p if isinstance(p, str) else None
    return None


def _known(kind: str, name: str) -> bool:
    """True when the innermost recorder has seen this already (or none records)."""
    return not _ACTIVE or (kind, name) in _ACTIVE[-1].probes


def _taint() -> None:
    if _ACTIVE:
        _ACTIVE[-1].tainted = True


def _note(kind: str, path: object, state: State | None = None) -> None:
    """Record a probe in the innermost recorder (an enclosing one gets them all when it ends)."""
    if not _ACTIVE:
        return
    name = _name(path)
    r = _ACTIVE[-1]
    if name is None:
        r.tainted = True
    elif (kind, name) not in r.probes:
        r.probes[(kind, name)] = observe(kind, name) if state is None else state


def _stat_or_fail(kind: str) -> Callable:
    real = _REAL["stat"] if kind == "s" else _REAL["lstat"]

    def wrapped(path, *args, **kwargs):
        if args or kwargs.get("dir_fd") is not None or isinstance(path, int):
            _taint()
            return real(path, *args, **kwargs)
        which = kind if kwargs.get("follow_symlinks", True) else "l"
        try:
            result = real(path, **kwargs)
        except OSError as exc:
            _note(which, path, ["E", exc.errno or 0])
            raise
        if not (isinstance(path, str) and _known(which, path)):
            _note(which, path, _stat_state(result))
        return result

    return wrapped


def _listdir(path=".") -> list:
    if isinstance(path, int):
        _taint()
        return _REAL["listdir"](path)
    try:
        names = _REAL["listdir"](path)
    except OSError as exc:
        _note("d", path, ["E", exc.errno or 0])
        raise
    _note("d", path, sorted(n for n in names if isinstance(n, str)))
    return names


def _scandir(path="."):
    if isinstance(path, int):
        _taint()
        return _REAL["scandir"](path)
    try:
        with _REAL["scandir"](path) as it:
            entries = list(it)
    except OSError as exc:
        _note("d", path, ["E", exc.errno or 0])
        raise
    _note("d", path, sorted(e.name for e in entries if isinstance(e.name, str)))
    for e in entries:  # what scandir tells of each entry (its type) is an input too
        if _known("l", e.path):
            continue
        try:
            state: State = _stat_state(e.stat(follow_symlinks=False))  # (cached by the entry: no second call)
        except OSError as exc:
            state = ["E", exc.errno or 0]
        _note("l", e.path, state)
    return _Listing(entries)


def _readlink(path, *args, **kwargs):
    try:
        target = _REAL["readlink"](path, *args, **kwargs)
    except OSError as exc:
        _note("r", path, ["E", exc.errno or 0])
        raise
    _note("r", path, target if isinstance(target, str) else ["E", -1])
    return target


def _open(file, mode="r", *args, **kwargs):
    if any(c in mode for c in "wax+"):
        _taint()  # a work that writes is not a pure function of what it read
    elif isinstance(file, int):
        _taint()
        return _REAL["open"](file, mode, *args, **kwargs)
    try:
        fh = _REAL["open"](file, mode, *args, **kwargs)
    except OSError as exc:
        _note("s", file, ["E", exc.errno or 0])
        raise
    name = _name(file)
    if name is None:
        _taint()
    elif not _known("s", name):
        try:
            _note("s", name, _stat_state(os.fstat(fh.fileno())))
        except (OSError, ValueError, AttributeError):
            _note("s", name)
    return fh


_PATCHES: dict[tuple[object, str], Callable] = {
    (os, "stat"): _stat_or_fail("s"), (os, "lstat"): _stat_or_fail("l"), (os, "listdir"): _listdir,
    (os, "scandir"): _scandir, (os, "readlink"): _readlink, (builtins, "open"): _open, (io, "open"): _open,
}


class Recorder:
    """While active (``with``), records the file-system reads of the code it wraps (this thread's
    and any other's: the commands that use it run one thread). Recorders nest."""

    def __init__(self) -> None:
        self.probes: dict[tuple[str, str], State] = {}
        self.tainted = False
        self.started = time.time_ns()

    def __enter__(self) -> "Recorder":
        if not _ACTIVE:
            for (module, attr), fn in _PATCHES.items():
                setattr(module, attr, fn)
        _ACTIVE.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _ACTIVE.remove(self)
        if _ACTIVE:  # the enclosing work read all this too
            parent = _ACTIVE[-1]
            for probe, state in self.probes.items():
                parent.probes.setdefault(probe, state)
            parent.tainted = parent.tainted or self.tainted
        else:
            for (module, attr) in _PATCHES:
                setattr(module, attr, _REAL["open"] if attr == "open" else _REAL[attr])

    def racy(self) -> bool:
        """True when an input was modified too recently to be trusted by its times alone."""
        limit = self.started - RACY_NS
        return any(isinstance(s, list) and len(s) == 6 and isinstance(s[2], int) and (s[2] >= limit or s[3] >= limit)
                   for s in self.probes.values())


# ----------------------------------------------------------------------------------------- store


class Cache:
    """A cache folder. One file per run (its key): the run's result with its own inputs, and the
    parts it was made of (each skill folder's lint), each with its inputs. A part is reused by the
    next run of the same key when its inputs are unchanged, even if the run as a whole is not."""

    def __init__(self, folder: str) -> None:
        self.folder = os.path.abspath(folder)
        self.parts_in: dict[str, tuple[list, Any]] = {}  # key -> (probes, payload), from the file read
        self.parts_out: dict[str, tuple[list, Any]] = {}  # what this run computed or reused
        #: False on the first sight of a run (no file for its key yet): nothing is recorded, only a
        #: note is left, so a run that is never repeated pays nothing for the cache
        self.recording = True

    @staticmethod
    def key(*parts: object) -> str:
        """The key of a run: its parts (lists, tuples, strings, numbers, None, dataclasses: their
        ``repr`` is stable), evalfmt's version, the working folder and the ``EVALFMT_*`` environment."""
        text = repr((FORMAT, __version__, os.getcwd(), _env(), parts))
        return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def _path(self, key: str) -> str:
        return os.path.join(self.folder, f"v{FORMAT}", key + ".json")

    def get(self, key: str) -> Any | None:
        """The payload of the run ``key`` when every input it recorded still looks the same (its parts
        are kept for :meth:`get_part` either way)."""
        try:
            with _REAL["open"](self._path(key), "rb") as fh:
                raw = fh.read(MAX_ENTRY + 1)
        except FileNotFoundError:
            self.recording = False
            return None
        except OSError:
            return None
        secret = self._secret()
        entry = _verified(raw, secret) if len(raw) <= MAX_ENTRY and secret is not None else None
        if entry is None:
            return None
        probes, payload, parts = entry
        self.parts_in = parts
        if probes is None:
            return None
        everything = list(probes) + [p for part, _ in parts.values() for p in part]
        if not _unchanged(everything):
            return None
        self.parts_out = dict(parts)
        return payload

    def get_part(self, key: str) -> Any | None:
        found = self.parts_in.get(key)
        if found is None or not _unchanged(found[0]):
            return None
        self.parts_out[key] = found
        return found[1]

    def put_part(self, key: str, recorder: Recorder, payload: Any) -> None:
        if not (recorder.tainted or recorder.racy()):
            self.parts_out[key] = ([[k, n, s] for (k, n), s in recorder.probes.items()], payload)

    def put(self, key: str, recorder: Recorder | None, payload: Any) -> None:
        """Write the run's file: its payload with the inputs ``recorder`` saw (none when they cannot
        be trusted, or when nothing was recorded: then only the parts are kept), and its parts."""
        inside = {(k, n) for probes, _ in self.parts_out.values() for k, n, _s in probes}
        own = None
        if recorder is not None and not (recorder.tainted or recorder.racy()):
            own = [[k, n, s] for (k, n), s in recorder.probes.items() if (k, n) not in inside]
        parts = {k: {"probes": p, "payload": v} for k, (p, v) in self.parts_out.items()}
        body = None  # nothing worth keeping: a note that the run was seen (its existence is all it says)
        if own is not None or parts:
            import orjson

            try:
                body = orjson.dumps({"probes": own, "payload": payload if own is not None else None, "parts": parts})
            except TypeError:
                return  # a payload JSON cannot hold: not cached
        path = self._path(key)
        active = _ACTIVE[:]
        _ACTIVE.clear()  # the cache's own writes are no input of an enclosing work
        try:
            self._prepare(os.path.dirname(path))
            if body is None:
                _atomic_write(path, _NOTE)
            else:
                secret = self._secret()
                if secret is None:
                    return
                _atomic_write(path, _sign(secret, body).encode("ascii") + b"\n" + body)
            _prune(os.path.dirname(path))
        except OSError:
            return  # a read-only or full disk: the run goes on without a cache
        finally:
            _ACTIVE[:] = active

    def _secret(self) -> bytes | None:
        """The key entries are signed with: the identity of the cache folder on this machine (device,
        inode, change time in ns). A folder that arrives any other way (committed to a repository,
        restored, copied) has another identity, so none of its entries verifies."""
        try:
            st = _REAL["stat"](self.folder)
        except OSError:
            return None
        return f"{st.st_dev}:{st.st_ino}:{st.st_ctime_ns}".encode("ascii")

    def _prepare(self, folder: str) -> None:
        if os.path.isdir(folder):
            return
        if not os.path.isdir(self.folder):
            os.makedirs(self.folder, exist_ok=True)
            # like ruff's cache: never committed by accident, and tools that skip caches skip it
            for name, text in ((".gitignore", "# created by evalfmt\n*\n"),
                               ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"
                                                "# This file is a cache directory tag created by evalfmt.\n")):
                try:
                    _atomic_write(os.path.join(self.folder, name), text.encode("ascii"))
                except OSError:
                    pass
        os.makedirs(folder, exist_ok=True)


def _prune(folder: str) -> None:
    """Past :data:`MAX_FILES` run files, the least recently written half goes (runs of paths that
    are gone, options no longer used)."""
    names = [n for n in os.listdir(folder) if n.endswith(".json")]
    if len(names) <= MAX_FILES:
        return
    aged = []
    for n in names:
        try:
            aged.append((os.stat(os.path.join(folder, n)).st_mtime_ns, n))
        except OSError:
            continue
    for _, n in sorted(aged)[: len(aged) - MAX_FILES // 2]:
        try:
            os.unlink(os.path.join(folder, n))
        except OSError:
            pass


#: a run's file after its first sight (it is no entry: it never verifies)
_NOTE = b"seen once: recorded when run again\n"


def _unchanged(probes: list) -> bool:
    try:
        for kind, name, state in probes:
            if observe(kind, name) != state:
                return False
    except (TypeError, ValueError):  # not a (kind, path, state) triple
        return False
    for kind, name, state in probes:  # an enclosing recorder depends on them too
        _note(kind, name, state)
    return True


def observe_now(path: str) -> None:
    """Record ``path`` as an input of the active recorders (its stat), without reading it."""
    _note("s", path)


def _atomic_write(path: str, data: bytes) -> None:
    """Write ``path`` whole or not at all: a file of this process's own name beside it, renamed
    over it (another run reads the old entry or the new one, never a part)."""
    tmp = f"{path}.{os.getpid()}.{time.monotonic_ns()}.part"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _env() -> list[list[str]]:
    return sorted([k, v] for k, v in os.environ.items()
                  if k.startswith("EVALFMT_") and k not in ("EVALFMT_CACHE_DIR", "EVALFMT_NO_CACHE"))


def _sign(secret: bytes, body: bytes) -> str:
    import hmac

    return hmac.new(secret, body, sha256).hexdigest()


def _verified(raw: bytes, secret: bytes) -> tuple[list | None, Any, dict[str, tuple[list, Any]]] | None:
    """(probes, payload, parts) of a run's file, or None unless it is exactly what :meth:`Cache.put`
    writes (signature, shape, types)."""
    import hmac

    head, sep, body = raw.partition(b"\n")
    if not sep or len(head) != 64:
        return None
    try:
        if not hmac.compare_digest(_sign(secret, body), head.decode("ascii")):
            return None
        import orjson

        data = orjson.loads(body)
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("parts"), dict) or "payload" not in data:
        return None
    own = data.get("probes")
    probes = None if own is None else _probes(own)
    if own is not None and probes is None:
        return None
    parts: dict[str, tuple[list, Any]] = {}
    for key, part in data["parts"].items():
        found = _probes(part.get("probes")) if isinstance(part, dict) and "payload" in part else None
        if found is None:
            return None
        parts[key] = (found, part["payload"])
    return probes, data["payload"], parts


def _probes(items: object) -> list | None:
    """The probes of an entry whose signature checked (so written by :meth:`Cache.put`): only their
    container is checked here; a malformed item is a mismatch when :func:`_unchanged` reads it."""
    return items if isinstance(items, list) and all(isinstance(i, list) and len(i) == 3 for i in items) else None


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
        if any(os.path.exists(os.path.join(cur, m)) for m in (".git", "pyproject.toml", "evalfmt.toml")):
            return cur
        parent = os.path.dirname(cur)
        if parent == cur:
            return start
        cur = parent


def cached(cache: Cache | None, key_parts: tuple, compute: Callable[[], Any], encode: Callable[[Any], Any],
           decode: Callable[[Any], Any]) -> Any:
    """A run: ``compute()``, or its result read back from ``cache``. ``encode`` turns a result into
    JSON data (None: do not store it), ``decode`` turns such data back into a result (None or an
    exception: the data is unusable, compute instead)."""
    if cache is None or _virtual():
        return compute()
    key = Cache.key(*key_parts)
    result = _decoded(cache.get(key), decode)
    if result is not None:
        return result
    if not cache.recording:  # first sight: compute as without a cache, and leave the note
        result = compute()
        cache.put(key, None, None)
        return result
    return _recorded(key, cache.put, compute, encode)


def cached_part(cache: Cache, key_parts: tuple, compute: Callable[[], Any], encode: Callable[[Any], Any],
                decode: Callable[[Any], Any]) -> Any:
    """A part of a run (see :func:`cached`), kept in the run's file."""
    if not cache.recording:
        return compute()
    if _virtual():
        return compute()
    key = Cache.key(*key_parts)
    result = _decoded(cache.get_part(key), decode)
    if result is not None:
        return result
    return _recorded(key, cache.put_part, compute, encode)


def _recorded(key: str, put: Callable[[str, Recorder, Any], None], compute: Callable[[], Any],
              encode: Callable[[Any], Any]) -> Any:
    """``compute()`` with its inputs recorded, then stored under ``key``."""
    with Recorder() as rec:
        result = compute()
    data = encode(result)
    if data is not None:
        put(key, rec, data)
    return result


def _decoded(data: Any, decode: Callable[[Any], Any]) -> Any:
    if data is None:
        return None
    try:
        return decode(data)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        return None


_SEVERITIES = ("error", "warning", "info")


def diagnostics_to_json(diags: list) -> list:
    """Findings as the cache stores them (path, line, column, code, message, severity, fixable, data)."""
    return [[d.path, d.line, d.column, d.code, d.message, d.severity, d.fixable, d.data] for d in diags]


def diagnostics_from_json(rows: object) -> list:
    """The findings :func:`diagnostics_to_json` stored; ValueError unless ``rows`` is exactly that."""
    from .errors import Diagnostic

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


def validation_to_json(result: Any) -> dict:
    return {"diagnostics": diagnostics_to_json(result.diagnostics), "files": result.files, "empty": result.empty,
            "notes": result.notes}


def validation_from_json(data: Any) -> Any:
    from .errors import Validation

    if not (isinstance(data, dict) and _int(data.get("files")) and strings(data.get("empty"))
            and strings(data.get("notes"))):
        return None
    return Validation(diagnostics_from_json(data.get("diagnostics")), data["files"], list(data["empty"]),
                      list(data["notes"]))


def _virtual() -> bool:
    from .load import VIRTUAL

    return bool(VIRTUAL)  # stdin or an editor's text: not what the files hold

