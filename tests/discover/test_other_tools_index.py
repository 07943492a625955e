"""Other tools' files in a skill folder are theirs (issue 24 item 7; docs/discovery.md):

- a file another tool's index names belongs to that tool: an ``evals/eval.yaml`` that has no ``tests`` and
  lists its own ``evals/cases/*.yaml`` (``schema_version: 1``, ``cases: [...]``) is that tool's index, not an
  agentv eval file, and the cases it lists are not terum's, whatever fields they hold;
- one generic key (``judge:``, ``files:``, ``setup:``, ``requires:``) is not evidence of terum: only terum's
  own fields (``task``, ``checks``, ``fixture``, ``bucket``, ``timeout_minutes``, ``max_turns``) or a typo of one.

Before, such a folder was read as terum (every listed case: EV101 for id/prompt/expected, EV103 no task,
EV102 judge not a string) and its index as agentv (EV103 missing tests, EV101 per key): validate exited 1.
"""

from __future__ import annotations

import pytest

from evalfmt.discover import Unit, discover

SKILL_MD = "---\nname: demo\ndescription: Decides refunds.\n---\nBody.\n"
INDEX = """\
schema_version: 1
skill: demo
cases:
  - cases/refund-over-limit.yaml
  - cases/refund-in-window.yaml
defaults:
  judge:
    model: claude-sonnet-4
"""
OVER_LIMIT = """\
id: refund-over-limit
prompt: A customer asks for a refund of 900 EUR on a 30-day-old order.
expected:
  decision: deny
judge:
  rubric: The reply denies the refund and cites the 500 EUR limit.
checks:
  - decision: deny
"""
IN_WINDOW = """\
id: refund-in-window
prompt: A customer asks for a refund of 40 EUR on a 3-day-old order.
expected:
  decision: approve
judge:
  rubric: The reply approves the refund.
"""


def write(root, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def listed(path: str) -> str:
    return (f"evalfmt: note: {path}: not read: demo/evals/eval.yaml lists it, so it is that tool's file, not "
            "terum's; --from terum reads it as one\n")


INDEX_NOTE = ("evalfmt: note: demo/evals/eval.yaml: not read as an agentv eval file: it has no 'tests' and lists "
              "other files (cases/refund-over-limit.yaml, cases/refund-in-window.yaml), as another tool's index "
              "does; --from agentv reads it as one\n")
NOTES = (listed("demo/evals/cases/refund-in-window.yaml") + listed("demo/evals/cases/refund-over-limit.yaml")
         + INDEX_NOTE)


@pytest.fixture
def skill(tmp_path):
    write(tmp_path, {"demo/SKILL.md": SKILL_MD, "demo/evals/eval.yaml": INDEX,
                     "demo/evals/cases/refund-over-limit.yaml": OVER_LIMIT,
                     "demo/evals/cases/refund-in-window.yaml": IN_WINDOW})
    return tmp_path


def test_the_skill_folder_passes_validate_and_lint(run_cli, skill):
    assert run_cli("validate", "demo", cwd=str(skill)) == (0, "", NOTES)
    code, out, err = run_cli("lint", "--isolated", "--select", "EV", "demo", cwd=str(skill))
    assert (code, out, err) == (0, "0 errors, 0 warnings in 4 files\n", NOTES)


def test_each_file_named_alone_passes(run_cli, skill):
    """pre-commit passes the changed files one by one: each gets its note, none fails."""
    for rel in ("demo/evals/cases/refund-over-limit.yaml", "demo/evals/cases/refund-in-window.yaml"):
        assert run_cli("validate", rel, cwd=str(skill)) == (0, "", listed(rel))
    assert run_cli("validate", "demo/evals/eval.yaml", cwd=str(skill)) == (0, "", INDEX_NOTE)
    assert discover(str(skill / "demo" / "evals" / "eval.yaml"))[0].note is not None


def test_a_glob_in_the_index_names_files_too(run_cli, skill):
    write(skill, {"demo/evals/eval.yaml": "schema_version: 1\ntasks:\n  - cases/*.yaml\n"})
    code, out, err = run_cli("validate", "demo", cwd=str(skill))
    assert (code, out) == (0, "")
    assert err.splitlines()[:2] == [listed("demo/evals/cases/refund-in-window.yaml").rstrip("\n"),
                                    listed("demo/evals/cases/refund-over-limit.yaml").rstrip("\n")]


def test_a_terum_case_the_index_does_not_list_is_still_terum(run_cli, skill):
    write(skill, {"demo/evals/cases/notes.yaml": "task: Write the notes.\nbogus: 1\n"})
    code, out, err = run_cli("validate", "demo", cwd=str(skill))
    assert (code, err) == (1, NOTES)
    assert out == ("demo/evals/cases/notes.yaml:2:1: EV101 unknown key 'bogus'; the engine ignores it silently\n"
                   "1 error, 0 warnings in 1 file\n")


def test_from_terum_and_from_agentv_read_them_anyway(run_cli, skill):
    assert run_cli("validate", "demo/evals/eval.yaml", cwd=str(skill)) == (0, "", INDEX_NOTE)
    code, out, err = run_cli("validate", "--from", "terum", "demo", cwd=str(skill))
    assert (code, err) == (1, "")
    assert "demo/evals/cases/refund-in-window.yaml:1:1: EV103 case 'refund-in-window' needs a 'task'" in out
    code, out, err = run_cli("validate", "--from", "agentv", "demo/evals/eval.yaml", cwd=str(skill))
    assert (code, err) == (1, "")
    assert "demo/evals/eval.yaml:1:1: EV103 missing 'tests'" in out


@pytest.mark.parametrize("text", ["name: release\n", "name: release\ndescription: d\ninput_files: [x.md]\n",
                                  "tets:\n  - id: a\n", "schema_version: 1\n"])
def test_an_eval_yaml_that_lists_no_files_is_still_agentv(run_cli, skill, text):
    """Named like agentv's and naming no other file: agentv's, so its faults are reported, beside the index."""
    write(skill, {"evals/eval.yaml": text})
    assert discover(str(skill / "evals" / "eval.yaml")) == [Unit("agentv", str(skill / "evals" / "eval.yaml"))]
    code, out, err = run_cli("validate", ".", cwd=str(skill))
    assert (code, sorted(err.replace("./demo/", "demo/").splitlines())) == (1, sorted(NOTES.splitlines()))
    assert out.startswith("./evals/eval.yaml:1:1: ") and "./demo/" not in out


# ------------------------------------------------------------------------------- generic keys


@pytest.mark.parametrize("text, why", [
    ("judge: The reply is polite.\nprompt: Say hi.\n", "('judge' is one other tools use as well)"),
    ("judge:\n  rubric: polite\nfiles:\n  a.txt: x\nscenario: hi\n", "('judge', 'files' are ones other tools use as well)"),
    ("setup: make\nrequires: [git]\n", "('setup', 'requires' are ones other tools use as well)"),
])
def test_a_generic_key_alone_is_not_evidence_of_terum(run_cli, tmp_path, text, why):
    write(tmp_path, {"demo/SKILL.md": SKILL_MD, "demo/evals/cases/c.yaml": text})
    code, out, err = run_cli("validate", "demo", cwd=str(tmp_path))
    assert (code, out) == (0, "")
    assert err.startswith("evalfmt: note: demo/evals/cases/c.yaml: not read as a terum case: none of its keys (")
    assert err.endswith(f"is one of terum's own fields {why}; --from terum reads it as one\n")


TASK_NEEDED = "demo/evals/cases/c.yaml:1:1: EV103 case 'c' needs a 'task' (the prompt the agent receives)\n"


@pytest.mark.parametrize("text, out", [
    ("judge: The reply is polite.\ntask: Say hi.\n", ""),
    ("judge: polite\ntsak: Say hi.\n", TASK_NEEDED + "demo/evals/cases/c.yaml:2:1: EV101 unknown key 'tsak' (did you "
     "mean 'task'?); the engine ignores it silently\n2 errors, 0 warnings in 1 file\n"),
    ("judge: polite\nbucket: explicit\n", TASK_NEEDED + "1 error, 0 warnings in 1 file\n"),
])
def test_a_generic_key_beside_one_of_terums_own_is_terum(run_cli, tmp_path, text, out):
    """Read as terum, its faults reported; beside it, a case with generic keys only is not."""
    write(tmp_path, {"demo/SKILL.md": SKILL_MD, "demo/evals/cases/c.yaml": text,
                     "demo/evals/cases/d.yaml": "judge: The reply is polite.\nprompt: Say hi.\n"})
    assert run_cli("validate", "demo", cwd=str(tmp_path)) == (
        1 if out else 0, out, "evalfmt: note: demo/evals/cases/d.yaml: not read as a terum case: none of its keys "
        "('judge', 'prompt') is one of terum's own fields ('judge' is one other tools use as well); --from terum "
        "reads it as one\n")
