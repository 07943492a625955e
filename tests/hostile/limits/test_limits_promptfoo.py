"""Hostile promptfoo configs (issue 26): what the reader renders and reads is bounded, and what it does not read
is said on one line. Templates that would loop, recurse or print forever; globs and ``file://`` paths that lead
out of the config's repository (``..``, absolute paths, symlinks, symlink loops, brace bombs); var combinations
and tests that multiply past the reader's bound; a CSV with a field longer than Python's csv module allows.

Each test reads through the CLI (``validate`` / ``inspect``) and pins the exit code and the exact finding; the
file contents that must not be read never appear in what evalfmt prints."""

from __future__ import annotations

import json
import os
import time

import pytest

from evalfmt.formats.promptfoo import expand

SECRET = "top-secret-token-26"


def _write(root, files):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


def _inspect(run_cli, config):
    code, out, err = run_cli("inspect", "--format", "json", str(config))
    assert err == "" and code == 0, err
    (es,) = json.loads(out)["sets"]
    return es


def _findings(run_cli, config):
    code, out, _ = run_cli("validate", str(config))
    return code, [line.replace(str(config.parent) + "/", "") for line in out.splitlines()[:-1]]


# ----------------------------------------------------------------------------------------- templates


@pytest.mark.parametrize("template, vars_", [
    ("{% for i in range(1000000) %}{% for j in range(1000000) %}{% endfor %}{% endfor %}", "{a: 1}"),
    ("{% macro m(n) %}{% if n > 0 %}{{ m(n - 1) }}{{ m(n - 1) }}{% endif %}x{% endmacro %}{{ m(40) }}", "{a: 1}"),
    ("{% for i in range(1000000) %}{{ big }}{% endfor %}", "{big: " + "y" * 1000 + "}"),
    ("{% for x in xs %}{% for y in xs %}{% for z in xs %}{{ x }}{% endfor %}{% endfor %}{% endfor %}",
     "{xs: [" + ", ".join(str(i) for i in range(1000)) + "]}"),
    ("{{ big | replace('y', big) }}", "{big: " + "y" * 100000 + "}"),
])
def test_a_template_that_would_run_or_print_forever_is_bounded(run_cli, tmp_path, template, vars_):
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(f"prompts:\n  - |\n    {template}\nproviders: [echo]\ntests:\n  - vars: {vars_}\n",
                      encoding="utf-8")
    start = time.monotonic()
    code, found = _findings(run_cli, config)
    assert time.monotonic() - start < 30
    assert (code, found) == (0, [
        "promptfooconfig.yaml:2:5: EV103 not rendered: a template that runs past evalfmt's bounds (more "
        "than 2000000 steps or 50000000 characters built: a loop or recursion too large): the task of a test using "
        "it is not known here (see docs/promptfoo.md)"])


@pytest.mark.parametrize("template, why", [
    ("{{ 'x' | indent(1000000000) }}", "a value too large to build (more than 10000000 characters or items)"),
    ("{{ 'x' | center(1000000000) }}", "a value too large to build (more than 10000000 characters or items)"),
    ("{{ " + "(" * 3000 + "1" + ")" * 3000 + " }}", "a template nested too deeply to parse"),
])
def test_a_template_that_builds_a_huge_value_is_refused_on_one_line(run_cli, tmp_path, template, why):
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(f"prompts: [\"{template}\"]\nproviders: [echo]\ntests:\n  - vars: {{a: 1}}\n", encoding="utf-8")
    code, found = _findings(run_cli, config)
    assert (code, found) == (0, [f"promptfooconfig.yaml:1:11: EV103 not rendered: {why}: the task of a "
                                 "test using it is not known here (see docs/promptfoo.md)"])


def test_a_prompt_that_repeats_a_large_var_is_bounded(run_cli, tmp_path):
    """The fast path (``{{ name }}`` only) charges what it prints too: 200000 copies of a 1000-character var."""
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text("prompts: ['" + "{{x}}" * 200000 + "']\nproviders: [echo]\ntests:\n  - vars: {x: "
                      + "y" * 1000 + "}\n", encoding="utf-8")
    es = _inspect(run_cli, config)
    assert es["cases"][0].get("input") is None


# ----------------------------------------------------------------------------- files outside the repository


@pytest.fixture
def repo(tmp_path):
    """tmp/repo (a git repository) holding the config, and tmp/outside holding a secret."""
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    _write(tmp_path / "outside", {"secret.txt": SECRET + "\n", "tests.yaml": f"- vars: {{q: {SECRET}}}\n",
                                  "p.txt": SECRET + " {{q}}\n"})
    return tmp_path / "repo"


@pytest.mark.parametrize("config, finding", [
    ("prompts: [file://../outside/p.txt]\ntests:\n  - vars: {q: 1}\n",
     "promptfooconfig.yaml:1:11: EV106 not rendered: '../outside/p.txt' is outside the repository {repo} "
     "(through '..', an absolute path or a symlink): not read: the task of a test using it is not known here (see "
     "docs/promptfoo.md)"),
    ("prompts: ['{{q}}']\ntests:\n  - vars: {q: file://../outside/secret.txt}\n",
     "promptfooconfig.yaml:3:5: EV106 not rendered: the var 'q': '../outside/secret.txt' is outside the "
     "repository {repo} (through '..', an absolute path or a symlink): not read: the task of a test using it is "
     "not known here (see docs/promptfoo.md)"),
    ("prompts: ['{{q}}']\ntests: file://../outside/tests.yaml\n",
     "promptfooconfig.yaml:2:8: EV106 tests file 'file://../outside/tests.yaml': '../outside/tests.yaml' is "
     "outside the repository {repo} (through '..', an absolute path or a symlink): not read"),
    ("prompts: ['{{q}}']\ntests: file://{outside}/*.yaml\n",
     "promptfooconfig.yaml:2:8: EV106 tests file 'file://{outside}/*.yaml': '../outside' is outside the "
     "repository {repo} (through '..', an absolute path or a symlink): not read"),
    ("prompts: ['{{q}}']\ndefaultTest: file://../outside/tests.yaml\n",
     "promptfooconfig.yaml:2:14: EV106 defaultTest file '../outside/tests.yaml' is outside the repository "
     "{repo} (through '..', an absolute path or a symlink): not read"),
])
def test_a_file_outside_the_repository_is_not_read(run_cli, repo, config, finding):
    outside = repo.parent / "outside"
    path = repo / "promptfooconfig.yaml"
    path.write_text(config.replace("{outside}", str(outside)), encoding="utf-8")
    code, found = _findings(run_cli, path)
    assert (code, found[-1]) == (0, finding.format(repo=repo, outside=outside))
    code, out, err = run_cli("inspect", "--format", "json", str(path))
    assert SECRET not in out and SECRET not in err


def test_a_symlink_out_of_the_repository_is_not_followed(run_cli, repo):
    (repo / "tests").mkdir()
    os.symlink(repo.parent / "outside" / "tests.yaml", repo / "tests" / "link.yaml")
    os.symlink(repo.parent / "outside", repo / "mirror")  # (a folder leading out)
    _write(repo, {"tests/own.yaml": "- vars: {q: mine}\n",
                  "promptfooconfig.yaml": "prompts: ['{{q}}']\ntests:\n  - file://tests/*.yaml\n"
                                          "  - file://mirror/*.yaml\n  - file://**/*.yaml\n"})
    code, found = _findings(run_cli, repo / "promptfooconfig.yaml")
    assert code == 0
    assert found == [
        f"promptfooconfig.yaml:1:1: EV106 'tests/link.yaml' is outside the repository {repo} (through '..', "
        "an absolute path or a symlink): not read",
        "promptfooconfig.yaml:4:5: EV106 tests file 'file://mirror/*.yaml': 'mirror' is outside the "
        f"repository {repo} (through '..', an absolute path or a symlink): not read"]
    es = _inspect(run_cli, repo / "promptfooconfig.yaml")
    # tests/*.yaml, then **/*.yaml: the config itself (a test with no vars, as promptfoo reads it) and the own
    # file; not mirror/ (a symlinked folder: '**' does not enter it), not tests/link.yaml
    assert [c.get("input") for c in es["cases"]] == ["mine", "", "mine"]


def test_a_symlink_loop_under_a_globstar_is_bounded(run_cli, repo):
    """``**`` does not enter symlinked folders (as promptfoo's glob): two links to '.' are two names, not 2**40."""
    _write(repo, {"t/x.yaml": "- vars: {q: x}\n",
                  "promptfooconfig.yaml": "prompts: ['{{q}}']\ntests: file://t/**/*.yaml\n"})
    os.symlink(".", repo / "t" / "a")
    os.symlink(".", repo / "t" / "b")
    start = time.monotonic()
    es = _inspect(run_cli, repo / "promptfooconfig.yaml")
    assert time.monotonic() - start < 10
    assert [c["input"] for c in es["cases"]] == ["x"]


@pytest.mark.parametrize("ref, why", [
    ("file://{1..100000}.yaml", "a glob whose braces make more than 1000 patterns"),
    ("file://" + "{a,b}" * 20 + ".yaml", "a glob whose braces make more than 1000 patterns"),
])
def test_a_brace_bomb_is_refused(run_cli, repo, ref, why):
    path = repo / "promptfooconfig.yaml"
    path.write_text(f"prompts: ['{{{{q}}}}']\ntests: '{ref}'\n", encoding="utf-8")
    code, found = _findings(run_cli, path)
    assert (code, found) == (0, [f"promptfooconfig.yaml:2:8: EV103 tests file '{ref}': {why}"])


# ------------------------------------------------------------------------------------ multiplication


def test_var_combinations_past_the_bound_are_one_finding(run_cli, tmp_path, monkeypatch):
    lists = "\n".join(f"      v{k}: [{', '.join(f'x{i}' for i in range(10))}]" for k in range(6))  # 10**6
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(f"prompts: ['{{{{v0}}}}']\nproviders: [echo]\ntests:\n  - vars:\n{lists}\n", encoding="utf-8")
    start = time.monotonic()
    code, found = _findings(run_cli, config)
    assert time.monotonic() - start < 30
    assert (code, found) == (0, [
        "promptfooconfig.yaml:4:5: EV103 not rendered: more than 100000 combinations of the vars' values "
        "(tests x values x prompts past evalfmt's bound): the task of a test using it is not known here (see "
        "docs/promptfoo.md)"])


def test_runs_past_the_bound_are_cut_with_a_finding(run_cli, tmp_path, monkeypatch):
    monkeypatch.setattr(expand, "MAX_RUNS", 5)
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text("prompts: ['A {{q}}', 'B {{q}}']\nproviders: [echo]\ntests: file://rows.csv\n", encoding="utf-8")
    (tmp_path / "rows.csv").write_text("q\n" + "".join(f"r{i}\n" for i in range(10)), encoding="utf-8")
    code, found = _findings(run_cli, config)
    assert (code, found) == (0, ["promptfooconfig.yaml:1:1: EV103 the config expands into more than 5 runs "
                                 "(tests x var combinations x prompts): the rest are not read"])
    assert len(_inspect(run_cli, config)["cases"]) == 5


# ---------------------------------------------------------------------------------------------- CSV


def test_a_csv_field_longer_than_pythons_csv_default_is_read(run_cli, tmp_path):
    """promptfoo's csv-parse has no field limit; Python's csv stops at 131072 characters: the file's size
    limit bounds a field instead."""
    long = "w" * 200_000
    _write(tmp_path, {"promptfooconfig.yaml": "prompts: ['<{{doc}}>']\nproviders: [echo]\ntests: file://rows.csv\n",
                      "rows.csv": f'doc,__expected\n"{long}",contains: w\n'})
    code, found = _findings(run_cli, tmp_path / "promptfooconfig.yaml")
    assert (code, found) == (0, [])
    (case,) = _inspect(run_cli, tmp_path / "promptfooconfig.yaml")["cases"]
    assert case["input"] == f"<{long}>"
