"""The result cache of lint and validate: a second run reads its result back; any change to an input
(the file, another file of its skill, a file outside the skill a rule probes, the configuration, the
environment, the options, evalfmt's version) is seen; an entry that is corrupted, forged or copied
from elsewhere is ignored, never an error and never a hidden finding; --no-cache writes nothing;
no cache folder inside a skill; two runs at once."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import evalfmt.cache as cache_mod
from lintkit import materialize

A = "task: Write the release notes since v1.4.0.\nbucket: adversarial\nchecks:\n  - file_absent: NOTES.orig\n"
B = ("task: Summarise the release for the team.\nbucket: explicit\nchecks:\n"
     "  - transcript_mentions: LegacyConfigLoader\n  - transcript_omits: DebugLoader\n")
SKILL_MD = ("---\nname: sample\ndescription: Drafts release notes from the git history.\n---\n"
            "# Sample\n\nFollow common/notes-template.md when you write the notes.\n")


@pytest.fixture(autouse=True)
def no_racy_window(monkeypatch):
    """Files written by a test are seconds old at most: trust their times at once (the window is
    for changes within one clock tick, and every change here comes after a whole lint run)."""
    monkeypatch.setattr(cache_mod, "RACY_NS", 0)
    monkeypatch.delenv("EVALFMT_CACHE_DIR", raising=False)
    from evalfmt.lint.registry import registry

    registry()  # loaded before the first run, as after it (in one process, it is part of a run's key)


@pytest.fixture
def repo(tmp_path) -> pathlib.Path:
    return materialize(tmp_path, {"files": {"SKILL.md": SKILL_MD, "evals/cases/a.yaml": A, "evals/cases/b.yaml": B}})


@pytest.fixture
def lint(run_cli, repo):
    def _run(*args: str, cache: bool = True):
        from evalfmt.lint.config import clear_cache

        clear_cache()  # (each run of the command is a new process: no configuration remembered)
        return run_cli("lint", *(() if cache else ("--no-cache",)), *args, "sample", cwd=str(repo))

    return _run


def forbid(monkeypatch, target: str) -> None:
    def refuse(*_a, **_k):
        raise AssertionError(f"{target} ran: the result was not read from the cache")

    monkeypatch.setattr(target, refuse)


def test_a_repeated_lint_reads_the_cache(lint, repo, monkeypatch):
    first = lint()
    assert first[0] == 0 and first[1] == "0 errors, 0 warnings in 3 files\n"
    # first sight of this run: nothing recorded (a run never repeated pays nothing), only a note
    calls = []
    real = __import__("evalfmt.cache", fromlist=["Recorder"]).Recorder.__enter__
    with monkeypatch.context() as m:
        m.setattr("evalfmt.cache.Recorder.__enter__", lambda self: calls.append(1) or real(self))
        assert lint() == first  # the second: recorded and stored
    assert calls
    folder = repo / ".evalfmt_cache"  # the project folder (it holds .git)
    assert (folder / ".gitignore").read_text() == "# created by evalfmt\n*\n"
    assert (folder / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55\n")
    assert len(list((folder / "v1").glob("*.json"))) == 1
    forbid(monkeypatch, "evalfmt.lint.engine.run_work")
    forbid(monkeypatch, "evalfmt.lint.engine.plan")
    assert lint() == first


def test_no_cache_writes_nothing_and_reads_nothing(lint, repo, monkeypatch):
    lint("--no-cache")
    assert not (repo / ".evalfmt_cache").exists()
    with monkeypatch.context() as m:
        m.setenv("EVALFMT_NO_CACHE", "1")
        lint()
    assert not (repo / ".evalfmt_cache").exists()
    lint()
    calls = []
    real = __import__("evalfmt.lint.engine", fromlist=["run_work"]).run_work
    monkeypatch.setattr("evalfmt.lint.engine.run_work", lambda *a: calls.append(1) or real(*a))
    lint("--no-cache")
    assert calls


def test_cache_dir_option_and_environment(lint, repo, tmp_path, monkeypatch):
    lint("--cache-dir", str(tmp_path / "elsewhere"))
    assert (tmp_path / "elsewhere" / "v1").is_dir() and not (repo / ".evalfmt_cache").exists()
    monkeypatch.setenv("EVALFMT_CACHE_DIR", str(tmp_path / "env"))
    lint()
    assert (tmp_path / "env" / "v1").is_dir() and not (repo / ".evalfmt_cache").exists()


def test_no_cache_folder_inside_a_skill(run_cli, repo):
    # linting from inside the skill: a cache folder there would be a file of the skill (HYG4)
    skill = repo / "sample"
    (repo / ".git").rmdir()
    out = run_cli("lint", ".", cwd=str(skill))
    assert run_cli("lint", ".", cwd=str(skill)) == out
    assert not (skill / ".evalfmt_cache").exists()
    assert run_cli("lint", ".", cwd=str(skill)) == out


def _edit(path: pathlib.Path, old: str, new: str) -> None:
    path.write_text(path.read_text().replace(old, new))


def _same_size_same_times(repo: pathlib.Path) -> None:
    path = repo / "sample" / "evals" / "cases" / "b.yaml"
    st = path.stat()
    _edit(path, "checks:", "chekcs:")  # same length
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _outside(repo: pathlib.Path) -> None:
    (repo / "common").mkdir()
    (repo / "common" / "notes-template.md").write_text("# Template\n")


CHANGES = {
    "the file's content": lambda repo: _edit(repo / "sample/evals/cases/b.yaml", "bucket", "buckit"),
    "same size and modification time": _same_size_same_times,
    "a new file in the skill": lambda repo: (repo / "sample/notes.exe").write_bytes(b"MZ"),
    "another file of the skill": lambda repo: _edit(repo / "sample/evals/cases/a.yaml", "adversarial", "explicit"),
    "a file removed": lambda repo: (repo / "sample/evals/cases/a.yaml").unlink(),
    "the configuration": lambda repo: (repo / "evalfmt.toml").write_text('ignore = ["HYG8"]\n'),
    "a file outside the skill a rule probes": _outside,
    "the SKILL.md": lambda repo: _edit(repo / "sample/SKILL.md", "name: sample", "name: other"),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_never_stale(lint, repo, change):
    if change == "the configuration":
        _outside(repo)  # (a finding the configuration then silences)
    before = lint()
    assert lint() == before
    CHANGES[change](repo)
    after = lint()
    assert after == lint(cache=False)  # what a run without the cache finds
    assert after != before, "the change must matter for this test to mean anything"
    assert lint() == after  # and the new result is cached in turn


def test_environment_options_and_version_are_in_the_key(lint, monkeypatch):
    before = lint()
    monkeypatch.setenv("EVALFMT_MAX_BYTES", "40")
    small = lint()
    assert small == lint(cache=False) and small != before
    monkeypatch.delenv("EVALFMT_MAX_BYTES")
    assert lint("--select", "EV1") == lint("--select", "EV1", cache=False) != before
    calls = []
    real = __import__("evalfmt.lint.engine", fromlist=["run_work"]).run_work
    monkeypatch.setattr("evalfmt.lint.engine.run_work", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(cache_mod, "__version__", "99.0")
    assert lint() == before and calls


def test_one_changed_skill_reuses_the_others(run_cli, tmp_path, monkeypatch):
    lib = tmp_path / "lib"
    for name in ("one", "two"):
        (lib / name / "evals" / "cases").mkdir(parents=True)
        (lib / name / "SKILL.md").write_text(SKILL_MD.replace("sample", name))
        (lib / name / "evals" / "cases" / "a.yaml").write_text(A)
    (tmp_path / ".git").mkdir()
    run_cli("lint", "lib", cwd=str(tmp_path))
    run_cli("lint", "lib", cwd=str(tmp_path))
    _edit(lib / "two" / "evals" / "cases" / "a.yaml", "bucket", "buckit")
    linted = []
    from evalfmt.lint import engine

    real = engine.run_work
    monkeypatch.setattr(engine, "run_work", lambda works, *a: linted.extend(w.skill for w in works) or real(works, *a))
    code, out, _ = run_cli("lint", "lib", cwd=str(tmp_path))
    assert linted == [os.path.join("lib", "two")]
    assert code == 1 and "lib/two/evals/cases/a.yaml:2:1: EV101 unknown key 'buckit'" in out


def test_validate_reads_the_cache_and_sees_changes(run_cli, repo, monkeypatch):
    first = run_cli("validate", "sample", cwd=str(repo))
    assert first[0] == 0 and run_cli("validate", "sample", cwd=str(repo)) == first
    with monkeypatch.context() as m:
        forbid(m, "evalfmt.api.validate_paths")
        assert run_cli("validate", "sample", cwd=str(repo)) == first
    _edit(repo / "sample/evals/cases/b.yaml", "bucket", "buckit")
    after = run_cli("validate", "sample", cwd=str(repo))
    assert after[0] == 1 and after == run_cli("validate", "--no-cache", "sample", cwd=str(repo))


# ------------------------------------------------------------------------------------- hostile


def _run_file(repo: pathlib.Path) -> pathlib.Path:
    (found,) = (repo / ".evalfmt_cache" / "v1").glob("*.json")
    return found


def _forge(data: bytes) -> bytes:
    """A file that passes as an entry to anyone who does not hold the folder's key."""
    import hashlib

    return hashlib.sha256(data).hexdigest().encode() + b"\n" + data


HOSTILE = {
    "truncated": lambda raw: raw[: len(raw) // 2],
    "garbage": lambda raw: b"\x00\xff" * 100,
    "empty": lambda raw: b"",
    "edited body, signature kept": lambda raw: raw.replace(b"EV101", b"EV999"),
    "forged: no findings, no inputs": lambda raw: _forge(
        b'{"probes":[],"payload":{"diagnostics":[],"files":1,"paths":[],"notes":[],"empty":[]},"parts":{}}'),
    "wrong types": lambda raw: _forge(b'{"probes":[["s",1,2]],"payload":{"diagnostics":"x"},"parts":[]}'),
    "deeply nested": lambda raw: _forge(b'{"probes":' + b"[" * 5000 + b"]" * 5000 + b"}"),
}


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_hostile_cache_file_is_ignored(lint, repo, kind):
    _edit(repo / "sample/evals/cases/b.yaml", "bucket", "buckit")
    truth = lint(cache=False)
    assert truth[0] == 1 and "EV101" in truth[1]
    lint()
    lint()
    path = _run_file(repo)
    path.write_bytes(HOSTILE[kind](path.read_bytes()))
    assert lint() == truth


def test_a_cache_folder_from_elsewhere_verifies_nothing(lint, repo, tmp_path):
    """A cache folder committed to the repository (or restored, or copied) was signed with another
    folder's key: its entries, though intact, are not used."""
    clean = lint()
    assert clean[0] == 0 and lint() == clean
    saved = tmp_path / "saved"
    shutil.copytree(repo / ".evalfmt_cache", saved)
    _edit(repo / "sample/evals/cases/b.yaml", "bucket", "buckit")
    truth = lint(cache=False)
    # the attacker's copy, whose inputs were recorded from this very tree before the edit
    shutil.rmtree(repo / ".evalfmt_cache")
    shutil.copytree(saved, repo / ".evalfmt_cache")
    assert lint() == truth != clean


def test_two_runs_at_once(repo):
    """Two processes (two pre-commit hooks) linting with one cache folder: both right, and the
    folder holds only whole entries afterwards."""
    env = {**os.environ, "EVALFMT_CACHE_DIR": str(repo / "shared-cache")}
    cmd = [sys.executable, "-m", "evalfmt", "lint", "sample"]
    truth = subprocess.run(cmd + ["--no-cache"], cwd=repo, capture_output=True, text=True, env=env)
    for _ in range(3):
        procs = [subprocess.Popen(cmd, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                 for _ in range(2)]
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert (p.returncode, out, err) == (truth.returncode, truth.stdout, truth.stderr)
    leftovers = [p.name for p in (repo / "shared-cache" / "v1").iterdir() if not p.name.endswith((".json", ".warm"))]
    assert leftovers == []


PLUGIN_RULE = '''
from evalfmt.lint.registry import Rule


class Said(Rule):
    """Says what its code says.

    Why: a rule being written.

    Fails:

        # file: evals/cases/a.yaml
        task: anything

    Passes:

        # file: evals/cases/a.yaml
        task: anything

    Fix: none.
    """

    code = "XS100"
    name = "said"
    severity = "warning"

    def check_set(self, evalset, ctx):
        for case in evalset.cases[:1]:
            ctx.report(self, case.span.file, ctx.value_pos(case, "task"), "MESSAGE-ONE")
'''


def test_a_rule_plugin_edited_in_place_is_seen(lint, repo, tmp_path, monkeypatch):
    """A plugin author edits the rule's code without changing its version or any linted file: the next
    run reports what the new code says (the rule's source file is an input of the run)."""
    from evalfmt.lint import registry as regmod

    site = tmp_path / "site"
    (site / "evalfmt_said_plugin-1.0.dist-info").mkdir(parents=True)
    (site / "evalfmt_said_plugin-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: evalfmt-said-plugin\nVersion: 1.0\n")
    (site / "evalfmt_said_plugin-1.0.dist-info" / "entry_points.txt").write_text(
        "[evalfmt.rules]\nsaid = evalfmt_said_plugin:Said\n")
    source = site / "evalfmt_said_plugin.py"
    source.write_text(PLUGIN_RULE)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "evalfmt_said_plugin", raising=False)
    regmod.reset()
    regmod.registry()
    before = lint("--select", "XS")
    assert "MESSAGE-ONE" in before[1], before
    assert lint("--select", "XS") == before
    source.write_text(PLUGIN_RULE.replace("MESSAGE-ONE", "MESSAGE-TWO"))
    stat = source.stat()
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    del sys.modules["evalfmt_said_plugin"]  # (a new process imports the edited code)
    regmod.reset()
    regmod.registry()
    after = lint("--select", "XS")
    assert after == lint("--select", "XS", cache=False) and "MESSAGE-TWO" in after[1], after
    regmod.reset()
