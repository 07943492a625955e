"""promptfoo files are read as promptfoo's parser (js-yaml 5.4.1, YAML 1.2) reads them: a ``:`` inside a flow
scalar (``providers: [anthropic:claude-agent-sdk]``), which libyaml refuses, is read (issue 24 item 8).

The differential half runs the real js-yaml (installed by scripts/node-deps.sh into .cache/node/promptfoo/)
as promptfoo calls it (``promptfoo_yaml.cjs``) on a corpus of such texts; it skips, saying why, where node or
npm is absent."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import orjson
import pytest

from conftest import ROOT
from evalfmt.errors import LoadError, Pos
from evalfmt.formats.promptfoo.loader import load_text
from evalfmt.load import plain

JS_YAML = ROOT / ".cache" / "node" / "promptfoo" / "node_modules" / "js-yaml" / "package.json"
SCRIPT = os.path.join(os.path.dirname(__file__), "promptfoo_yaml.cjs")

CONFIG = """\
description: flow scalars
prompts: ['Answer: {{question}}']
providers: [anthropic:claude-agent-sdk, openai:gpt-4.1-mini]
tests:
  - vars: {question: Why is the sky blue?}
    assert: [{type: contains, value: https://example.com/a:b}]
"""


def test_a_colon_inside_a_flow_scalar_is_read(run_cli, tmp_path):
    (tmp_path / "promptfooconfig.yaml").write_text(CONFIG)
    code, out, err = run_cli("validate", str(tmp_path / "promptfooconfig.yaml"))
    assert (code, err) == (0, "")
    code, out, err = run_cli("inspect", "--format", "json", str(tmp_path / "promptfooconfig.yaml"))
    assert (code, err) == (0, "")
    (evalset,) = orjson.loads(out)["sets"]
    assert evalset["extra"]["providers"] == ["anthropic:claude-agent-sdk", "openai:gpt-4.1-mini"]
    (case,) = evalset["cases"]
    assert case["input"] == "Answer: Why is the sky blue?"
    assert [(c["kind"], c["value"]) for c in case["checks"]] == [("contains", "https://example.com/a:b")]


def test_positions_come_from_the_model_where_libyaml_refuses():
    loaded = load_text(CONFIG, "c.yaml")
    assert loaded.pos("tests", 0, "vars", "question") == Pos(5, 22)
    assert loaded.key_pos("providers") == Pos(3, 1)


def test_what_both_parsers_refuse_keeps_libyamls_error():
    with pytest.raises(LoadError) as exc:
        load_text("providers: [echo\ntests: 1\n", "c.yaml")
    assert (exc.value.line, exc.value.column, exc.value.message) == (
        2, 6, "invalid YAML: did not find expected ',' or ']' (while parsing a flow sequence)")


def test_where_libyaml_stops_at_a_yaml_1_2_colon_the_models_error_is_given():
    with pytest.raises(LoadError) as exc:  # (js-yaml: "deficient indentation (2:1)")
        load_text("providers: [anthropic:claude-agent-sdk\ntests: 1\n", "c.yaml")
    assert (exc.value.line, exc.value.column, exc.value.message) == (
        2, 1, "invalid YAML: flow sequence in block collection must be sufficiently indented and end with a ]")


def test_the_gate_refuses_with_ev100_at_libyamls_position(run_cli, tmp_path):
    (tmp_path / "promptfooconfig.yaml").write_text("prompts: ['{{q}}']\nproviders: [echo\ntests: []\n")
    code, out, err = run_cli("validate", str(tmp_path / "promptfooconfig.yaml"))
    assert code == 1
    assert out == (f"{tmp_path}/promptfooconfig.yaml:3:6: EV100 invalid YAML: did not find expected ',' or ']' "
                   "(while parsing a flow sequence)\n1 error, 0 warnings in 1 file\n")


def test_merge_keys_are_applied_on_both_paths():
    for providers in ("[echo]", "[anthropic:claude-agent-sdk]"):
        text = f"base: &b {{vars: {{team: core}}}}\nproviders: {providers}\ndefaultTest:\n  <<: *b\n  assert: []\n"
        assert plain(load_text(text, "c.yaml").data)["defaultTest"] == {"vars": {"team": "core"}, "assert": []}


# ----------------------------------------------------------------------------------- the real js-yaml

#: texts libyaml refuses (each a shape promptfoo configs use) and a few it reads, as controls
CORPUS = [
    "providers: [anthropic:claude-agent-sdk]\n",
    "providers: [openai:gpt-4.1, anthropic:messages:claude-sonnet-4-6]\n",
    "prompts: [file://prompts/a.txt, file://prompts/*.txt]\n",
    "vars: {question: Why is the sky blue?}\n",
    "vars: {url: https://example.com/x?y=1, q: a:b:c}\n",
    "assert: [{type: contains, value: a:b}, {type: icontains, value: 'x'}]\n",
    "tests:\n  - vars: {language: French, input: Hello world}\n    assert: [{type: equals, value: 12:30}]\n",
    "a: {k:v}\n",
    "a: [x:y, b: c]\n",
    "a: [http://x.y, 'q: r']\n",
    "a: {b: [c:d, {e: f:g}]}\n",
    "a: [a::b, ::c]\n",
    "a: {x: y?, z: w}\n",
    "a: [one, two:]\n",
    "providers:\n  - id: openai:chat:gpt-4.1\n    config: {temperature: 0, stop: [a:b]}\n",
    "defaultTest: {options: {provider: openai:gpt-4.1-mini}, vars: {team: platform}}\n",
    "tags: {owner: team:platform, env: prod}\n",
    "a: [1:2, 3]\n",
    "a: {12:30: b}\n",
    # controls (libyaml reads them)
    "a: [x: 1, y: 2]\n",
    "providers: [echo]\n",
    "vars: {question: 'Why is the sky blue?'}\n",
    "a: [b, 'c: d', \"e:f\"]\n",
    "a: {b: c}\n",
    # both refuse
    "a: [b\nc: d\n",
    "a: {b: c\n",
]


def _js_yaml(texts: list[str]) -> dict:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node/npm not found: the differential test against promptfoo's YAML parser needs node and npm")
    if not JS_YAML.exists():
        subprocess.run([str(ROOT / "scripts" / "node-deps.sh")], cwd=ROOT, check=False, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    assert JS_YAML.exists(), f"js-yaml not installed at {JS_YAML}: run scripts/node-deps.sh"
    proc = subprocess.run(["node", SCRIPT, str(JS_YAML)], input=json.dumps(texts) + "\n", capture_output=True,
                          text=True, timeout=120, check=True)
    return json.loads(proc.stdout)


def _ours(text: str) -> dict:
    try:
        return {"ok": True, "value": plain(load_text(text, "t.yaml").data)}
    except LoadError:
        return {"ok": False}


@pytest.mark.node
def test_the_loader_reads_what_js_yaml_reads():
    answer = _js_yaml(CORPUS)
    assert answer["version"] == "5.4.1"
    theirs = [r if r["ok"] else {"ok": False} for r in answer["results"]]
    ours = [_ours(t) for t in CORPUS]
    assert [(t, o) for t, o, j in zip(CORPUS, ours, theirs) if o != j] == []
    # the corpus is what it says: libyaml refuses the first 19 texts, reads the controls
    from evalfmt.load import load_text as libyaml

    refused = []
    for t in CORPUS:
        try:
            libyaml(t, "t.yaml")
        except LoadError:
            refused.append(t)
    assert refused == CORPUS[:19] + CORPUS[24:]
