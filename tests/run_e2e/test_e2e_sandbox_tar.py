"""The trees that travel for the ``ray`` runner (evalfmt/run/sandbox_tar.py): a packed skill or fixture
stages what the folder itself stages, and unpacking the sandbox that comes back from a node never
writes outside the session's folder (hostile archives), while keeping what the agent left as it is."""

from __future__ import annotations

import io
import os
import stat
import tarfile

import pytest
from e2ehelp import tree

from evalfmt.run import sandbox_tar
from evalfmt.run.sandbox import SKILL_EXCLUDED, copy_tree


def _links(folder) -> dict[str, str]:
    return {rel: os.readlink(os.path.join(folder, rel)) for rel in tree(folder)
            if os.path.islink(os.path.join(folder, rel))}


def _modes(folder) -> dict[str, int]:
    return {rel: stat.S_IMODE(os.lstat(os.path.join(folder, rel)).st_mode) for rel in tree(folder)
            if not os.path.islink(os.path.join(folder, rel))}


@pytest.fixture
def skill(tmp_path):
    root = tmp_path / "skill"
    (root / "scripts" / "deep").mkdir(parents=True)
    (root / "SKILL.md").write_text("---\nname: s\n---\n")
    (root / "scripts" / "run.sh").write_text("#!/bin/sh\n")
    (root / "scripts" / "run.sh").chmod(0o755)
    (root / "scripts" / "deep" / "data.txt").write_text("data\n")
    (root / "scripts" / "shared.txt").write_text("group-writable\n")
    (root / "scripts" / "shared.txt").chmod(0o664)
    os.symlink("deep/data.txt", root / "scripts" / "inside")  # kept, as the relative path to its target
    os.symlink("../scripts/deep", root / "scripts" / "around")  # out of the tree and back in: made relative
    os.symlink(str(tmp_path / "secret"), root / "scripts" / "outside")  # leads out: left out, with a note
    (tmp_path / "secret").write_text("not for the agent\n")
    (root / "evals" / "cases").mkdir(parents=True)
    (root / "evals" / "cases" / "a.yaml").write_text("task: x\n")
    (root / "fixtures").mkdir()
    return root


def test_a_packed_tree_unpacked_and_staged_is_what_staging_copies(skill, tmp_path):
    copied = tmp_path / "copied"
    copied.mkdir()
    notes = copy_tree(str(skill), str(copied), exclude_top=SKILL_EXCLUDED)
    data, packed_notes = sandbox_tar.pack_tree(str(skill), SKILL_EXCLUDED)
    assert packed_notes == notes == [f"left out symlink scripts/outside -> {tmp_path / 'secret'}: it leads out of "
                                     f"{os.path.realpath(skill)}"]
    unpacked, staged = tmp_path / "unpacked", tmp_path / "staged"
    unpacked.mkdir()
    staged.mkdir()
    sandbox_tar.unpack(data, str(unpacked))
    assert copy_tree(str(unpacked), str(staged), exclude_top=SKILL_EXCLUDED) == []  # nothing more is left out there
    for folder in (unpacked, staged):
        assert tree(folder) == tree(copied) == ["SKILL.md", "scripts", "scripts/around", "scripts/deep",
                                                "scripts/deep/data.txt", "scripts/inside", "scripts/run.sh",
                                                "scripts/shared.txt"]
        assert _links(folder) == _links(copied) == {"scripts/around": "deep", "scripts/inside": "deep/data.txt"}
        assert _modes(folder) == _modes(copied)
        assert _modes(folder)["scripts/run.sh"] == 0o755 and _modes(folder)["scripts/shared.txt"] == 0o664
        assert (folder / "scripts" / "deep" / "data.txt").read_text() == "data\n"


def test_the_run_folder_is_left_out_of_a_packed_skill(skill, tmp_path):
    (skill / "runs" / "1").mkdir(parents=True)
    (skill / "runs" / "1" / "receipt.json").write_text("{}")
    data, _ = sandbox_tar.pack_tree(str(skill), SKILL_EXCLUDED, (str(skill / "runs" / "1"),))
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        names = tar.getnames()
    assert "runs" in names and "runs/1" not in names and not any(n.startswith(("evals", "fixtures")) for n in names)


def test_the_sandbox_comes_back_as_the_agent_left_it(tmp_path):
    box, elsewhere = tmp_path / "box", tmp_path / "elsewhere"
    (box / "sub").mkdir(parents=True)
    elsewhere.mkdir()
    (box / "sub" / "f.txt").write_text("f")
    os.link(box / "sub" / "f.txt", box / "twin.txt")
    os.symlink(str(elsewhere), box / "out")  # as the agent wrote it: the command runner's run folder keeps it too
    os.symlink("sub/f.txt", box / "rel")
    os.mkfifo(box / "pipe")
    back = tmp_path / "back"
    back.mkdir()
    sandbox_tar.unpack(sandbox_tar.pack_folder(str(box)), str(back))
    assert tree(back) == tree(box) == ["out", "pipe", "rel", "sub", "sub/f.txt", "twin.txt"]
    assert _links(back) == {"out": str(elsewhere), "rel": "sub/f.txt"}
    assert (back / "twin.txt").read_text() == "f" and not os.path.samefile(back / "twin.txt", back / "sub" / "f.txt")
    assert stat.S_ISFIFO(os.lstat(back / "pipe").st_mode)
    assert os.listdir(elsewhere) == []


def _archive(*members: tuple[str, str, str]) -> bytes:
    """A tar of (name, kind, value): kind file (value: content), symlink or hardlink (value: target)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, kind, value in members:
            info = tarfile.TarInfo(name)
            if kind == "file":
                info.size = len(value.encode())
                tar.addfile(info, io.BytesIO(value.encode()))
                continue
            info.type = tarfile.SYMTYPE if kind == "symlink" else tarfile.LNKTYPE
            info.linkname = value
            tar.addfile(info)
    return buf.getvalue()


@pytest.mark.parametrize("members", [
    [("../escape.txt", "file", "gotcha")],
    [("sub/../../escape.txt", "file", "gotcha")],
    [("out", "symlink", "{elsewhere}"), ("out/escape.txt", "file", "gotcha")],
    [("up", "symlink", ".."), ("up/escape.txt", "file", "gotcha")],
    [("twin", "hardlink", "{elsewhere}/victim.txt")],
], ids=["dotdot", "dotdot-inside", "through-symlink", "through-relative-symlink", "hardlink"])
def test_an_archive_never_writes_outside_the_folder(tmp_path, members):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "victim.txt").write_text("intact")
    dest = tmp_path / "box" / "sandbox"
    dest.mkdir(parents=True)
    data = _archive(*[(n, k, v.format(elsewhere=elsewhere)) for n, k, v in members])
    with pytest.raises(sandbox_tar.UnsafeArchive):
        sandbox_tar.unpack(data, str(dest))
    assert sorted(os.listdir(elsewhere)) == ["victim.txt"] and (elsewhere / "victim.txt").read_text() == "intact"
    assert os.listdir(tmp_path / "box") == ["sandbox"]


def test_an_absolute_member_lands_inside_the_folder(tmp_path):
    target = tmp_path / "abs.txt"
    dest = tmp_path / "dest"
    dest.mkdir()
    sandbox_tar.unpack(_archive((str(target), "file", "x")), str(dest))
    assert not target.exists()
    assert (dest / str(target).lstrip("/")).read_text() == "x"
