"""An llm-grader's executable prompt template, ``prompt: {command: [argv...], config: {...}}``: evalfmt
accepts exactly the shapes agentv 4.42.4 loads, and refuses the ones it skips the test for.

agentv's JSON schema allows ``command``/``script`` as a string or a list of strings and ``config`` as a
mapping; ``agentv validate`` does not look at the prompt at all (every file below is "Valid" to it);
``agentv eval`` loads the template and skips the test ("Skipping test 'a': ...") when ``command`` is
not a non-empty list of non-empty strings, or is missing. evalfmt follows the loader: what the loader
skips is an error, what it loads passes (a deprecated ``script`` and an ignored key are warnings).

The differential part runs the real agentv (``agentv validate``, and ``agentv eval run --dry-run`` up to
the point where it looks for targets.yaml, after loading the file: nothing is executed) and is skipped,
saying why, where node/npm are absent."""

from __future__ import annotations

import os
import subprocess

import pytest

from agentv_real import AGENTV, unavailable

HEAD = "tests:\n  - id: a\n    input: Say hello.\n    criteria: greets the user\n    assertions:\n      - type: llm-grader\n"

#: (name, prompt lines, evalfmt's EV1xx findings as (line, column, code, severity))
ACCEPTED = [
    ("argv", "        prompt:\n          command: [bun, run, graders/prompt.ts]\n", []),
    ("argv-config", "        prompt:\n          command: [node, graders/prompt.ts]\n          config: {strict: true}\n", []),
    ("block-argv", "        prompt:\n          command:\n            - node\n            - graders/prompt.ts\n", []),
    ("script", "        prompt:\n          script: [node, graders/prompt.ts]\n", []),
    ("extra-key", "        prompt:\n          command: [node, graders/prompt.ts]\n          timeout: 30\n",
     [(9, 11, "EV101", "warning")]),
    ("text", "        prompt: Judge whether the reply greets the user.\n", []),
]
REFUSED = [
    ("string", "        prompt:\n          command: node graders/prompt.ts\n", [(8, 20, "EV102", "error")]),
    ("empty", "        prompt:\n          command: []\n", [(8, 20, "EV102", "error")]),
    ("missing", "        prompt:\n          config: {strict: true}\n", [(8, 11, "EV103", "error")]),
    ("blank-entry", "        prompt:\n          command: [node, '']\n", [(8, 27, "EV102", "error")]),
    ("number-entry", "        prompt:\n          command: [node, 3]\n", [(8, 27, "EV102", "error")]),
]


def write_all(root) -> dict[str, str]:
    (root / "graders").mkdir(parents=True)
    (root / "graders" / "prompt.ts").write_text("console.log('Judge the reply.')\n")
    paths = {}
    for name, prompt, _ in ACCEPTED + REFUSED:
        path = root / f"{name}.eval.yaml"
        path.write_text(HEAD + prompt)
        paths[name] = str(path)
    return paths


@pytest.mark.parametrize("name,prompt,expected", ACCEPTED + REFUSED, ids=[c[0] for c in ACCEPTED + REFUSED])
def test_evalfmt_findings(run_cli, tmp_path, name, prompt, expected):
    path = write_all(tmp_path)[name]
    code, out, err = run_cli("lint", "--isolated", "--select", "EV1", "--format", "json", path)
    import orjson

    found = [(d["line"], d["column"], d["code"], d["severity"]) for d in orjson.loads(out)["diagnostics"]]
    assert (found, err) == (expected, "")
    assert code == (1 if any(e[3] == "error" for e in expected) else 0)


def test_messages(run_cli, tmp_path):
    paths = write_all(tmp_path)
    out = "".join(run_cli("lint", "--isolated", "-q", "--select", "EV1,EV501", paths[n])[1]
                  for n in ("string", "missing", "script", "extra-key"))
    assert out == (
        f"{paths['string']}:8:20: EV102 'command' of a prompt template must be a list of argv strings "
        "(e.g. [bun, run, prompt.ts]), not a string; agentv skips the test\n"
        f"{paths['missing']}:8:11: EV103 a prompt template needs 'command', the argv list that prints the prompt "
        "(e.g. [bun, run, prompt.ts]); agentv skips the test without it\n"
        f"{paths['script']}:8:11: EV501 'prompt.script' is deprecated: use 'prompt.command'\n"
        f"{paths['extra-key']}:9:11: EV101 unknown key 'timeout'; agentv ignores it\n")


def test_the_template_survives_a_round_trip(run_cli, tmp_path):
    paths = write_all(tmp_path)
    code, out, err = run_cli("convert", paths["argv-config"], "--to", "agentv")
    assert (code, err) == (0, "")
    assert "  prompt:\n" in out and "command:" in out and "config:" in out and "strict: true" in out


_why = unavailable()


@pytest.mark.node
@pytest.mark.skipif(_why is not None, reason=_why or "")
def test_the_real_agentv_agrees(tmp_path):
    paths = write_all(tmp_path)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)  # agentv validate wants a repository root
    env = dict(os.environ, NO_COLOR="1")
    valid = subprocess.run([str(AGENTV), "validate", *paths.values()], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=300)
    assert valid.returncode == 0, valid.stdout + valid.stderr
    assert f"Valid: {len(paths)}" in valid.stdout  # validate accepts them all: it does not look at prompts
    skipped = {}
    for name, path in paths.items():
        run = subprocess.run([str(AGENTV), "eval", "run", "--dry-run", path], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=300)
        text = run.stdout + run.stderr
        assert "Unable to locate targets.yaml" in text, text  # it got past loading the file
        skipped[name] = "Skipping test 'a'" in text
    assert skipped == {name: name in {c[0] for c in REFUSED} for name in paths}


def test_the_editor_schema_draws_the_same_line(tmp_path):
    import json

    import jsonschema

    from conftest import ROOT
    from evalfmt.load import load_file

    schema = json.loads((ROOT / "schemas" / "agentv-eval.schema.json").read_text("utf-8"))
    check = jsonschema.Draft202012Validator(schema)
    paths = write_all(tmp_path)
    valid = {name: check.is_valid(load_file(path).data) for name, path in paths.items()}
    # the schema cannot warn: an ignored extra key is outside it, as in agentv's own schema
    assert valid == {name: name not in {c[0] for c in REFUSED} | {"extra-key"} for name in paths}
