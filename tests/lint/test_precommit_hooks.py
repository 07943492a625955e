"""The pre-commit hooks of this repository (.pre-commit-hooks.yaml), run by the real `pre-commit`
against a temporary git repository (tests/hookrepo.py): a commit with a broken eval file is refused,
the fixed one goes through.

`test_hooks_installed_from_this_repository` is what a user does: `repo:` this repository at its HEAD
commit, `language: python` hooks, so pre-commit clones the repository and pip-installs it into its own
virtualenv (from the package index: the one network access the CI machine has; ~15 s, then cached in
.cache/pre-commit). `test_hook_definitions_as_system_hooks` runs the same ids, entries and file
patterns as `language: system` hooks with this checkout's evalfmt: no install, the working tree's code,
and it checks each hook's file pattern on both kinds of commit.
"""

from __future__ import annotations

import re

import pytest

from conftest import ROOT
from hookrepo import HookRepo, documented_hooks, hook_definitions

SKILL_MD = "---\nname: notes\ndescription: Drafts release notes from the git history.\n---\n# Notes\n"
BAD = "task: Write the release notes since v1.4.0.\ncheck:\n  - file_absent: RELEASE_NOTES.md\n"
GOOD = ("task: Write the release notes since v1.4.0.\nbucket: adversarial\nchecks:\n"
        "  - transcript_mentions: LegacyConfigLoader\n  - file_absent: RELEASE_NOTES.md\n")


def commit_twice(repo: HookRepo):
    """A commit with a broken case file (refused), then with the fixed one (accepted). Both commits
    also carry evals/fixtures/settings.yaml, which no hook may be given (it is not an eval file)."""
    repo.write("notes/SKILL.md", SKILL_MD)
    repo.write("notes/evals/fixtures/settings.yaml", "not: an eval file\n")
    repo.write("notes/evals/cases/release.yaml", BAD)
    refused = repo.commit("broken case")
    repo.write("notes/evals/cases/release.yaml", GOOD)
    accepted = repo.commit("fixed case")
    return refused, accepted


def test_hooks_installed_from_this_repository(tmp_path):
    refused, accepted = commit_twice(HookRepo(tmp_path, [{"id": "evalfmt-lint"}, {"id": "evalfmt-validate"}]))
    assert refused.refused, refused.output
    assert "evalfmt lint" in refused.output and "Failed" in refused.output
    assert ("notes/evals/cases/release.yaml:2:1: EV101 unknown key 'check' (did you mean 'checks'?)"
            in refused.output)
    assert accepted.landed, accepted.output


def test_hook_definitions_as_system_hooks(tmp_path):
    assert {"evalfmt-lint", "evalfmt-validate", "evalfmt-transpile-check"} <= set(hook_definitions())
    repo = HookRepo(tmp_path, [{"id": "evalfmt-lint"}, {"id": "evalfmt-validate"}], source="local")
    refused, accepted = commit_twice(repo)
    assert refused.refused, refused.output
    assert refused.output.count("Failed") == 2  # both hooks refuse the broken case
    assert "1 error, 1 warning in 3 files (1 fixable)" in refused.output  # lint: the case, SKILL.md's folder
    assert accepted.landed, accepted.output
    assert "evalfmt lint" in accepted.output and accepted.output.count("Passed") == 2


@pytest.mark.parametrize("doc", ["README.md", "docs/lint.md"])
def test_documented_snippet_enables_lint_or_validate_not_both(doc):
    """With both hooks every structural finding printed twice (lint runs validate's rules too)."""
    ids = [h["id"] for h in documented_hooks(doc)]
    assert ids == ["evalfmt-lint", "evalfmt-transpile-check"]
    text = (ROOT / doc).read_text("utf-8")
    snippet = re.search(r"# \.pre-commit-config\.yaml\n.*?```", text, re.S).group(0)
    assert "evalfmt-validate" in snippet and "not both" in snippet  # the comment says when to choose which


def test_lint_hook_also_runs_on_configuration_files():
    """A commit that only breaks evalfmt.toml / [tool.evalfmt] is refused too: the lint hook is given the
    configuration file (it skips it as an eval file and checks it as configuration)."""
    pattern = re.compile(hook_definitions()["evalfmt-lint"]["files"])
    assert pattern.search("evalfmt.toml") and pattern.search("sub/pyproject.toml")
    assert not pattern.search("evals/fixtures/settings.yaml") and not pattern.search("ruff.toml")
