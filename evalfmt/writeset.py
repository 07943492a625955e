"""Writing a set of output files: inside its output folder, under a lock, all or nothing.

Every command that writes eval files (``convert -o``, ``transpile``, ``schema``) goes through
:func:`write_set`:

1. **Root rule.** Each path must resolve (symlinks followed, as the kernel would follow them) inside
   its output folder, the *root*; one path outside refuses the whole set before anything is written
   (:func:`evalfmt.guard.check`, the one path guard).
2. **Lock.** An exclusive ``flock`` on each root folder (on a file system that refuses locks on
   folders, on ``<root>/.evalfmt.lock``) is held from before the first comparison to after the last
   rename. A second evalfmt writing to the same folder waits for it (saying so once), at most
   ``EVALFMT_LOCK_TIMEOUT`` seconds (default 120), then gives up writing nothing.
3. **Repair.** A journal left in a root by a write that was killed is finished first (see below).
4. **Atomic set.** Files whose bytes would not change are left alone. One changed file is written to a
   temporary file beside it and renamed over it. Several changed files in one root form a set: the
   journal ``<root>/.evalfmt-journal`` is written listing the temporary names (state ``pending``),
   every temporary file is written, the journal is switched to ``commit`` (an atomic rename), the
   temporary files are renamed over their targets in order, and the journal is removed. A kill
   before the switch leaves every target as it was (the next write deletes the listed temporary
   files); a kill after it leaves a journal that the next write into that folder rolls forward, so
   the set ends all new.

Limits (docs/security.md, "Output integrity"): nothing is fsynced, so the promise covers evalfmt
being killed or crashing, not the machine losing power; a set spanning several roots is atomic per
root; a process that is not evalfmt is not held off by the lock.
"""

from __future__ import annotations

import errno
import json
import os
import time
from collections.abc import Callable, Mapping

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no lock
    fcntl = None  # type: ignore[assignment]

from . import guard
from .errors import EvalfmtError
from .paths import plain_relpath

JOURNAL = ".evalfmt-journal"
LOCK_FILE = ".evalfmt.lock"
TMP_PREFIX = ".evalfmt-"
TMP_SUFFIX = ".tmp"
DEFAULT_LOCK_TIMEOUT = 120.0

Notify = Callable[[str], None]


def check_roots(paths, root_of: Callable[[str], str]) -> None:
    """The root rule (:func:`evalfmt.guard.check`): refuse when any path resolves outside its root."""
    for path in paths:
        guard.check(root_of(path), path)


def write_set(files: Mapping[str, bytes], roots: str | Mapping[str, str], notify: Notify | None = None) -> list[str]:
    """Write ``files`` (path -> bytes) as described in the module docstring. ``roots`` is the one
    output folder of every path, or a mapping path -> its folder. Returns the paths written."""
    if roots is None:
        raise EvalfmtError("no output folder given: nothing is written without one")
    root_of = (lambda _p: roots) if isinstance(roots, str) else roots.__getitem__
    check_roots(files, root_of)
    timeout = lock_timeout()
    groups: dict[str, list[str]] = {}
    for path in files:
        groups.setdefault(root_of(path), []).append(path)
    say = notify or (lambda _m: None)
    written: list[str] = []
    locks = []
    try:
        for root in sorted(groups, key=os.path.realpath):
            locks.append(lock(root, say, timeout))
        for root in sorted(groups, key=os.path.realpath):
            repair(root, say)
        for root, paths in groups.items():
            changed = [p for p in paths if not _same(p, files[p])]
            if len(changed) == 1:
                atomic_write(changed[0], files[changed[0]])
            elif changed:
                _commit_set(root, changed, files)
            written.extend(changed)
    finally:
        for held in reversed(locks):
            held.release()
    done = set(written)
    return [p for p in files if p in done]


def _same(path: str, data: bytes) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read() == data
    except OSError:
        return False


# ------------------------------------------------------------------------------------ the set


def _rel(root: str, path: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


def _commit_set(root: str, paths: list[str], files: Mapping[str, bytes]) -> None:
    import secrets  # 1.8 ms to import (python -X importtime): only when a set is written (validate loads writeset)

    token = secrets.token_hex(6)
    entries = []
    for i, path in enumerate(paths):
        tmp = os.path.join(os.path.dirname(path), f"{TMP_PREFIX}{token}-{i}{TMP_SUFFIX}")
        entries.append((path, tmp))
    journal = {"evalfmt_journal": 1, "state": "pending",
               "files": [[_rel(root, p), _rel(root, t)] for p, t in entries]}
    _write_journal(root, journal)
    for path, tmp in entries:
        _write_new(tmp, files[path], _mode_of(path))
    journal["state"] = "commit"
    _write_journal(root, journal)  # the commit point: from here on the set is new
    for path, tmp in entries:
        _replace(tmp, path)
    _remove(os.path.join(root, JOURNAL))


def _write_journal(root: str, data: dict) -> None:
    path = os.path.join(root, JOURNAL)
    tmp = path + TMP_SUFFIX
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh)
        os.replace(tmp, path)
    except OSError as exc:
        raise EvalfmtError(f"cannot write {path}: {exc.strerror or exc}; nothing written") from None


def _write_new(path: str, data: bytes, mode: int) -> None:
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(path, mode)
    except OSError as exc:
        raise EvalfmtError(f"cannot write {path}: {exc.strerror or exc}") from None


def _replace(tmp: str, path: str) -> None:
    try:
        os.replace(tmp, path)
    except OSError as exc:
        raise EvalfmtError(f"cannot write {path}: {exc.strerror or exc}; run the command again to finish "
                           "the interrupted set") from None


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise EvalfmtError(f"cannot remove {path}: {exc.strerror or exc}") from None


def _mode_of(path: str) -> int:
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        return 0o644


def atomic_write(path: str, data: bytes) -> None:
    """One file, atomically: a temporary file in the same folder, then a rename over ``path``."""
    import tempfile  # 1.1 ms to import (python -X importtime): only when a file is written

    folder = os.path.dirname(path) or "."
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, suffix=TMP_SUFFIX, dir=folder)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.chmod(tmp, _mode_of(path))
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError as exc:
        raise EvalfmtError(f"cannot write {path}: {exc.strerror or exc}") from None


# ---------------------------------------------------------------------------------- repairing


def repair(root: str, notify: Notify) -> None:
    """Finish what a killed write left in ``root`` (call with the root's lock held): a committed
    journal is rolled forward, a pending one rolled back (its temporary files deleted)."""
    path = os.path.join(root, JOURNAL)
    if os.path.lexists(path + TMP_SUFFIX):  # killed while writing the journal itself: nothing began
        _remove(path + TMP_SUFFIX)
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        return
    except (OSError, UnicodeDecodeError) as exc:
        raise EvalfmtError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    entries, state = _parse_journal(root, text, path)
    if state == "commit":
        done = 0
        for target, tmp in entries:
            if os.path.lexists(tmp):
                _replace(tmp, target)
                done += 1
        notify(f"finished an interrupted write in {root} ({done} of {len(entries)} files were still to rename)")
    else:
        for _target, tmp in entries:
            _remove(tmp)
        notify(f"rolled back an interrupted write in {root} (no file had been replaced)")
    _remove(path)


def _parse_journal(root: str, text: str, path: str) -> tuple[list[tuple[str, str]], str]:
    """The (target, temporary file) pairs of a journal and its state; EvalfmtError when it is not a
    journal evalfmt wrote (every name must be a temporary file beside its target, inside ``root``)."""
    def bad(why: str) -> EvalfmtError:
        return EvalfmtError(f"{path}: not a journal evalfmt can finish ({why}); if no evalfmt is writing to "
                            f"{root}, delete it")

    try:
        data = json.loads(text)
    except ValueError:
        raise bad("not JSON") from None
    if not isinstance(data, dict) or data.get("evalfmt_journal") != 1 \
            or data.get("state") not in ("pending", "commit") or not isinstance(data.get("files"), list):
        raise bad("unknown shape")
    pairs = []
    for item in data["files"]:
        if not (isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)):
            raise bad("unknown shape")
        target_rel, tmp_rel = item
        t_dir, t_name = os.path.split(tmp_rel)
        if not (plain_relpath(target_rel) and plain_relpath(tmp_rel) and t_dir == os.path.dirname(target_rel)
                and t_name.startswith(TMP_PREFIX) and t_name.endswith(TMP_SUFFIX)):
            raise bad(f"'{target_rel}' / '{tmp_rel}' is not a temporary file beside its target")
        target, tmp = os.path.join(root, target_rel), os.path.join(root, tmp_rel)
        if not (guard.inside(root, target) and guard.inside(root, tmp)):
            raise bad(f"'{target_rel}' leads outside the folder")
        pairs.append((target, tmp))
    return pairs, data["state"]


# -------------------------------------------------------------------------------------- locking


class _Held:
    def __init__(self, fd: int | None):
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the descriptor drops the lock
            self.fd = None


def lock_timeout() -> float:
    raw = os.environ.get("EVALFMT_LOCK_TIMEOUT")
    if raw is None:
        return DEFAULT_LOCK_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        raise EvalfmtError(f"EVALFMT_LOCK_TIMEOUT={raw!r} is not a number of seconds") from None
    return max(value, 0.0)


def lock(root: str, notify: Notify, timeout: float = DEFAULT_LOCK_TIMEOUT) -> _Held:
    """An exclusive lock on the folder ``root`` (created if missing), waiting at most ``timeout``
    seconds for another holder."""
    if fcntl is None:  # pragma: no cover - not POSIX: no lock
        return _Held(None)
    try:
        os.makedirs(root, exist_ok=True)
        fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        raise EvalfmtError(f"cannot open the output folder {root}: {exc.strerror or exc}") from None
    try:
        _acquire(fd, fcntl.flock, root, notify, timeout)
        return _Held(fd)
    except OSError as exc:
        os.close(fd)
        if exc.errno not in (errno.EBADF, errno.ENOLCK, errno.EINVAL, errno.EOPNOTSUPP):
            raise EvalfmtError(f"cannot lock the output folder {root}: {exc.strerror or exc}") from None
    except BaseException:
        os.close(fd)
        raise
    # a file system without locks on folders (some network file systems): a lock file instead
    path = os.path.join(root, LOCK_FILE)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:
        raise EvalfmtError(f"cannot open {path}: {exc.strerror or exc}") from None
    try:
        _acquire(fd, fcntl.lockf, root, notify, timeout)
    except OSError as exc:
        os.close(fd)
        raise EvalfmtError(f"cannot lock {path}: {exc.strerror or exc}") from None
    except BaseException:
        os.close(fd)
        raise
    return _Held(fd)


def _acquire(fd: int, how, root: str, notify: Notify, timeout: float) -> None:
    try:
        how(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    notify(f"waiting for another evalfmt that is writing to {root} (at most {timeout:g} s)")
    deadline = time.monotonic() + timeout
    delay = 0.01
    while True:
        time.sleep(delay)
        try:
            how(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise EvalfmtError(f"another evalfmt has been writing to {root} for {timeout:g} s; giving up, "
                                   "nothing written (EVALFMT_LOCK_TIMEOUT sets the wait)") from None
            delay = min(delay * 2, 0.2)
