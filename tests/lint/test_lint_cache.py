"""The result cache of lint and validate (evalfmt/cache.py): the first run records, the second reads
its result back; a change to any part of the key (a file a run read, the configuration, an option,
the environment, evalfmt's version, evalfmt's own code, a plugin, the interpreter) is a miss; a damaged
entry is a miss, never an error; --no-cache writes nothing; no cache folder inside a skill; two runs
at once. The folder's own safety (symlinks, owners, what is deleted): test_cache_folder.py."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

import pytest

import evalfmt.cache as cache_mod
from evalfmt.fsview import RACY_NS
from conftest import ROOT
from lintkit import materialize

A = "task: Write the release notes since v1.4.0.\nbucket: adversarial\nchecks:\n  - file_absent: NOTES.orig\n"
B = ("task: Summarise the release for the team.\nbucket: explicit\nchecks:\n"
     "  - transcript_mentions: LegacyConfigLoader\n  - transcript_omits: DebugLoader\n")
SKILL_MD = ("---\nname: sample\ndescription: Drafts release notes from the git history.\n---\n"
            "# Sample\n\nFollow common/notes-template.md when you write the notes.\n")
CLEAN = (0, "0 errors, 0 warnings in 3 files\n", "")


@pytest.fixture
def repo(tmp_path) -> pathlib.Path:
    return materialize(tmp_path, {"files": {"SKILL.md": SKILL_MD, "evals/cases/a.yaml": A, "evals/cases/b.yaml": B}})


@pytest.fixture
def folder(tmp_path, monkeypatch) -> pathlib.Path:
    """The cache folder the runs use (this test's own)."""
    where = tmp_path / "cache"
    monkeypatch.setenv("EVALFMT_CACHE_DIR", str(where))
    return where


@pytest.fixture
def lint(run_cli, repo, folder):
    def _run(*args: str, cache: bool = True):
        return run_cli("lint", *(() if cache else ("--no-cache",)), *args, "sample", cwd=str(repo))

    return _run


def entries(folder: pathlib.Path) -> list[pathlib.Path]:
    return sorted((folder / "v2").glob("*.json"))


def forbid(monkeypatch, target: str) -> None:
    def refuse(*_a, **_k):
        raise AssertionError(f"{target} ran: the result was not read from the cache")

    monkeypatch.setattr(target, refuse)


def counting(monkeypatch, target: str) -> list[int]:
    """Count the calls of ``target`` (module.attribute), which still runs."""
    module, _, name = target.rpartition(".")
    real = getattr(__import__(module, fromlist=[name]), name)
    calls: list[int] = []
    monkeypatch.setattr(target, lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


# ------------------------------------------------------------------------------------- the model


def test_the_first_run_records_and_the_second_reads_back(lint, folder, monkeypatch):
    first = lint()
    assert first == CLEAN
    (entry,) = entries(folder)  # recorded the first time
    data = json.loads(entry.read_bytes())
    assert entry.read_bytes().startswith(b'{"evalfmt_cache":2,') and set(data) == {"evalfmt_cache", "inputs", "result",
                                                                                     "parts"}
    read = {path for kind, path, _state in data["inputs"] + [i for p in data["parts"].values() for i in p["inputs"]]
            if kind == "f"}
    assert {os.path.basename(p) for p in read} >= {"SKILL.md", "a.yaml", "b.yaml"}  # what the readers read
    assert (folder / ".gitignore").read_text() == "# created by evalfmt\n*\n"
    assert (folder / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55\n")
    with monkeypatch.context() as m:
        forbid(m, "evalfmt.lint.engine.run_work")
        forbid(m, "evalfmt.lint.engine.plan")
        assert lint() == first
    assert entries(folder) == [entry]


def test_no_cache_writes_nothing_and_reads_nothing(lint, folder, monkeypatch):
    lint("--no-cache")
    assert not folder.exists()
    with monkeypatch.context() as m:
        m.setenv("EVALFMT_NO_CACHE", "1")
        lint()
    assert not folder.exists()
    lint()
    calls = counting(monkeypatch, "evalfmt.lint.engine.run_work")
    lint("--no-cache")
    assert calls


def test_cache_dir_option_and_the_default_folder(run_cli, repo, tmp_path, monkeypatch):
    monkeypatch.delenv("EVALFMT_CACHE_DIR")
    assert run_cli("lint", "sample", "--cache-dir", str(tmp_path / "elsewhere"), cwd=str(repo)) == CLEAN
    assert entries(tmp_path / "elsewhere") and not (repo / ".evalfmt_cache").exists()
    assert run_cli("lint", "sample", cwd=str(repo)) == CLEAN
    assert entries(repo / ".evalfmt_cache")  # the project folder (it holds .git)


def test_no_cache_folder_inside_a_skill(run_cli, repo, monkeypatch):
    # linting from inside the skill: a cache folder there would be a file of the skill (HYG4)
    monkeypatch.delenv("EVALFMT_CACHE_DIR")
    skill = repo / "sample"
    (repo / ".git").rmdir()
    out = run_cli("lint", ".", cwd=str(skill))
    assert run_cli("lint", ".", cwd=str(skill)) == out
    assert not (skill / ".evalfmt_cache").exists()


def test_validate_records_reads_back_and_sees_changes(run_cli, repo, folder, monkeypatch):
    first = run_cli("validate", "sample", cwd=str(repo))
    assert first == (0, "", "") and entries(folder)
    with monkeypatch.context() as m:
        forbid(m, "evalfmt.api.validate_paths")
        assert run_cli("validate", "sample", cwd=str(repo)) == first
    _edit(repo / "sample/evals/cases/b.yaml", "bucket", "buckit")
    after = run_cli("validate", "sample", cwd=str(repo))
    assert after[0] == 1 and after == run_cli("validate", "--no-cache", "sample", cwd=str(repo))


def test_one_changed_skill_reuses_the_others(run_cli, tmp_path, folder, monkeypatch):
    lib = tmp_path / "lib"
    for name in ("one", "two"):
        (lib / name / "evals" / "cases").mkdir(parents=True)
        (lib / name / "SKILL.md").write_text(SKILL_MD.replace("sample", name))
        (lib / name / "evals" / "cases" / "a.yaml").write_text(A)
    run_cli("lint", "lib", cwd=str(tmp_path))
    _edit(lib / "two" / "evals" / "cases" / "a.yaml", "bucket", "buckit")
    linted = []
    from evalfmt.lint import engine

    real = engine.run_work
    monkeypatch.setattr(engine, "run_work", lambda works, *a: linted.extend(w.skill for w in works) or real(works, *a))
    code, out, _ = run_cli("lint", "lib", cwd=str(tmp_path))
    assert linted == [os.path.join("lib", "two")]
    assert code == 1 and "lib/two/evals/cases/a.yaml:2:1: EV101 unknown key 'buckit'" in out
    assert (code, out) == run_cli("lint", "--no-cache", "lib", cwd=str(tmp_path))[:2]


# --------------------------------------------------------------------------- the key, part by part


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


#: every input a run reads: the files of the skill, what a rule looks at outside it, the configuration
FILES = {
    "the file's content": lambda repo: _edit(repo / "sample/evals/cases/b.yaml", "bucket", "buckit"),
    "same size and modification time": _same_size_same_times,
    "a new file in the skill": lambda repo: (repo / "sample/notes.exe").write_bytes(b"MZ"),
    "another file of the skill": lambda repo: _edit(repo / "sample/evals/cases/a.yaml", "adversarial", "explicit"),
    "a file removed": lambda repo: (repo / "sample/evals/cases/a.yaml").unlink(),
    "a file outside the skill a rule probes": _outside,
    "the SKILL.md": lambda repo: _edit(repo / "sample/SKILL.md", "name: sample", "name: other"),
    "the configuration": lambda repo: (repo / "evalfmt.toml").write_text('ignore = ["HYG8"]\n'),
    "a configuration file nearer the skill": lambda repo: (repo / "sample" / "pyproject.toml").write_text(
        '[tool.evalfmt]\nignore = ["HYG8"]\n'),
}


@pytest.mark.parametrize("change", list(FILES))
def test_key_part_file_and_configuration(lint, repo, change):
    if "configuration" in change:
        _outside(repo)  # (a finding the configuration then silences)
    before = lint()
    assert lint() == before
    FILES[change](repo)
    after = lint()
    assert after == lint(cache=False)  # what a run without the cache finds
    assert after != before, "the change must matter for this test to mean anything"
    assert lint() == after  # and the new result is cached in turn


def test_key_part_options(lint):
    before = lint()
    selected = lint("--select", "EV1")
    assert selected == lint("--select", "EV1", cache=False) and selected != before
    ignored = lint("--ignore", "HYG")
    assert ignored == lint("--ignore", "HYG", cache=False)
    assert lint("--format", "json")[1].startswith("{")  # (the output is made from the result: no key part)


def test_key_part_environment_and_version(lint, monkeypatch):
    before = lint()
    monkeypatch.setenv("EVALFMT_MAX_BYTES", "40")
    small = lint()
    assert small == lint(cache=False) and small != before
    monkeypatch.delenv("EVALFMT_MAX_BYTES")
    calls = counting(monkeypatch, "evalfmt.lint.engine.run_work")
    monkeypatch.setattr(cache_mod, "__version__", "99.0")
    assert lint() == before and calls


@pytest.mark.parametrize("what", ["executable", "version", "an installed distribution"])
def test_key_part_interpreter(lint, monkeypatch, tmp_path, what):
    before = lint()
    calls = counting(monkeypatch, "evalfmt.lint.engine.run_work")
    assert lint() == before and not calls
    monkeypatch.setattr(cache_mod, "_FINGERPRINT", None)  # (computed once per process: a new process)
    if what == "executable":
        monkeypatch.setattr(sys, "executable", sys.executable + "-other")
    elif what == "version":
        monkeypatch.setattr(sys, "version", sys.version + " (patched)")
    else:
        site = tmp_path / "site"
        (site / "somepackage-1.2.dist-info").mkdir(parents=True)
        monkeypatch.syspath_prepend(str(site))
    assert lint() == before and calls


# ------------------------------------------------------------------ code and plugins: new processes


def _process(args: list[str], cwd: pathlib.Path, pythonpath: list[pathlib.Path]) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in pythonpath)
    proc = subprocess.run([sys.executable, "-m", "evalfmt", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def _settle() -> None:
    """Wait until files just written are older than the racy window: the fingerprint of a file changed
    within it holds a hash of its content, so a later run's key differs (a miss whatever the code)."""
    time.sleep(RACY_NS / 1e9 + 0.2)


def _bump(path: pathlib.Path) -> None:
    """A second edit of a file just written: its times move on (whatever the clock's tick)."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_key_part_evalfmt_code_an_editable_copy_edited(repo, folder, tmp_path):
    """The issue's case: the lint engine of an editable install is edited to fail on every call; the
    next lint fails (it runs the new code), and is not served the old findings."""
    src = tmp_path / "src"
    shutil.copytree(ROOT / "evalfmt", src / "evalfmt", ignore=shutil.ignore_patterns("__pycache__"))
    where = subprocess.run([sys.executable, "-c", "import evalfmt; print(evalfmt.__file__)"], cwd=repo,
                           env={**os.environ, "PYTHONPATH": str(src)}, capture_output=True, text=True, check=True)
    assert where.stdout.strip() == str(src / "evalfmt" / "__init__.py")  # the copy is what runs
    _settle()
    first = _process(["lint", "sample"], repo, [src])
    assert first == CLEAN
    assert _process(["lint", "sample"], repo, [src]) == first
    (written,) = entries(folder)
    recorded = written.read_bytes()
    engine = src / "evalfmt" / "lint" / "engine.py"
    engine.write_text(engine.read_text().replace(
        '    """Read (through ``fs``) and lint some work items; the result before configuration and suppressions."""',
        '    """Read and lint some work items."""\n    raise RuntimeError("the engine was edited")', 1))
    _bump(engine)
    assert "the engine was edited" in engine.read_text()
    code, out, err = _process(["lint", "sample"], repo, [src])
    assert (code, out) == (2, "") and "RuntimeError: the engine was edited" in err
    assert written.read_bytes() == recorded  # (a run that fails stores nothing)
    # the engine put back, a rule's message edited: the next lint says the new words
    shutil.copy2(ROOT / "evalfmt" / "lint" / "engine.py", engine)
    _bump(engine)
    hygiene = src / "evalfmt" / "lint" / "rules" / "hygiene.py"
    text = hygiene.read_text()
    assert "is a repository path outside the skill folder" in text
    hygiene.write_text(text.replace("is a repository path outside the skill folder", "EDITED MESSAGE"))
    _bump(hygiene)
    _outside(repo)
    code, out, err = _process(["lint", "sample"], repo, [src])
    assert code == 0 and "HYG8 'common/notes-template.md' EDITED MESSAGE" in out, (out, err)


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


def _plugin(site: pathlib.Path, package: bool = False) -> pathlib.Path:
    """A plugin distribution declaring an ``evalfmt.rules`` entry point (its module, or a package)."""
    info = site / "evalfmt_said_plugin-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evalfmt-said-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[evalfmt.rules]\nsaid = evalfmt_said_plugin.rules:Said\n" if package
                                           else "[evalfmt.rules]\nsaid = evalfmt_said_plugin:Said\n")
    if package:
        (site / "evalfmt_said_plugin").mkdir()
        (site / "evalfmt_said_plugin" / "__init__.py").write_text("")
        source = site / "evalfmt_said_plugin" / "rules.py"
    else:
        source = site / "evalfmt_said_plugin.py"
    source.write_text(PLUGIN_RULE)
    return source


@pytest.mark.parametrize("package", [False, True], ids=["module", "package"])
def test_key_part_plugin_edited_in_place(repo, folder, tmp_path, package):
    """A plugin author edits the rule's code without changing its version or any linted file: the next
    run reports what the new code says."""
    source = _plugin(tmp_path / "site", package)
    _settle()
    before = _process(["lint", "--select", "XS", "sample"], repo, [tmp_path / "site"])
    assert "XS100 MESSAGE-ONE" in before[1], before
    assert _process(["lint", "--select", "XS", "sample"], repo, [tmp_path / "site"]) == before
    assert len(entries(folder)) == 1  # the second run was read back
    source.write_text(PLUGIN_RULE.replace("MESSAGE-ONE", "MESSAGE-TWO"))
    _bump(source)
    after = _process(["lint", "--select", "XS", "sample"], repo, [tmp_path / "site"])
    assert "XS100 MESSAGE-TWO" in after[1], after


def test_key_part_plugin_installed_or_removed(repo, folder, tmp_path):
    plain = _process(["lint", "--select", "ALL", "sample"], repo, [])
    assert plain[0] == 0 and "XS100" not in plain[1]
    _plugin(tmp_path / "site")
    added = _process(["lint", "--select", "ALL", "sample"], repo, [tmp_path / "site"])
    assert "XS100 MESSAGE-ONE" in added[1], added
    assert _process(["lint", "--select", "ALL", "sample"], repo, []) == plain


# ------------------------------------------------------------------------------------- hostile


def _forge(entry: dict) -> bytes:
    return json.dumps(entry, separators=(",", ":")).encode()


HOSTILE = {
    "truncated": lambda raw: raw[: len(raw) // 2],
    "garbage": lambda raw: b"\x00\xff" * 100,
    "empty": lambda raw: b"",
    "not JSON after the head": lambda raw: b'{"evalfmt_cache":2,' + b"x" * 50,
    "another format": lambda raw: raw.replace(b'{"evalfmt_cache":2,', b'{"evalfmt_cache":1,', 1),
    "no inputs: a forged answer": lambda raw: _forge({
        "evalfmt_cache": 2, "inputs": [], "parts": {},
        "result": {"diagnostics": [], "files": 1, "paths": [], "notes": [], "empty": []}}),
    "an unknown kind of input": lambda raw: _forge({**json.loads(raw), "inputs": [["z", "/", "d"]]}),
    "a path with NUL": lambda raw: _forge({**json.loads(raw), "inputs": [["t", "/\u0000", "d"]]}),
    "wrong types": lambda raw: _forge({**json.loads(raw), "result": {"diagnostics": "x"}}),
    "a finding of the wrong shape": lambda raw: _forge({**json.loads(raw), "result": {
        **json.loads(raw)["result"], "diagnostics": [["a", "1", 1, "EV1", "m", "error", False, {}]]}}),
    "deeply nested": lambda raw: b'{"evalfmt_cache":2,"inputs":' + b"[" * 5000 + b"]" * 5000 + b"}",
    "an extra key": lambda raw: _forge({**json.loads(raw), "signature": "x"}),
}


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_damaged_entry_is_a_miss(lint, repo, folder, kind):
    _edit(repo / "sample/evals/cases/b.yaml", "bucket", "buckit")
    truth = lint(cache=False)
    assert truth[0] == 1 and "EV101" in truth[1]
    lint()
    (path,) = entries(folder)
    path.write_bytes(HOSTILE[kind](path.read_bytes()))
    assert lint() == truth
    assert lint() == truth  # (and the entry written again is good)


def test_an_entry_recorded_before_a_change_is_not_used_after_it(lint, repo, folder, tmp_path):
    """A cache folder saved before an edit and put back after it (restored by a CI cache, copied):
    its entries' inputs no longer match, so they are not used."""
    clean = lint()
    assert clean == CLEAN
    saved = tmp_path / "saved"
    shutil.copytree(folder, saved)
    _edit(repo / "sample/evals/cases/b.yaml", "bucket", "buckit")
    truth = lint(cache=False)
    shutil.rmtree(folder)
    shutil.copytree(saved, folder)
    assert lint() == truth != clean


def test_two_runs_at_once(repo, tmp_path):
    """Two processes (two pre-commit hooks) linting with one cache folder: both right, and the
    folder holds only whole entries afterwards."""
    env = {**os.environ, "EVALFMT_CACHE_DIR": str(tmp_path / "shared-cache")}
    cmd = [sys.executable, "-m", "evalfmt", "lint", "sample"]
    truth = subprocess.run(cmd + ["--no-cache"], cwd=repo, capture_output=True, text=True, env=env)
    for _ in range(3):
        procs = [subprocess.Popen(cmd, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                 for _ in range(2)]
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert (p.returncode, out, err) == (truth.returncode, truth.stdout, truth.stderr)
    names = [p.name for p in (tmp_path / "shared-cache" / "v2").iterdir()]
    assert names and all(n.endswith(".json") and len(n) == 69 for n in names)


def test_part_keys_are_the_same_in_every_process(tmp_path, folder):
    """A skill folder's part is found again by a new process, whatever its hash seed (a set's order, and
    so its repr, changes with it): here a terum skill whose case folder holds files an agentv eval file
    reads (the terum unit leaves them out: a set of paths among its options)."""
    from evalfmt.discover import discover

    lib = tmp_path / "lib"
    for name in ("one", "two"):
        (lib / name / "evals" / "cases").mkdir(parents=True)
        (lib / name / "SKILL.md").write_text(SKILL_MD.replace("sample", name))
        (lib / name / "evals" / "cases" / "a.yaml").write_text(A)
    for n in ("x", "y", "z"):
        (lib / "one" / "evals" / "cases" / f"{n}.yaml").write_text(
            f"- id: {n}\n  input: Write the notes for {n}.\n  criteria: Breaking changes first.\n")
    (lib / "one" / "EVAL.yaml").write_text("tests:\n" + "".join(f"  - file://evals/cases/{n}.yaml\n" for n in "xyz"))
    units = discover(str(lib))
    assert any(len(dict(u.options).get("exclude", ())) == 3 for u in units)

    def parts(seed: str) -> set[str]:
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-m", "evalfmt", "lint", "lib"], cwd=tmp_path, env=env, capture_output=True,
                       check=False, timeout=120)
        (entry,) = entries(folder)
        return set(json.loads(entry.read_bytes())["parts"])

    first = parts("1")
    _edit(lib / "two" / "evals" / "cases" / "a.yaml", "bucket", "buckit")  # the run misses, its parts are looked up
    assert parts("2") == first and len(first) == 2
