"""Issue 13 item 5: promptfoo read as promptfoo reads it: a test's task rendered from the prompt
template (the nunjucks subset docs/promptfoo.md names, the rest reported), ``tests:`` as one
``file://`` string, and glob test paths expanded."""

from __future__ import annotations

import json

import pytest

from evalfmt import api
from evalfmt.formats.promptfoo import reader as pf
from evalfmt.formats.promptfoo.template import render_template


def _write(root, files):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


CONFIG = ('prompts:\n  - "Use the review-standards skill.\\n{{ request }}"\nproviders:\n  - anthropic:claude-agent-sdk\n'
          'tests:\n  - vars:\n      request: Review my diff\n    assert:\n      - type: skill-used\n'
          '        value: review-standards\n')


def test_text_around_the_variable_is_rendered_in_inspect_convert_and_transpile(tmp_path, run_cli):
    _write(tmp_path, {"promptfooconfig.yaml": CONFIG})
    cfg = str(tmp_path / "promptfooconfig.yaml")
    (es,) = api.read(cfg).sets
    assert es.cases[0].input == "Use the review-standards skill.\nReview my diff"
    code, out, err = run_cli("convert", cfg, "--to", "agent-skills")
    assert code == 0
    assert json.loads(out)["evals"][0]["prompt"] == "Use the review-standards skill.\nReview my diff"
    code, out, err = run_cli("transpile", cfg, "--stdout")
    assert code == 0, err
    assert '"input": "Use the review-standards skill.\\nReview my diff"' in out
    code, out, _ = run_cli("convert", cfg, "--to", "promptfoo")
    assert out == CONFIG.replace('"Use the review-standards skill.\\n{{ request }}"',
                                 "|-\n    Use the review-standards skill.\n    {{ request }}")


@pytest.mark.parametrize("template, vars_, expected", [
    ("Hi {{name}}!", {"name": "Ann"}, "Hi Ann!"),
    ("{{ a.b }} and {{missing}}.", {"a": {"b": "x"}}, "x and ."),
    ("n={{ n }} f={{ f }} t={{ t }} z={{ z }}", {"n": 3, "f": 1.5, "t": True, "z": None}, "n=3 f=1.5 t=true z="),
    ("{{- name -}}", {"name": "tight"}, "tight"),
])
def test_the_rendered_subset(template, vars_, expected):
    assert render_template(template, vars_) == (expected, None)


@pytest.mark.parametrize("template, vars_, why", [
    ("{% if x %}a{% endif %}", {"x": 1}, "a '{% %}' tag"),
    ("{# note #}{{ x }}", {"x": 1}, "a '{# #}' comment"),
    ("{{ x | upper }}", {"x": "a"}, "the expression '{{ x | upper }}'"),
    ("{{ items }}", {"items": [1, 2]}, "'items', a list value"),
    ("{{ doc }}", {"doc": "file://doc.md"}, "'doc', a file:// value promptfoo loads"),
])
def test_what_is_not_rendered_says_what_it_is(template, vars_, why):
    assert render_template(template, vars_) == (None, why)


def test_a_template_beyond_the_subset_is_reported_once_at_the_prompt(tmp_path):
    _write(tmp_path, {"promptfooconfig.yaml": 'prompts:\n  - "{% if formal %}Dear{% endif %} {{ request }}"\n'
                                              'providers: [echo]\ntests:\n  - vars: {request: a}\n'
                                              '  - vars: {request: b}\n'})
    result = api.read(str(tmp_path / "promptfooconfig.yaml"))
    assert [d.format().split(": ", 1)[1] for d in result.diagnostics] == [
        "EV103 the prompt template uses a '{% %}' tag: evalfmt renders only '{{ variable }}' (see docs/promptfoo.md), "
        "so the task of a test using it is not known here"]
    assert (result.diagnostics[0].line, result.diagnostics[0].column, result.diagnostics[0].severity) == \
        (2, 5, "warning")
    assert [c.input for c in result.sets[0].cases] == [None, None]


def test_a_file_prompt_is_rendered(tmp_path):
    _write(tmp_path, {"prompt.txt": "Task: {{ prompt }}\n", "promptfooconfig.yaml":
                      "prompts: ['file://prompt.txt']\nproviders: [echo]\ntests:\n  - vars: {prompt: go}\n"})
    (es,) = api.read(str(tmp_path / "promptfooconfig.yaml")).sets
    assert es.cases[0].input == "Task: go\n"


def test_tests_as_one_file_string_are_read_and_written_back(tmp_path, run_cli):
    _write(tmp_path, {"promptfooconfig.yaml": "prompts:\n  - '{{prompt}}'\nproviders:\n  - echo\ntests: file://examples.yaml\n",
                      "examples.yaml": "- vars:\n    prompt: hello\n  assert:\n    - type: contains\n      value: hi\n"})
    cfg = str(tmp_path / "promptfooconfig.yaml")
    result = api.read(cfg)
    assert result.diagnostics == []
    assert [c.input for c in result.sets[0].cases] == ["hello"]
    out = tmp_path / "out"
    code, _, err = run_cli("convert", cfg, "--to", "promptfoo", "-o", str(out / "promptfooconfig.yaml"))
    assert code == 0, err
    assert (out / "promptfooconfig.yaml").read_text() == (tmp_path / "promptfooconfig.yaml").read_text()
    assert (out / "examples.yaml").read_text() == (tmp_path / "examples.yaml").read_text()


def test_glob_test_paths_are_expanded(tmp_path, run_cli):
    _write(tmp_path, {
        "promptfooconfig.yaml": "prompts: ['{{prompt}}']\nproviders: [echo]\ntests:\n  - file://tests/*/trigger-tests.yaml\n",
        "tests/b/trigger-tests.yaml": "- vars: {prompt: second}\n",
        "tests/a/trigger-tests.yaml": "- vars: {prompt: first}\n",
        "tests/.hidden/trigger-tests.yaml": "- vars: {prompt: hidden}\n",  # '*' does not match a leading dot
        "tests/a/deeper/trigger-tests.yaml": "- vars: {prompt: deeper}\n",  # nor a '/'
    })
    cfg = str(tmp_path / "promptfooconfig.yaml")
    result = api.read(cfg)
    assert result.diagnostics == []
    assert [(c.name, c.input) for c in result.sets[0].cases] == [("test-1", "first"), ("test-2", "second")]
    assert [p.split("tests/", 1)[1] for p in pf.tests_files(cfg, "file://tests/**/trigger-tests.yaml")] == \
        ["a/deeper/trigger-tests.yaml", "a/trigger-tests.yaml", "b/trigger-tests.yaml"]
    out = tmp_path / "out"
    code, _, err = run_cli("convert", cfg, "--to", "promptfoo", "-o", str(out / "promptfooconfig.yaml"))
    assert code == 0, err
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*.yaml")) == \
        ["promptfooconfig.yaml", "tests/a/trigger-tests.yaml", "tests/b/trigger-tests.yaml"]


def test_a_glob_that_matches_nothing_is_a_warning(tmp_path):
    _write(tmp_path, {"promptfooconfig.yaml": "prompts: ['{{prompt}}']\nproviders: [echo]\ntests: file://none/*.yaml\n"})
    result = api.read(str(tmp_path / "promptfooconfig.yaml"))
    assert [d.format().split(": ", 1)[1] for d in result.diagnostics] == [
        "EV107 tests glob 'file://none/*.yaml' matches no file: no tests are read from it"]
