"""What a later stage acts on is a typed IR field the reader fills (docs/internals.md, "A closed IR"): the
IR a conversion writes (``convert --to ir``) holds it in its field, not in ``extra``; a field the target
holds is written, not lost."""

from __future__ import annotations

import json

import pytest

SKILLGYM = """import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "flags",
    prompt: "Install deps.",
    assert(report) {
      assert.commands.includes(report, /pnpm install/i);
      assert.commands.notIncludes(report, /rm\\s+-rf/gm);
      assert.commands.includes(report, /yarn/g);
    },
  },
];

export default suite;
"""

AGENTV = """name: kit
tests:
  - id: one
    input: Do it.
    assertions:
      - {type: tool-trajectory, mode: any_order, minimums: {Read: 2}}
      - {type: tool-trajectory, mode: any_order, minimums: 3}
      - {type: token-usage, max_total: 1000, max_output: 20.5}
      - {type: token-usage, max_input: lots}
      - {type: code-grader, script: [python3, grade.py], cwd: graders, target: judge, level: strict}
      - {type: llm-grader, prompt: {command: [bun, run, prompt.ts], config: {x: 1}}}
"""

PROMPTFOO = """prompts: ['{{q}}']
providers: [echo]
tests:
  - vars: {q: hi}
    assert:
      - {type: llm-rubric, value: Says hello, threshold: 0.8}
      - {type: contains, value: hi, threshold: 0.5}
"""

EXPECTED = {
    "suite.ts": [
        {"kind": "command_matching", "pattern": "pnpm install", "flags": "i", "extra": {}},
        {"kind": "no_command_matching", "pattern": "rm\\s+-rf", "flags": "gm", "extra": {}},
        {"kind": "command_matching", "pattern": "yarn", "extra": {}},  # (g changes nothing: a hint)
    ],
    "EVAL.yaml": [
        {"kind": "tool-trajectory", "mode": "any_order", "minimums": {"Read": 2}, "extra": {}},
        {"kind": "tool-trajectory", "mode": "any_order", "extra": {"minimums": 3}},  # (not a mapping: kept)
        {"kind": "token-usage", "max_total": 1000.0, "max_output": 20.5, "extra": {}},
        {"kind": "token-usage", "extra": {"max_input": "lots"}},
        {"kind": "code-grader", "script": ["python3", "grade.py"], "cwd": "graders", "config": {"level": "strict"},
         "extra": {"target": "judge"}},
        {"kind": "llm-grader", "template": {"command": ["bun", "run", "prompt.ts"], "config": {"x": 1}},
         "extra": {}},
    ],
    "promptfooconfig.yaml": [
        {"kind": "rubrics", "criteria": ["Says hello"], "min_score": 0.8, "extra": {}},
        {"kind": "contains", "value": "hi", "extra": {"threshold": 0.5}},  # (not a grader: promptfoo ignores it)
    ],
}
SOURCES = {"suite.ts": SKILLGYM, "EVAL.yaml": AGENTV, "promptfooconfig.yaml": PROMPTFOO}
SHOWN = ("kind", "pattern", "flags", "mode", "minimums", "max_total", "max_input", "max_output", "script", "cwd",
         "config", "template", "criteria", "value", "min_score", "extra")


@pytest.mark.parametrize("name", list(SOURCES))
def test_the_ir_holds_what_the_executor_needs_in_typed_fields(run_cli, tmp_path, name):
    src = tmp_path / name
    src.write_text(SOURCES[name], encoding="utf-8")
    rc, out, err = run_cli("convert", str(src), "--to", "ir")
    assert rc == 0, err
    checks = json.loads(out)["sets"][0]["cases"][0]["checks"]
    assert [{k: c[k] for k in SHOWN if k in c} for c in checks] == EXPECTED[name]


def test_a_promptfoo_rubric_threshold_is_agentv_min_score(run_cli, tmp_path):
    """promptfoo's llm-rubric ``threshold`` is the score the judge must give: agentv's ``min_score`` (it was
    reported lost as a key agentv does not have)."""
    src = tmp_path / "promptfooconfig.yaml"
    src.write_text(PROMPTFOO, encoding="utf-8")
    rc, out, err = run_cli("convert", str(src), "--to", "agentv")
    assert rc == 0
    assert "      - type: rubrics\n        criteria:\n          - Says hello\n        min_score: 0.8\n" in out
    assert [line for line in err.splitlines() if "threshold" in line] == [
        f"evalfmt: lost: {src}:7: 'threshold' of check 'contains:hi' (agentv has no such key)"]
    rc, out, err = run_cli("convert", str(src), "--to", "promptfoo")
    assert (rc, out.count("threshold: 0.8")) == (0, 1)
