"""The file-system view (evalfmt/fsview.py): each way of looking at the disk records what it saw, and
:func:`unchanged` tells, by looking again, whether any answer would differ now."""

from __future__ import annotations

import hashlib
import os
import pathlib

import pytest

from evalfmt import fsview
from evalfmt.fsview import TooLarge, View, unchanged


@pytest.fixture
def tree(tmp_path) -> pathlib.Path:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.yaml").write_text("a: 1\n")
    (tmp_path / "d" / "b.txt").write_text("bee\n")
    (tmp_path / "d" / "sub").mkdir()
    (tmp_path / "d" / "sub" / "c.yaml").write_text("c: 3\n")
    (tmp_path / "d" / "link").symlink_to("a.yaml")
    return tmp_path


def recorded(look) -> list[list[object]]:
    view = View(record=True)
    look(view)
    assert view.inputs
    return view.recorded()


LOOKS = {
    "read_bytes": (lambda v, t: v.read_bytes(str(t / "d" / "a.yaml"), 100),
                   lambda t: (t / "d" / "a.yaml").write_text("a: 2\n")),
    "read_head": (lambda v, t: v.read_head(str(t / "d" / "b.txt"), 2),
                  lambda t: (t / "d" / "b.txt").write_text("bee and more\n")),
    "a file that is not there": (lambda v, t: pytest.raises(OSError, v.read_bytes, str(t / "d" / "no.yaml"), 100),
                                 lambda t: (t / "d" / "no.yaml").write_text("now: here\n")),
    "isfile": (lambda v, t: v.isfile(str(t / "d" / "sub")), lambda t: _replace_with_file(t / "d" / "sub")),
    "exists (absent)": (lambda v, t: v.exists(str(t / "d" / "ghost")), lambda t: (t / "d" / "ghost").mkdir()),
    "lexists (a dangling link)": (lambda v, t: v.lexists(str(t / "d" / "dangling")),
                                  lambda t: (t / "d" / "dangling").symlink_to("nowhere")),
    "lstat": (lambda v, t: v.lstat(str(t / "d" / "b.txt")), lambda t: (t / "d" / "b.txt").chmod(0o755)),
    "listdir": (lambda v, t: v.listdir(str(t / "d" / "sub")), lambda t: (t / "d" / "sub" / "new").write_text("")),
    "listdir (missing)": (lambda v, t: pytest.raises(OSError, v.listdir, str(t / "nodir")),
                          lambda t: (t / "nodir").mkdir()),
    "scandir (an entry's type)": (lambda v, t: v.scandir(str(t / "d")), lambda t: _replace_link_with_dir(t)),
    "walk": (lambda v, t: list(v.walk(str(t / "d"))), lambda t: (t / "d" / "sub" / "deep.yaml").write_text("")),
    "realpath": (lambda v, t: v.realpath(str(t / "d" / "link")), lambda t: _retarget(t / "d" / "link", "b.txt")),
    "glob": (lambda v, t: v.glob(str(t / "d" / "**" / "*.yaml")), lambda t: (t / "d" / "sub" / "x.yaml").write_text("")),
}


def _replace_with_file(path: pathlib.Path) -> None:
    for p in path.iterdir():
        p.unlink()
    path.rmdir()
    path.write_text("now a file\n")


def _replace_link_with_dir(t: pathlib.Path) -> None:
    (t / "d" / "link").unlink()
    (t / "d" / "link").mkdir()


def _retarget(link: pathlib.Path, target: str) -> None:
    link.unlink()
    link.symlink_to(target)


@pytest.mark.parametrize("how", list(LOOKS))
def test_each_look_is_an_input_and_a_change_to_it_is_seen(tree, how):
    look, change = LOOKS[how]
    inputs = recorded(lambda v: look(v, tree))
    assert unchanged(inputs)
    change(tree)
    assert not unchanged(inputs)


def test_a_view_without_recording_keeps_nothing(tree):
    view = View()
    view.read_bytes(str(tree / "d" / "a.yaml"), 100)
    assert view.inputs is None and view.recorded() == []


def test_virtual_files_stand_in_for_the_disk(tree):
    view = View({str(tree / "d" / "unsaved.yaml"): b"x: 1\n", str(tree / "d" / "a.yaml"): b"edited: 1\n"})
    assert view.isfile(str(tree / "d" / "unsaved.yaml")) and view.read_bytes(str(tree / "d" / "unsaved.yaml"), 10)
    assert view.read_bytes(str(tree / "d" / "a.yaml"), 100) == b"edited: 1\n"
    assert view.read_head(str(tree / "d" / "a.yaml"), 3) == b"edi"
    with pytest.raises(TooLarge) as exc:
        view.read_bytes(str(tree / "d" / "a.yaml"), 4)
    assert exc.value.size is None


def test_a_file_over_the_limit(tree):
    view = View(record=True)
    with pytest.raises(TooLarge) as exc:
        view.read_bytes(str(tree / "d" / "b.txt"), 2)
    assert exc.value.size == 4 and unchanged(view.recorded())


def test_a_file_changed_just_before_it_was_read_is_recorded_with_its_content(tree):
    path = tree / "d" / "a.yaml"
    view = View(record=True)
    view.read_bytes(str(path), 100)
    ((kind, where, state),) = view.recorded()
    st = path.stat()
    assert (kind, where) == ("f", str(path))
    assert state == [st.st_size, st.st_mtime_ns, st.st_ctime_ns, hashlib.sha256(b"a: 1\n").hexdigest()]
    # the same times with other content (a change within one clock tick): the hash tells
    assert not unchanged([["f", str(path), state[:3] + [hashlib.sha256(b"a: 9\n").hexdigest()]]])


def test_an_old_file_is_recorded_by_its_size_and_times(tree, monkeypatch):
    monkeypatch.setattr(fsview, "RACY_NS", -10**12)  # (every file older than the window)
    path = tree / "d" / "a.yaml"
    view = View(record=True)
    view.read_bytes(str(path), 100)
    st = path.stat()
    assert view.recorded() == [["f", str(path), [st.st_size, st.st_mtime_ns, st.st_ctime_ns]]]
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # the same times set again: the change time moves
    assert not unchanged(view.recorded())


def test_inconsistent_or_unknown_observations_are_changes(tree):
    path = str(tree / "d" / "a.yaml")
    assert not unchanged([["t", path, "f"], ["t", path, "d"]])  # one path seen two ways
    assert not unchanged([["q", path, "f"]])
    assert not unchanged([[1, path, "f"]])
    assert unchanged([["t", path, "f"], ["l", path, "f"], ["t", str(tree / "d" / "link"), "f"],
                      ["l", str(tree / "d" / "link"), "l"]])
