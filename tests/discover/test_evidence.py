"""Which reader a file goes to needs evidence of its format (docs/discovery.md):

- a file an agentv eval file reads its tests from belongs to that eval file, wherever it sits (agentv's
  external datasets in ``evals/cases/``), and is never also read as terum;
- a file at terum's paths (``evals/suite.yaml``, ``evals/triggers.yaml``, ``evals/cases/*.yaml``) is terum's
  only inside a skill folder (SKILL.md above its ``evals/``) and only when it names terum's fields;
  otherwise it is left unread with a note on stderr, never a failure;
- ``--from terum`` reads it as terum whatever it holds (the user's choice wins);
- a trigger set outside a skill folder belongs to no skill, whichever format it is written in.
"""

from __future__ import annotations

import pytest

from evalfmt.discover import Unit, discover

SKILL_MD = "---\nname: {name}\ndescription: Writes release notes.\n---\nBody.\n"

EVAL = "name: accuracy\ntests:\n  - file://cases/accuracy.yaml\n"
DATASET = """\
- id: sums
  input: What is 2+2?
  criteria: answers 4
- id: capitals
  input: What is the capital of France?
  criteria: answers Paris
"""


def write(root, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def note(path: str, root: str) -> str:
    return (f"evalfmt: note: {path}: not read: no SKILL.md in {root}, so it is not a terum skill's file "
            "(another tool's?); --from terum reads it as one\n")


# ------------------------------------------------------------------------ agentv external datasets


@pytest.mark.parametrize("with_skill", [False, True])
def test_an_external_dataset_belongs_to_its_eval_file(run_cli, tmp_path, with_skill):
    write(tmp_path, {"evals/EVAL.yaml": EVAL, "evals/cases/accuracy.yaml": DATASET})
    if with_skill:
        write(tmp_path, {"SKILL.md": SKILL_MD.format(name=tmp_path.name)})
    assert run_cli("validate", ".", cwd=str(tmp_path)) == (0, "", "")
    code, out, err = run_cli("lint", "--isolated", "--select", "EV1,EV5", ".", cwd=str(tmp_path))
    assert (code, err) == (0, "")
    assert out.startswith("0 errors, 0 warnings in ")
    code, out, err = run_cli("inspect", ".", cwd=str(tmp_path))
    assert (code, err) == (0, "")
    # a skill folder named directly is shown even when it holds no terum file
    empty = f"terum  .  (skill {tmp_path.name})\n  (no cases, suite or triggers)\n\n" if with_skill else ""
    assert out == empty + ("agentv  ./evals/EVAL.yaml  (accuracy)\n"
                   "  case sums      What is 2+2?\n"
                   "                 no checks\n"
                   "  case capitals  What is the capital of France?\n"
                   "                 no checks\n")
    units = discover(str(tmp_path))
    assert [(u.format, u.path) for u in units if u.note is None and u.format == "agentv"] == [
        ("agentv", str(tmp_path / "evals" / "EVAL.yaml"))]
    assert all(u.format != "terum" or dict(u.options).get("exclude") for u in units)


def test_a_dataset_named_alone_is_checked_through_its_eval_file(run_cli, tmp_path):
    """pre-commit passes only the changed file: its findings come from reading it as agentv does."""
    write(tmp_path, {"evals/EVAL.yaml": EVAL, "evals/cases/accuracy.yaml": DATASET.replace("  input: What is 2+2?\n", "")})
    code, out, err = run_cli("validate", "evals/cases/accuracy.yaml", cwd=str(tmp_path))
    assert (code, err) == (1, "")
    assert out == ("evals/cases/accuracy.yaml:1:3: EV103 test 'sums' is missing 'input'; give the prompt as a string "
                   "or a list of messages\n1 error, 0 warnings in 1 file\n")
    assert discover("evals/cases/accuracy.yaml") == [Unit("agentv", "evals/EVAL.yaml")]


@pytest.mark.parametrize("files,dataset", [
    ({"evals/EVAL.yaml": "tests: ./cases/accuracy.yaml\n"}, "evals/cases/accuracy.yaml"),
    ({"evals/EVAL.yaml": "tests:\n  - file://cases/acc*.yaml\n"}, "evals/cases/accuracy.yaml"),
    ({"evals/EVAL.yaml": "tests:\n  - file://tests/accuracy.yaml\n"}, "evals/tests/accuracy.yaml"),
    ({"EVAL.yaml": "tests:\n  - file://evals/cases/accuracy.yaml\n"}, "evals/cases/accuracy.yaml"),
    ({"evals/dataset.eval.yaml": "tests: cases\n"}, "evals/cases/sums/case.yaml"),
    ({"evals/EVAL.yaml": "tests:\n  - file://data/accuracy.yaml\n"}, "evals/data/accuracy.yaml"),
])
def test_every_way_agentv_names_a_tests_file(run_cli, tmp_path, files, dataset):
    write(tmp_path, {"SKILL.md": SKILL_MD.format(name=tmp_path.name), **files})
    if dataset.endswith("case.yaml"):
        write(tmp_path, {dataset: "input: What is 2+2?\ncriteria: answers 4\n"})
    else:
        write(tmp_path, {dataset: DATASET})
    # a terum case beside it is still terum's
    write(tmp_path, {"evals/cases/terum-case.yaml": "task: Write the notes.\nbogus: 1\n"})
    code, out, err = run_cli("validate", ".", cwd=str(tmp_path))
    assert (code, err) == (1, "")
    assert out == ("./evals/cases/terum-case.yaml:2:1: EV101 unknown key 'bogus'; the engine ignores it silently\n"
                   "1 error, 0 warnings in 1 file\n")
    assert run_cli("validate", dataset, cwd=str(tmp_path)) == (0, "", "")
    owner = str(tmp_path / next(iter(files)))
    assert discover(str(tmp_path / dataset)) == [Unit("agentv", owner)]


# --------------------------------------------------------------------- other tools at terum's paths

OTHER_SUITE = """\
description: Checks the refund desk makes the right call.
population: authored-enumeration
must-pass: 70%
rules:
  - must-say-one-of: [approve, deny]
"""
AGENTV5_SUITE = "name: release-notes\ntests:\n  - id: a\n    input: Write the notes.\n    criteria: lists the changes\n"
OTHER_TRIGGERS = "- query: write the release notes\n  should_trigger: true\n- query: what time is it\n  should_trigger: false\n"
TERUM_TRIGGERS = "should_trigger:\n  - write the release notes\nshould_not_trigger:\n  - what time is it\n"


@pytest.mark.parametrize("rel,text", [
    ("evals/suite.yaml", OTHER_SUITE),
    ("evals/suite.yaml", AGENTV5_SUITE),
    ("evals/triggers.yaml", OTHER_TRIGGERS),
    ("evals/triggers.yaml", TERUM_TRIGGERS),
    ("evals/cases/refund.yaml", "scenario: a refund over the limit\nexpect: deny\n"),
])
def test_outside_a_skill_folder_files_at_terum_paths_are_not_read(run_cli, tmp_path, rel, text):
    write(tmp_path, {rel: text})
    nothing = "evalfmt: no eval files found under .\n"
    assert run_cli("validate", ".", cwd=str(tmp_path)) == (0, "", note(f"./{rel}", ".") + nothing)
    assert run_cli("inspect", ".", cwd=str(tmp_path)) == (0, "", note(f"./{rel}", ".") + nothing)
    assert run_cli("lint", "--isolated", ".", cwd=str(tmp_path)) == (0, "0 errors, 0 warnings in 0 files\n",
                                                                     note(f"./{rel}", ".") + nothing)
    # named alone, as pre-commit does
    assert run_cli("validate", rel, cwd=str(tmp_path)) == (0, "", note(rel, "."))
    assert run_cli("lint", "--isolated", rel, cwd=str(tmp_path)) == (0, "0 errors, 0 warnings in 0 files\n",
                                                                     note(rel, "."))


@pytest.mark.parametrize("rel,text,what,why", [
    ("evals/suite.yaml", OTHER_SUITE, "suite", "none of its keys ('description', 'population', 'must-pass', 'rules') "
                                               "is one of terum's"),
    ("evals/suite.yaml", AGENTV5_SUITE, "suite", "none of its keys ('name', 'tests') is one of terum's"),
    ("evals/triggers.yaml", OTHER_TRIGGERS, "triggers file", "it holds a list, and none of its items has one of "
                                                             "terum's fields"),
    ("evals/cases/refund.yaml", "scenario: a refund over the limit\nexpect: deny\n", "case",
     "none of its keys ('scenario', 'expect') is one of terum's"),
    ("evals/cases/accuracy.yaml", DATASET, "case", "it holds a list, and none of its items has one of terum's fields"),
])
def test_inside_a_skill_folder_other_tools_files_are_not_read(run_cli, tmp_path, rel, text, what, why):
    write(tmp_path, {"demo/SKILL.md": SKILL_MD.format(name="demo"), f"demo/{rel}": text})
    expected = f"evalfmt: note: demo/{rel}: not read as a terum {what}: {why}; --from terum reads it as one\n"
    assert run_cli("validate", "demo", cwd=str(tmp_path)) == (0, "", expected)
    assert run_cli("validate", f"demo/{rel}", cwd=str(tmp_path)) == (0, "", expected)
    code, out, err = run_cli("lint", "--isolated", "--select", "EV", "demo", cwd=str(tmp_path))
    assert (code, err) == (0, expected)


def test_terum_files_with_typos_are_still_terum(run_cli, tmp_path):
    """Evidence is one of terum's fields or a near misspelling of one: the typo is reported, not skipped."""
    write(tmp_path, {"demo/SKILL.md": SKILL_MD.format(name="demo"),
                     "demo/evals/cases/c.yaml": "tsak: Write the notes.\ncheck: []\n",
                     "demo/evals/triggers.yaml": "should-trigger: [write notes]\n",
                     "demo/evals/cases/list.yaml": "- task: Write the notes.\n"})
    code, out, err = run_cli("validate", "demo", cwd=str(tmp_path))
    assert (code, err) == (1, "")
    assert out == (
        "demo/evals/cases/c.yaml:1:1: EV101 unknown key 'tsak' (did you mean 'task'?); the engine ignores it silently\n"
        "demo/evals/cases/c.yaml:1:1: EV103 case 'c' needs a 'task' (the prompt the agent receives)\n"
        "demo/evals/cases/c.yaml:2:1: EV101 unknown key 'check' (did you mean 'checks'?); the engine ignores it silently\n"
        "demo/evals/cases/list.yaml:1:1: EV102 a case file must be a mapping of fields, this one is a list\n"
        "demo/evals/cases/list.yaml:1:1: EV103 case 'list' needs a 'task' (the prompt the agent receives)\n"
        "demo/evals/triggers.yaml:1:1: EV101 unknown key 'should-trigger' (did you mean 'should_trigger'?); the engine "
        "reads only 'should_trigger' and 'should_not_trigger'\n"
        "6 errors, 0 warnings in 3 files\n")


def test_from_terum_reads_them_anyway(run_cli, tmp_path):
    write(tmp_path, {"evals/suite.yaml": OTHER_SUITE})
    code, out, err = run_cli("validate", "--from", "terum", "evals/suite.yaml", cwd=str(tmp_path))
    assert (code, err) == (1, "")
    assert out.startswith("evals/suite.yaml:1:1: EV101 unknown key 'description'; the engine ignores it silently\n")
    assert "EV103 suite 'suite' needs a 'task'" in out
    code, out, err = run_cli("validate", "--from", "terum", ".", cwd=str(tmp_path))
    assert (code, err) == (1, "")
    assert "evals/suite.yaml:1:1: EV103 suite 'suite' needs a 'task'" in out


# ----------------------------------------------------------- trigger sets outside a skill folder


def test_one_rule_for_trigger_sets_outside_a_skill_folder(run_cli, tmp_path):
    """Neither a terum triggers file nor a skill-creator trigger set outside a skill folder is given
    to the folder that happens to hold it."""
    write(tmp_path, {"t1/evals/triggers.yaml": TERUM_TRIGGERS,
                     "t2/evals/trigger-evals.json": '[{"query": "write the release notes", "should_trigger": true},\n'
                                                    ' {"query": "what time is it", "should_trigger": false}]\n',
                     "sel.jsonl": '{"prompt": "write the release notes", "selected": ["t1"]}\n'
                                  '{"prompt": "what time is it", "selected": []}\n'})
    refused = (2, "", "evalfmt: the trigger set names no skill (it is not in a skill folder): give the skill folder "
                      "or --skill NAME\n")
    assert run_cli("triggers", "--from", "terum", "t1/evals/triggers.yaml", "--selections", "sel.jsonl",
                   cwd=str(tmp_path)) == refused
    assert run_cli("triggers", "t2/evals/trigger-evals.json", "--selections", "sel.jsonl", cwd=str(tmp_path)) == refused
    # not forced, the terum file outside a skill folder is not read at all, and the error says why
    assert run_cli("triggers", "t1/evals/triggers.yaml", "--selections", "sel.jsonl", cwd=str(tmp_path)) == (
        2, "", note("t1/evals/triggers.yaml", "t1").replace("evalfmt: note: ", "evalfmt: "))
    # with the skill named, both are scored
    for path in ("t1/evals/triggers.yaml", "t2/evals/trigger-evals.json"):
        code, out, err = run_cli("triggers", "--from", "terum" if path.endswith("yaml") else "skill-creator-triggers",
                                 path, "--skill", "t1", "--selections", "sel.jsonl", cwd=str(tmp_path))
        assert (code, err) == (0, "")
    # inside a skill folder both belong to it
    write(tmp_path, {"t1/SKILL.md": SKILL_MD.format(name="t1"), "t2/SKILL.md": SKILL_MD.format(name="t2")})
    for path in ("t1/evals/triggers.yaml", "t2/evals/trigger-evals.json"):
        code, out, err = run_cli("inspect", "--format", "json", "--no-spans", path, cwd=str(tmp_path))
        assert code == 0 and f'"name": "{path[:2]}"' in out


def test_convert_says_which_files_it_left_unread(run_cli, tmp_path):
    """convert prints the same notes as lint and validate (a file left out of a conversion is never silent),
    and when nothing was read at all the error is the note itself, not a bare 'no eval assets found'."""
    write(tmp_path, {"demo/SKILL.md": SKILL_MD.format(name="demo"),
                     "demo/evals/cases/ok.yaml": "task: Write the notes.\nchecks:\n  - wrote_file: NOTES.md\n",
                     "demo/evals/cases/refund.yaml": "scenario: a refund over the limit\nexpect: deny\n"})
    code, out, err = run_cli("convert", "demo", "--to", "agentv", cwd=str(tmp_path))
    assert code == 0
    assert "ok" in out and "refund" not in out
    assert err.startswith("evalfmt: note: demo/evals/cases/refund.yaml: not read as a terum case: none of its keys "
                          "('scenario', 'expect') is one of terum's; --from terum reads it as one\n")
    write(tmp_path, {"t1/evals/suite.yaml": OTHER_SUITE})
    assert run_cli("convert", "t1", "--to", "agentv", cwd=str(tmp_path)) == (
        2, "", note("t1/evals/suite.yaml", "t1").replace("evalfmt: note: ", "evalfmt: "))
