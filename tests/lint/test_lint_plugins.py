"""Third-party rules load from installed `evalfmt.rules` entry points, and only from there: nothing in
the linted repository is ever imported or run."""

from __future__ import annotations

import textwrap

import pytest

from evalfmt.lint import config as cfgmod
from evalfmt.lint import registry as regmod
from lintkit import materialize

PLUGIN = '''
from evalfmt.errors import Pos
from evalfmt.lint.registry import Rule


class NoTodo(Rule):
    """A task that still says TODO.

    Why: it was never finished.

    Fails:

        # file: evals/cases/a.yaml
        task: TODO write the task

    Passes:

        # file: evals/cases/a.yaml
        task: Write the release notes.

    Fix: write the task.
    """

    code = "XT100"
    name = "no-todo"
    severity = "error"

    def check_set(self, evalset, ctx):
        for case in evalset.cases:
            if case.task and "TODO" in case.task:
                ctx.report(self, case.span.file, ctx.value_pos(case, "task"), "the task still says TODO: finish it")
'''


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    (site / "evalfmt_todo_plugin.py").write_text(textwrap.dedent(PLUGIN))
    dist = site / "evalfmt_todo_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: evalfmt-todo-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[evalfmt.rules]\ntodo = evalfmt_todo_plugin:NoTodo\n")
    monkeypatch.syspath_prepend(str(site))
    regmod.reset()
    yield
    regmod.reset()


def test_plugin_rule_is_listed_explained_and_run(plugin, run_cli, tmp_path):
    code, out, err = run_cli("rules")
    assert code == 0 and "XT100  no-todo" in out
    code, out, err = run_cli("rules", "--explain", "no-todo")
    assert out.startswith("XT100 no-todo: error\n\nA task that still says TODO.\n")
    repo = materialize(tmp_path / "w", {"files": {"evals/cases/a.yaml": "task: TODO write the task\n"}})
    code, out, err = run_cli("lint", "--isolated", "--select", "XT", "sample", cwd=str(repo))
    assert (code, out, err) == (1, "sample/evals/cases/a.yaml:1:7: XT100 the task still says TODO: finish it\n"
                                   "1 error, 0 warnings in 1 file\n", "")
    code, out, err = run_cli("lint", "--isolated", "--ignore", "XT100", "--select", "XT,EV2", "sample", cwd=str(repo))
    assert code == 0


def test_broken_plugin_is_reported_not_fatal(tmp_path, monkeypatch, run_cli):
    site = tmp_path / "site"
    (site / "broken-1.0.dist-info").mkdir(parents=True)
    (site / "broken-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 1.0\n")
    (site / "broken-1.0.dist-info" / "entry_points.txt").write_text("[evalfmt.rules]\nx = no_such_module:Rule\n")
    monkeypatch.syspath_prepend(str(site))
    regmod.reset()
    try:
        repo = materialize(tmp_path / "w", {"files": {}})
        code, out, err = run_cli("lint", "--isolated", "sample", cwd=str(repo))
        assert code == 0
        assert err.startswith("evalfmt: plugin broken: cannot load entry point 'x': ModuleNotFoundError")
    finally:
        regmod.reset()


def test_nothing_in_the_linted_repository_is_imported(run_cli, tmp_path):
    marker = tmp_path / "imported"
    trap = f"open({str(marker)!r}, 'w').write('x')\n"
    repo = materialize(tmp_path, {"files": {
        "evals/cases/a.yaml": "task: Write the notes.\nsetup: touch {0}\nchecks:\n  - command_succeeds: touch {0}\n"
                              .format(marker),
        "evalfmt_rules.py": trap, "rules/__init__.py": trap, "conftest.py": trap,
    }})
    (repo / "evalfmt_plugin.py").write_text(trap)
    (repo / "evalfmt.toml").write_text("select = ['ALL']\n")
    code, out, err = run_cli("lint", "sample", cwd=str(repo))
    assert (code, err) == (0, "") and out.endswith("in 5 files\n")  # the files were linted ...
    assert not marker.exists()  # ... and nothing of them ran
    # a config that names a module is refused, not followed
    (repo / "evalfmt.toml").write_text("select = ['ALL']\n[rules.EV999]\nmodule = 'evalfmt_plugin'\n")
    cfgmod.clear_cache()
    assert run_cli("lint", "sample", cwd=str(repo)) == (
        2, "", f"evalfmt: {repo / 'evalfmt.toml'}:2:8: [rules.EV999]: no rule has this code (see 'evalfmt rules')\n")
    assert not marker.exists()
