"""EV505 does not depend on which files are linted (issue 24 items 1 and 2): a generated file's sources
are every eval file that writes into its `.agentv/skills/`, whatever the command names, and
`transpile` writes (and `--check`s) a file from all of them. Before the fix, linting EVAL.yaml and
legacy.eval.yaml one at a time gave two different "stale" findings on their shared evals.json, each
advising a transpile of that file alone; the generated file linted alone, or a terum skill's triggers,
gave nothing; `transpile` routed the inputs in the order given, so `transpile legacy.eval.yaml
EVAL.yaml` wrote a file `lint .` called stale."""

from __future__ import annotations

import os
import time

import pytest

COMMIT_JSON = ".agentv/skills/commit-message/evals.json"
NOTES_JSON = ".agentv/skills/release-notes/evals.json"


def eval_yaml(test_id: str, prompt: str, skill: str = "commit-message") -> str:
    return (f"tests:\n  - id: {test_id}\n    input: {prompt}\n    assertions:\n"
            f"      - {{type: skill-trigger, skill: {skill}}}\n")


EVAL = eval_yaml("staged", "Write a commit message for the staged diff.")
LEGACY = eval_yaml("amend", "Reword the message of the last commit.")
SKILL_MD = "---\nname: release-notes\ndescription: Drafts release notes from the git history.\n---\n# Notes\n"
TRIGGERS = ("should_trigger:\n  - Write the release notes since v1.4.0.\n"
            "should_not_trigger:\n  - Write a commit message for the staged diff.\n")
STALE = (f"{COMMIT_JSON}:1:1: EV505 stale: differs from what EVAL.yaml and legacy.eval.yaml transpile to; "
         "run 'evalfmt transpile EVAL.yaml legacy.eval.yaml' and commit the result")


def write(root, rel: str, text: str):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def folder(tmp_path, run_cli):
    """EVAL.yaml and legacy.eval.yaml, both routed to commit-message, transpiled together."""
    write(tmp_path, "EVAL.yaml", EVAL)
    write(tmp_path, "legacy.eval.yaml", LEGACY)
    assert run_cli("transpile", "EVAL.yaml", "legacy.eval.yaml", cwd=str(tmp_path))[0] == 0
    return tmp_path


def lint(run_cli, root, *paths: str) -> tuple[int, str]:
    code, out, err = run_cli("lint", "--isolated", "--select", "EV505", *paths, cwd=str(root))
    assert err == ""
    return code, out.splitlines()[0] if out else ""


SUBSETS = [["EVAL.yaml"], ["legacy.eval.yaml"], ["EVAL.yaml", "legacy.eval.yaml"], ["."], [COMMIT_JSON],
           ["./EVAL.yaml"], [COMMIT_JSON, "legacy.eval.yaml"]]


@pytest.mark.parametrize("paths", SUBSETS, ids=lambda p: "+".join(p))
def test_one_finding_whatever_files_are_linted(run_cli, folder, paths):
    assert lint(run_cli, folder, *paths)[0] == 0
    write(folder, "EVAL.yaml", EVAL.replace("staged diff", "staged changes"))
    assert lint(run_cli, folder, *paths) == (1, STALE)


def test_following_the_advice_makes_the_folder_clean(run_cli, folder):
    write(folder, "legacy.eval.yaml", LEGACY.replace("last commit", "latest commit"))
    code, line = lint(run_cli, folder, "legacy.eval.yaml")
    assert (code, line) == (1, STALE)
    command = line.split("run '", 1)[1].split("'", 1)[0].split()
    assert run_cli(*command[1:], cwd=str(folder))[0] == 0
    assert lint(run_cli, folder, ".")[0] == 0


def test_a_missing_file_is_reported_on_the_file_linted(run_cli, folder):
    """The output folder exists (another skill's file is there); this skill's file is not."""
    write(folder, "legacy.eval.yaml", LEGACY + eval_yaml("notes", "Draft the notes.", "release-notes")
          .replace("tests:\n", ""))
    assert lint(run_cli, folder, "legacy.eval.yaml") == (
        1, f"legacy.eval.yaml:1:1: EV505 {NOTES_JSON} is missing: run 'evalfmt transpile legacy.eval.yaml' and "
           "commit the result")
    assert lint(run_cli, folder, ".")[1] == "./" + lint(run_cli, folder, "legacy.eval.yaml")[1]  # as spelled
    assert lint(run_cli, folder, "EVAL.yaml")[0] == 0  # the file of the skill it routes to is up to date


def test_a_terum_skill_is_a_source_too(run_cli, tmp_path):
    write(tmp_path, "release-notes/SKILL.md", SKILL_MD)
    write(tmp_path, "release-notes/evals/triggers.yaml", TRIGGERS)
    write(tmp_path, "release-notes/evals/cases/notes.yaml", "task: Write the release notes.\nbucket: explicit\n"
          "checks:\n  - transcript_mentions: LegacyConfigLoader\n")
    write(tmp_path, "EVAL.yaml", eval_yaml("notes", "Notes since v1.4.0, please.", "release-notes"))
    assert run_cli("transpile", ".", cwd=str(tmp_path))[0] == 0
    write(tmp_path, "release-notes/evals/triggers.yaml", TRIGGERS.replace("Write the", "Draft the"))
    line = (f"{NOTES_JSON}:1:1: EV505 stale: differs from what EVAL.yaml and release-notes transpile to; run "
            "'evalfmt transpile EVAL.yaml release-notes' and commit the result")
    for paths in (["release-notes/evals/triggers.yaml"], ["release-notes"], ["EVAL.yaml"], [NOTES_JSON], ["."]):
        assert lint(run_cli, tmp_path, *paths) == (1, line), paths
    # a case routes to no skill: linting it alone compares nothing
    assert lint(run_cli, tmp_path, "release-notes/evals/cases/notes.yaml") == (0, "0 errors, 0 warnings in 1 file")


def test_the_cache_sees_the_other_sources(run_cli, folder):
    """A warm run of `lint EVAL.yaml` depends on legacy.eval.yaml: a change there is seen."""
    assert lint(run_cli, folder, "EVAL.yaml")[0] == 0
    assert lint(run_cli, folder, "EVAL.yaml")[0] == 0  # read back from the cache
    time.sleep(0.01)
    path = write(folder, "legacy.eval.yaml", LEGACY.replace("last commit", "latest commit"))
    os.utime(path, (time.time() + 5, time.time() + 5))
    assert lint(run_cli, folder, "EVAL.yaml") == (1, STALE)


def test_transpile_routes_every_source_in_path_order(run_cli, tmp_path):
    write(tmp_path, "EVAL.yaml", EVAL)
    write(tmp_path, "legacy.eval.yaml", LEGACY)
    assert run_cli("transpile", "legacy.eval.yaml", "EVAL.yaml", cwd=str(tmp_path))[0] == 0
    reversed_order = (tmp_path / COMMIT_JSON).read_bytes()
    assert reversed_order.index(b'"staged"') < reversed_order.index(b'"amend"')
    assert run_cli("transpile", "--check", ".", cwd=str(tmp_path)) == (0, "", "")
    code, out, err = run_cli("transpile", "--check", "EVAL.yaml", cwd=str(tmp_path))
    assert (code, out, err) == (0, "", "evalfmt: note: also read legacy.eval.yaml: it transpiles into "
                                       ".agentv/skills too\n")
    assert lint(run_cli, tmp_path, ".")[0] == 0


def test_transpile_of_one_source_writes_only_the_files_it_routes_to(run_cli, tmp_path):
    """`transpile EVAL.yaml` writes commit-message's file from both of its sources, and not the file of
    release-notes, which only the sibling routes to; with -o (a folder named on purpose) only the inputs
    given are routed, in the order given."""
    write(tmp_path, "EVAL.yaml", EVAL)
    write(tmp_path, "legacy.eval.yaml", LEGACY + eval_yaml("notes", "Draft the notes.", "release-notes")
          .replace("tests:\n", ""))
    assert run_cli("transpile", "EVAL.yaml", cwd=str(tmp_path)) == (
        0, "", "evalfmt: note: also read legacy.eval.yaml: it transpiles into .agentv/skills too\n"
               f"evalfmt: wrote {COMMIT_JSON}\n")
    assert b'"amend"' in (tmp_path / COMMIT_JSON).read_bytes() and not (tmp_path / NOTES_JSON).exists()
    assert run_cli("transpile", "-o", "out", "legacy.eval.yaml", "EVAL.yaml", cwd=str(tmp_path))[0] == 0
    given = (tmp_path / "out/commit-message/evals.json").read_bytes()
    assert given.index(b'"amend"') < given.index(b'"staged"')
    assert run_cli("transpile", "-o", "one", "EVAL.yaml", cwd=str(tmp_path)) == (
        0, "", "evalfmt: wrote one/commit-message/evals.json\n")


def test_agentv_layout_file_linted_alone(run_cli, tmp_path):
    """With layouts = ["seed", "agentv"], a file `agentv transpile` writes, given by its path, is compared
    with what the EVAL.yaml beside it writes under that name; the advice keeps the layout."""
    write(tmp_path, "evalfmt.toml", '[rules.EV505]\nlayouts = ["seed", "agentv"]\n')
    write(tmp_path, "EVAL.yaml", EVAL + eval_yaml("notes", "Draft the notes.", "release-notes").replace("tests:\n", ""))
    assert run_cli("transpile", "--layout", "agentv", "EVAL.yaml", cwd=str(tmp_path))[0] == 0
    target = tmp_path / "release-notes.evals.json"
    target.write_text(target.read_text().replace("Draft", "Write"))
    code, out, err = run_cli("lint", "--select", "EV505", "release-notes.evals.json", cwd=str(tmp_path))
    assert (code, err) == (1, "")
    assert out == ("release-notes.evals.json:1:1: EV505 stale: differs from what EVAL.yaml transpiles to; run "
                   "'evalfmt transpile --layout agentv EVAL.yaml' and commit the result\n"
                   "1 error, 0 warnings in 1 file\n")
    assert run_cli("lint", "--select", "EV505", "commit-message.evals.json", cwd=str(tmp_path))[0] == 0


def test_the_agentv_layout_output_is_no_source_of_the_seed_layout(run_cli, tmp_path):
    """evals.json that `transpile --layout agentv` wrote beside EVAL.yaml reads as an Agent Skills file with
    triggers; it is transpile output, not input: `transpile .` routed its evals into the seed file too
    (ids "1", "2" next to "staged"), and `lint .` then called the seed file stale."""
    write(tmp_path, "EVAL.yaml", EVAL)
    assert run_cli("transpile", "--layout", "agentv", "EVAL.yaml", cwd=str(tmp_path))[0] == 0
    assert (tmp_path / "evals.json").is_file()
    assert run_cli("transpile", ".", cwd=str(tmp_path)) == (0, "", f"evalfmt: wrote {COMMIT_JSON}\n")
    assert b'"id": "1"' not in (tmp_path / COMMIT_JSON).read_bytes()
    assert run_cli("transpile", "--check", "EVAL.yaml", cwd=str(tmp_path)) == (0, "", "")
    assert lint(run_cli, tmp_path, ".")[0] == 0
    assert lint(run_cli, tmp_path, "evals.json")[0] == 0
