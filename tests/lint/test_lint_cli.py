"""`evalfmt lint` and `evalfmt rules` at the command line: paths, exit codes, one-line errors,
--jobs giving the same output, the scripts table in sync with Unicode data."""

from __future__ import annotations


from conftest import FIXTURES
from evalfmt.lint import _scripts, _scripts_gen
from lintkit import materialize


def test_missing_path_and_unrecognised_file(run_cli, tmp_path):
    missing = str(tmp_path / "nope")
    assert run_cli("lint", missing) == (2, "", f"evalfmt: {missing}: no such file or directory\n")
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    assert run_cli("lint", str(other)) == (
        2, "", f"evalfmt: {other}: not an eval file evalfmt recognises (use --from FORMAT)\n")
    code, out, err = run_cli("lint", "--isolated", "--skip-unrecognized", str(other))
    assert (code, out, err) == (0, "0 errors, 0 warnings in 0 files\n", "")


def test_usage_error(run_cli):
    code, out, err = run_cli("lint", "--format", "xml", ".")
    assert code == 2 and out == "" and err.startswith("evalfmt: Invalid value for '--format'")


def test_skill_md_path_lints_the_folder(run_cli, tmp_path):
    repo = materialize(tmp_path, {"files": {"SKILL.md": "---\nname: other\ndescription: x\n---\n"}})
    assert run_cli("lint", "--isolated", "sample/SKILL.md", cwd=str(repo)) == (
        1, "sample/SKILL.md:2:7: HYG1 SKILL.md name 'other' does not equal the folder name 'sample': make them the "
           "same\n1 error, 0 warnings in 1 file\n", "")


def test_one_eval_file_gets_its_own_hygiene_only(run_cli, tmp_path):
    """pre-commit style: a case file alone is linted with the per-file hygiene rules, not the folder's."""
    repo = materialize(tmp_path, {"files": {
        "SKILL.md": "---\nname: other\ndescription: x\n---\n",
        "evals/cases/a.yaml": "task: Commit for sam@acme.io.\nchecks: [{command_matching: git commit}, {file_absent: X}]\n",
        "evals/cases/b.yaml": "task: Commit for bob@acme.io.\nchecks: [{command_matching: git commit}, {file_absent: X}]\n"}})
    code, out, err = run_cli("lint", "--isolated", "--quiet", "sample/evals/cases/a.yaml", cwd=str(repo))
    assert (code, err) == (1, "")
    assert out.splitlines() == ["sample/evals/cases/a.yaml:1:18: HYG3 e-mail address sam@acme.io is not the skill "
                                "author's (this skill declares no metadata.author address, so no address is exempt): "
                                "use a reserved domain such as example.com"]


def test_jobs_give_the_same_output(run_cli):
    args = ("lint", "--isolated", "--format", "json", str(FIXTURES))
    assert run_cli(*args, "--jobs", "2") == run_cli(*args)


def test_rules_listing_and_explain(run_cli):
    code, out, err = run_cli("rules")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("EV001  unused-suppression")
    assert any(line.startswith("EV101  unknown-key (fix)") for line in lines)
    assert any(line.startswith("HYG8   outside-references") for line in lines)
    code, out, err = run_cli("rules", "--explain", "ev204")
    assert code == 0 and out.startswith("EV204 short-anchor: warning\n")
    assert "Fails:" in out and "Passes:" in out and "Fix:" in out and "min-length" in out
    assert run_cli("rules", "--explain", "EV999") == (2, "", "evalfmt: unknown rule 'EV999' (see 'evalfmt rules')\n")
    code, out, err = run_cli("rules", "--format", "json")
    assert '"code": "HYG3"' in out


def test_scripts_table_is_generated():
    # needs the dev dependency 'regex' (Unicode Script property): a missing one fails, it does not skip
    with open(_scripts.__file__, encoding="utf-8") as fh:
        assert fh.read() == _scripts_gen.generate(), \
            "regenerate: python -m evalfmt.lint._scripts_gen > evalfmt/lint/_scripts.py"


def test_lint_path_stays_light():
    """pre-commit runs lint on every commit: no pydantic and no importlib.metadata on its path."""
    import subprocess
    import sys

    code = ("import sys\nfrom evalfmt.cli import main\n"
            "try:\n    main(['lint', '--isolated', '--quiet', sys.argv[1]])\nexcept SystemExit:\n    pass\n"
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic' or m == 'importlib.metadata')\n"
            "print(heavy)\n")
    out = subprocess.run([sys.executable, "-c", code, str(FIXTURES / "library")], capture_output=True, text=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_files_outside_a_skill_get_no_hygiene(run_cli, tmp_path):
    (tmp_path / "EVAL.yaml").write_text("tests:\n  - id: a\n    input: Mail sam@acme.io.\n    criteria: c\n")
    (tmp_path / "EVAL.yaml").chmod(0o755)
    code, out, err = run_cli("lint", "--isolated", "--quiet", "EVAL.yaml", cwd=str(tmp_path))
    assert (code, out, err) == (0, "", "")


def test_skill_folders_found_in_a_tree(run_cli, tmp_path):
    """Every SKILL.md folder of a tree gets hygiene; a fixture under a skill's evals/ that holds a
    SKILL.md of its own is test material, not a skill; an evals/ folder alone is not a skill (its
    files are not read, and a note says so)."""
    lib = tmp_path / "lib"
    (lib / "a" / "evals" / "fixtures" / "inner").mkdir(parents=True)
    (lib / "a" / "SKILL.md").write_text("---\nname: a\ndescription: A.\n---\n")
    (lib / "a" / "evals" / "fixtures" / "inner" / "SKILL.md").write_text("---\nname: wrong\n---\n")
    (lib / "b").mkdir()
    (lib / "b" / "SKILL.md").write_text("---\nname: bee\ndescription: B.\n---\n")
    (lib / "c" / "evals" / "cases").mkdir(parents=True)
    (lib / "c" / "evals" / "cases" / "x.yaml").write_text("task: t\nchecks: [{file_absent: X}]\n")
    code, out, err = run_cli("lint", "--isolated", "--quiet", "--select", "HYG1", "lib", cwd=str(tmp_path))
    note = ("evalfmt: note: lib/c/evals/cases/x.yaml: not read: no SKILL.md in lib/c, so it is not a terum skill's "
            "file (another tool's?); --from terum reads it as one\n")
    assert (code, err) == (1, note)
    assert out == "lib/b/SKILL.md:2:7: HYG1 SKILL.md name 'bee' does not equal the folder name 'b': make them the same\n"
    assert run_cli("lint", "--isolated", "--quiet", "--select", "HYG", "lib/c/evals", cwd=str(tmp_path)) == (0, "", note)


def test_empty_triggers_file(run_cli, tmp_path):
    repo = materialize(tmp_path, {"files": {"evals/triggers.yaml": "# prompts come later\n"}})
    assert run_cli("lint", "--isolated", "--quiet", "--select", "EV3", "sample", cwd=str(repo)) == (
        0, "sample/evals/triggers.yaml:1:1: EV303 the triggers file holds no prompt: add should_trigger and "
           "should_not_trigger prompts\n", "")
