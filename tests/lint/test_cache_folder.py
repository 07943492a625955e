"""The cache folder is never a way to write or delete elsewhere (issue 22, item 1): a folder that is a
symlink (the folder itself or its ``v2``), not a folder, another user's or writable by others is not
used (one warning line, the run goes on without a cache), whether it is the default ``.evalfmt_cache``,
``--cache-dir`` or ``EVALFMT_CACHE_DIR``; inside its own folder the cache reads no symlink, writes
through none, and deletes only files whose name and first bytes are its entries'. And the test suite
itself never writes the checkout's cache."""

from __future__ import annotations

import hashlib
import os
import pathlib
import subprocess
import sys

import pytest

import evalfmt.cache as cache_mod
from conftest import CHECKOUT_CACHE, ROOT, checkout_cache_state
from lintkit import materialize

CLEAN = (0, "0 errors, 0 warnings in 2 files\n", "")
FOREIGN = 1100


@pytest.fixture
def repo(tmp_path) -> pathlib.Path:
    return materialize(tmp_path, {"files": {"evals/cases/a.yaml": "task: Write the notes.\nbucket: adversarial\n"
                                                                  "checks:\n  - file_absent: NOTES.orig\n"}})


def victim(folder: pathlib.Path) -> dict[str, tuple[bytes, int]]:
    """A folder of someone else's: 1,100 ``*.json`` files, some named like cache entries. Returns what
    each holds and its modification time, to compare with afterwards."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(FOREIGN):
        name = hashlib.sha256(str(i).encode()).hexdigest() + ".json" if i % 2 else f"data-{i}.json"
        (folder / name).write_text(f'{{"evalfmt_cache":2,"mine":{i}}}' if i % 3 == 0 else f'{{"n": {i}}}')
    return state(folder)


def state(folder: pathlib.Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()}


def lint_twice(run_cli, repo: pathlib.Path, *args: str) -> tuple[int, str, str]:
    first = run_cli("lint", *args, "sample", cwd=str(repo))
    assert run_cli("lint", *args, "sample", cwd=str(repo)) == first
    return first


def refused(folder: pathlib.Path | str, why: str) -> str:
    return f"evalfmt: warning: not using the cache folder {folder}: {why}; running without a cache\n"


@pytest.fixture(autouse=True)
def few_entries(monkeypatch):
    """Pruning starts past 8 entries here (1,024 in use), so a handful of runs reaches it."""
    monkeypatch.setattr(cache_mod, "MAX_FILES", 8)


# ------------------------------------------------------------------------------------- refused


def test_a_committed_cache_symlink_touches_nothing(run_cli, repo, monkeypatch):
    """The issue's case: the repository commits ``.evalfmt_cache`` as a symlink to another folder."""
    monkeypatch.delenv("EVALFMT_CACHE_DIR")
    before = victim(repo.parent / "victim")
    (repo / ".evalfmt_cache").symlink_to("../victim")
    for _ in range(12):  # more runs than MAX_FILES: a cache that wrote there would prune
        code, out, err = run_cli("lint", "sample", cwd=str(repo))
        assert (code, out) == CLEAN[:2]
        assert err == refused(repo / ".evalfmt_cache", f"{repo / '.evalfmt_cache'} is a symlink")
        (repo / "sample" / "evals" / "cases" / "a.yaml").write_text(f"task: Run {_}.\nbucket: adversarial\n"
                                                                    "checks:\n  - file_absent: NOTES.orig\n")
    assert state(repo.parent / "victim") == before


def test_a_committed_entries_symlink_touches_nothing(run_cli, repo, monkeypatch):
    """``.evalfmt_cache`` a real folder, its ``v2`` a symlink to another folder."""
    monkeypatch.delenv("EVALFMT_CACHE_DIR")
    before = victim(repo.parent / "victim")
    (repo / ".evalfmt_cache").mkdir()
    (repo / ".evalfmt_cache" / "v2").symlink_to("../../victim")
    for i in range(12):
        (repo / "sample" / "evals" / "cases" / "a.yaml").write_text(f"task: Run {i}.\nbucket: adversarial\n"
                                                                    "checks:\n  - file_absent: NOTES.orig\n")
        code, out, err = run_cli("lint", "sample", cwd=str(repo))
        assert (code, out, err) == (*CLEAN[:2], refused(repo / ".evalfmt_cache",
                                                        f"{repo / '.evalfmt_cache' / 'v2'} is a symlink"))
    assert state(repo.parent / "victim") == before
    assert sorted(p.name for p in (repo / ".evalfmt_cache").iterdir()) == ["v2"]


@pytest.mark.parametrize("how", ["--cache-dir", "EVALFMT_CACHE_DIR"])
def test_a_symlink_given_as_the_cache_folder_is_refused(run_cli, repo, tmp_path, monkeypatch, how):
    before = victim(tmp_path / "victim")
    (tmp_path / "link").symlink_to(tmp_path / "victim")
    args: tuple[str, ...] = ()
    if how == "--cache-dir":
        args = ("--cache-dir", str(tmp_path / "link"))
    else:
        monkeypatch.setenv("EVALFMT_CACHE_DIR", str(tmp_path / "link"))
    for command in ("lint", "validate"):
        code, out, err = run_cli(command, *args, "sample", cwd=str(repo))
        assert code == 0 and err == refused(tmp_path / "link", f"{tmp_path / 'link'} is a symlink")
    assert state(tmp_path / "victim") == before


def test_a_folder_writable_by_others_is_refused(run_cli, repo, tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("EVALFMT_CACHE_DIR", str(shared))
    assert lint_twice(run_cli, repo) == (*CLEAN[:2], refused(shared, f"{shared} is writable by others (mode 777)"))
    assert list(shared.iterdir()) == []
    shared.chmod(0o775)  # a group that may write is others too
    assert run_cli("lint", "sample", cwd=str(repo))[2] == refused(shared, f"{shared} is writable by others (mode 775)")
    shared.chmod(0o755)
    assert run_cli("lint", "sample", cwd=str(repo)) == CLEAN
    assert [p.name for p in (shared / "v2").iterdir()]


def test_a_folder_of_another_user_is_refused(run_cli, repo, tmp_path, monkeypatch):
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    if os.geteuid() == 0:
        os.chown(theirs, 4321, 4321)
    else:  # (not root: this user cannot give a folder away; one of root's stands in)
        theirs = pathlib.Path("/")
    monkeypatch.setenv("EVALFMT_CACHE_DIR", str(theirs))
    uid = theirs.stat().st_uid
    assert lint_twice(run_cli, repo) == (*CLEAN[:2], refused(theirs, f"{theirs} belongs to another user (uid {uid})"))
    if theirs != pathlib.Path("/"):
        assert list(theirs.iterdir()) == []


def test_a_file_as_the_cache_folder_is_refused(run_cli, repo, tmp_path, monkeypatch):
    (tmp_path / "afile").write_text("mine\n")
    monkeypatch.setenv("EVALFMT_CACHE_DIR", str(tmp_path / "afile"))
    assert lint_twice(run_cli, repo) == (*CLEAN[:2], refused(tmp_path / "afile", f"{tmp_path / 'afile'} is not a folder"))
    assert (tmp_path / "afile").read_text() == "mine\n"


# ----------------------------------------------------------------------------- inside its folder


def test_pruning_deletes_only_its_own_entries(run_cli, repo, tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("EVALFMT_CACHE_DIR", str(folder))
    assert run_cli("lint", "sample", cwd=str(repo)) == CLEAN
    entries = folder / "v2"
    (entry,) = entries.iterdir()
    # foreign files named like entries (wrong first bytes), other names, a symlink and a folder named like one
    foreign = {}
    for i in range(20):
        name = hashlib.sha256(f"foreign{i}".encode()).hexdigest() + ".json"
        (entries / name).write_text('{"not":"an entry"}')
        foreign[name] = '{"not":"an entry"}'
    (entries / "notes.json").write_text('{"evalfmt_cache":2,"inputs":[]}')
    foreign["notes.json"] = '{"evalfmt_cache":2,"inputs":[]}'
    target = tmp_path / "elsewhere.json"
    target.write_text('{"evalfmt_cache":2,"precious":true}')
    link = hashlib.sha256(b"link").hexdigest() + ".json"
    (entries / link).symlink_to(target)
    (entries / (hashlib.sha256(b"dir").hexdigest() + ".json")).mkdir()
    # entries of its own, older than the one just written
    own = []
    for i in range(12):
        name = hashlib.sha256(f"own{i}".encode()).hexdigest() + ".json"
        (entries / name).write_bytes(entry.read_bytes())
        os.utime(entries / name, ns=(1_000_000_000 * (i + 1), 1_000_000_000 * (i + 1)))
        own.append(name)
    (repo / "sample" / "evals" / "cases" / "a.yaml").write_text("task: Changed.\nbucket: adversarial\n"
                                                                "checks:\n  - file_absent: NOTES.orig\n")
    run_cli("lint", "sample", cwd=str(repo))  # writes a second entry of its key's, then prunes
    left = {p.name for p in entries.iterdir()}
    for name, text in foreign.items():
        assert name in left and (entries / name).read_text() == text
    assert (entries / link).is_symlink() and target.read_text() == '{"evalfmt_cache":2,"precious":true}'
    assert (entries / (hashlib.sha256(b"dir").hexdigest() + ".json")).is_dir()
    assert [n for n in own if n in left] == []  # the oldest went: its own only
    assert entry.name in left  # (rewritten by the second run: the newest)


def test_an_entry_that_is_a_symlink_is_neither_read_nor_written_through(run_cli, repo, tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("EVALFMT_CACHE_DIR", str(folder))
    clean = run_cli("lint", "sample", cwd=str(repo))
    (entry,) = (folder / "v2").iterdir()
    recorded = entry.read_bytes()
    # the entry of this very run becomes a symlink to a file holding a (valid) entry of another result
    (repo / "sample" / "evals" / "cases" / "a.yaml").write_text("task: x\nchek: 1\n")
    truth = run_cli("lint", "--no-cache", "sample", cwd=str(repo))
    assert truth != clean
    planted = tmp_path / "planted.json"
    planted.write_bytes(recorded)
    entry.unlink()
    entry.symlink_to(planted)
    assert run_cli("lint", "sample", cwd=str(repo)) == truth
    assert entry.is_symlink() and planted.read_bytes() == recorded  # not followed, not written through


def test_a_fifo_named_like_an_entry_does_not_block(run_cli, repo, tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("EVALFMT_CACHE_DIR", str(folder))
    run_cli("lint", "sample", cwd=str(repo))
    (entry,) = (folder / "v2").iterdir()
    entry.unlink()
    os.mkfifo(entry)
    assert run_cli("lint", "sample", cwd=str(repo)) == CLEAN


# ---------------------------------------------------------------------------- the suite's own


def test_the_suite_never_writes_the_checkout_cache(run_cli):
    """Lint and validate run in the checkout (in-process, and as a process of their own) keep their
    results in the test's cache folder, never in the checkout's."""
    before = checkout_cache_state()
    own = pathlib.Path(os.environ["EVALFMT_CACHE_DIR"])
    assert run_cli("lint", "fixtures/library/release-notes", cwd=str(ROOT))[0] == 0
    assert run_cli("validate", "fixtures/library/release-notes", cwd=str(ROOT))[0] == 0
    proc = subprocess.run([sys.executable, "-m", "evalfmt", "lint", "fixtures/library/release-notes"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert checkout_cache_state() == before
    assert len(list((own / "v2").glob("*.json"))) >= 2  # lint's and validate's (and the process's lint)
    assert not CHECKOUT_CACHE.is_symlink()
