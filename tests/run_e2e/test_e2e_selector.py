"""``evalfmt triggers --selector command``: the selection prompt, a fake selector program, recorded
selections (the file --selections reads), scoring, and the fire rate over --runs."""

from __future__ import annotations

import json

import pytest
from e2ehelp import make_skill, selector_command

from evalfmt.run import selectors

TRIGGERS = """should_trigger:
  - Write release notes for v2.3.0.
  - Summarise the merged work since the last tag.
  - Draft the notes for the upcoming version.
should_not_trigger:
  - Write a commit message for my staged changes.
  - Review my diff and the release checklist.
  - Bump the version in package.json.
"""
SCORE = ["triggers: recall=0.67 precision=0.67 (tp=2 fn=1 fp=1 tn=2)",
         "MISS: Draft the notes for the upcoming version.",
         "FALSE-FIRE: Review my diff and the release checklist."]


@pytest.fixture
def library(tmp_path):
    lib = tmp_path / "lib"
    make_skill(lib, "commit-message", {}, description="Writes commit messages for staged changes.")
    make_skill(lib, "code-review", {}, description="Reviews a diff for bugs.")
    return make_skill(lib, "release-notes", {}, triggers=TRIGGERS,
                      description="Drafts release notes from the git history.")


def test_selection_prompt_has_the_catalog_the_request_and_the_reply_wanted():
    prompt = selectors.selection_prompt(["- a: does a", "- b: does b"], "Please do b.")
    assert "- a: does a\n- b: does b\n" in prompt
    assert "<<<\nPlease do b.\n>>>" in prompt
    assert prompt.endswith('Answer with a JSON object and nothing else, in the form {"selected": ["skill-name", ...]}.\n')


@pytest.mark.parametrize("text, selected", [
    ('{"selected": ["a", "b"]}', ["a", "b"]),
    ('Sure: {"selected": ["a"]} is my pick.', ["a"]),
    (json.dumps({"type": "result", "result": 'I pick {"selected": ["c"]}'}), ["c"]),
    ('{"selected": "a"}', []),  # not a list: an empty selection, as terum reads it
])
def test_parse_selection(text, selected):
    assert selectors.parse_selection(text) == selected


def test_parse_selection_without_json_fails():
    with pytest.raises(ValueError, match="no JSON object in the answer"):
        selectors.parse_selection("no idea")


@pytest.mark.parametrize("flags", [(), ("--envelope",), ("--prose",)])
def test_command_selector_records_and_scores(run_cli, library, tmp_path, flags):
    rec = tmp_path / "selections.jsonl"
    code, stdout, stderr = run_cli("triggers", str(library), "--selector", "command",
                                   "--selector-command", selector_command(*flags), "--record", str(rec))
    assert (code, stdout.splitlines(), stderr) == (1, SCORE, "")
    assert [json.loads(line) for line in rec.read_text().splitlines()] == [
        {"prompt": "Write release notes for v2.3.0.", "selected": ["release-notes"]},
        {"prompt": "Summarise the merged work since the last tag.", "selected": ["release-notes"]},
        {"prompt": "Draft the notes for the upcoming version.", "selected": []},
        {"prompt": "Write a commit message for my staged changes.", "selected": ["commit-message"]},
        {"prompt": "Review my diff and the release checklist.", "selected": ["code-review", "release-notes"]},
        {"prompt": "Bump the version in package.json.", "selected": []},
    ]
    # the recorded file is what --selections reads: scoring it again gives the same result
    code, again, _ = run_cli("triggers", str(library), "--selections", str(rec))
    assert (code, again.splitlines()) == (1, SCORE)


def test_failed_selections(run_cli, library, tmp_path):
    rec = tmp_path / "sel.jsonl"
    code, stdout, stderr = run_cli("triggers", str(library), "--selector", "command", "--record", str(rec),
                                   "--selector-command",
                                   selector_command("--fail-on", "Bump", "--garbage-on", "Write release"),
                                   "--format", "json")
    assert code == 1
    data = json.loads(stdout)
    assert (data["tp"], data["fn"], data["fp"], data["tn"]) == (1, 2, 1, 1)  # Bump counts nowhere
    assert data["misses"] == ["Write release notes for v2.3.0.", "Draft the notes for the upcoming version."]
    assert stderr.splitlines() == [
        "evalfmt: selection failed: Write release notes for v2.3.0.: no JSON object in the answer: "
        "'I would rather not say.'",
        "evalfmt: selection failed: Bump the version in package.json.: selector exited 3: fake_selector: model overloaded",
    ]
    lines = [json.loads(x) for x in rec.read_text().splitlines()]
    assert lines[5] == {"prompt": "Bump the version in package.json.",
                        "error": "selector exited 3: fake_selector: model overloaded"}


def test_runs_give_a_fire_rate(run_cli, library, tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    cmd = selector_command("--flaky", str(state))
    code, stdout, _ = run_cli("triggers", str(library), "--selector", "command", "--selector-command", cmd,
                              "--runs", "3")
    assert code == 1
    assert stdout.splitlines() == [
        "fire rate 3/3 = 1.00 (should trigger): Write release notes for v2.3.0.",
        "fire rate 2/3 = 0.67 (should trigger): Summarise the merged work since the last tag.",
        "fire rate 0/3 = 0.00 (should trigger): Draft the notes for the upcoming version.",
        "fire rate 0/3 = 0.00 (should not trigger): Write a commit message for my staged changes.",
        "fire rate 3/3 = 1.00 (should not trigger): Review my diff and the release checklist.",
        "fire rate 0/3 = 0.00 (should not trigger): Bump the version in package.json.",
    ] + SCORE
    # 1 of 2 is exactly the default threshold (fires); a higher threshold makes it a miss
    for f in state.iterdir():
        f.unlink()
    code, stdout, _ = run_cli("triggers", str(library), "--selector", "command", "--selector-command", cmd,
                              "--runs", "2", "--threshold", "0.6", "--format", "json")
    data = json.loads(stdout)
    assert data["prompts"][1] == {"prompt": "Summarise the merged work since the last tag.", "should_trigger": True,
                                  "runs": 2, "fired": 1, "errors": 0, "rate": 0.5}
    assert (data["runs"], data["threshold"], data["tp"], data["fn"]) == (2, 0.6, 1, 2)


@pytest.mark.parametrize("args, message", [
    (("--selector", "command"), "the command selector needs --selector-command TEMPLATE"),
    (("--selector", "nope"), "unknown selector 'nope'"),
    (("--selector", "command", "--selections", "x.jsonl"), "give --selections FILE or --selector NAME, not both"),
    (("--selector-command", "x"), "--selector-command and --record need --selector command"),
    (("--selector", "command", "--selector-command", "evalfmt-no-such-selector"),
     "--selector-command: 'evalfmt-no-such-selector' not found on PATH"),
])
def test_selector_usage_errors(run_cli, library, args, message):
    code, stdout, stderr = run_cli("triggers", str(library), *args)
    assert (code, stdout) == (2, "")
    assert stderr.startswith("evalfmt: " + message)
