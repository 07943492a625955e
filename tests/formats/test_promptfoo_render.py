"""promptfoo read as promptfoo reads it (issue 26 items 2-4): templates rendered as nunjucks renders them
(Jinja2, sandboxed, with nunjucks' differences), every way a config names its tests, one case per test, var
combination and prompt (named apart), and what cannot be rendered reported by name. The differential test
(test_promptfoo_differential.py) checks the same against promptfoo itself; these pin exact results and
hostile inputs without node."""

from __future__ import annotations

import pytest

from evalfmt import api
from evalfmt.formats.promptfoo.expand import assertion_from_string, file_path_reason, resolve_between
from evalfmt.formats.promptfoo.template import Unrenderable, render


def _write(root, files):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


def _read(tmp_path, files):
    _write(tmp_path, files)
    result = api.read(str(tmp_path / "promptfooconfig.yaml"))
    (es,) = result.sets
    diags = [d.format().replace(str(tmp_path) + "/", "") for d in result.diagnostics]
    return es, diags


# ------------------------------------------------------------------------------------------ rendering


@pytest.mark.parametrize("template, vars_, expected", [
    ("Hi {{name}}!", {"name": "Ann"}, "Hi Ann!"),
    ("{{ a.b }} and {{missing}}|{{ missing.deep.er }}.", {"a": {"b": "x"}}, "x and |."),
    ("n={{ n }} f={{ f }} t={{ t }} z={{ z }} l={{ l }} o={{ o }}",
     {"n": 3, "f": 1.0, "t": True, "z": None, "l": [1, "a", None], "o": {"k": 1}},
     "n=3 f=1 t=true z= l=1,a, o=[object Object]"),
    ("A  {{- x -}}  B", {"x": 1}, "A1B"),
    ("{% if items %}has{% else %}none{% endif %}", {"items": []}, "has"),  # ([] is true in JavaScript)
    ("{% for i in xs -%}\n[{{ loop.index }}{{ i }}]\n{%- endfor %}", {"xs": ["a", "b"]}, "[1a][2b]"),
    ("{{ t | title }}|{{ t | capitalize }}|{{ t | upper }}", {"t": "hello-world foo"},
     "Hello-world Foo|Hello-world foo|HELLO-WORLD FOO"),
    ("{{ o | dump }}", {"o": {"a": [1, 2.5, None], "b": "é"}}, '{"a":[1,2.5,null],"b":"é"}'),
    ('{{ s | load | dump }}', {"s": '{"k": [1]}'}, '{"k":[1]}'),
    ("{{ x | default('d') }}|{{ e | default('d', true) }}|{{ e | default('d') }}", {"e": ""}, "d|d|"),
    ("{{ xs | join(', ') }}|{{ xs[0] }}|{{ xs | length }}", {"xs": ["a", "b"]}, "a, b|a|2"),
    ("{# hidden #}{% raw %}{{ kept }}{% endraw %}", {}, "{{ kept }}"),
    ("text\n", {}, "text\n"),  # (a template keeps its trailing line break)
    # JavaScript's values and operators, as nunjucks compiles each expression to JavaScript
    ("{{ xs.length }}|{{ s.length }}|{{ xs[-1] }}|{{ o.length }}", {"xs": [1, 2, 3], "s": "héllo", "o": {}}, "3|5||"),
    ("{% if n == 1 %}eq{% endif %}|{{ not n == 1 }}|{{ not (n == 1) }}", {"n": "1"}, "eq|false|false"),
    ("{{ 'a' ~ missing }}|{{ 'a' + 1 }}|{{ s + 1 }}|{{ -7 % 3 }}|{{ 'ab' * 2 }}|{{ 1 / 0 }}|{{ 1 < 2 < 3 }}",
     {"s": "2"}, "aundefined|a1|21|-1|NaN|Infinity|true"),
    ("{{ a + b }}|{{ range(3) }}|{{ o | dump }}|{{ {'b': 1, '1': 2} | dump }}",
     {"a": [1, 2], "b": [3], "o": {"f": 1.0}}, '1,23|0,1,2|{"f":1}|{"1":2,"b":1}'),
    ("{% for k, v in o %}{{ k }}={{ v }};{% endfor %}|{% for c in 'ab' %}[{{ c }}]{% endfor %}|"
     "{% for x in 5 %}x{% else %}none{% endfor %}", {"o": {"b": 1, "a": 2}}, "b=1;a=2;|[a][b]|none"),
    ("{{ t | indent(2) }}|{{ u | truncate(5) }}|{{ '12abc' | int }}|{{ 'abc' | int }}|{{ n | default('d') }}",
     {"t": "a\n\nb", "u": "ab cd ef", "n": None}, "a\n  \n  b|ab cd...|12||"),
    ("{{ true }} {{ none }}|{{ null }}|{{ x | escape }}|{% if '' | safe %}safe is an object{% endif %}",
     {"x": "<a href='x'>\\</a>"}, "true ||&lt;a href=&#39;x&#39;&gt;&#92;&lt;/a&gt;|safe is an object"),
    ("{% macro m(a, b=missing) %}{{ a }}/{{ b }}{% endmacro %}{{ m(1) }}", {"b": "var b"}, "1/var b"),
])
def test_rendered_as_nunjucks_renders(template, vars_, expected):
    assert render(template, vars_) == expected


@pytest.mark.parametrize("template, vars_, why", [
    ("{{ x | tojson }}", {"x": 1}, "the filter 'tojson' (not one of nunjucks' built-in filters)"),
    ("{{ env.HOME }}", {}, "the environment variable 'env.HOME' (promptfoo reads the process environment)"),
    ("{{ xs | join(',') }}", {"xs": "abc"}, "the filter 'join' on text (nunjucks stops with an error)"),
    ("{{ n | upper }}", {"n": 7}, "the filter 'upper' on a number (nunjucks stops with an error)"),
    ("{{ s[1:3] }}", {"s": "hello"}, "a slice such as s[1:3] (nunjucks does not parse it)"),
    ("{% with y = 1 %}{{ y }}{% endwith %}", {}, "the tag 'with' (not a nunjucks tag)"),
    ("{{ lipsum(1) }}", {}, "calling a value that is not a function (nunjucks stops with an error)"),
    ("{{ s.toUpperCase() }}", {"s": "a"}, "a JavaScript method ('.toUpperCase()')"),
    ("{% if x == None %}{% endif %}", {}, "'None' (nunjucks reads it as an undefined variable; its literals are "
                                          "true, false, none)"),
    ("{{ 'caf\\u00e9' }}", {}, "the string 'caf\\u00e9' (nunjucks reads a backslash other than \\n, \\t, \\r as "
                                "the character after it)"),
    ("{{ 1_000 }}", {}, "the number '1_000' (nunjucks reads numbers written as 12 or 1.5 only)"),
    ("{{ 1 + 2 ~ 'x' }}", {}, "an expression whose operators nunjucks' JavaScript groups otherwise (add parentheses)"),
    ("{% set c = 0 %}{% for x in xs %}{% set c = c + 1 %}{% endfor %}", {"xs": [1]},
     "setting 'c' inside a loop when it is also set outside it (nunjucks changes the outer one)"),
    ("{{ x | random }}", {"x": [1, 2]}, "the filter 'random' (its result is not the same on each run)"),
    ("{% if %}", {}, "a template evalfmt cannot parse (Expected an expression, got 'end of statement block')"),
])
def test_what_is_not_rendered_says_what_it_is(template, vars_, why):
    with pytest.raises(Unrenderable) as exc:
        render(template, vars_)
    assert str(exc.value) == why


def test_the_sandbox_holds():
    with pytest.raises(Unrenderable):
        render("{{ x.__class__.__mro__[1].__subclasses__() }}", {"x": "s"})
    assert render("{{ ''.__class__ }}", {}) == ""  # (an unsafe attribute is undefined: nothing)


def test_env_reads_the_configs_env_mapping():
    assert render("{{ env.TEAM }}!", {}, {"TEAM": "core"}) == "core!"


def test_vars_resolved_between_as_promptfoo_does():
    vars_ = {"a": "x {{ b }} {{ b }}", "b": "$& [{{c}}]", "c": ["p", "q"]}
    resolve_between(vars_)  # (the first match per pass; JavaScript's replacement patterns)
    # pass 1: a gets b's text with '$&' as the match, b gets c as text; passes 2-5: a's first '{{ b }}' again
    assert vars_ == {"a": "x {{ b }} [p,q] [p,q] [p,q] [p,q] [{{c}}] {{ b }}", "b": "$& [p,q]", "c": ["p", "q"]}


@pytest.mark.parametrize("cell, assertion", [
    ("contains: Paris", {"type": "contains", "value": "Paris"}),
    ("not-icontains-any: a, \"b, c\"", {"type": "not-icontains-any", "value": ["a", "b, c"]}),
    ("similar(0.9):hello", {"type": "similar", "value": "hello", "threshold": 0.9}),
    ("starts-with:Hi", {"type": "starts-with", "value": "Hi", "threshold": 0.75}),
    ("grade:is polite", {"type": "llm-rubric", "value": "is polite"}),
    ("fn: output.length > 2", {"type": "javascript", "value": "output.length > 2"}),
    ("Paris", {"type": "equals", "value": "Paris"}),
])
def test_csv_expected_cells(cell, assertion):
    assert assertion_from_string(cell) == assertion


@pytest.mark.parametrize("text, why", [
    ("Summarize {{text}}", None), ("file://p.txt", "file://"), ("a/b {{x}}", "a '/'"),
    ("Say hi.\\n{{x}}", "a backslash"), ("p.md", "a file extension"), ("Pay 1.5 {{x}} $3.50", "a '.' three or four "
                                                                                                "characters from its end"),
    ("Line one\nLine two/three", None),
])
def test_which_prompt_strings_promptfoo_reads_as_paths(text, why):
    assert file_path_reason(text) == why


# -------------------------------------------------------------------------------------------- reading


def test_prompts_times_tests_one_case_each_named_apart(tmp_path):
    es, diags = _read(tmp_path, {"promptfooconfig.yaml": (
        "prompts:\n  - raw: 'A {{x}}'\n    label: short\n  - 'B {{x}}'\nproviders: [echo]\n"
        "defaultTest:\n  vars: {x: dflt}\n  assert: [{type: contains, value: x}]\n"
        "tests:\n  - description: one\n    vars: {x: [p, q]}\n  - vars: {y: 1}\n")})
    assert diags == []
    assert [(c.name, c.input) for c in es.cases] == [
        ("one [x=p] @ short", "A p"), ("one [x=p] @ prompt-2", "B p"),
        ("one [x=q] @ short", "A q"), ("one [x=q] @ prompt-2", "B q"),
        ("test-2 @ short", "A dflt"), ("test-2 @ prompt-2", "B dflt")]
    assert [c.kind for c in es.checks] == ["contains"]
    assert [bool(c.hints.get("variant")) for c in es.cases] == [False, True, True, True, False, True]
    assert es.cases[4].extra == {"vars": {"y": 1}}  # (a var no prompt names: kept, lost elsewhere)


def test_scenarios_csv_jsonl_and_default_file(tmp_path):
    es, diags = _read(tmp_path, {
        "promptfooconfig.yaml": ("prompts: ['{{greet}} {{who}} in {{lang}}']\nproviders: [echo]\n"
                                 "defaultTest: file://default.yaml\n"
                                 "tests:\n  - file://rows.csv\n  - file://more.jsonl\n"
                                 "scenarios:\n  - config:\n      - vars: {lang: fr}\n      - vars: {lang: de}\n"
                                 "    tests:\n      - vars: {who: Sam}\n"),
        "default.yaml": "vars: {greet: Hi, lang: en}\nassert:\n  - type: icontains\n    value: hi\n",
        "rows.csv": "who,__expected,__description\nAnn,contains: Ann,first\nBo,,\n",
        "more.jsonl": '{"vars": {"who": "Cy"}, "assert": [{"type": "equals", "value": "Hi Cy in en"}]}\n',
    })
    assert diags == []
    assert [(c.name, c.input, [ch.kind for ch in c.checks]) for c in es.cases] == [
        ("first", "Hi Ann in en", ["contains"]), ("Row #2", "Hi Bo in en", []),
        ("test-1", "Hi Cy in en", ["equals"]),
        ("scenario-1-1", "Hi Sam in fr", []), ("scenario-1-2", "Hi Sam in de", [])]
    assert [c.kind for c in es.checks] == ["icontains"]


def test_a_chat_prompt_is_messages(tmp_path):
    es, _ = _read(tmp_path, {
        "promptfooconfig.yaml": "prompts: [file://chat.json]\nproviders: [echo]\ntests:\n  - vars: {q: 'a \"b\"'}\n",
        "chat.json": '[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "{{q}}"}]',
    })
    (case,) = es.cases
    assert [(m.role, m.content) for m in case.input] == [("system", "Be brief."), ("user", 'a "b"')]


def test_what_is_not_rendered_is_reported_by_name_once(tmp_path):
    es, diags = _read(tmp_path, {
        "promptfooconfig.yaml": ("prompts: [file://p.js, file://p.py, '{{x}}']\nproviders: [echo]\ntests:\n"
                                 "  - vars: {x: 1}\n  - vars: {x: 2}\n    options: {transformVars: '{x: 3}'}\n"),
        "p.js": "module.exports = () => 'x';\n", "p.py": "def f(context):\n    return 'x'\n"})
    assert [c.input for c in es.cases] == [None, None, "1", None, None, None]
    assert diags == [
        "promptfooconfig.yaml:1:11: EV103 not rendered: a JavaScript prompt function ('p.js'): the task of a test "
        "using it is not known here (see docs/promptfoo.md)",
        "promptfooconfig.yaml:1:24: EV103 not rendered: a Python prompt function ('p.py'): the task of a test using "
        "it is not known here (see docs/promptfoo.md)",
        "promptfooconfig.yaml:5:5: EV103 not rendered: options.transformVars (a transform promptfoo runs on the "
        "vars): the task of a test using it is not known here (see docs/promptfoo.md)"]


def test_hostile_templates_do_not_escape_or_hang(tmp_path):
    es, diags = _read(tmp_path, {"promptfooconfig.yaml": (
        "prompts: ['{{ cycler.__init__.__globals__ }}', '{% for i in range(10**9) %}{% endfor %}x']\n"
        "providers: [echo]\ntests:\n  - vars: {a: 1}\n")})
    assert [c.input for c in es.cases][0] == ""
    assert es.cases[1].input is None
    assert diags == ["promptfooconfig.yaml:1:48: EV103 not rendered: a range too large to loop over: the task of a "
                     "test using it is not known here (see docs/promptfoo.md)"]


# ------------------------------------------------------------------------------------------ writing back


CONFIG = """\
prompts:
  - 'Summarize: {{text}}'
  - id: file://formal.txt
    label: formal
providers: [anthropic:claude-agent-sdk]
defaultTest:
  vars: {text: default text}
  assert:
    - type: icontains
      value: summary
tests:
  - description: two texts
    vars:
      text: [alpha, beta]
    assert:
      - {type: contains, value: alpha, weight: 2}
  - vars: {other: kept}
scenarios:
  - config: [{vars: {text: scenario}}]
"""


def test_written_back_as_it_was_and_through_another_format_every_test_kept(tmp_path, run_cli):
    import yaml

    _write(tmp_path, {"promptfooconfig.yaml": CONFIG, "formal.txt": "Formally: {{text}}\n"})
    cfg = str(tmp_path / "promptfooconfig.yaml")
    (es,) = api.read(cfg).sets
    assert len(es.cases) == 8  # (2 values x 2 prompts, 1 x 2, the scenario x 2)
    code, out, err = run_cli("convert", cfg, "--to", "promptfoo")
    assert (code, err) == (0, "")
    assert yaml.safe_load(out) == yaml.safe_load(CONFIG)
    # promptfoo -> agentv -> promptfoo: every run is a test; the losses are the real ones (no 'prompts', no
    # 'providers' evalfmt's writer puts in every config, no 'vars' the inputs hold rendered)
    code, _, err = run_cli("convert", cfg, "--to", "agentv", "-o", str(tmp_path / "x.EVAL.yaml"))
    assert code == 0
    assert err.splitlines() == [
        f"evalfmt: lost: {cfg}:17: 'vars' of test 'test-2 @ prompt-1' (agentv has no such key)",
        f"evalfmt: lost: {cfg}:17: agentv skips test 'test-2 @ prompt-1': it has no criteria, expected_output or "
        "assertions",
        f"evalfmt: lost: {cfg}:17: 'vars' of test 'test-2 @ formal' (agentv has no such key)",
        f"evalfmt: lost: {cfg}:17: agentv skips test 'test-2 @ formal': it has no criteria, expected_output or "
        "assertions",
        f"evalfmt: lost: {cfg}:19: agentv skips test 'scenario-1-1 @ prompt-1': it has no criteria, expected_output "
        "or assertions",
        f"evalfmt: lost: {cfg}:19: agentv skips test 'scenario-1-1 @ formal': it has no criteria, expected_output or "
        "assertions",
        "evalfmt: wrote 1 file"]
    code, out, err = run_cli("convert", str(tmp_path / "x.EVAL.yaml"), "--to", "promptfoo")
    assert code == 0, err
    back = yaml.safe_load(out)
    assert [(t["description"], t["vars"]["prompt"]) for t in back["tests"]] == [
        ("two texts [text=alpha] @ prompt-1", "Summarize: alpha"), ("two texts [text=alpha] @ formal", "Formally: alpha"),
        ("two texts [text=beta] @ prompt-1", "Summarize: beta"), ("two texts [text=beta] @ formal", "Formally: beta"),
        ("test-2 @ prompt-1", "Summarize: default text"), ("test-2 @ formal", "Formally: default text"),
        ("scenario-1-1 @ prompt-1", "Summarize: scenario"), ("scenario-1-1 @ formal", "Formally: scenario")]
    assert back["defaultTest"] == {"assert": [{"type": "icontains", "value": "summary"}]}


@pytest.mark.parametrize("tests", ["file://r.csv", "{path: r.csv}", "[file://r.csv, {vars: {a: z}}]"])
def test_tables_are_read_and_their_reference_written_back(tmp_path, run_cli, tests):
    import yaml

    config = f"prompts: ['<{{{{a}}}}>']\nproviders: [echo]\ntests: {tests}\n"
    es, diags = _read(tmp_path, {"promptfooconfig.yaml": config, "r.csv": "a\nx\ny\n"})
    assert diags == []
    assert [(c.name, c.input) for c in es.cases][:2] == [("Row #1", "<x>"), ("Row #2", "<y>")]
    code, out, err = run_cli("convert", str(tmp_path / "promptfooconfig.yaml"), "--to", "promptfoo")
    assert (code, err) == (0, "")
    assert yaml.safe_load(out) == yaml.safe_load(config)


def test_prompt_globs_from_a_relative_config_path(tmp_path, monkeypatch):
    _write(tmp_path, {"sub/promptfooconfig.yaml": "prompts: [file://p/*.txt]\nproviders: [echo]\ntests:\n"
                                                  "  - vars: {x: 1}\n",
                      "sub/p/a.txt": "A {{x}}\n---\nB {{x}}\n", "sub/p/b.txt": "C {{x}}"})
    monkeypatch.chdir(tmp_path)
    result = api.read("sub/promptfooconfig.yaml")
    assert result.diagnostics == []
    assert [(c.name, c.input) for c in result.sets[0].cases] == [
        ("test-1 @ prompt-1", "A 1"), ("test-1 @ prompt-2", "B 1"), ("test-1 @ prompt-3", "C 1")]


# --------------------------------------------------------------------------- every way a config names tests


def test_an_empty_list_var_is_one_value(tmp_path):
    """promptfoo's generateVarCombinations expands a list only when its first item is a string: [] is one value."""
    es, diags = _read(tmp_path, {"promptfooconfig.yaml": "prompts: ['[{{ xs }}]{{ y }}']\ntests:\n"
                                                         "  - vars: {xs: [], y: a}\n"})
    assert (diags, [c.input for c in es.cases]) == ([], ["[]a"])


def test_scenarios_from_files_and_scenario_tests_from_a_file(tmp_path):
    es, diags = _read(tmp_path, {
        "promptfooconfig.yaml": ("prompts: ['{{q}} in {{l}}']\nscenarios:\n  - file://scen/*.yaml\n"
                                 "  - config: [{vars: {l: de}}]\n    tests: file://t.yaml\n"),
        "scen/a.yaml": "config: [{vars: {l: fr}}]\ntests: [{vars: {q: hi}}]\n",
        "scen/b.yaml": "- config: [{vars: {l: es}}, {vars: {l: it}}]\n",
        "t.yaml": "- vars: {q: a}\n- description: bee\n  vars: {q: b}\n"})
    assert diags == []
    assert [(c.name, c.input) for c in es.cases] == [
        ("scenario-1-1", "hi in fr"), ("scenario-2-2", " in es"), ("scenario-2-3", " in it"),
        ("scenario-3-4", "a in de"), ("bee", "b in de")]


def test_tests_globs_expand_braces_and_skip_dot_files(tmp_path):
    es, diags = _read(tmp_path, {
        "promptfooconfig.yaml": "prompts: ['{{q}}']\ntests:\n  - file://t/{a,b}.yaml\n  - file://t/**/*.yaml\n",
        "t/a.yaml": "- vars: {q: a}\n", "t/b.yaml": "- vars: {q: b}\n", "t/c/d.yaml": "- vars: {q: d}\n",
        "t/.hidden.yaml": "- vars: {q: hidden}\n", "t/.h/e.yaml": "- vars: {q: e}\n"})
    assert (diags, [c.input for c in es.cases]) == ([], ["a", "b", "a", "b", "d"])


def test_a_prompt_named_with_braces_is_one_file_as_promptfoo_reads_it(tmp_path):
    """(glob's hasMagic leaves braces alone: promptfoo looks for the file 'p/{a,b}.txt' and stops)"""
    es, diags = _read(tmp_path, {"promptfooconfig.yaml": "prompts: ['file://p/{a,b}.txt']\ntests: [{vars: {q: 1}}]\n",
                                 "p/a.txt": "A\n", "p/b.txt": "B\n"})
    assert diags == ["promptfooconfig.yaml:1:10: EV107 prompt file 'p/{a,b}.txt' does not exist (promptfoo stops "
                     "here)"]


def test_a_tests_prompt_filter_and_the_providers_prompts(tmp_path):
    es, diags = _read(tmp_path, {"promptfooconfig.yaml": (
        "prompts:\n  - {raw: 'A {{q}}', label: 'grp:a'}\n  - {raw: 'B {{q}}', label: 'grp:b'}\n"
        "  - {raw: 'C {{q}}', label: other}\n"
        "providers: [{id: echo, prompts: ['grp:*', other]}, {id: x, prompts: [other]}]\n"
        "tests:\n  - vars: {q: 1}\n    prompts: ['grp:*']\n  - vars: {q: 2}\n    prompts: [grp]\n"
        "  - vars: {q: 3}\n    prompts: [other]\n  - vars: {q: 4}\n    prompts: []\n")})
    assert diags == []
    assert [c.input for c in es.cases] == ["A 1", "B 1", "A 2", "B 2", "C 3"]


def test_repeat_and_package_vars_are_named(tmp_path):
    es, diags = _read(tmp_path, {"promptfooconfig.yaml": (
        "prompts: ['{{q}}']\nevaluateOptions: {repeat: 3}\ntests:\n  - vars: {q: 'package:lib:fn'}\n")})
    assert [c.input for c in es.cases] == [None]
    assert diags == [
        "promptfooconfig.yaml:2:27: EV103 evaluateOptions.repeat: promptfoo runs each test 3 times; evalfmt reads "
        "each once",
        "promptfooconfig.yaml:4:5: EV103 not rendered: the var 'q', which a package's function computes "
        "('package:lib:fn'): the task of a test using it is not known here (see docs/promptfoo.md)"]


@pytest.mark.parametrize("tests", ["tests: []", "tests: [file://missing/a.yaml, file://missing/b.yaml]", ""])
def test_no_test_read_is_one_run_with_no_vars(tmp_path, tests):
    """(promptfoo's getInitialTests: no tests at all, or none it could read, is one test with no vars)"""
    es, _ = _read(tmp_path, {"promptfooconfig.yaml": f"prompts: ['[{{{{ q }}}}]']\n{tests}\n"})
    assert [(c.name, c.input) for c in es.cases] == [("test-1", "[]")]


def test_a_prompt_naming_a_folder_is_not_rendered(tmp_path):
    es, diags = _read(tmp_path, {"promptfooconfig.yaml": "prompts: [file://p]\ntests: [{vars: {q: 1}}]\n",
                                 "p/a.txt": "A\n"})
    assert [c.input for c in es.cases] == [None]
    assert diags == ["promptfooconfig.yaml:1:11: EV103 not rendered: a prompt that names a folder ('p': promptfoo "
                     "sends its name or path as the prompt): the task of a test using it is not known here (see "
                     "docs/promptfoo.md)"]


def test_a_skill_used_list_is_one_assertion_weight(tmp_path, run_cli):
    """promptfoo checks ``skill-used: [a, b]`` as one assertion: its two checks share its weight (each half),
    and it is written back as the one assertion it was."""
    import yaml

    config = ("prompts: ['{{q}}']\ntests:\n  - vars: {q: go}\n    assert:\n"
              "      - {type: skill-used, value: [alpha, beta]}\n"
              "      - {type: not-skill-used, value: [x, y, z], weight: 3}\n      - {type: contains, value: go}\n")
    es, diags = _read(tmp_path, {"promptfooconfig.yaml": config})
    (case,) = es.cases
    assert [(c.kind, c.skill if c.kind == "skill-trigger" else c.value, c.weight) for c in case.checks] == [
        ("skill-trigger", "alpha", 0.5), ("skill-trigger", "beta", 0.5),
        ("skill-trigger", "x", 1.0), ("skill-trigger", "y", 1.0), ("skill-trigger", "z", 1.0),
        ("contains", "go", None)]
    code, out, err = run_cli("convert", str(tmp_path / "promptfooconfig.yaml"), "--to", "promptfoo")
    assert (code, err) == (0, "")
    assert yaml.safe_load(out) == yaml.safe_load(config)


def test_an_unquoted_yaml_date_is_what_promptfoo_makes_of_it(tmp_path):
    """(js-yaml reads it as a Date; promptfoo's merging of the vars copies it as an empty object)"""
    es, diags = _read(tmp_path, {
        "promptfooconfig.yaml": ("prompts: ['<{{ q }}> {{ q | dump }} {{ f }}']\ntests:\n"
                                 "  - vars: {q: '2001-12-14', f: none}\n  - vars: {q: 2024-05-01 10:00:00, f: none}\n"
                                 "  - vars: {q: [2024-05-01, x], f: none}\n  - vars: {q: quoted, f: file://d.yaml}\n"),
        "d.yaml": "a: 2001-12-14\nb: 2001-12-14t21:59:43.10-05:00\nd: '2001-12-14'\n"})
    assert diags == []
    assert [c.input for c in es.cases] == [
        '<2001-12-14> "2001-12-14" none', "<[object Object]> {} none", '<[object Object],x> [{},"x"] none',
        '<quoted> "quoted" {"a":"2001-12-14T00:00:00.000Z","b":"2001-12-15T02:59:43.100Z","d":"2001-12-14"}']
