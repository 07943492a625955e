"""--fix and --diff: EV101 key renames, EV501 renames and type replacements, EV111 file renames.
Every other byte stays (comments, key order, quoting, indentation, line endings, a BOM), a second
run changes nothing, and --diff previews without writing."""

from __future__ import annotations


import pytest

from lintkit import materialize

CASE = (
    "# Release notes, the plain request.\n"
    "task: Write the release notes since v1.4.0.   # the prompt\n"
    "timeout: 30\n"
    "\"chek\":\n"
    "    - { transcript_mentions: \"LegacyConfigLoader\" }\n"
    "    - file_absent: 'NOTES.orig'\n"
    "bucket: explicit\n"
)
FIXED = CASE.replace("timeout: 30", "timeout_minutes: 30").replace('"chek":', '"checks":')


def tree(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_fix_renames_keys_in_place_and_is_idempotent(run_cli, tmp_path):
    repo = materialize(tmp_path, {"files": {"evals/cases/a.yaml": CASE}})
    path = repo / "sample" / "evals" / "cases" / "a.yaml"
    code, out, err = run_cli("lint", "--isolated", "--select", "EV1", "--fix", "sample", cwd=str(repo))
    assert (code, out, err) == (0, "0 errors, 0 warnings in 1 file (2 fixed)\n", "")
    assert path.read_text() == FIXED
    before = tree(repo)
    code, out, err = run_cli("lint", "--isolated", "--select", "EV1", "--fix", "sample", cwd=str(repo))
    assert (code, out, err) == (0, "0 errors, 0 warnings in 1 file\n", "")
    assert tree(repo) == before


def test_diff_previews_without_writing(run_cli, tmp_path):
    repo = materialize(tmp_path, {"files": {"evals/cases/a.yaml": CASE}})
    before = tree(repo)
    code, out, err = run_cli("lint", "--isolated", "--diff", "sample", cwd=str(repo))
    assert (code, err) == (1, "")
    assert out == (
        "--- a/sample/evals/cases/a.yaml\n"
        "+++ b/sample/evals/cases/a.yaml\n"
        "@@ -1,7 +1,7 @@\n"
        " # Release notes, the plain request.\n"
        " task: Write the release notes since v1.4.0.   # the prompt\n"
        "-timeout: 30\n"
        "-\"chek\":\n"
        "+timeout_minutes: 30\n"
        "+\"checks\":\n"
        "     - { transcript_mentions: \"LegacyConfigLoader\" }\n"
        "     - file_absent: 'NOTES.orig'\n"
        " bucket: explicit\n")
    assert tree(repo) == before
    run_cli("lint", "--isolated", "--fix", "sample", cwd=str(repo))
    assert run_cli("lint", "--isolated", "--diff", "sample", cwd=str(repo)) == (0, "", "")


def test_ambiguous_or_taken_suggestion_is_not_fixed(run_cli, tmp_path):
    case = "task: Write the notes.\nchecks:\n  - file_absent: NOTES.orig\ncheck: []\nzzz: 1\n"
    repo = materialize(tmp_path, {"files": {"evals/cases/a.yaml": case}})
    code, out, err = run_cli("lint", "--isolated", "--select", "EV101", "--fix", "sample", cwd=str(repo))
    assert code == 1
    assert (repo / "sample" / "evals" / "cases" / "a.yaml").read_text() == case
    assert out.endswith("2 errors, 0 warnings in 1 file\n")


def test_crlf_and_bom_survive(run_cli, tmp_path):
    raw = b"\xef\xbb\xbftask: Write the notes.\r\ncheck:\r\n  - file_absent: NOTES.orig\r\n"
    repo = materialize(tmp_path, {"files": {"evals/cases/a.yaml": raw}})
    run_cli("lint", "--isolated", "--select", "EV101", "--fix", "sample", cwd=str(repo))
    assert (repo / "sample/evals/cases/a.yaml").read_bytes() == raw.replace(b"check:", b"checks:")


def test_undiscovered_files_are_renamed_byte_for_byte(run_cli, tmp_path):
    suite = b"# the suite\ntask: Review the diff\r\ncases:\n  - name: finds-leak\n    checks: [{transcript_mentions: POOL_LEAK}]\n  - name: spares-retry\n    checks: [{transcript_omits: RETRY_OK}]\n"
    trig = b"should_trigger: ['Review my diff for leaks.']\nshould_not_trigger: ['Write a commit message.']\n"
    repo = materialize(tmp_path, {"files": {"evals/suite.yml": suite, "evals/Triggers.yaml": trig,
                                            "evals/cases/a.yaml": b"task: Write the notes.\nchecks: [{file_absent: X}]\n",
                                            "evals/cases/a.json": b"{}\n"}})
    evals = repo / "sample" / "evals"
    code, out, err = run_cli("lint", "--isolated", "--select", "EV111", "--diff", "sample", cwd=str(repo))
    assert code == 1
    assert out == ("diff --git a/sample/evals/Triggers.yaml b/sample/evals/triggers.yaml\nsimilarity index 100%\n"
                   "rename from sample/evals/Triggers.yaml\nrename to sample/evals/triggers.yaml\n"
                   "diff --git a/sample/evals/suite.yml b/sample/evals/suite.yaml\nsimilarity index 100%\n"
                   "rename from sample/evals/suite.yml\nrename to sample/evals/suite.yaml\n")
    code, out, err = run_cli("lint", "--isolated", "--select", "EV111", "--fix", "sample", cwd=str(repo))
    # a.json cannot become a.yaml: that file exists; it stays reported
    assert out == ("sample/evals/cases/a.json:1:1: EV111 never loaded: the engine reads exactly evals/suite.yaml, "
                   "evals/triggers.yaml and evals/cases/*.yaml|*.yml; rename it to evals/cases/a.yaml (that file "
                   "already exists: merge them by hand)\n1 error, 0 warnings in 4 files (2 fixed)\n")
    assert code == 1
    assert (evals / "suite.yaml").read_bytes() == suite and not (evals / "suite.yml").exists()
    assert (evals / "triggers.yaml").read_bytes() == trig and not (evals / "Triggers.yaml").exists()


def test_a_rename_that_cannot_be_done_is_a_one_line_error(run_cli, tmp_path):
    repo = materialize(tmp_path, {"files": {"evals/case/a.yaml": "task: x\n", "evals/cases": "not a folder\n"}})
    assert run_cli("lint", "--isolated", "--select", "EV111", "--fix", "sample", cwd=str(repo)) == (
        2, "", "evalfmt: cannot move sample/evals/case/a.yaml to sample/evals/cases/a.yaml: File exists; "
               "move it by hand\n")
    assert (repo / "sample" / "evals" / "case" / "a.yaml").read_text() == "task: x\n"


def test_fix_of_a_file_given_by_path_follows_the_rename(run_cli, tmp_path):
    """pre-commit passes file names: a renamed file is re-linted under its new name."""
    repo = materialize(tmp_path, {"files": {"evals/trigger.yaml": "should_trigger: [Write notes.]\nshould_not_trigger: [Commit.]\n"}})
    code, out, err = run_cli("lint", "--isolated", "--fix", "sample/evals/trigger.yaml", cwd=str(repo))
    assert (code, err) == (0, "")
    assert (repo / "sample/evals/triggers.yaml").exists()
    assert out == "0 errors, 0 warnings in 1 file (1 fixed)\n"


def test_agentv_deprecations_are_fixed(run_cli, tmp_path):
    src = ("# legacy names\neval_cases:\n  - id: notes\n    input: Write release notes since v1.4.0.\n"
           "    expected_outcome: The notes list breaking changes first.   # kept\n"
           "    assert:\n      - type: llm_judge\n      - {type: \"code_judge\", command: ./check.sh}\n")
    repo = materialize(tmp_path, {"files": {"EVAL.yaml": src}})
    code, out, err = run_cli("lint", "--isolated", "--select", "EV501", "--fix", "sample", cwd=str(repo))
    assert (repo / "sample/EVAL.yaml").read_text() == (
        "# legacy names\ntests:\n  - id: notes\n    input: Write release notes since v1.4.0.\n"
        "    criteria: The notes list breaking changes first.   # kept\n"
        "    assertions:\n      - type: llm-grader\n      - {type: \"code-grader\", command: ./check.sh}\n")
    assert (code, err) == (0, "")
    assert out == "0 errors, 0 warnings in 1 file (7 fixed)\n"  # 2 types need 2 passes: snake_case, then -grader


def test_json_key_fix(run_cli, tmp_path):
    """A reader that marks EV101 fixable with a suggestion (agent-skills evals.json) gets the same splice."""
    src = '{\n  "skill_name": "sample",\n  "evals": [\n    {"id": 1, "prompt": "Do it.", "expectatons": ["x"]}\n  ]\n}\n'
    repo = materialize(tmp_path, {"files": {"evals/evals.json": src}})
    code, out, err = run_cli("lint", "--isolated", "--select", "EV101", "--fix", "sample", cwd=str(repo))
    assert (code, out, err) == (0, "0 errors, 0 warnings in 1 file (1 fixed)\n", "")
    assert (repo / "sample/evals/evals.json").read_text() == src.replace('"expectatons"', '"expectations"')


# ------------------------------------------------------------ line breaks the YAML parser counts (issue 11.5)

BREAKS = {"LS": "\u2028", "PS": "\u2029", "NEL": "\x85", "CR": "\r", "CRLF": "\r\n"}


@pytest.mark.parametrize("where", ["string", "comment"])
@pytest.mark.parametrize("name", list(BREAKS))
def test_fix_counts_the_line_breaks_the_yaml_parser_counts(run_cli, tmp_path, name, where):
    """libyaml ends a line at a lone CR, NEL, U+2028 and U+2029 too: the splice must land on the
    mistyped key, not on the key as many lines below as the file holds such breaks."""
    br = BREAKS[name]
    head = f"task: 'Write the notes.{br}  Then stop.'\n" if where == "string" else f"task: Write the notes. # a{br}\n"
    case = head + "setup: git init -q\nchekcs:\n  - file_absent: NOTES.orig\n"
    repo = materialize(tmp_path, {"files": {"evals/cases/a.yaml": case.encode("utf-8")}})
    code, out, err = run_cli("lint", "--isolated", "--select", "EV101", "--fix", "sample", cwd=str(repo))
    assert (code, out, err) == (0, "0 errors, 0 warnings in 1 file (1 fixed)\n", "")
    assert (repo / "sample/evals/cases/a.yaml").read_bytes() == case.replace("chekcs:", "checks:").encode("utf-8")


def test_fix_refuses_a_token_that_is_not_the_one_the_finding_is_about(tmp_path):
    """A finding whose position holds another key (a stale or miscounted position) is not fixed."""
    from evalfmt.errors import Diagnostic
    from evalfmt.lint import fix

    text = "task: Write the notes.\nsetup: git init -q\nchekcs: []\n"
    path = str(tmp_path / "a.yaml")
    stale = Diagnostic(path, 2, 1, "EV101", "unknown key 'chekcs'", "warning", fixable=True,
                       data={"suggestion": "checks", "old": "chekcs"})
    assert fix.plan([stale], {path: text}).empty
    # without 'old' (a plugin's finding), the token must still be what the loader read at that spot:
    # column 3 of line 2 is inside 'setup', where no key starts
    inside = Diagnostic(path, 2, 3, "EV101", "unknown key", "warning", fixable=True, data={"suggestion": "checks"})
    assert fix.plan([inside], {path: text}).empty
    right = Diagnostic(path, 3, 1, "EV101", "unknown key 'chekcs'", "warning", fixable=True,
                       data={"suggestion": "checks", "old": "chekcs"})
    assert fix.plan([right], {path: text}).edits == {path: text.replace("chekcs", "checks")}


NEVER_LOADED = ("EV111 never loaded: the engine reads exactly evals/suite.yaml, evals/triggers.yaml and "
                "evals/cases/*.yaml|*.yml; ")


@pytest.mark.parametrize("fix", [[], ["--fix"], ["--diff"]])
def test_a_file_outside_a_skill_evals_folder_is_never_moved(run_cli, tmp_path, fix):
    """Issue 24 item 3: `--from terum a/b/wrong.json --fix` moved a JSON file that is not an eval file to
    a/cases/wrong.yaml, making the folder; without --fix it proposed that path, two folders up (and
    --diff showed that move)."""
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "wrong.json").write_text('{"not": "an eval"}\n')
    code, out, err = run_cli("lint", "--isolated", "--from", "terum", "a/b/wrong.json", *fix, cwd=str(tmp_path))
    if fix == ["--diff"]:
        assert (code, out, err) == (0, "", "")  # nothing to move
    else:
        assert (code, err) == (1, "")
        assert out == ("a/b/wrong.json:1:1: " + NEVER_LOADED + "no name to give it: it is not in a skill's evals/ "
                       "folder or a folder directly in it (a skill's evals/ has SKILL.md in the folder above it)\n"
                       "1 error, 0 warnings in 1 file\n")
    assert tree(tmp_path) == {"a/b/wrong.json": b'{"not": "an eval"}\n'}
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == ["a", "a/b", "a/b/wrong.json"]


def test_a_file_in_a_skill_evals_that_is_not_an_eval_file_is_never_moved(run_cli, tmp_path):
    """Read as terum on purpose (--from terum), a file with none of terum's fields is reported, not moved."""
    repo = materialize(tmp_path, {"files": {"evals/test/wrong.json": '{"not": "an eval"}\n'}})
    before = tree(repo)
    code, out, err = run_cli("lint", "--isolated", "--from", "terum", "--fix", "sample/evals/test/wrong.json",
                             cwd=str(repo))
    assert (code, err) == (1, "")
    assert out == ("sample/evals/test/wrong.json:1:1: " + NEVER_LOADED + "not renamed: none of its keys ('not') is "
                   "one of terum's, so it is not an eval file\n1 error, 0 warnings in 1 file\n")
    assert tree(repo) == before and not (repo / "sample" / "evals" / "cases").exists()


def test_a_file_deeper_in_evals_gets_no_name(run_cli, tmp_path):
    """evals/a/b/x.yaml: the engine reads no name two folders down either; nothing is made in evals/a/."""
    repo = materialize(tmp_path, {"files": {"evals/a/b/x.yaml": "task: Write the notes.\nchecks: [{file_absent: X}]\n"}})
    code, out, err = run_cli("lint", "--isolated", "--select", "EV111", "--from", "terum", "--fix",
                             "sample/evals/a/b/x.yaml", cwd=str(repo))
    assert (code, err) == (1, "")
    assert out.startswith("sample/evals/a/b/x.yaml:1:1: " + NEVER_LOADED + "no name to give it")
    assert sorted(p.name for p in (repo / "sample" / "evals").rglob("*")) == ["a", "b", "x.yaml"]


def test_a_rename_out_of_the_skill_evals_folder_is_not_planned(tmp_path):
    """The fix itself keeps to the skill's evals/ (a rename_to a rule plugin gives, say): a move that
    would leave it, or a file in no skill's evals/, is not planned, so nothing is moved or made."""
    from evalfmt.errors import Diagnostic
    from evalfmt.lint import fix

    (tmp_path / "s" / "evals").mkdir(parents=True)
    (tmp_path / "s" / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\n")
    src = tmp_path / "s" / "evals" / "suite.yml"
    src.write_text("task: x\n")
    loose = tmp_path / "loose" / "suite.yml"
    loose.parent.mkdir()
    loose.write_text("task: x\n")

    def planned(path, target):
        d = Diagnostic(str(path), 1, 1, "EV111", "never loaded", fixable=True, data={"rename_to": str(target)})
        return fix.plan([d], {}).renames

    assert planned(src, tmp_path / "s" / "cases" / "suite.yaml") == []
    assert planned(src, tmp_path / "s" / "evals" / ".." / ".." / "x" / "suite.yaml") == []
    assert planned(loose, tmp_path / "loose" / "evals" / "suite.yaml") == []
    assert planned(src, tmp_path / "s" / "evals" / "suite.yaml") == [(str(src), str(tmp_path / "s" / "evals" / "suite.yaml"))]
