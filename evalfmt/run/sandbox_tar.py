"""Trees that travel as tar archives (the ``ray`` runner): a sandbox's inputs out to a node, the
sandbox as the agent left it back.

- :func:`pack_tree` packs what :func:`sandbox.copy_tree` would copy (the same walk, the same rules:
  a symlink leading out is left out with a note, one inside is recreated as its relative path), so
  a tree unpacked and then staged on a node stages what the tree itself would have staged here.
- :func:`pack_folder` packs a folder as it is (every symlink as it was written): the sandbox after
  the session, laid out in the run folder exactly as the ``command`` runner leaves it.
- :func:`unpack` writes an archive into an empty folder and never outside it: an absolute name, a
  ``..`` that climbs out, or a name reached through a symlink leading out is refused
  (:class:`UnsafeArchive`), as is a hard link; permission bits are kept, set-id and sticky bits
  dropped. Archives are plain POSIX tar, uncompressed (sandboxes are small; the object store moves
  bytes, and compressing would cost more CPU than it saves on a local network); modification times
  travel to the second.
"""

from __future__ import annotations

import io
import os
import stat
import tarfile

from .sandbox import walk_tree


class UnsafeArchive(ValueError):
    """An archive member that would be written outside the folder it is unpacked into."""


def _add(tar: tarfile.TarFile, path: str, rel: str) -> None:
    """One entry as it is on disk: a folder, a file (stored whole even when it has several links,
    never as a hard link), a symlink as written, or a FIFO; sockets and devices are left out."""
    st = os.lstat(path)
    info = tarfile.TarInfo(rel)
    info.mode, info.mtime = stat.S_IMODE(st.st_mode), int(st.st_mtime)
    if stat.S_ISREG(st.st_mode):
        info.size = st.st_size
        with open(path, "rb") as fh:
            tar.addfile(info, fh)
        return
    if stat.S_ISDIR(st.st_mode):
        info.type = tarfile.DIRTYPE
    elif stat.S_ISLNK(st.st_mode):
        info.type, info.linkname = tarfile.SYMTYPE, os.readlink(path)
    elif stat.S_ISFIFO(st.st_mode):
        info.type = tarfile.FIFOTYPE
    else:
        return
    tar.addfile(info)


def pack_tree(src: str, exclude_top: tuple[str, ...] = (), exclude: tuple[str, ...] = ()) -> tuple[bytes, list[str]]:
    """``src`` as :func:`sandbox.copy_tree` would copy it, as tar bytes, and the notes on what was left out."""
    notes: list[str] = []
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for entry in walk_tree(src, notes, exclude_top, exclude):
            if entry.link is not None:
                info = tarfile.TarInfo(entry.rel)
                info.type, info.linkname, info.mode = tarfile.SYMTYPE, entry.link, 0o777
                tar.addfile(info)
            else:
                _add(tar, entry.path, entry.rel)
    return buf.getvalue(), notes


def pack_folder(folder: str) -> bytes:
    """Everything under ``folder`` as it is (symlinks as written, never followed), as tar bytes."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for base, dirs, files in os.walk(folder):
            dirs.sort()
            for name in dirs + sorted(files):
                full = os.path.join(base, name)
                _add(tar, full, os.path.relpath(full, folder))
    return buf.getvalue()


def _keep_inside(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo:
    if member.islnk():
        raise UnsafeArchive(f"'{member.name}' is a hard link (never packed by evalfmt)")
    try:
        safe = tarfile.tar_filter(member, dest)  # refuses absolute names and paths leading out of dest
    except tarfile.FilterError as exc:
        raise UnsafeArchive(f"'{member.name}' would be written outside the folder ({type(exc).__name__})") from None
    if safe.mode is None or member.issym():
        return safe
    return safe.replace(mode=member.mode & 0o777, deep=False)


def unpack(data: bytes, folder: str) -> None:
    """Write the archive ``data`` into ``folder`` (see the module docstring); :class:`UnsafeArchive`
    when a member would land outside it."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r") as tar:
        tar.extractall(folder, filter=_keep_inside)
