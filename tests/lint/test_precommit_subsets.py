"""The pre-commit gate is right on every subset of files (issue 24 items 1 and 2), run by the real
`pre-commit` on a git repository with the hooks the README tells users to add (evalfmt-lint and
evalfmt-transpile-check, as `language: system` hooks with this checkout's evalfmt: no network).

The repository: two terum skills (commit-message, release-notes) and, beside them, an EVAL.yaml and a
legacy.eval.yaml, all of which write into `.agentv/skills/` (commit-message's evals.json is fed by
EVAL.yaml, legacy.eval.yaml and the commit-message skill's triggers). Before the fix:

- a commit of the whole repository, just transpiled, was refused (pre-commit splits the files between
  processes); a commit of EVAL.yaml with the evals.json `transpile .` wrote was refused (EV505 and transpile --check
  routed EVAL.yaml alone), and the advice, `evalfmt transpile legacy.eval.yaml`, left `lint .` failing;
- a hand-edited evals.json was committed with both hooks "(no files to check) Skipped", and an edited
  terum triggers.yaml with its evals.json left stale was committed (EV505 read EVAL.yaml files only).
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest

from hookrepo import HookRepo, documented_hooks, hook_definitions


def skill_md(name: str, what: str) -> str:
    return f"---\nname: {name}\ndescription: {what}\n---\n# {name}\n"


def eval_yaml(test_id: str, prompt: str) -> str:
    return (f"tests:\n  - id: {test_id}\n    input: {prompt}\n    criteria: The message names the change.\n"
            "    assertions:\n      - {type: skill-trigger, skill: commit-message}\n")


def triggers(yes: str, no: str) -> str:
    return f"should_trigger:\n  - {yes}\nshould_not_trigger:\n  - {no}\n"


FILES = {
    "commit-message/SKILL.md": skill_md("commit-message", "Writes a commit message for the staged changes."),
    "commit-message/evals/triggers.yaml": triggers("Write a commit message for these changes.",
                                                   "Draft the release notes for v1.5.0."),
    "release-notes/SKILL.md": skill_md("release-notes", "Drafts release notes from the git history."),
    "release-notes/evals/triggers.yaml": triggers("Write the release notes since v1.4.0.",
                                                  "Write a commit message for the staged diff."),
    "release-notes/evals/cases/notes.yaml": ("task: Write the release notes since v1.4.0.\nbucket: explicit\n"
                                             "checks:\n  - transcript_mentions: LegacyConfigLoader\n"
                                             "  - file_absent: RELEASE_NOTES.md\n"),
    "EVAL.yaml": eval_yaml("staged", "Write a commit message for the staged diff."),
    "legacy.eval.yaml": eval_yaml("amend", "Reword the message of the last commit."),
}
COMMIT_JSON = ".agentv/skills/commit-message/evals.json"
NOTES_JSON = ".agentv/skills/release-notes/evals.json"
ALL_SOURCES = "EVAL.yaml, commit-message and legacy.eval.yaml"
ADVICE = "run 'evalfmt transpile EVAL.yaml commit-message legacy.eval.yaml' and commit the result"
STALE = f"{COMMIT_JSON}:1:1: EV505 stale: differs from what {ALL_SOURCES} transpile to; {ADVICE}"


def evalfmt(repo: HookRepo, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalfmt", *args], cwd=repo.path, capture_output=True,
                          text=True, env=repo.env)


def hook_lines(output: str) -> dict[str, str]:
    """hook name -> its status as pre-commit prints it (Passed, Failed, or '(no files to check)Skipped')."""
    found = {}
    for line in output.splitlines():
        m = re.match(r"^(evalfmt [\w -]+?)\.{3,}(.*)$", line)
        if m:
            found[m.group(1)] = m.group(2)
    return found


def transpiled(tmp_path) -> HookRepo:
    """The repository above with pre-commit installed, transpiled (`evalfmt transpile .`), nothing committed."""
    hooks = documented_hooks("README.md")
    assert [h["id"] for h in hooks] == ["evalfmt-lint", "evalfmt-transpile-check"]
    r = HookRepo(tmp_path, hooks, source="local")
    for rel, text in FILES.items():
        r.write(rel, text)
    written = evalfmt(r, "transpile", ".")
    assert written.returncode == 0, written.stderr
    return r


@pytest.fixture
def repo(tmp_path) -> HookRepo:
    """The repository above, transpiled and committed (without the hooks: the next test commits it
    with them), so that each test's commit is the only one the hooks judge."""
    r = transpiled(tmp_path)
    assert r.commit("two skills and their evals", verify=False).landed
    return r


def assert_lint_clean(repo: HookRepo) -> None:
    whole = evalfmt(repo, "lint", ".")
    assert whole.returncode == 0, whole.stdout + whole.stderr


def test_the_whole_repository_transpiled_is_committed(tmp_path):
    """pre-commit splits the files it passes a hook between processes (one per CPU): even a commit of
    everything gives each process a subset. Before the fix, each lint process reported the evals.json
    stale from the EVAL file it had, and transpile --check routed two of its three sources."""
    first = transpiled(tmp_path).commit("two skills and their evals")
    assert first.landed, first.output
    assert hook_lines(first.output) == {"evalfmt lint": "Passed", "evalfmt transpile --check": "Passed"}


def test_a_source_committed_with_the_file_transpile_wrote_goes_through(repo):
    repo.write("EVAL.yaml", eval_yaml("staged", "Write a commit message for what I staged."))
    assert evalfmt(repo, "transpile", ".").returncode == 0
    result = repo.commit("reword a prompt", ["EVAL.yaml", COMMIT_JSON])
    assert result.landed, result.output
    assert hook_lines(result.output) == {"evalfmt lint": "Passed", "evalfmt transpile --check": "Passed"}
    assert_lint_clean(repo)


def test_transpiling_one_source_writes_every_source_into_the_file(repo):
    """`evalfmt transpile legacy.eval.yaml` alone (what the old advice said) keeps the tests of the other
    sources of the file: the commit goes through and `lint .` stays clean."""
    repo.write("legacy.eval.yaml", eval_yaml("amend", "Reword the last commit message."))
    written = evalfmt(repo, "transpile", "legacy.eval.yaml")
    assert written.returncode == 0, written.stderr
    assert written.stderr == ("evalfmt: note: also read EVAL.yaml: it transpiles into .agentv/skills too\n"
                              "evalfmt: note: also read commit-message: it transpiles into .agentv/skills too\n"
                              f"evalfmt: wrote {COMMIT_JSON}\n")
    result = repo.commit("reword the legacy prompt", ["legacy.eval.yaml", COMMIT_JSON])
    assert result.landed, result.output
    assert_lint_clean(repo)


def test_a_stale_file_is_refused_naming_every_source_and_the_advice_works(repo):
    repo.write("legacy.eval.yaml", eval_yaml("amend", "Reword the last commit message."))
    result = repo.commit("reword the legacy prompt, not transpiled", ["legacy.eval.yaml"])
    assert result.refused, result.output
    assert hook_lines(result.output) == {"evalfmt lint": "Failed", "evalfmt transpile --check": "Failed"}
    assert "- hook id: evalfmt-lint\n- exit code: 1\n\n" + STALE + "\n1 error, 0 warnings in 2 files\n" \
        in result.output, result.output
    assert (f"evalfmt: differs: {COMMIT_JSON}\n"
            "evalfmt: 1 of 1 file out of date; to update, run: evalfmt transpile legacy.eval.yaml\n") in result.output
    advice = re.search(r"run '(evalfmt transpile [^']+)'", STALE).group(1)
    assert evalfmt(repo, *shlex.split(advice)[1:]).returncode == 0
    fixed = repo.commit("reword the legacy prompt", ["legacy.eval.yaml", COMMIT_JSON])
    assert fixed.landed, fixed.output
    assert_lint_clean(repo)


def test_a_source_left_out_of_the_commit_is_seen_as_committed(repo):
    """Two sources edited and transpiled, one of them staged: pre-commit sets the other aside, so the
    staged evals.json holds tests the commit does not have. Refused, on whichever file is staged."""
    repo.write("EVAL.yaml", eval_yaml("staged", "Write a commit message for what I staged."))
    repo.write("legacy.eval.yaml", eval_yaml("amend", "Reword the last commit message."))
    assert evalfmt(repo, "transpile", ".").returncode == 0
    result = repo.commit("half of the change", ["EVAL.yaml", COMMIT_JSON])
    assert result.refused, result.output
    assert hook_lines(result.output)["evalfmt lint"] == "Failed"
    assert STALE in result.output, result.output
    whole = repo.commit("all of the change")
    assert whole.landed, whole.output


def test_a_hand_edited_generated_file_is_refused(repo):
    repo.write(COMMIT_JSON, (repo.path / COMMIT_JSON).read_text().replace("staged diff", "staged changes"))
    result = repo.commit("edit the generated file by hand")
    assert result.refused, result.output
    assert hook_lines(result.output) == {"evalfmt lint": "Failed",
                                         "evalfmt transpile --check": "(no files to check)Skipped"}
    assert "- hook id: evalfmt-lint\n- exit code: 1\n\n" + STALE + "\n1 error, 0 warnings in 1 file\n" \
        in result.output, result.output
    alone = evalfmt(repo, "lint", COMMIT_JSON)
    assert (alone.returncode, alone.stdout) == (1, STALE + "\n1 error, 0 warnings in 1 file\n")


def test_a_generated_file_that_no_longer_reads_is_refused(repo):
    """A hand edit that leaves no eval file evalfmt recognises (`{}`) is compared all the same."""
    repo.write(COMMIT_JSON, "{}\n")
    result = repo.commit("empty the generated file")
    assert result.refused, result.output
    assert STALE in result.output, result.output


def test_a_terum_skill_triggers_edit_without_transpiling_is_refused(repo):
    repo.write("release-notes/evals/triggers.yaml", triggers("Draft the release notes since v1.4.0.",
                                                             "Write a commit message for the staged diff."))
    result = repo.commit("reword a trigger, not transpiled")
    assert result.refused, result.output
    assert hook_lines(result.output) == {"evalfmt lint": "Failed",
                                         "evalfmt transpile --check": "(no files to check)Skipped"}
    line = (f"{NOTES_JSON}:1:1: EV505 stale: differs from what release-notes transpiles to; run 'evalfmt "
            "transpile release-notes' and commit the result")
    assert "- hook id: evalfmt-lint\n- exit code: 1\n\n" + line + "\n1 error, 0 warnings in 2 files\n" \
        in result.output, result.output
    assert evalfmt(repo, "transpile", "release-notes").returncode == 0
    fixed = repo.commit("reword a trigger")
    assert fixed.landed, fixed.output
    assert_lint_clean(repo)


@pytest.mark.parametrize("layout", ["seed", "agentv"])
def test_the_lint_hook_is_given_every_file_transpile_writes(tmp_path, layout):
    """The files written by both layouts, from an EVAL.yaml of one skill and of two skills and from a
    terum skill, as transpile names them on stderr."""
    for rel, text in FILES.items():
        (tmp_path / "one" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "one" / rel).write_text(text)
    two = FILES["EVAL.yaml"] + "  - id: notes\n    input: Notes, please.\n    criteria: x\n    assertions:\n" \
        "      - {type: skill-trigger, skill: release-notes}\n"
    (tmp_path / "two").mkdir()
    (tmp_path / "two" / "EVAL.yaml").write_text(two)
    written = []
    for inputs in (["one/EVAL.yaml", "one/release-notes"], ["two/EVAL.yaml"]):
        proc = subprocess.run([sys.executable, "-m", "evalfmt", "transpile", "--layout", layout, *inputs],
                              cwd=tmp_path, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        written += re.findall(r"^evalfmt: wrote (.*)$", proc.stderr, re.M)
    expected = {"seed": {"one/" + COMMIT_JSON, "one/" + NOTES_JSON, "two/" + COMMIT_JSON, "two/" + NOTES_JSON},
                "agentv": {"one/evals.json", "one/release-notes/evals.json", "two/commit-message.evals.json",
                           "two/release-notes.evals.json"}}[layout]
    assert {w.replace("/./", "/") for w in written} == expected
    pattern = re.compile(hook_definitions()["evalfmt-lint"]["files"])
    assert [w for w in written if not pattern.search(w)] == []
