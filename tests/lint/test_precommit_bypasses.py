"""The gate cannot be bypassed (issue 12 items 1 and 2): with the hooks as the README tells users to add
them, installed by the real `pre-commit` from this repository, a commit holding each of these is
refused. Before the fix every one of them was committed:

- a configuration code that names no rule (`select = ["XYZ"]` turned every rule off: 0 errors, exit 0);
- `assertion:` for `assertions:` in an EVAL.yaml (a warning: the test lost its skill-trigger);
- `type: skill-triger` (a warning; transpile then found no skill-trigger test and exited 0);
- a test agentv skips silently (EV502, a warning).

Checked once by hand against main before the fix (the same commits, hooks installed from main): all
five were committed. The repository set-up is tests/hookrepo.py (shared with the other bypass tests)."""

from __future__ import annotations

import pytest

from hookrepo import HookRepo, documented_hooks

SKILL_MD = "---\nname: release-notes\ndescription: Drafts release notes from the git history.\n---\n# Notes\n"
CASE = ("task: Write the release notes since v1.4.0.\nbucket: explicit\nchecks:\n"
        "  - transcript_mentions: LegacyConfigLoader\n  - transcript_omits: TODO\n")
CASE_TYPO = "task: Write the release notes since v1.4.0.\nbucket: explicit\nchecks:\n  - transcript_mentionz: X\n"


def eval_yaml(test: str) -> str:
    return ("tests:\n"
            "  - id: notes\n    input: Write the release notes since v1.4.0.\n" + test)


GOOD_TEST = "    assertions:\n      - type: skill-trigger\n        skill: release-notes\n"
#: what `evalfmt transpile` writes for the test 'notes' (committed, so transpile --check has no drift)
EVALS_JSON = ('{\n  "tests": [\n    {\n      "id": "notes",\n      "input": "Write the release notes since '
              'v1.4.0.",\n      "should_trigger": true\n    }\n  ]\n}\n')
BYPASSES = {
    # name: (files of the commit, a line the refusal must show)
    "unknown code in evalfmt.toml": (
        {"evalfmt.toml": 'select = ["XYZ"]\n', "release-notes/evals/cases/typo.yaml": CASE_TYPO},
        "evalfmt.toml:1:11: unknown rule code 'XYZ' in select (see 'evalfmt rules' for the codes)"),
    "unknown code in [tool.evalfmt], alone in its commit": (
        {"pyproject.toml": '[project]\nname = "x"\n\n[tool.evalfmt]\nignore = ["EV1", "EV2044"]\n'},
        "pyproject.toml:5:18: unknown rule code 'EV2044' in ignore (did you mean 'EV204'?)"),
    "assertion: for assertions:": (
        {"EVAL.yaml": eval_yaml("    assertion:\n      - type: skill-trigger\n        skill: release-notes\n")},
        "EVAL.yaml:4:5: EV101 unknown key 'assertion' (did you mean 'assertions'?); agentv ignores it"),
    "type: skill-triger": (
        {"EVAL.yaml": eval_yaml("    criteria: Breaking changes come first.\n"
                                "    assertions:\n      - type: skill-triger\n        skill: release-notes\n")},
        "EVAL.yaml:6:15: EV104 unknown assertion type 'skill-triger' (did you mean 'skill-trigger'?)"),
    "a test agentv skips": (
        {"EVAL.yaml": eval_yaml(GOOD_TEST + "  - id: draft\n    input: Draft the notes.\n"),
         ".agentv/skills/release-notes/evals.json": EVALS_JSON},
        "EVAL.yaml:7:5: EV502 agentv skips test 'draft' silently"),
}


def base(repo: HookRepo) -> None:
    """A clean skill, committed first (so each bypass is the only change of its commit)."""
    repo.write("release-notes/SKILL.md", SKILL_MD)
    repo.write("release-notes/evals/cases/notes.yaml", CASE)
    first = repo.commit("a clean skill")
    assert first.landed, first.output


def commit_bypass(repo: HookRepo, name: str, hook: str) -> None:
    """Commit the bypass ``name`` on top of a clean skill and check that ``hook`` refused it."""
    base(repo)
    files, line = BYPASSES[name]
    for rel, text in files.items():
        repo.write(rel, text)
    result = repo.commit(name)
    assert result.refused, result.output
    assert f"evalfmt {hook}" in result.output and "Failed" in result.output
    assert line in result.output, result.output


@pytest.mark.parametrize("name", list(BYPASSES))
def test_each_bypass_is_refused(tmp_path, name):
    hooks = documented_hooks("README.md")
    assert [h["id"] for h in hooks] == ["evalfmt-lint", "evalfmt-transpile-check"]
    commit_bypass(HookRepo(tmp_path, hooks), name, "lint")


def test_the_fixed_files_are_committed(tmp_path):
    """The same commits with the mistakes corrected go through: the gate refuses the typo, not the file."""
    repo = HookRepo(tmp_path, documented_hooks("README.md"))
    base(repo)
    repo.write("evalfmt.toml", 'select = ["EV1", "HYG"]\nignore = ["EV204"]\n')
    repo.write("EVAL.yaml", eval_yaml("    criteria: Breaking changes come first.\n" + GOOD_TEST))
    repo.write(".agentv/skills/release-notes/evals.json", EVALS_JSON)
    result = repo.commit("fixed")
    assert result.landed, result.output


@pytest.mark.parametrize("name", [n for n in BYPASSES if "code" not in n])
def test_each_eval_file_bypass_is_refused_by_the_validate_alternative(tmp_path, name):
    """The snippet's alternative, evalfmt-validate instead of evalfmt-lint, refuses the same typos (it
    reads no rule selection, so a bad code in the configuration is lint's to refuse). Run as system
    hooks with this checkout's code (the install from the repository is covered above)."""
    repo = HookRepo(tmp_path, [{"id": "evalfmt-validate"}, {"id": "evalfmt-transpile-check"}], source="local")
    commit_bypass(repo, name, "validate")
