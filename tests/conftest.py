"""Shared test helpers.

- ``CONFORMANCE``: ``../shared/conformance`` beside the clone (or ``$EVALFMT_CONFORMANCE``). Tests that
  read it carry ``@pytest.mark.conformance`` and skip, saying so, where the folder is absent.
- ``run_cli``: runs ``evalfmt`` in-process and returns (exit code, stdout, stderr).
- ``UPDATE_GOLDEN``: set ``EVALFMT_UPDATE_GOLDEN=1`` to rewrite golden files instead of comparing.
- ``run_source_checkout``: runs ``evalfmt`` as a source checkout does (PYTHONPATH, no entry points).
- The result cache: every test has a cache folder of its own (``EVALFMT_CACHE_DIR``, which in-process
  runs and every process a test starts inherit), so no test reads another's results or the checkout's;
  the session fails when it left anything in the checkout's ``.evalfmt_cache``.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFORMANCE = pathlib.Path(os.environ.get("EVALFMT_CONFORMANCE", ROOT.parent / "shared" / "conformance"))
FIXTURES = ROOT / "fixtures"
UPDATE_GOLDEN = os.environ.get("EVALFMT_UPDATE_GOLDEN") == "1"


def run_source_checkout(*args: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``evalfmt ARGS`` run in a separate process on the source tree
    (PYTHONPATH, no pip install), with importlib.metadata seeing no distribution's entry points."""
    boot = ("import importlib.metadata as m, sys\n"
            "m.entry_points = lambda **kw: m.EntryPoints(())\n"
            "from evalfmt.cli import main\n"
            "main(sys.argv[1:])\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run([sys.executable, "-c", boot, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def pytest_collection_modifyitems(config, items):
    if CONFORMANCE.is_dir():
        return
    skip = pytest.mark.skip(reason=f"conformance folder absent: {CONFORMANCE}")
    for item in items:
        if "conformance" in item.keywords:
            item.add_marker(skip, append=False)  # before "got empty parameter set", so the reason says why


def conformance_files(*patterns: str) -> list[pathlib.Path]:
    """Conformance files matching glob patterns (relative to CONFORMANCE), sorted; [] when absent."""
    if not CONFORMANCE.is_dir():
        return []
    out: set[pathlib.Path] = set()
    for pattern in patterns:
        out.update(CONFORMANCE.glob(pattern))
    return sorted(out)


def conformance_id(path: pathlib.Path) -> str:
    return str(path.relative_to(CONFORMANCE))


def check_golden(path: pathlib.Path, actual: str | bytes) -> None:
    """Compare ``actual`` with the golden file at ``path`` byte for byte (or rewrite it when updating)."""
    data = actual.encode("utf-8") if isinstance(actual, str) else actual
    if UPDATE_GOLDEN or not path.exists():
        if not UPDATE_GOLDEN:
            pytest.fail(f"golden file missing: {path} (run with EVALFMT_UPDATE_GOLDEN=1 to create it)")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return
    expected = path.read_bytes()
    assert data.decode("utf-8", "replace") == expected.decode("utf-8", "replace"), f"differs from golden {path}"
    assert data == expected


#: where ``evalfmt lint`` run in the checkout would keep its cache: the suite must never write there
CHECKOUT_CACHE = ROOT / ".evalfmt_cache"


def checkout_cache_state() -> list[tuple[str, int, int]] | None:
    """What the checkout's cache folder holds (None: there is none): every path under it with its
    size and modification time."""
    if not os.path.lexists(CHECKOUT_CACHE):
        return None
    out = []
    for folder, dirs, files in os.walk(CHECKOUT_CACHE):
        for name in sorted(dirs + files):
            st = os.lstat(os.path.join(folder, name))
            out.append((os.path.relpath(os.path.join(folder, name), ROOT), st.st_size, st.st_mtime_ns))
    return sorted(out)


def conformance_caches() -> list[str]:
    """Cache folders under the conformance folder (real files the suite reads in place: a run that
    wrote a cache there, its folder being the project root of a working folder inside it, would serve
    later runs from it)."""
    if not CONFORMANCE.is_dir():
        return []
    return sorted(os.path.join(folder, ".evalfmt_cache") for folder, dirs, _ in os.walk(CONFORMANCE)
                  if ".evalfmt_cache" in dirs)


def pytest_sessionstart(session):
    session.config.stash[_CHECKOUT_BEFORE] = (checkout_cache_state(), conformance_caches())


def pytest_sessionfinish(session, exitstatus):
    before = session.config.stash.get(_CHECKOUT_BEFORE, (None, []))
    if conformance_caches() != before[1]:
        session.config.get_terminal_writer().line(
            f"\nthe suite wrote a cache folder into {CONFORMANCE}: {sorted(set(conformance_caches()) - set(before[1]))}",
            red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if checkout_cache_state() != before[0]:
        session.config.get_terminal_writer().line(
            f"\nthe suite wrote into the checkout's cache folder {CHECKOUT_CACHE}: a test ran without the cache "
            "folder of its own (tests/conftest.py)", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_CHECKOUT_BEFORE = pytest.StashKey[object]()


@pytest.fixture(autouse=True)
def _own_cache_folder(tmp_path_factory, monkeypatch):
    """A cache folder of this test's own for every run it makes (in-process, and the processes it
    starts, which inherit the environment)."""
    monkeypatch.setenv("EVALFMT_CACHE_DIR", str(tmp_path_factory.mktemp("evalfmt-cache")))
    monkeypatch.delenv("EVALFMT_NO_CACHE", raising=False)


@pytest.fixture(autouse=True)
def _fresh_plugins():
    """Each test sees the entry points as it (or its monkeypatch) sets them: the executor's plugin
    registries forget what they loaded after every test."""
    yield
    plugins = sys.modules.get("evalfmt.plugins")
    if plugins is not None:
        plugins.reset_all()


@pytest.fixture
def run_cli(monkeypatch):
    """Run the CLI in-process: ``code, out, err = run_cli("validate", path)``."""
    from click.testing import CliRunner

    from evalfmt.cli import main

    def _run(*args: str, input: str | None = None, env: dict | None = None, cwd: str | None = None):
        runner = CliRunner()
        if cwd is not None:
            monkeypatch.chdir(cwd)
        result = runner.invoke(_entry, list(args), input=input, env=env, catch_exceptions=False)
        return result.exit_code, result.stdout, result.stderr

    import click

    @click.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []})
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def _entry(args):
        main(list(args))

    return _run


@pytest.fixture
def evalfmt_exe() -> list[str]:
    """The command that runs evalfmt as a separate process (for cold-start and pre-commit style tests)."""
    return [sys.executable, "-m", "evalfmt"]
