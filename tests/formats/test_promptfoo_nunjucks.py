"""Templates rendered as promptfoo's nunjucks renders them (issue 26 item 2), against nunjucks itself: the
nunjucks 3.2.4 that promptfoo 0.123.1 ships, configured as promptfoo configures it (``nunjucks_render.cjs``),
on a corpus of templates written for nunjucks' differences from Jinja2 and on templates generated from a
grammar of expressions, filters, tests and tags (seeded: the same 1000 each run).

For every template: when nunjucks stops with an error, evalfmt does not render it (Unrenderable); when
nunjucks renders it, evalfmt renders the same text, or (for the corpus, only the templates listed in
``NOT_RENDERED``, each with why) says it does not render it. Skipped, saying why, where node or npm is absent."""

from __future__ import annotations

import json
import random
import subprocess

import pytest

from evalfmt.formats.promptfoo.template import Unrenderable, render
from promptfoo_real import NODE, PREFIX, unavailable

pytestmark = [pytest.mark.node]
_why = unavailable()
if _why:
    pytestmark.append(pytest.mark.skip(reason=_why))

SCRIPT = __file__.replace("test_promptfoo_nunjucks.py", "nunjucks_render.cjs")

VARS = {"s": "Hello World", "n": 3, "f": 2.5, "z": 0, "e": "", "b": True, "nl": None, "xs": ["b", "A", "c"],
        "ns": [3, 1, 2], "o": {"k": "v", "n": 2, "1": "one"}, "items": [{"name": "a", "n": 1}, {"name": "b", "n": 2}],
        "ss": "10", "sp": "  pad  ", "html": "<b>x</b> & 'y'\\z", "neg": -7, "big": 12345678901234567890,
        "nested": [[1, 2], ["a", None]], "t": "ab cd ef gh", "multi": "a\n\nb", "uni": "éa"}

#: (template, vars) pairs written for nunjucks' differences from Jinja2; None as vars: VARS
CORPUS: list[tuple[str, dict | None]] = [
    # values as JavaScript prints them
    ("{{ n }} {{ f }} {{ 1.0 }} {{ b }} {{ nl }}|{{ missing }}|{{ xs }} {{ o }} {{ nested }} {{ big }}", None),
    ("{{ 0.1 + 0.2 }} {{ 10 / 4 }} {{ 6 / 3 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ 2 ** 10 }} {{ 2 ** -1 }}", None),
    ("{{ 1 / 0 }} {{ -1 / 0 }} {{ 0 / 0 }} {{ 5 % 0 }} {{ neg % 3 }} {{ 7.5 % 2 }}", None),
    ("{{ 'ab' * 2 }} {{ ss * 2 }} {{ ss - 1 }} {{ ss + 1 }} {{ n + '1' }} {{ xs + 1 }} {{ o + 1 }} {{ nl + 1 }}",
     None),
    ("{{ 'a' ~ missing }}|{{ 'a' ~ nl }}|{{ 'a' ~ 1.0 }}|{{ xs ~ o }}|{{ 'a' ~ (1 if z) }}|{{ 'a' + missing }}",
     None),
    ("{{ -n }} {{ -ss }} {{ +ss }} {{ -xs }} {{ +b }} {{ -missing }}", None),
    # member lookup
    ("{{ s.length }} {{ xs.length }} {{ o.length }} {{ n.length }} {{ xs[0] }}{{ xs[-1] }}|{{ s[1] }}|{{ o['1'] }}"
     "{{ o[1] }}|{{ o.k }}{{ o.missing }}|{{ missing.deep.er }}|{{ nl.x }}", None),
    ("{{ items[1].name }} {{ items[5].name }} {{ nested[1][0] }} {{ xs['length'] }} {{ uni.length }}", None),
    # equality and comparison
    ("{{ 1 == '1' }} {{ 1 != '1' }} {{ 0 == '' }} {{ nl == missing }} {{ nl == 0 }} {{ b == 1 }} {{ b == '1' }} "
     "{{ xs == 'b,A,c' }} {{ xs == xs }} {{ [] == [] }} {{ o == '[object Object]' }}", None),
    ("{% if ss == 10 %}eq{% endif %}{% if ss > 9 %}gt{% endif %}{% if ss < 9 %}lt{% endif %}"
     "{% if 'b' < 'a' %}x{% endif %}{% if '10' < '9' %}str{% endif %}{% if missing < 1 %}u{% endif %}", None),
    ("{{ 1 < 2 < 3 }} {{ 3 > 2 > 1 }} {{ 1 <= 1 }} {{ nl >= 0 }} {{ missing >= 0 }} {{ 'b' in xs }} "
     "{{ 'ell' in s }} {{ 'k' in o }} {{ 1 in ns }} {{ 'toString' in o }} {{ 'q' not in s }}", None),
    # truthiness and literals
    ("{% if xs %}a{% endif %}{% if [] %}b{% endif %}{% if {} %}c{% endif %}{% if e %}d{% endif %}{% if '0' %}e"
     "{% endif %}{% if 0 / 0 %}f{% endif %}{% if not missing %}g{% endif %}", None),
    ("{{ true }} {{ false }} {{ none }}|{{ null }}|{{ n or 'x' }} {{ z or 'x' }} {{ e and 'y' }} {{ xs and 'y' }}",
     None),
    ("{{ 'y' if n else 'n' }}{{ 'z' if z }}|{{ [1, 2] }} {{ {'a': 1} }} {{ [] | length }}", None),
    # loops
    ("{% for x in xs %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.first }}"
     "{{ loop.last }}{{ loop.length }}{{ x }};{% endfor %}", None),
    ("{% for c in s %}[{{ c }}]{% endfor %}|{% for x in n %}{{ x }}{% else %}none{% endfor %}|"
     "{% for x in o %}{{ x }}{% else %}obj{% endfor %}|{% for x in missing %}{% else %}u{% endfor %}", None),
    ("{% for k, v in o %}{{ k }}={{ v }}({{ loop.index }}/{{ loop.length }});{% endfor %}|"
     "{% for a, b in nested %}{{ a }}-{{ b }};{% endfor %}|{% for a, b in xs %}{{ a }}{{ b }},{% endfor %}", None),
    ("{% for x in [] %}{{ x }}{% else %}empty{% endfor %}{% for i in range(3) %}{{ i }}{% endfor %}"
     "{% for i in range(1, 7, 2) %}{{ i }}{% endfor %}{% for i in range(5, 0, -2) %}{{ i }}{% endfor %}"
     "{{ range(3) }}|{{ range(0, 1, 0.25) }}", None),
    ("{% for x in items %}{{ x.name }}{% if not loop.last %}, {% endif %}{% endfor %}", None),
    # whitespace control and trailing line breaks
    ("A  {{- n -}}  B\n{% if b %}  Y  {% endif %}\n{%- if b %} T {% endif -%}\n  end\n", None),
    ("{% for x in xs -%}\n  {{ x }}\n{%- endfor %}\n", None),
    ("{# a comment #}{#- trimmed -#}  x  {{- '' }}\n\n", None),
    # filters: text
    ("{{ s | upper }} {{ s | lower }} {{ s | title }} {{ 'hELLO wORLD' | capitalize }} {{ sp | trim }}|"
     "{{ 'hello-world foo' | title }}", None),
    ("{{ t | truncate(5) }}|{{ t | truncate(4) }}|{{ t | truncate(5, true) }}|{{ t | truncate(5, false, '!') }}|"
     "{{ t | truncate(100) }}|{{ t | truncate }}", None),
    ("{{ multi | indent(2) }}|{{ multi | indent(2, true) }}|{{ s | indent }}|{{ e | indent }}", None),
    ("[{{ 'abc' | center(9) }}][{{ 'abc' | center(8) }}][{{ 'abcd' | center(3) }}]", None),
    ("{{ s | replace('o', '0') }}|{{ s | replace('o', '0', 1) }}|{{ 'abc' | replace('', '-') }}|"
     "{{ n | replace(3, 4) }}|{{ xs | replace('b', 'x') }}|{{ s | replace('l') }}", None),
    ("{{ html | escape }}|{{ html | e }}|{{ html | safe }}|{{ html | striptags }}|"
     "{{ '<p>a  b</p>\n\n\n<i>c</i>' | striptags(true) }}|{{ 'a\nb' | nl2br }}", None),
    ("{{ s | wordcount }} {{ 'a b  c' | wordcount }} {{ e | wordcount }} {{ uni | wordcount }}", None),
    ("{{ 'a b&c/é' | urlencode }} {{ o | urlencode }}", None),
    # filters: values
    ("{{ s | length }} {{ xs | length }} {{ o | length }} {{ nl | length }} {{ missing | length }} {{ n | length }}",
     None),
    ("{{ xs | first }}{{ xs | last }}{{ s | first }}{{ s | last }}|{{ xs | reverse }}|{{ s | reverse }}|"
     "{{ ns | sort }}|{{ xs | sort }}|{{ xs | sort(true) }}|{{ xs | sort(false, true) }}", None),
    ("{{ items | sort(attribute='n', reverse=true) | join(',', 'name') }}|{{ items | join(', ', 'name') }}|"
     "{{ xs | join }}|{{ xs | join('-') }}|{{ nested | join(';') }}|{{ ns | sum }}|{{ items | sum('n') }}|"
     "{{ xs | sum }}", None),
    ("{{ o | dump }}|{{ xs | dump }}|{{ items | dump(2) }}|{{ nl | dump }}|{{ missing | dump }}|{{ f | dump }}|"
     "{{ {'b': 1, '2': 3, 'a': 1.0} | dump }}", None),
    ("{{ missing | default('d') }}|{{ nl | default('d') }}|{{ e | default('d') }}|{{ e | default('d', true) }}|"
     "{{ z | d('zero', true) }}|{{ xs | default('d', true) }}", None),
    ("{{ '12abc' | int }}|{{ 'abc' | int }}|{{ 'abc' | int(7) }}|{{ '3.9' | int }}|{{ ' 42 ' | int }}|"
     "{{ 'ff' | int(base=16) }}|{{ '1.5abc' | float }}|{{ 'x' | float }}|{{ '1e3' | float }}|{{ f | int }}", None),
    ("{{ neg | abs }}|{{ 2.5 | round }}|{{ -2.5 | round }}|{{ 3.14159 | round(2) }}|{{ 2.1 | round(0, 'ceil') }}|"
     "{{ 2.9 | round(0, 'floor') }}", None),
    ("{{ ns | batch(2) | dump }}|{{ ns | batch(2, 0) | dump }}|{{ s | list | join('.') }}|{{ o | list | dump }}|"
     "{{ ns | slice(2) | dump }}", None),
    ("{{ items | groupby('n') | dump }}|{{ o | dictsort | dump }}|{{ o | dictsort(false, 'value') | dump }}", None),
    ("{{ ns | select('odd') | join }}|{{ ns | reject('odd') | join }}|{{ items | selectattr('n') | length }}|"
     "{{ [0, 1, ''] | select | length }}|{{ ns | select('gt', 1) | join }}", None),
    ("{{ '{\"k\": [1, 2]}' | load | dump }}|{{ n | string }}{{ xs | string }}|{{ n | string | length }}", None),
    # tests
    ("{{ n is odd }}{{ n is even }}{{ neg is odd }}{{ n is divisibleby(3) }}{{ s is string }}{{ n is number }}"
     "{{ b is number }}{{ missing is defined }}{{ missing is undefined }}{{ nl is null }}{{ o is mapping }}"
     "{{ xs is mapping }}{{ xs is iterable }}{{ s is lower }}{{ 'ab' is lower }}{{ n is eq(3) }}"
     "{{ ss is eq(10) }}{{ n is gt(2) }}{{ n is truthy }}{{ z is falsy }}{{ n is ne(3) }}", None),
    # tags
    ("{% set y = n * 2 %}{{ y }}{% set t %}inner {{ s }}{% endset %}[{{ t }}]", None),
    ("{% macro m(a, b='B') %}<{{ a }}{{ b }}>{% endmacro %}{{ m(1) }}{{ m(2, 'c') }}{{ m(b='k', a=0) }}", None),
    ("{% filter upper %}inside {{ s }}{% endfilter %}|{% raw %}{{ kept }}{% endraw %}", None),
    ("{% if n > 5 %}big{% elif n > 2 %}mid{% else %}small{% endif %}", None),
    ("{% set c = cycler('a', 'b') %}{{ c.next() }}{{ c.next() }}{{ c.next() }}{% set j = joiner('|') %}"
     "{% for x in xs %}{{ j() }}{{ x }}{% endfor %}", None),
    ("{% macro row(x) %}[{{ caller() }}{{ x }}]{% endmacro %}{% call row(1) %}c{% endcall %}", None),
    # what nunjucks refuses: evalfmt must not render these
    ("{{ n | upper }}", None), ("{{ xs | trim }}", None), ("{{ s | join(',') }}", None), ("{{ nothing() }}", None),
    ("{{ s[1:3] }}", None), ("{% with y = 1 %}{{ y }}{% endwith %}", None), ("{{ lipsum(1) }}", None),
    ("{{ dict(a=1) }}", None), ("{{ x | tojson }}", None), ("{% if x is none %}N{% endif %}", None),
    ("{{ n is boolean }}", None), ("{{ 'x' | list | missingfilter }}", None), ("{{ 5 in 5 }}", None),
    ("{{ o | dictsort(false, 'other') }}", None), ("{{ n | list }}", None), ("{{ 'not json' | load }}", None),
    ("{% set a, b = 1, 2 %}", None), ("{% for x in xs if x %}{{ x }}{% endfor %}", {"x": 0, "xs": [1]}),
    ("{% include 'x.txt' %}", None), ("{{ missing.method() }}", None), ("{{ --n }}", None),
    # nunjucks renders these; evalfmt does not (NOT_RENDERED)
    ("{{ (1, 2) }}", None), ("{{ 2 ** 0.5 }}", None), ("{{ s.toUpperCase() }}", None), ("{{ ss + 1 > 100 }}", None),
    ("{{ env.HOME }}", None),
]

#: corpus templates nunjucks renders and evalfmt does not (each says why)
NOT_RENDERED = {
    "{{ (1, 2) }}": "a tuple such as (1, 2) (nunjucks reads it otherwise)",  # (nunjucks: 2, JavaScript's comma)
    "{{ 2 ** 0.5 }}": "a power with a fractional exponent (JavaScript's Math.pow rounds some otherwise)",
    "{{ s.toUpperCase() }}": "a JavaScript method ('.toUpperCase()')",
    "{{ env.HOME }}": "the environment variable 'env.HOME' (promptfoo reads the process environment)",
}


def _nunjucks(cases: list[tuple[str, dict]]) -> list[dict]:
    data = json.dumps([{"template": t, "vars": v, "env": {}} for t, v in cases])
    proc = subprocess.run([str(NODE), SCRIPT, str(PREFIX)], input=data, capture_output=True, text=True,
                          timeout=300, check=True)
    answer = json.loads(proc.stdout)
    assert answer["version"] == "3.2.4"
    return answer["results"]


def _ours(template: str, vars_: dict) -> dict:
    try:
        return {"ok": True, "text": render(template, vars_)}
    except Unrenderable as exc:
        return {"ok": False, "why": str(exc)}


def _differences(cases: list[tuple[str, dict]]) -> tuple[list, list]:
    """(templates where evalfmt renders otherwise than nunjucks, or renders what nunjucks refuses; templates
    nunjucks renders and evalfmt does not)"""
    wrong, unrendered = [], []
    for (template, vars_), theirs in zip(cases, _nunjucks(cases)):
        ours = _ours(template, vars_)
        if ours["ok"] and (not theirs["ok"] or ours["text"] != theirs["text"]):
            wrong.append((template, ours.get("text"), theirs.get("text", theirs.get("message"))))
        elif not ours["ok"] and theirs["ok"]:
            unrendered.append((template, ours["why"], theirs["text"]))
    return wrong, unrendered


def test_the_corpus_renders_as_nunjucks_renders():
    cases = [(t, VARS if v is None else v) for t, v in CORPUS]
    wrong, unrendered = _differences(cases)
    assert wrong == []
    assert [(t, why) for t, why, _ in unrendered] == list(NOT_RENDERED.items())


# -------------------------------------------------------------------------------------- generated


_ATOMS = ["s", "n", "f", "z", "e", "b", "nl", "xs", "ns", "o", "items", "ss", "missing", "neg", "nested", "t",
          "'x'", "'a b'", "'10'", "1", "2.5", "0", "true", "false", "none", "[1, 'a']", "[]", "{'a': 1}"]
_POSTFIX = [".length", "[0]", "[1]", ".name", ".k", "['k']", ".missing", "[-1]", ".n"]
_FILTERS = ["upper", "lower", "title", "capitalize", "trim", "length", "first", "last", "reverse", "sort",
            "join(', ')", "join", "default('D')", "default('D', true)", "dump", "int", "float", "abs", "round(1)",
            "truncate(3)", "indent(2)", "replace('a', 'X')", "wordcount", "list", "string", "escape", "safe",
            "center(7)", "batch(2)", "sum", "nl2br", "striptags", "d", "first", "length"]
_BINOPS = ["+", "-", "*", "/", "//", "%", "~", "==", "!=", "<", ">", "<=", ">=", "and", "or", "in", "not in",
           "**"]
_TESTS = ["defined", "undefined", "odd", "even", "string", "number", "null", "none", "mapping", "iterable",
          "truthy", "falsy", "lower", "upper", "divisibleby(2)", "eq(3)", "ne('x')", "gt(1)", "escaped", "callable"]


def _expr(rng: random.Random, depth: int) -> str:
    roll = rng.random()
    if depth <= 0 or roll < 0.35:
        atom = rng.choice(_ATOMS)
        return atom + (rng.choice(_POSTFIX) if rng.random() < 0.3 and atom[0].isalpha() else "")
    if roll < 0.55:
        return f"{_expr(rng, depth - 1)} | {rng.choice(_FILTERS)}"
    if roll < 0.85:
        return f"({_expr(rng, depth - 1)} {rng.choice(_BINOPS)} {_expr(rng, depth - 1)})"
    if roll < 0.9:
        return f"({_expr(rng, depth - 1)} if {_expr(rng, depth - 1)} else {_expr(rng, depth - 1)})"
    if roll < 0.95:
        return f"({_expr(rng, depth - 1)} is {rng.choice(['', 'not '])}{rng.choice(_TESTS)})"
    return f"{rng.choice(['not ', '-', '+'])}{_expr(rng, depth - 1)}"


def _template(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.45:
        return "[{{ " + _expr(rng, 3) + " }}]"
    if roll < 0.6:
        return "{% if " + _expr(rng, 2) + " %}T{% elif " + _expr(rng, 1) + " %}M{% else %}F{% endif %}"
    if roll < 0.75:
        return "{% for x in " + _expr(rng, 2) + " %}<{{ x }}|{{ loop.index }}>{% else %}E{% endfor %}"
    if roll < 0.82:
        return "{% for k, v in " + _expr(rng, 1) + " %}{{ k }}={{ v }};{% else %}E{% endfor %}"
    if roll < 0.9:
        return "{% macro m(a, b=" + _expr(rng, 1) + ") %}<{{ a }}{{ b }}>{% endmacro %}{{ m(" + _expr(rng, 2) + ") }}"
    return "{% set y = " + _expr(rng, 2) + " %}{{ y }}|{{ y | length }}{%- if y %} t {% endif -%}."


def test_generated_templates_render_as_nunjucks_renders():
    rng = random.Random(26)
    cases = [(_template(rng), VARS) for _ in range(1000)]
    wrong, unrendered = _differences(cases)
    assert wrong == []
    # (the generator is not vacuous: most of what it makes is rendered, and matches)
    assert len(unrendered) < len(cases) // 10, unrendered[:20]
