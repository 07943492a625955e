"""The one path guard (evalfmt/guard.py): what resolves outside a root is refused on one line before
anything is touched; a removal never follows a symlink out; a root reached through a symlink is refused
where the caller asks."""

from __future__ import annotations

import os

import pytest

from evalfmt import guard
from evalfmt.errors import EvalfmtError


@pytest.fixture
def layout(tmp_path):
    root = tmp_path / "out"
    (root / "a").mkdir(parents=True)
    victim = tmp_path / "victim"
    (victim / "sub").mkdir(parents=True)
    (victim / "sub" / "precious.txt").write_text("keep\n")
    os.symlink("../victim", root / "link")
    os.symlink("a", root / "alias")
    return root, victim


def test_check_refuses_through_a_symlink_dotdot_or_absolute_path(layout, tmp_path):
    root, victim = layout
    for path in (root / "link" / "x", root / ".." / "x", tmp_path / "x"):
        with pytest.raises(guard.Outside) as exc:
            guard.check(str(root), str(path))
        assert str(exc.value) == (f"refusing to write {path}: outside the output folder {root} "
                                  "(through '..', an absolute path or a symlink); nothing written")
        assert isinstance(exc.value, EvalfmtError) and "\n" not in str(exc.value)
    assert guard.check(str(root), str(root / "alias" / "f")) == str(root / "a" / "f")
    assert guard.inside(str(root), str(root / "new" / "deeper")) and not guard.inside(str(root), str(root / "link"))


def test_remove_unlinks_a_link_leading_out_and_refuses_a_name_reached_through_one(layout):
    root, victim = layout
    with pytest.raises(guard.Outside, match=r"refusing to remove .*/link/sub: outside the run folder .*; nothing touched"):
        guard.remove(str(root), str(root / "link" / "sub"), what="the run folder", tail="nothing touched")
    assert (victim / "sub" / "precious.txt").read_text() == "keep\n"
    assert guard.remove(str(root), str(root / "link")) is True  # the link goes, not what it leads to
    assert not os.path.lexists(root / "link") and (victim / "sub" / "precious.txt").exists()
    assert guard.remove(str(root), str(root / "missing")) is False
    with pytest.raises(guard.Outside):
        guard.remove(str(root), str(root))  # never the root itself


def test_remove_of_a_tree_does_not_follow_the_links_inside_it(layout):
    root, victim = layout
    os.symlink(str(victim), root / "a" / "escape")
    (root / "a" / "f.txt").write_text("x")
    assert guard.remove(str(root), str(root / "a"))
    assert not (root / "a").exists() and (victim / "sub" / "precious.txt").exists()


def test_makedirs_refuses_before_creating_anything(layout):
    root, victim = layout
    with pytest.raises(guard.Outside, match="refusing to create"):
        guard.makedirs(str(root), str(root / "link" / "new" / "deeper"))
    assert sorted(os.listdir(victim)) == ["sub"]
    guard.makedirs(str(root), str(root / "b" / "c"))
    assert (root / "b" / "c").is_dir()


def test_plain_root_refuses_a_root_reached_through_a_symlink(tmp_path):
    repo = tmp_path / "repo"
    (tmp_path / "elsewhere" / "v1").mkdir(parents=True)
    repo.mkdir()
    os.symlink("../elsewhere", repo / ".cache")
    with pytest.raises(guard.Outside) as exc:
        guard.plain_root(str(repo / ".cache" / "v1"), below=str(repo), what="a cache folder")
    assert str(exc.value) == (f"refusing to use {repo}/.cache/v1: {repo}/.cache is a symlink "
                              "(a cache folder must be a real folder); nothing written")
    with pytest.raises(guard.Outside, match="is a symlink"):
        guard.plain_root(str(repo / ".cache"))
    guard.plain_root(str(repo / "real" / "not-yet"), below=str(repo))  # missing folders are fine
    os.symlink(str(tmp_path), tmp_path / "up")
    guard.plain_root(str(tmp_path / "up" / "repo" / "x"), below=str(tmp_path / "up" / "repo"))  # above below: not asked
