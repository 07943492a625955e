"""The executor's plugin registries (evalfmt/plugins.py): built-ins known without an install (a source
checkout run with PYTHONPATH), and one policy for a broken plugin: a one-line error naming the entry
point, never skipped."""

from __future__ import annotations

import importlib.metadata as md

import pytest

from conftest import ROOT, run_source_checkout
from evalfmt import plugins
from evalfmt.run import detect, judges, runners, selectors, transcripts

SUITE = "fixtures/skillgym/report-suite.ts"
REPORT = "fixtures/skillgym/runs/candidate/find-skills/claude-main--5f1c2a9e/repeat-1/report.json"
SCORED = ("transcript: fixtures/skillgym/runs/candidate/find-skills/claude-main--5f1c2a9e/repeat-1/report.json "
          "(skillgym-report, 11 records)\n"
          "PASS find-skills (3/3 checks passed)\n"
          '  ok   skill-trigger:find-skills: skillgym: detectedSkills has "find-skills" (explicit)\n'
          "  ok   command_matching:npx skills find: matched by Bash command: npx skills find expo upgrade\n"
          "  ok   regex:npx skills add: output matches /npx skills add/i\n")

#: every registry and the names it must know with no distribution installed at all
BUILTINS = [
    (transcripts.REGISTRY, ["claude-code-session", "claude-code-stream-json", "skillgym-report"]),
    (detect.REGISTRY, ["any-call", "first-call", "skill-used", "skillgym"]),
    (judges.REGISTRY, ["command", "none"]),
    (runners.REGISTRY, ["command", "ray", "replay"]),
    (selectors.REGISTRY, ["command"]),
]


def _no_entry_points(monkeypatch, extra: dict[str, list] | None = None):
    """importlib.metadata as a source checkout sees it: no evalfmt distribution, so no entry points
    (only the ``extra`` ones given per group)."""

    def fake(**kw):
        return md.EntryPoints((extra or {}).get(kw.get("group"), []))

    monkeypatch.setattr(md, "entry_points", fake)
    plugins.reset_all()


@pytest.mark.parametrize("registry, names", BUILTINS, ids=[r.group for r, _ in BUILTINS])
def test_builtins_are_known_without_entry_points(monkeypatch, registry, names):
    _no_entry_points(monkeypatch)
    assert registry.names() == names
    assert all(registry.get(n) is not None for n in names)


def test_source_checkout_scores_a_skillgym_report(tmp_path):
    """The defect: from a source checkout (PYTHONPATH, no pip install) the skillgym session reader and
    detector were unknown, because they were registered only as entry points. Run as a separate
    process on the source tree with importlib.metadata seeing no distribution's entry points."""
    assert run_source_checkout("score", SUITE, "--transcript", REPORT, "--case", "find-skills",
                               "--trigger-detection", "skillgym") == (0, SCORED, "")


def test_source_checkout_in_process(run_cli, monkeypatch):
    _no_entry_points(monkeypatch)
    monkeypatch.chdir(ROOT)
    assert run_cli("score", SUITE, "--transcript", REPORT, "--case", "find-skills",
                   "--trigger-detection", "skillgym") == (0, SCORED, "")


def _broken(name: str, group: str) -> md.EntryPoint:
    return md.EntryPoint(name, "evalfmt_no_such_module_9:thing", group)


@pytest.mark.parametrize("args, group, kind", [
    (("score", SUITE, "--transcript", REPORT, "--case", "find-skills"), "evalfmt.sessions", "session source"),
    (("score", SUITE, "--transcript", REPORT, "--case", "find-skills", "--trigger-detection", "mine"),
     "evalfmt.detectors", "detector"),
    (("compare", SUITE, "--arm", "candidate=fixtures/skillgym/runs/candidate", "--arm",
      "baseline=fixtures/skillgym/runs/baseline", "--judge", "mine"), "evalfmt.judges", "judge"),
])
def test_a_broken_plugin_is_one_line_naming_its_entry_point(run_cli, monkeypatch, args, group, kind):
    _no_entry_points(monkeypatch, {group: [_broken("mine", group)]})
    monkeypatch.chdir(ROOT)
    code, out, err = run_cli(*args)
    assert (code, out, err) == (2, "", f"evalfmt: {kind} 'mine' failed to load: ModuleNotFoundError: No module named "
                                       f"'evalfmt_no_such_module_9' (entry point 'mine = "
                                       f"evalfmt_no_such_module_9:thing' in group '{group}')\n")


def test_a_broken_plugin_does_not_shadow_a_builtin_it_is_not_asked_for(run_cli, monkeypatch):
    """A detector asked for by its built-in name needs no entry point loaded: a broken one elsewhere
    in the group does not stop it (it is reported as soon as it is asked for, or the list is)."""
    group = "evalfmt.detectors"
    _no_entry_points(monkeypatch, {group: [_broken("mine", group)]})
    monkeypatch.chdir(ROOT)
    assert run_cli("score", SUITE, "--transcript", REPORT, "--case", "find-skills",
                   "--trigger-detection", "skillgym") == (0, SCORED, "")
    code, _, err = run_cli("score", SUITE, "--transcript", REPORT, "--case", "find-skills",
                           "--trigger-detection", "nope")
    assert code == 2 and err.startswith("evalfmt: detector 'mine' failed to load: ") and err.count("\n") == 1


def test_a_plugin_of_the_wrong_kind_is_named(run_cli, monkeypatch):
    group = "evalfmt.sessions"
    _no_entry_points(monkeypatch, {group: [md.EntryPoint("odd", "os.path:join", group)]})
    monkeypatch.chdir(ROOT)
    code, out, err = run_cli("score", SUITE, "--transcript", REPORT, "--case", "find-skills")
    assert (code, out, err) == (2, "", "evalfmt: session source 'odd' is not a session source: function "
                                       "(entry point 'odd = os.path:join' in group 'evalfmt.sessions')\n")


def test_an_entry_point_with_a_builtin_name_is_not_loaded(monkeypatch):
    group = "evalfmt.detectors"
    _no_entry_points(monkeypatch, {group: [_broken("first-call", group)]})
    assert detect.detectors()["first-call"] is detect.FIRST_CALL


def test_a_working_plugin_and_a_registered_one(monkeypatch):
    group = "evalfmt.detectors"
    _no_entry_points(monkeypatch, {group: [md.EntryPoint("also-first", "evalfmt.run.detect:FIRST_CALL", group)]})
    assert detect.get("also-first") is detect.FIRST_CALL
    assert detect.REGISTRY.names() == ["also-first", "any-call", "first-call", "skill-used", "skillgym"]
    detect.REGISTRY.register("mine", detect.ANY_CALL)
    try:
        assert detect.get("mine") is detect.ANY_CALL
    finally:
        detect.REGISTRY.unregister("mine")
    with pytest.raises(plugins.PluginError, match=r"^unknown trigger detection 'mine' \(known: also-first, any-call"):
        detect.get("mine")


def test_a_registered_plugin_wins_over_an_entry_point_of_its_name_everywhere(monkeypatch):
    group = "evalfmt.detectors"
    _no_entry_points(monkeypatch, {group: [md.EntryPoint("mine", "evalfmt.run.detect:FIRST_CALL", group)]})
    detect.REGISTRY.register("mine", detect.ANY_CALL)
    try:
        assert detect.get("mine") is detect.ANY_CALL
        assert detect.detectors()["mine"] is detect.ANY_CALL
        detect.REGISTRY.register("first-call", detect.ANY_CALL)  # a built-in keeps its name
        assert detect.get("first-call") is detect.FIRST_CALL
        assert detect.detectors()["first-call"] is detect.FIRST_CALL
    finally:
        detect.REGISTRY.unregister("mine")
        detect.REGISTRY.unregister("first-call")
