"""The warm answer of ``evalfmt lint`` (evalfmt.warm): a run whose cache entry holds every input leaves
its output beside it, and the next start of the same invocation prints it before click and the engine
load, byte for byte what a cold run prints; a change of any input, argument, relevant environment
variable or evalfmt's version is a miss; an answer that does not verify is ignored. (The kinds of
input changes of tests/lint/test_lint_cache.py::test_never_stale go through this path too: their
second run leaves an answer.)"""

from __future__ import annotations

import hmac
import os
import pathlib
import shutil
import subprocess
import sys
import time
from hashlib import sha256

import pytest

import evalfmt.cache as cache_mod
from evalfmt import warm
from lintkit import materialize

A = "task: Write the release notes since v1.4.0.\nbucket: adversarial\nchecks:\n  - file_absent: NOTES.orig\n"
RACY_S = cache_mod.RACY_NS / 1e9  # (the tests in one process set it to 0; a process of its own has it)
BAD = "task: Summarise the release.\nbuckit: explicit\nchecks:\n  - transcript_mentions: LegacyConfigLoader\n"


@pytest.fixture(autouse=True)
def no_racy_window(monkeypatch):
    """(as in test_lint_cache.py: every change here comes after a whole run)"""
    monkeypatch.setattr(cache_mod, "RACY_NS", 0)
    monkeypatch.delenv("EVALFMT_CACHE_DIR", raising=False)
    for name in ("GITHUB_ACTIONS", "NO_COLOR", "EVALFMT_NO_CACHE"):
        monkeypatch.delenv(name, raising=False)
    from evalfmt.lint.registry import registry

    registry()  # loaded before the first run, as after it (in one process, it is part of a run's key)


@pytest.fixture
def repo(tmp_path) -> pathlib.Path:
    repo = materialize(tmp_path, {"files": {"evals/cases/a.yaml": A, "evals/cases/b.yaml": BAD}})
    (repo / "lib" / "c" / "evals" / "cases").mkdir(parents=True)  # a note: no SKILL.md there
    (repo / "lib" / "c" / "evals" / "cases" / "x.yaml").write_text(A)
    (repo / "empty").mkdir()  # a warning: nothing to lint
    return repo


ARGS = ("lint", "sample", "lib", "empty")


@pytest.fixture
def lint(run_cli, repo):
    def _run(*args: str):
        from evalfmt.lint.config import clear_cache

        clear_cache()
        return run_cli(*(args or ARGS), cwd=str(repo))

    return _run


def _full_runs(monkeypatch) -> list:
    """Counts the runs of the full command (click's group): a miss of the warm answer."""
    calls: list = []
    from evalfmt import cli

    real = cli.cli.main
    monkeypatch.setattr(cli.cli, "main", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def test_the_third_run_is_answered_without_the_engine(lint, repo, monkeypatch):
    cold = lint()
    assert cold[0] == 1 and "EV101 unknown key 'buckit'" in cold[1]
    assert "evalfmt: note: lib/c/evals/cases/x.yaml: not read" in cold[2]
    assert "evalfmt: no eval files found under empty\n" in cold[2]
    assert lint() == cold  # recorded: the entry and its answer are written
    assert len(list((repo / ".evalfmt_cache" / "v1").glob("*.warm"))) == 1

    def refuse(*_a, **_k):
        raise AssertionError("the full command ran")

    monkeypatch.setattr("evalfmt.cli.cli.main", refuse)
    assert lint() == cold


def test_no_answer_without_recorded_inputs(lint, repo, monkeypatch):
    lint()
    assert not list((repo / ".evalfmt_cache" / "v1").glob("*.warm"))  # first sight: a note only
    monkeypatch.setattr(cache_mod, "RACY_NS", 10 ** 18)  # every input "just changed": nothing is stored
    lint()
    assert not list((repo / ".evalfmt_cache" / "v1").glob("*.warm"))


def test_a_warm_process_prints_the_cold_bytes_without_importing_click(repo, tmp_path):
    """End to end through the program's entry point, in processes of their own."""
    probe = tmp_path / "modules.txt"
    code = ("import sys\nfrom evalfmt.entry import main\nsys.argv = ['evalfmt'] + sys.argv[2:]\n"
            "try:\n    main()\nfinally:\n"
            f"    open({str(probe)!r}, 'w').write(' '.join(m for m in ('click', 'evalfmt.lint.engine') "
            "if m in sys.modules))\n")
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "EVALFMT_CACHE_DIR", "EVALFMT_NO_CACHE")}

    def run() -> tuple[int, bytes, bytes, str]:
        proc = subprocess.run([sys.executable, "-c", code, "-", *ARGS], cwd=repo, capture_output=True, env=env)
        return proc.returncode, proc.stdout, proc.stderr, probe.read_text()

    past = time.time() - 30  # older than the racy window (ctime cannot be set back: wait it out below)
    for root, dirs, files in os.walk(repo):
        for name in dirs + files:
            os.utime(os.path.join(root, name), (past, past))
    time.sleep(RACY_S + 0.1)
    cold = run()
    assert cold[0] == 1 and b"EV101" in cold[1] and b"note:" in cold[2] and cold[3] == "click evalfmt.lint.engine"
    assert run() == cold  # recorded
    warm_run = run()
    assert warm_run[:3] == cold[:3] and warm_run[3] == ""  # answered before click and the engine load


def test_a_warm_answer_is_the_full_commands_output(lint, repo, monkeypatch):
    for args in (ARGS, ("lint", "--format", "json", "sample"), ("lint", "-q", "--exit-zero", "sample", "empty"),
                 ("lint", "--format=github", "--select", "EV1", "sample")):
        cold = lint(*args)
        lint(*args)
        with monkeypatch.context() as m:
            calls = _full_runs(m)
            assert lint(*args) == cold and not calls
    assert len(list((repo / ".evalfmt_cache" / "v1").glob("*.warm"))) == 4


@pytest.mark.parametrize("name,value", [("NO_COLOR", "1"), ("FORCE_COLOR", "1"), ("GITHUB_ACTIONS", "true"),
                                        ("EVALFMT_MAX_BYTES", "40"), ("PYTHONIOENCODING", "latin-1"),
                                        ("LC_ALL", "C"), ("TERM", "dumb"), ("COLUMNS", "40")])
def test_environment_that_may_change_the_output_is_in_the_key(repo, monkeypatch, name, value):
    monkeypatch.chdir(repo)
    before = warm.invocation(list(ARGS))
    monkeypatch.setenv(name, value)
    after = warm.invocation(list(ARGS))
    assert before is not None and after is not None and before.key != after.key


def test_arguments_folder_and_version_are_in_the_key(repo, monkeypatch):
    monkeypatch.chdir(repo)
    base = warm.invocation(list(ARGS))
    assert base is not None and base.folder == str(repo / ".evalfmt_cache")
    keys = {base.key}
    for args in (["lint", "-q", "sample", "lib", "empty"], ["lint", "sample", "lib"], ["lint", "lib", "sample", "empty"],
                 ["lint", "--select", "EV1", "sample", "lib", "empty"]):
        inv = warm.invocation(args)
        assert inv is not None
        keys.add(inv.key)
    monkeypatch.setattr(cache_mod, "__version__", "99.0")
    keys.add(warm.invocation(list(ARGS)).key)
    monkeypatch.chdir(repo / "sample")
    keys.add(warm.invocation(["lint", "../sample", "../lib", "../empty"]).key)
    assert len(keys) == 7


def test_github_actions_after_a_warm_text_run(lint, repo, monkeypatch):
    text = lint()
    lint()
    assert lint() == text
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    github = lint()
    assert github[1].startswith("::error ") and github != text


def test_no_color_is_a_miss(lint, monkeypatch):
    cold = lint()
    lint()
    monkeypatch.setenv("NO_COLOR", "1")
    calls = _full_runs(monkeypatch)
    assert lint() == cold and calls  # the same text, from the full command


def test_version_change_is_a_miss(lint, monkeypatch):
    cold = lint()
    lint()
    monkeypatch.setattr(cache_mod, "__version__", "99.0")
    calls = _full_runs(monkeypatch)
    assert lint() == cold and calls


def test_a_changed_case_file_is_a_miss(lint, repo):
    cold = lint()
    lint()
    assert lint() == cold
    path = repo / "sample" / "evals" / "cases" / "b.yaml"
    path.write_text(path.read_text().replace("buckit", "bucket"))
    after = lint()
    assert after != cold and after[0] == 0
    assert lint() == after == lint("lint", "--no-cache", *ARGS[1:])


@pytest.mark.parametrize("args", [("lint", "--fix", "sample"), ("lint", "--no-cache", "sample"), ("lint", "-", "x"),
                                  ("lint", "--statistics", "sample"), ("lint", "-j", "2", "sample"),
                                  ("lint", "--jobs=2", "sample"), ("validate", "sample"), ("--debug", "lint", "sample"),
                                  ("lint", "--", "sample"), ("lint", "--help")])
def test_invocations_never_answered(repo, monkeypatch, args):
    monkeypatch.chdir(repo)
    assert warm.invocation(list(args)) is None
    monkeypatch.setenv("EVALFMT_NO_CACHE", "1")
    assert warm.invocation(["lint", "sample"]) is None


def test_a_tampered_or_copied_answer_is_ignored(lint, repo, tmp_path, monkeypatch):
    cold = lint()
    lint()
    (answer,) = (repo / ".evalfmt_cache" / "v1").glob("*.warm")
    raw = answer.read_bytes()
    forged = raw.replace(b"0 errors", b"9 errors") if b"0 errors" in raw else raw[:-1] + bytes([raw[-1] ^ 1])
    answer.write_bytes(forged)
    with monkeypatch.context() as m:
        calls = _full_runs(m)
        assert lint() == cold and calls
    # a cache folder that arrives by copy (committed, restored) has another identity: nothing verifies
    lint()
    copy = tmp_path / "copied"
    shutil.copytree(repo / ".evalfmt_cache", copy)
    shutil.rmtree(repo / ".evalfmt_cache")
    shutil.move(str(copy), str(repo / ".evalfmt_cache"))
    calls = _full_runs(monkeypatch)
    assert lint() == cold and calls


def test_the_signature_is_hmac_sha256():
    for secret in (b"", b"1:2:3", b"k" * 64, b"k" * 65, b"x" * 200):
        body = b"some body\n" * 7
        assert cache_mod.sign(secret, body) == hmac.new(secret, body, sha256).hexdigest()


def test_compact_keeps_a_stat_only_where_lstat_does_not_tell():
    reg = [0o100644, 10, 1, 1, 5, 7]
    link = [0o120777, 3, 1, 1, 6, 7]
    probes = [["l", "a", reg], ["s", "a", reg], ["l", "b", link], ["s", "b", reg], ["s", "c", reg],
              ["d", "dir", ["a", "b"]], ["l", "e", ["E", 2]], ["s", "e", ["E", 2]]]
    assert warm.compact(probes) == (("l", "a", tuple(reg)), ("l", "b", tuple(link)), ("s", "b", tuple(reg)),
                                    ("s", "c", tuple(reg)), ("d", "dir", ("a", "b")), ("l", "e", ("E", 2)),
                                    ("s", "e", ("E", 2)))


class _Failing:
    encoding, errors = "utf-8", "strict"

    def __init__(self, exc: OSError) -> None:
        self.exc = exc

    def write(self, _text: str) -> int:
        raise self.exc

    def flush(self) -> None:
        return None

    def isatty(self) -> bool:
        return False


class _Known:
    """A cache whose run read nothing (its answer depends on no file)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.inputs: list = []


def test_an_answer_that_cannot_be_written(repo, monkeypatch, capsys):
    """As the full command: a reader gone away is exit 0 and nothing more; another write error is one
    line on stderr and exit 2, never a traceback."""
    monkeypatch.chdir(repo)
    (repo / ".evalfmt_cache" / "v1").mkdir(parents=True)
    for exc, code in ((BrokenPipeError(32, "Broken pipe"), 0), (OSError(5, "Input/output\nerror"), 2)):
        with monkeypatch.context() as m:
            m.setattr(sys, "stdout", _Failing(exc))
            monkeypatch.setattr(warm, "CURRENT", warm.invocation(list(ARGS)))
            warm.remember(_Known(str(repo / ".evalfmt_cache")), "0 errors\n", "", 1)
            assert warm.answer(list(ARGS)) == code
    err = capsys.readouterr().err
    assert err == "evalfmt: internal error: OSError: [Errno 5] Input/output error\n"
