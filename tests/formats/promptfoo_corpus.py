"""A corpus of promptfoo configs of our own, written to cover promptfoo's documented config features (vars,
defaultTest inline and file://, scenarios, prompts x tests, prompt objects, prompt files and globs, chat
prompts, nunjucks, CSV/JSON/JSONL/YAML tests files, array vars, transforms, thresholds, metrics, weights), and
nunjucks' JavaScript meanings (lengths, loose equality, `not a == b`, `~` with undefined), brace and `**`
globs, scenario files, the prompt filters of tests and providers, `evaluateOptions.repeat`.
Each entry is one folder: {relative path: text}; ``promptfooconfig.yaml`` is the config.

``tests/formats/test_promptfoo_differential.py`` runs the real promptfoo on each and compares its
expansion with what evalfmt reads."""

from __future__ import annotations

CORPUS: dict[str, dict[str, str]] = {
    "vars-basic": {"promptfooconfig.yaml": """\
description: vars
prompts:
  - 'You are helping {{team}}. Task: {{task}}'
providers: [echo]
tests:
  - vars:
      team: the platform team
      task: rotate the keys
    assert:
      - type: contains
        value: keys
  - description: numbers and booleans
    vars: {team: 7, task: true}
"""},
    "flow-yaml": {"promptfooconfig.yaml": """\
prompts: ['Q: {{question}}']
providers: [anthropic:claude-agent-sdk]
tests:
  - vars: {question: Why is the sky blue?}
    assert: [{type: icontains, value: "blue"}, {type: not-contains, value: a:b}]
"""},
    "default-inline": {"promptfooconfig.yaml": """\
prompts:
  - 'You are helping {{team}}. Task: {{task}}'
providers: [echo]
defaultTest:
  vars:
    team: the platform team
  assert:
    - type: not-icontains
      value: sorry
    - type: latency
      threshold: 5000
tests:
  - vars: {task: write the changelog}
  - vars: {task: review the diff, team: security}
    assert:
      - type: starts-with
        value: You
        weight: 2
        metric: opening
"""},
    "default-file": {
        "promptfooconfig.yaml": """\
prompts: ['{{greeting}}, {{name}}!']
providers: [echo]
defaultTest: file://default.yaml
tests:
  - vars: {name: Ada}
  - vars: {name: Bob, greeting: Hi}
""",
        "default.yaml": """\
vars:
  greeting: Hello
assert:
  - type: contains
    value: '!'
  - type: llm-rubric
    value: is polite
""",
    },
    "scenarios": {"promptfooconfig.yaml": """\
prompts: ['Translate "{{input}}" into {{language}}.']
providers: [echo]
scenarios:
  - config:
      - vars: {language: French}
        assert: [{type: contains, value: French}]
      - vars: {language: German}
    tests:
      - description: greeting
        vars: {input: Hello world}
      - vars: {input: Good night}
        assert: [{type: contains, value: night}]
"""},
    "prompts-x-tests": {"promptfooconfig.yaml": """\
prompts:
  - 'Summarize: {{text}}'
  - 'Summarize in one line: {{text}}'
providers: [echo]
tests:
  - vars: {text: alpha}
  - vars: {text: beta}
    assert: [{type: contains, value: beta}]
  - description: third
    vars: {text: gamma}
"""},
    "prompt-objects": {
        "promptfooconfig.yaml": """\
prompts:
  - raw: 'Plain: {{q}}'
    label: plain
  - id: file://formal.txt
    label: formal
  - raw: 'Short: {{q}}'
    id: short
providers: [echo]
tests:
  - vars: {q: what is YAML}
""",
        "formal.txt": "Dear assistant,\nplease answer: {{q}}\n",
    },
    "prompt-files": {
        "promptfooconfig.yaml": """\
prompts:
  - file://prompts/*.txt
  - file://review.md
  - file://tmpl.j2
providers: [echo]
tests:
  - vars: {topic: caching}
""",
        "prompts/a.txt": "First about {{topic}}\n---\nSecond about {{topic}}\n",
        "prompts/b.txt": "\n  Third about {{ topic }}  \n\n",
        "review.md": "# Review\n\nReview {{topic}}.\n",
        "tmpl.j2": "{% if topic %}Topic: {{ topic | upper }}{% endif %}\n",
    },
    "chat-json": {
        "promptfooconfig.yaml": """\
prompts: [file://chat.json]
providers: [echo]
tests:
  - vars: {user: Ann, question: Where is the README?}
""",
        "chat.json": '[{"role": "system", "content": "You help {{user}}."},\n'
                     ' {"role": "user", "content": "{{question}}"}]\n',
    },
    "chat-yaml-inline": {"promptfooconfig.yaml": """\
prompts:
  - '[{"role": "user", "content": "Say {{word}}"}]'
providers: [echo]
tests:
  - vars: {word: hi}
"""},
    "nunjucks": {"promptfooconfig.yaml": """\
prompts:
  - |
    Team: {{ team | title }} ({{ team | length }} chars)
    {% for item in items -%}
    - {{ loop.index }}. {{ item.name }}: {{ item.done | default("no") }}
    {% endfor -%}
    {%- if urgent %}URGENT{% else %}normal{% endif %}
    First: {{ items[0].name }}; {{ meta.owner.name }}; {{ missing }}|{{ missing.deep }}|
    {{- "  tight  " -}}|
    Joined: {{ tags | join(", ") }} / {{ tags | first }} / {{ tags | last }}
    JSON: {{ meta | dump }}
    {# a comment #}Ref: {{ ref }}
providers: [echo]
tests:
  - vars:
      team: platform ops
      items:
        - {name: keys, done: yes}
        - {name: docs}
      urgent: false
      meta: {owner: {name: Kim}}
      tags: [1, 2, 3]
      ref: 'see {{ team }}'
"""},
    "whitespace": {"promptfooconfig.yaml": """\
prompts:
  - "A  {{- x -}}  B\\n{% if y %}  Y  {% endif %}\\n{{ z }}\\n"
providers: [echo]
tests:
  - vars: {x: 1, y: true, z: "z\\n"}
"""},
    "csv-tests": {
        "promptfooconfig.yaml": """\
prompts: ['Capital of {{country}}?']
providers: [echo]
tests: file://tests.csv
""",
        "tests.csv": 'country,__expected,__description\nFrance,contains: Paris,"first, quoted"\n'
                     'Japan,icontains-any: Tokyo,"Kyoto"\nPeru,,\n',
    },
    "json-tests": {
        "promptfooconfig.yaml": """\
prompts: ['Echo {{word}}']
providers: [echo]
tests: file://tests.json
""",
        "tests.json": '[{"vars": {"word": "one"}, "assert": [{"type": "equals", "value": "Echo one"}]},\n'
                      ' {"description": "two", "vars": {"word": "two"}}]\n',
    },
    "jsonl-tests": {
        "promptfooconfig.yaml": """\
prompts: ['Echo {{word}}']
providers: [echo]
tests:
  - file://more.jsonl
  - vars: {word: inline}
""",
        "more.jsonl": '{"vars": {"word": "a"}}\n\n{"vars": {"word": "b"}, "assert": [{"type": "contains", "value": "b"}]}\n',
    },
    "jsonl-string": {
        "promptfooconfig.yaml": """\
prompts: ['Echo {{word}}']
providers: [echo]
tests: file://rows.jsonl
""",
        "rows.jsonl": '{"vars": {"word": "x"}}\n{"description": "why", "vars": {"word": "y"}}\n',
    },
    "yaml-tests-glob": {
        "promptfooconfig.yaml": """\
prompts: ['Do {{task}}']
providers: [echo]
tests:
  - file://tests/*.yaml
  - description: inline one
    vars: {task: inline}
""",
        "tests/a.yaml": "- vars: {task: a1}\n- vars: {task: a2}\n  assert:\n    - type: regex\n      value: 'a\\d'\n",
        "tests/b.yaml": "vars:\n  task: b1\nassert:\n  - type: contains-all\n    value: [Do, b1]\n",
    },
    "tests-file-string": {
        "promptfooconfig.yaml": """\
prompts: ['{{prompt}}']
providers: [echo]
tests: file://cases.yaml
""",
        "cases.yaml": "- vars: {prompt: first}\n- description: second\n  vars: {prompt: second}\n",
    },
    "array-vars": {"promptfooconfig.yaml": """\
prompts: ['{{greeting}} {{name}}']
providers: [echo]
tests:
  - vars:
      greeting: [Hello, Hi]
      name: [Ann, Bob]
  - vars:
      greeting: Hey
      name: [1, 2]
  - options: {disableVarExpansion: true}
    vars:
      greeting: Yo
      name: [Cy, Di]
"""},
    "file-vars": {
        "promptfooconfig.yaml": """\
prompts: ['Context: {{context}} | Data: {{data}}']
providers: [echo]
tests:
  - vars:
      context: file://context.txt
      data: file://data.yaml
  - vars:
      context: file://docs/*.md
      data: none
""",
        "context.txt": "The context.\n\n",
        "data.yaml": "a: 1\nb: [x, y]\n",
        "docs/one.md": "one\n",
        "docs/two.md": "two\n",
    },
    "vars-files": {
        "promptfooconfig.yaml": """\
prompts: ['{{a}} and {{b}}']
providers: [echo]
tests:
  - vars: vars1.yaml
  - vars: [vars1.yaml, vars2.yaml]
  - vars: file://vars1.yaml
""",
        "vars1.yaml": "a: one\nb: two\n",
        "vars2.yaml": "b: three\n",
    },
    "transforms": {"promptfooconfig.yaml": """\
prompts: ['Answer {{q}}']
providers: [echo]
defaultTest:
  options:
    transform: output.toUpperCase()
tests:
  - vars: {q: yes}
    assert:
      - type: contains
        value: ANSWER
        transform: output.trim()
  - vars: {q: no}
    options:
      transformVars: '{ ...vars, q: vars.q + "!" }'
"""},
    "thresholds-metrics-weights": {"promptfooconfig.yaml": """\
prompts: ['Reply to {{msg}}']
providers: [echo]
tests:
  - vars: {msg: hello}
    threshold: 0.5
    assert:
      - type: contains
        value: hello
        weight: 3
        metric: mentions
      - type: icontains
        value: REPLY
        weight: 0
      - type: javascript
        value: output.length > 3
        metric: length
      - type: skill-used
        value: [alpha, beta]
  - vars: {msg: bye}
    assert:
      - type: assert-set
        threshold: 0.5
        assert:
          - {type: contains, value: bye}
          - {type: contains, value: nope}
"""},
    "prefix-suffix": {"promptfooconfig.yaml": """\
prompts: ['{{q}}']
providers: [echo]
defaultTest:
  options: {prefix: 'PRE ', suffix: ' POST'}
tests:
  - vars: {q: middle}
  - vars: {q: other}
    options: {prefix: '>> '}
"""},
    "block-prompt-newline": {"promptfooconfig.yaml": """\
prompts:
  - |
    Line one {{x}}
    Line two
  - >-
    folded {{x}}
    text
providers: [echo]
tests:
  - vars:
      x: |
        value with newline
"""},
    "prompt-map": {"promptfooconfig.yaml": """\
prompts:
  'Hello {{n}}': greet
  'Bye {{n}}': leave
providers: [echo]
tests:
  - vars: {n: Zed}
"""},
    "no-tests": {"promptfooconfig.yaml": """\
prompts: ['Just say hi']
providers: [echo]
"""},
    "default-prompt": {"promptfooconfig.yaml": """\
providers: [echo]
tests:
  - vars: {prompt: the prompt var itself}
"""},
    "env-and-refs": {"promptfooconfig.yaml": """\
prompts: ['{{greeting}} from {{ env.TEAM_NAME }}']
providers: [echo]
env:
  TEAM_NAME: core
tests:
  - vars:
      name: Kai
      greeting: 'Hi {{name}}'
"""},
    "disable-default-asserts": {"promptfooconfig.yaml": """\
prompts: ['{{q}}']
providers: [echo]
defaultTest:
  assert: [{type: contains, value: q}]
tests:
  - vars: {q: q1}
  - vars: {q: q2}
    options: {disableDefaultAsserts: true}
    assert: [{type: equals, value: q2}]
"""},
    "js-prompt": {
        "promptfooconfig.yaml": """\
prompts: [file://prompt.js, 'Text {{x}}']
providers: [echo]
tests:
  - vars: {x: 1}
""",
        "prompt.js": "module.exports = ({ vars }) => `From JS ${vars.x}`;\n",
    },
    "skills-style": {"promptfooconfig.yaml": """\
description: release notes skill
prompts:
  - "Use the release-notes skill.\\n{{request}}"
providers:
  - id: anthropic:claude-agent-sdk
    config: {working_dir: ./fixture}
tests:
  - description: writes notes
    vars: {request: Write release notes for v2}
    assert:
      - type: skill-used
        value: release-notes
      - type: trajectory:step-count
        value: {type: command, pattern: '*git log*', min: 1}
      - type: not-skill-used
        value: other
"""},
    "refused-prompt": {"promptfooconfig.yaml": """\
prompts:
  - 'Use the skill.\\n{{request}}'
providers: [echo]
tests:
  - vars: {request: go}
"""},
    "refused-prompt-object": {"promptfooconfig.yaml": """\
prompts:
  - raw: 'Plain: {{q}}'
    label: plain
  - raw: 'Short: {{q}}'
providers: [echo]
tests:
  - vars: {q: what}
"""},

    "js-semantics": {"promptfooconfig.yaml": """\
prompts:
  - |
    {{ items.length }}/{{ name.length }}/{{ items[-1] }}/{{ 'a' ~ missing }}/{{ n + 1 }}/{{ count + 1 }}
    {% if count == 3 %}loose{% endif %} {{ not count == 3 }} {{ not (count == 3) }} {{ 'b' in items }}
    {% for k, v in meta %}{{ k }}={{ v }};{% endfor %} {% for c in 'ab' %}[{{ c }}]{% endfor %}
    {{ range(3) }} {{ meta | dump }} {{ '12abc' | int }}|{{ 'abc' | int }}|{{ nothing | default('d') }}
    {% macro tag(x, style=missing) %}<{{ x }}|{{ style }}>{% endmacro %}{{ tag('t') }} {{ 7 // 2 }} {{ -7 % 3 }}
providers: [echo]
tests:
  - options: {disableVarExpansion: true}
    vars:
      items: [a, b, c]
      name: promptfoo
      n: '2'
      count: '3'
      meta: {b: 1.0, '1': two, a: [x, y]}
      nothing: null
      style: from the vars
"""},
    "nunjucks-filters": {"promptfooconfig.yaml": """\
prompts:
  - |
    [{{ text | indent(2) }}] [{{ words | truncate(5) }}] [{{ 'abc' | center(8) }}] [{{ words | replace(' ', '_', 2) }}]
    [{{ html | escape }}] [{{ html | striptags }}] [{{ words | wordcount }}] [{{ nums | batch(2) | dump }}]
    [{{ names | sort | join(',') }}] [{{ people | groupby('team') | dump }}] [{{ words | title }}]
    [{{ people | selectattr('lead') | join(',', 'name') }}] [{{ nums | sum }}] [{{ 3.14159 | round(2) }}]
    [{% if html | safe %}safe{% endif %}] [{{ people | length }}]
providers: [echo]
tests:
  - options: {disableVarExpansion: true}
    vars:
      text: "one\\n\\ntwo"
      words: ab cd ef gh
      html: <b>x</b> & 'y'
      nums: [3, 1, 2]
      names: [bo, Al, cy]
      people:
        - {name: ann, team: red, lead: true}
        - {name: bob, team: blue}
        - {name: cy, team: red}
"""},
    "empty-list-var": {"promptfooconfig.yaml": """\
prompts: ['[{{ xs }}]{{ y }}']
providers: [echo]
tests:
  - vars: {xs: [], y: a}
  - vars: {xs: [1, 2], y: b}
"""},
    "scenario-files": {
        "promptfooconfig.yaml": """\
prompts: ['{{q}} in {{l}}']
providers: [echo]
scenarios:
  - file://scen/*.yaml
  - config: [{vars: {l: de}}]
    tests: file://t.yaml
""",
        "scen/a.yaml": "config: [{vars: {l: fr}}]\ntests: [{vars: {q: hi}}]\n",
        "scen/b.yaml": "- config: [{vars: {l: es}}, {vars: {l: it}}]\n  tests: [{vars: {q: ola}}]\n",
        "t.yaml": "- vars: {q: a}\n- description: bee\n  vars: {q: b}\n",
    },
    "globs": {
        "promptfooconfig.yaml": """\
prompts: ['{{ q }}: {{ d }}']
providers: [echo]
tests:
  - file://t/{a,b}.yaml
  - file://t/**/*.yaml
  - vars: {q: braces, d: 'file://d/{x,y}.txt'}
""",
        "t/a.yaml": "- vars: {q: a, d: '-'}\n", "t/b.yaml": "- vars: {q: b, d: '-'}\n",
        "t/c/d.yaml": "- vars: {q: d, d: '-'}\n", "t/.hidden.yaml": "- vars: {q: hidden, d: '-'}\n",
        "t/.h/e.yaml": "- vars: {q: e, d: '-'}\n", "d/x.txt": "X\n", "d/y.txt": "Y\n", "d/z.txt": "Z\n",
    },
    "prompt-filters": {"promptfooconfig.yaml": """\
prompts:
  - {raw: 'A {{q}}', label: 'grp:a'}
  - {raw: 'B {{q}}', label: 'grp:b'}
  - {raw: 'C {{q}}', label: other}
  - {raw: 'D {{q}}', label: never}
providers:
  - id: echo
    prompts: ['grp:*', other]
tests:
  - vars: {q: 1}
    prompts: ['grp:*']
  - vars: {q: 2}
    prompts: [grp]
  - vars: {q: 3}
    prompts: [other, never]
  - vars: {q: 4}
"""},
    "all-missing-tests": {"promptfooconfig.yaml": """\
prompts: ['[{{ prompt }}]']
providers: [echo]
tests:
  - file://tests/a.yaml
  - file://tests/b.yaml
"""},
    "repeat": {"promptfooconfig.yaml": """\
prompts: ['Say {{ word }}']
providers: [echo]
evaluateOptions: {repeat: 2}
tests:
  - vars: {word: [hi, yo]}
"""},
    "package-var": {"promptfooconfig.yaml": """\
prompts: ['{{ q }} and {{ r }}']
providers: [echo]
tests:
  - vars: {q: 'package:no-such-package:fn', r: fine}
"""},
    "skill-used-weights": {"promptfooconfig.yaml": """\
prompts: ['{{ task }}']
providers: [echo]
defaultTest:
  assert:
    - {type: skill-used, value: [review, lint], weight: 2}
tests:
  - vars: {task: review the diff}
    assert:
      - {type: not-skill-used, value: [deploy, release]}
      - {type: skill-used, value: review, weight: 3}
"""},
    "csv-long-field": {
        "promptfooconfig.yaml": """\
prompts: ['{{ doc | length }} {{ doc | truncate(12) }}']
providers: [echo]
tests: file://rows.csv
""",
        "rows.csv": 'doc,__expected\n"' + "lorem ipsum " * 12000 + '",contains: lorem\n',
    },
    "refused-prompt-braces": {
        "promptfooconfig.yaml": """\
prompts: ['file://p/{a,b}.txt']
providers: [echo]
tests:
  - vars: {q: 1}
""",
        "p/a.txt": "A {{q}}\n", "p/b.txt": "B {{q}}\n",
    },
    "yaml-dates": {
        "promptfooconfig.yaml": """\
prompts: ['<{{ q }}> {{ q | dump }} {{ f }}']
providers: [echo]
tests:
  - vars: {q: '2001-12-14', f: none}
  - vars: {q: 2024-05-01 10:00:00, f: none}
  - vars: {q: [2024-05-01, x], f: none}
  - vars: {q: quoted, f: file://d.yaml}
""",
        "d.yaml": "a: 2001-12-14\nb: 2001-12-14t21:59:43.10-05:00\nc: 2002-12-14 1:2:3\nd: '2001-12-14'\n",
    },
    "prompt-glob-none": {"promptfooconfig.yaml": """\
prompts: ['file://nothing/*.txt', 'Real {{ q }}']
providers: [echo]
tests:
  - vars: {q: 1}
"""},
}
