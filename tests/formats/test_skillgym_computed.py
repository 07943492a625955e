"""A skillgym case whose prompt the suite computes when it runs (``prompt: buildPrompt({...})``, a property of a
const object) is a suite skillgym runs and tsc type-checks against skillgym 0.8.1 (test_skillgym_tsc.py checks
tests/formats/computed/computed-prompt.ts): it must not fail the gate (issue 24 item 6). validate and lint give
EV117, a warning; convert and transpile leave such cases out, one line naming each case and why (convert
--strict writes nothing); converting to skillgym keeps the suite byte for byte. Before, both prompts were
EV100 errors: validate and lint exited 1, convert and transpile refused the whole suite."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import ROOT

FIXTURE = ROOT / "tests" / "formats" / "computed" / "computed-prompt.ts"
EV117 = [
    "suite.ts:22:13: EV117 'prompt' is computed when the suite runs (a call of 'buildPrompt'): evalfmt reads suites "
    "statically, so convert and transpile leave this case out",
    "suite.ts:29:13: EV117 'prompt' is computed when the suite runs (the property 'PROMPTS.audit'): evalfmt reads "
    "suites statically, so convert and transpile leave this case out",
]
LEFT_OUT = [
    "suite.ts:22:13: case 'upgrade-expo': its 'prompt' is computed when the suite runs (a call of 'buildPrompt'); "
    "evalfmt reads suites statically",
    "suite.ts:29:13: case 'audit-deps': its 'prompt' is computed when the suite runs (the property 'PROMPTS.audit'); "
    "evalfmt reads suites statically",
]
LITERAL_CASE_AGENTV = """\
tests:
  - id: find-skill
    input: Find a skill for upgrading Expo SDK.
    assertions:
      - type: skill-trigger
        skill: find-skills
"""


@pytest.fixture
def suite(tmp_path):
    shutil.copy(FIXTURE, tmp_path / "suite.ts")
    return tmp_path


def lines(prefix: str, items: list[str]) -> str:
    return "".join(f"evalfmt: {prefix}{item}\n" for item in items)


def test_validate_warns_and_passes(run_cli, suite):
    assert run_cli("validate", "suite.ts", cwd=str(suite)) == (
        0, "".join(w + "\n" for w in EV117) + "0 errors, 2 warnings in 1 file\n", "")


def test_lint_warns_and_passes(run_cli, suite):
    assert run_cli("lint", "--isolated", "suite.ts", cwd=str(suite)) == (
        0, "".join(w + "\n" for w in EV117) + "0 errors, 2 warnings in 1 file\n", "")


def test_convert_leaves_the_computed_cases_out_and_names_them(run_cli, suite):
    assert run_cli("convert", "suite.ts", "--to", "agentv", cwd=str(suite)) == (
        0, LITERAL_CASE_AGENTV, lines("not converted: ", LEFT_OUT))


def test_convert_strict_writes_nothing(run_cli, suite):
    code, out, err = run_cli("convert", "suite.ts", "--to", "agentv", "--strict", "-o", "EVAL.yaml", cwd=str(suite))
    assert (code, out) == (1, "")
    assert err == lines("not converted: ", LEFT_OUT) + "evalfmt: --strict: 2 cases would be left out; nothing written\n"
    assert sorted(p.name for p in suite.iterdir()) == ["suite.ts"]


def test_convert_to_skillgym_keeps_the_suite_as_written(run_cli, suite):
    assert run_cli("convert", "suite.ts", "--to", "skillgym", cwd=str(suite)) == (0, FIXTURE.read_text(), "")


@pytest.mark.parametrize("layout", ["seed", "agentv"])
def test_transpile_leaves_them_out_writes_the_rest_and_check_passes(run_cli, suite, layout):
    code, out, err = run_cli("transpile", "--layout", layout, "suite.ts", "-o", "out", cwd=str(suite))
    written = "out/find-skills/evals.json" if layout == "seed" else "out/evals.json"
    assert (code, out, err) == (0, "", lines("not transpiled: ", LEFT_OUT) + f"evalfmt: wrote {written}\n")
    data = json.loads((suite / written).read_text())
    tests = data["tests"] if layout == "seed" else data["evals"]
    assert [t.get("id") for t in tests] == (["find-skill"] if layout == "seed" else [1])
    assert run_cli("transpile", "--layout", layout, "--check", "suite.ts", "-o", "out", cwd=str(suite)) == (
        0, "", lines("not transpiled: ", LEFT_OUT))
