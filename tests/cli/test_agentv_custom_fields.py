"""AgentV test fields that are not agentv's own are the author's (issue 24 item 4): agentv 4.42.4 passes them
through (``agentv validate``: "Unknown field ... will be ignored", a warning) and a code-grader of the author's
reads them. Only a typo of a known key (docs/agentv.md: at most 1 edit from a known key of up to 5 letters, 2
from a longer one, in lower case without '_' and '-') is an error; any other unknown key is a warning without
a hint. Before, a did-you-mean was any known key sharing a prefix or a few letters (difflib), and it made the
key an error: ``expectedKind`` -> 'execution', ``expectedStepCount`` -> 'expected_output', so an EVAL.yaml
whose ``.jsonl`` tests carry such fields failed validate, lint and transpile.

Measured on the real files of the conformance folder (the eval formats: agentv-4.42.4/inputs, terum,
promptfoo, skill-creator) hold 140 distinct keys; the 128 that are not agentv's at a level, placed in a test
and at the top level of an EVAL.yaml: the old rule made 13 of them errors in a test and 15 at the top level;
the typo rule makes 2 and 2 (``aggregator``, ``model``; ``required``, ``schema``). The 19 real EVAL.yaml files hold one unknown key (``defaults``), a warning before and after.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
import yaml

from conftest import CONFORMANCE, ROOT, conformance_files

EVAL = """\
name: workflow-builder
description: Builds workflows from a request
tests: ./cases.jsonl
assertions:
  - type: code-grader
    command: [python3, graders/structure.py]
"""
CASES = (
    '{"id": "alert-to-slack", "input": "When an alert fires, post it to Slack", "criteria": "A two-step workflow",'
    ' "expectedKind": "workflow", "expectedStepCount": 2}\n'
    '{"id": "nightly-report", "input": "Email me a report every night", "criteria": "A cron workflow",'
    ' "expectedKind": "workflow", "expectedStepTypes": ["cron", "email"]}\n'
)
WARNINGS = [
    "cases.jsonl:1:111: EV101 unknown key 'expectedKind'; agentv ignores it",
    "cases.jsonl:1:139: EV101 unknown key 'expectedStepCount'; agentv ignores it",
    "cases.jsonl:2:99: EV101 unknown key 'expectedKind'; agentv ignores it",
    "cases.jsonl:2:127: EV101 unknown key 'expectedStepTypes'; agentv ignores it",
]


def write(folder, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")


def test_custom_fields_in_jsonl_tests_pass_validate(run_cli, tmp_path):
    write(tmp_path, {"EVAL.yaml": EVAL, "cases.jsonl": CASES})
    assert run_cli("validate", "EVAL.yaml", cwd=str(tmp_path)) == (
        0, "".join(w + "\n" for w in WARNINGS) + "0 errors, 4 warnings in 1 file\n", "")


def test_custom_fields_in_jsonl_tests_pass_lint(run_cli, tmp_path):
    write(tmp_path, {"EVAL.yaml": EVAL, "cases.jsonl": CASES})
    code, out, err = run_cli("lint", "--isolated", "--select", "EV101", "EVAL.yaml", cwd=str(tmp_path))
    assert (code, err) == (0, "")
    assert out == "".join(w + "\n" for w in WARNINGS) + "0 errors, 4 warnings in 2 files\n"


@pytest.mark.parametrize("key, where", [
    ("expectedKind", "test"), ("expectedStepCount", "test"), ("description", "test"), ("files", "test"),
    ("expectations", "test"), ("expectedIssues", "test"), ("title", "test"), ("notes", "top"),
    ("schema_version", "top"), ("items", "top"), ("flags", "top"), ("strategy", "top"),
])
def test_a_key_that_is_no_typo_is_a_warning_without_a_hint(run_cli, tmp_path, key, where):
    test = "tests:\n  - id: a\n    input: hi\n    criteria: ok\n"
    text = test + f"    {key}: x\n" if where == "test" else f"{key}: x\n" + test
    write(tmp_path, {"EVAL.yaml": text})
    line, col = (5, 5) if where == "test" else (1, 1)
    assert run_cli("validate", "EVAL.yaml", cwd=str(tmp_path)) == (
        0, f"EVAL.yaml:{line}:{col}: EV101 unknown key '{key}'; agentv ignores it\n0 errors, 1 warning in 1 file\n", "")


@pytest.mark.parametrize("key, meant, where", [
    ("assertion", "assertions", "test"), ("assertons", "assertions", "test"), ("criterias", "criteria", "test"),
    ("critera", "criteria", "test"), ("expected_ouput", "expected_output", "test"),
    ("expected-output", "expected_output", "test"), ("expectedOutput", "expected_output", "test"),
    ("Input", "input", "test"), ("imput", "input", "test"), ("metdata", "metadata", "test"),
    ("turn", "turns", "test"), ("conversationId", "conversation_id", "test"), ("test", "tests", "top"),
    ("tets", "tests", "top"), ("worksapce", "workspace", "top"), ("evaluater", "evaluators", "top"),
])
def test_a_typo_of_a_known_key_is_an_error(run_cli, tmp_path, key, meant, where):
    """Beside it, a custom field of the test stays a warning (before, both were errors)."""
    test = "  - id: a\n    input: hi\n    criteria: ok\n    expectedKind: workflow\n"
    text = "tests:\n" + test + f"    {key}: x\n" if where == "test" else "tests:\n" + test + f"{key}: x\n"
    write(tmp_path, {"EVAL.yaml": text})
    line, col = (6, 5) if where == "test" else (6, 1)
    assert run_cli("validate", "EVAL.yaml", cwd=str(tmp_path)) == (
        1, "EVAL.yaml:5:5: EV101 unknown key 'expectedKind'; agentv ignores it\n"
           f"EVAL.yaml:{line}:{col}: EV101 unknown key '{key}' (did you mean '{meant}'?); agentv ignores it\n"
           "1 error, 1 warning in 1 file\n", "")


# ------------------------------------------------------------------ measured on the conformance folder


def _corpus_keys() -> set[str]:
    keys: set[str] = set()

    def walk(value):
        if isinstance(value, dict):
            keys.update(k for k in value if isinstance(k, str))
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for path in conformance_files("agentv-4.42.4/inputs/**/*.yaml", "agentv-4.42.4/inputs/**/*.json", "terum/**/*.yaml",
                                  "promptfoo/*.yaml", "skill-creator/*.json"):
        if any(part.startswith(".") for part in path.relative_to(CONFORMANCE).parts):
            continue  # (a cache folder some run left there is not a real file)
        text = path.read_text(encoding="utf-8")
        walk(json.loads(text) if path.suffix == ".json" else yaml.safe_load(text))
    return keys


def _errors_for(run_cli, tmp_path, keys: list[str], where: str) -> list[str]:
    head = "tests:\n  - id: a\n    input: hi\n    criteria: ok\n"
    indent = "    " if where == "test" else ""
    write(tmp_path, {"EVAL.yaml": head + "".join(f"{indent}{json.dumps(k)}: 1\n" for k in keys)})
    code, out, err = run_cli("validate", "EVAL.yaml", cwd=str(tmp_path))
    assert err == ""
    return [line.split("unknown key ", 1)[1].split(";")[0] for line in out.splitlines() if " EV101 " in line
            and "did you mean" in line]


@pytest.mark.conformance
def test_the_rule_on_every_key_of_the_real_files(run_cli, tmp_path):
    from evalfmt.formats.agentv.reader import TEST_DEPRECATED, TEST_KEYS, TOP_DEPRECATED, TOP_KEYS

    keys = _corpus_keys()
    assert len(keys) == 140
    in_test = sorted(k for k in keys if k not in TEST_KEYS + tuple(TEST_DEPRECATED))
    at_top = sorted(k for k in keys if k not in TOP_KEYS + tuple(TOP_DEPRECATED) + ("tests", "eval_cases", "evalcases"))
    assert (len(in_test), len(at_top)) == (128, 128)
    assert _errors_for(run_cli, tmp_path, in_test, "test") == [
        "'aggregator' (did you mean 'aggregation'?)",
        "'model' (did you mean 'mode'?)"]
    assert _errors_for(run_cli, tmp_path, at_top, "top") == [
        "'required' (did you mean 'requires'?)",
        "'schema' (did you mean '$schema'?)"]
    # the real EVAL.yaml files themselves hold one unknown key, a warning (before too)
    found = []
    for path in conformance_files("agentv-4.42.4/inputs/**/*.yaml"):
        found += [line.split(": ", 1)[1] for line in run_cli("validate", str(path))[1].splitlines() if " EV101 " in line]
    assert found == ["EV101 unknown key 'defaults'; agentv ignores it"]



# ------------------------------------------------------------------- against the real agentv validate

AGENTV = ROOT / ".cache" / "node" / "agentv" / "node_modules" / ".bin" / "agentv"


@pytest.mark.node
@pytest.mark.slow
def test_agentv_validate_accepts_what_validate_accepts(run_cli, tmp_path):
    """``agentv validate`` (which reads only ``*.eval.yaml`` files, inside a git repository) accepts both
    files with a warning per custom field; so does evalfmt, and neither fails."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node/npm not found: the comparison with the real agentv needs Node 20 and npm")
    if not AGENTV.exists():
        subprocess.run([str(ROOT / "scripts" / "node-deps.sh")], cwd=ROOT, check=True)
    inline = ("tests:\n  - id: alert-to-slack\n    input: When an alert fires, post it to Slack\n"
              "    criteria: A two-step workflow\n    expectedKind: workflow\n    expectedStepCount: 2\n")
    write(tmp_path, {"jsonl.eval.yaml": EVAL, "cases.jsonl": CASES, "inline.eval.yaml": inline})
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    proc = subprocess.run([str(AGENTV), "validate", "jsonl.eval.yaml", "inline.eval.yaml"], cwd=tmp_path,
                          capture_output=True, text=True, env=dict(os.environ, NO_COLOR="1"), timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Invalid: 0" in proc.stdout
    assert "[tests[0].expectedKind] Unknown field 'expectedKind'. This field will be ignored." in proc.stdout
    code, out, err = run_cli("validate", "jsonl.eval.yaml", "inline.eval.yaml", cwd=str(tmp_path))
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == "0 errors, 6 warnings in 2 files"
