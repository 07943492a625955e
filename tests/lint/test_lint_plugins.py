"""Third-party rules load from installed `evalfmt.rules` entry points, and only from there: nothing in
the linted repository is ever imported or run."""

from __future__ import annotations

import sys
import textwrap

import pytest

from conftest import run_source_checkout
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


BAD_CODE = '''
from evalfmt.lint.registry import Rule


class BadRule(Rule):
    """A rule whose code is not a code."""

    code = "bad1"
    name = "bad-rule"
'''


def _install(tmp_path, monkeypatch, entry: str, module: str | None = None) -> None:
    """An installed distribution 'broken' declaring the ``evalfmt.rules`` entry point ``entry``
    (with ``module`` as evalfmt_bad_rule_plugin.py beside it)."""
    site = tmp_path / "site"
    (site / "broken-1.0.dist-info").mkdir(parents=True)
    (site / "broken-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 1.0\n")
    (site / "broken-1.0.dist-info" / "entry_points.txt").write_text(f"[evalfmt.rules]\n{entry}\n")
    if module is not None:
        (site / "evalfmt_bad_rule_plugin.py").write_text(textwrap.dedent(module))
        monkeypatch.delitem(sys.modules, "evalfmt_bad_rule_plugin", raising=False)
    monkeypatch.syspath_prepend(str(site))
    regmod.reset()


@pytest.mark.parametrize("entry, module, message", [
    ("x = evalfmt_no_such_module_9:Rule", None,
     "rule plugin 'x' failed to load: ModuleNotFoundError: No module named 'evalfmt_no_such_module_9' "
     "(entry point 'x = evalfmt_no_such_module_9:Rule' in group 'evalfmt.rules')"),
    ("odd = os.path:join", None,
     "rule plugin 'odd' is not a rule plugin: function (entry point 'odd = os.path:join' in group 'evalfmt.rules')"),
    ("bad = evalfmt_bad_rule_plugin:BadRule", BAD_CODE,
     "rule plugin 'bad' is not usable: rule BadRule: code 'bad1' is not like 'EV204' "
     "(entry point 'bad = evalfmt_bad_rule_plugin:BadRule' in group 'evalfmt.rules')"),
    ("bad = evalfmt_bad_rule_plugin", "from evalfmt.lint.rules.quality import *\nRULES = [ShortAnchor]\n",
     "rule plugin 'bad' is not usable: rule EV204 is defined twice (ShortAnchor, ShortAnchor) "
     "(entry point 'bad = evalfmt_bad_rule_plugin' in group 'evalfmt.rules')"),
])
def test_a_broken_rule_plugin_is_one_line_naming_its_entry_point(tmp_path, monkeypatch, run_cli, entry, module,
                                                                   message):
    """One policy for every plugin (evalfmt/plugins.py): a rule plugin that cannot be used stops lint
    and rules with exit 2 and one line naming its entry point; it is never skipped."""
    _install(tmp_path, monkeypatch, entry, module)
    try:
        repo = materialize(tmp_path / "w", {"files": {"evals/cases/a.yaml": "task: Write the notes.\n"}})
        assert run_cli("lint", "--isolated", "--no-cache", "sample", cwd=str(repo)) == (2, "", f"evalfmt: {message}\n")
        regmod.reset()
        assert run_cli("rules") == (2, "", f"evalfmt: {message}\n")
    finally:
        regmod.reset()


def test_builtin_rules_are_known_from_a_source_checkout(run_cli):
    """From a source checkout (PYTHONPATH, no pip install, importlib.metadata seeing no entry point
    at all) ``evalfmt rules`` lists every built-in rule, as an installed evalfmt does."""
    code, installed, err = run_cli("rules")
    assert (code, err) == (0, "") and installed.startswith("EV001  unused-suppression ")
    assert len(installed.splitlines()) == len(regmod.registry(plugins=False).codes())
    assert run_source_checkout("rules") == (0, installed, "")


def test_nothing_in_the_linted_repository_is_imported(run_cli, tmp_path):
    marker = tmp_path / "imported"
    trap = f"open({str(marker)!r}, 'w').write('x')\n"
    repo = materialize(tmp_path, {"files": {
        "evals/cases/a.yaml": f"task: Write the notes.\nsetup: touch {marker}\nchecks:\n  - command_succeeds: touch {marker}\n"
                              ,
        "evalfmt_rules.py": trap, "rules/__init__.py": trap, "conftest.py": trap,
    }})
    (repo / "evalfmt_plugin.py").write_text(trap)
    (repo / "evalfmt.toml").write_text("select = ['ALL']\n")
    code, out, err = run_cli("lint", "sample", cwd=str(repo))
    assert (code, err) == (0, "") and out.endswith("in 5 files\n")  # the files were linted ...
    assert not marker.exists()  # ... and nothing of them ran
    # a config that names a module is refused, not followed
    (repo / "evalfmt.toml").write_text("select = ['ALL']\n[rules.EV999]\nmodule = 'evalfmt_plugin'\n")
    assert run_cli("lint", "sample", cwd=str(repo)) == (
        2, "", f"evalfmt: {repo / 'evalfmt.toml'}:2:8: [rules.EV999]: no rule has this code (see 'evalfmt rules')\n")
    assert not marker.exists()
