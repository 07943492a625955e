"""One skill folder, several formats (terum evals and an EVAL.yaml side by side): inspect, validate and
lint act on every eval set; score picks a case among all of them; compare and run act on one eval set
and refuse without --from, in the same words; compare accepts run's own output folder (--runs)."""

from __future__ import annotations

import json

import pytest
from e2ehelp import agent_command, make_skill

REFUSAL = "holds 2 eval sets (terum, agentv): pass --from terum or --from agentv"
EVAL_YAML = """description: notes evals
tests:
  - id: t1
    input: Write some notes
    assertions:
      - type: contains
        value: NOTES_MADE
"""


@pytest.fixture
def both(tmp_path):
    skill = make_skill(tmp_path / "lib", "notes", {"one": "task: |\n  !say hello\nchecks:\n  - transcript_mentions: hello\n"},
                       body="!say NOTES_MADE\n")
    (skill / "EVAL.yaml").write_text(EVAL_YAML, encoding="utf-8")
    return skill


def test_inspect_lists_every_eval_set(run_cli, both):
    code, out, err = run_cli("inspect", str(both))
    assert (code, err) == (0, "")
    assert "case one" in out and "case t1" in out
    code, out, _ = run_cli("inspect", str(both), "--from", "agentv")
    assert "case t1" in out and "case one" not in out


def test_validate_checks_every_eval_set(run_cli, both):
    (both / "EVAL.yaml").write_text(EVAL_YAML.replace("    input:", "    inptu:"), encoding="utf-8")
    (both / "evals" / "cases" / "one.yaml").write_text("task: x\nchecks:\n  - transcript_mention: hello\n")
    code, out, err = run_cli("validate", str(both))
    assert code == 1
    assert {line.split(":")[0].rsplit("/", 1)[-1] for line in out.splitlines() if ": EV" in line} == {"EVAL.yaml", "one.yaml"}


def test_lint_checks_every_eval_set(run_cli, both):
    (both / "EVAL.yaml").write_text(EVAL_YAML + "  - id: t1\n    input: again\n", encoding="utf-8")
    code, out, err = run_cli("lint", str(both), "--format", "json")
    files = {d["path"].rsplit("/", 1)[-1] for d in json.loads(out)["diagnostics"]}
    assert "one.yaml" in files and "EVAL.yaml" in files


def test_score_picks_a_case_among_every_eval_set(run_cli, both, tmp_path):
    t = tmp_path / "t.jsonl"
    t.write_text('{"type":"assistant","message":{"content":[{"type":"text","text":"NOTES_MADE hello"}]}}\n'
                 '{"type":"result","subtype":"success","result":"NOTES_MADE hello"}\n')
    code, out, err = run_cli("score", str(both), "--transcript", str(t))
    assert code == 2 and err == f"evalfmt: {both} holds 2 cases (one, t1); pick one with --case NAME\n"
    for case in ("one", "t1"):
        code, out, err = run_cli("score", str(both), "--transcript", str(t), "--case", case)
        assert (code, err) == (0, ""), err


def test_compare_refuses_without_from_and_accepts_run_output(run_cli, both, tmp_path):
    out = tmp_path / "out"
    code, _, err = run_cli("compare", str(both), "--arm", f"candidate={out}/candidate", "--arm", f"baseline={out}/baseline")
    assert code == 2 and err.startswith(f"evalfmt: {both} {REFUSAL}")
    code, stdout, err = run_cli("run", str(both), "--from", "terum", "--agent-command", agent_command(),
                                "--out", str(out), "--quiet")
    assert (code, err) == (0, "")
    assert json.loads((out / "receipt.json").read_text())["provenance"]["eval_format"] == "terum"
    code, again, err = run_cli("compare", str(both), "--runs", str(out))  # run's own output folder, no --from
    assert (code, err) == (0, "")
    assert again.splitlines()[0] == stdout.splitlines()[0] == "one vs baseline: tie (checks-equal-no-judge)"
    code, again, err = run_cli("compare", str(both), "--from", "terum", "--arm", f"candidate={out}/candidate",
                               "--arm", f"baseline={out}/baseline")
    assert (code, err) == (0, "") and again.splitlines()[0] == "one vs baseline: tie (checks-equal-no-judge)"


def test_compare_runs_needs_a_run_output_folder(run_cli, both, tmp_path):
    code, _, err = run_cli("compare", str(both), "--from", "terum", "--runs", str(tmp_path))
    assert code == 2 and err == f"evalfmt: --runs {tmp_path}: not the output folder of evalfmt run (no candidate/ folder)\n"
    code, _, err = run_cli("compare", str(both), "--from", "terum")
    assert code == 2 and "give --arm NAME=RUNS_DIR (candidate and an opponent) or --runs DIR" in err


def test_run_refuses_without_from(run_cli, both, tmp_path):
    code, _, err = run_cli("run", str(both), "--agent-command", agent_command(), "--out", str(tmp_path / "o"))
    assert code == 2 and err.startswith(f"evalfmt: {both} {REFUSAL}")
    assert not (tmp_path / "o").exists()
