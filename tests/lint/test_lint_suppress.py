"""Suppression comments: `# evalfmt: noqa: CODES` on a line, `# evalfmt: noqa-file: CODES` in the
first comment block, and EV001 for the ones that silence nothing."""

from __future__ import annotations

from lintkit import materialize

SHORT = "task: Write the release notes since v1.4.0.\nchecks:\n  - transcript_mentions: done{c1}\n  - transcript_mentions: fix{c2}\n  - file_absent: NOTES.orig\n"


def run(run_cli, tmp_path, files, *args):
    repo = materialize(tmp_path, {"files": files})
    code, out, err = run_cli("lint", "--isolated", "--quiet", *args, "sample", cwd=str(repo))
    assert err == ""
    return code, out.splitlines()


def test_line_suppression_silences_that_line_only(run_cli, tmp_path):
    case = SHORT.format(c1="  # evalfmt: noqa: EV204", c2="")
    code, lines = run(run_cli, tmp_path, {"evals/cases/a.yaml": case}, "--select", "EV204,EV001")
    assert [line.split(": ")[1].split(" ")[0] for line in lines] == ["EV204"]
    assert lines[0].startswith("sample/evals/cases/a.yaml:4:26: EV204")


def test_comma_list_and_reader_codes(run_cli, tmp_path):
    case = ("task: Write the release notes since v1.4.0.\ncheck:  # evalfmt: noqa: EV101, EV204\n"
            "  - transcript_mentions: done\n")
    code, lines = run(run_cli, tmp_path, {"evals/cases/a.yaml": case}, "--select", "EV101,EV204,EV001")
    assert lines == ["sample/evals/cases/a.yaml:2:9: EV001 unused suppression: no EV204 finding on this line; "
                     "remove 'EV204'"]
    assert code == 0


def test_file_suppression_in_first_comment_block(run_cli, tmp_path):
    case = "# Release notes: the plain request.\n#\n# evalfmt: noqa-file: EV204\n\n" + SHORT.format(c1="", c2="")
    code, lines = run(run_cli, tmp_path, {"evals/cases/a.yaml": case}, "--select", "EV204,EV001")
    assert lines == []


def test_file_suppression_below_the_first_block_is_refused(run_cli, tmp_path):
    case = SHORT.format(c1="", c2="") + "# evalfmt: noqa-file: EV204\n"
    code, lines = run(run_cli, tmp_path, {"evals/cases/a.yaml": case}, "--select", "EV204,EV001")
    assert lines == [
        "sample/evals/cases/a.yaml:3:26: EV204 anchor 'done' is a common English word: it passes by luck in any "
        "transcript; anchor on an identifier the answer must cite",
        "sample/evals/cases/a.yaml:4:26: EV204 anchor 'fix' is shorter than 4 characters: it passes by luck in any "
        "transcript; anchor on an identifier the answer must cite",
        "sample/evals/cases/a.yaml:6:1: EV001 'noqa-file' works only in the file's first comment block: move it to "
        "the top of the file",
    ]


def test_noqa_inside_a_string_is_not_a_comment(run_cli, tmp_path):
    case = ("task: \"Write the notes # evalfmt: noqa: EV204\"\nchecks:\n  - transcript_mentions: done\n"
            "  - file_absent: NOTES.orig\n")
    code, lines = run(run_cli, tmp_path, {"evals/cases/a.yaml": case}, "--select", "EV204,EV001")
    assert [line.split(" ")[1] for line in lines] == ["EV204"]


def test_unused_only_for_enabled_codes(run_cli, tmp_path):
    case = SHORT.format(c1="  # evalfmt: noqa: EV205", c2="  # evalfmt: noqa: EV204")
    code, lines = run(run_cli, tmp_path, {"evals/cases/a.yaml": case}, "--select", "EV204,EV001")
    # EV205 is not running, so its suppression cannot be judged; EV204 on line 3 is not silenced
    assert [line.split(" ")[:2] for line in lines] == [["sample/evals/cases/a.yaml:3:26:", "EV204"]]
    code, lines = run(run_cli, tmp_path / "b", {"evals/cases/a.yaml": case}, "--select", "EV20,EV001")
    assert [line.split(" ")[:2] for line in lines] == [["sample/evals/cases/a.yaml:3:26:", "EV204"],
                                                      ["sample/evals/cases/a.yaml:3:32:", "EV001"]]


def test_skill_md_suppressions(run_cli, tmp_path):
    md = ("---\n# evalfmt: noqa-file: HYG8\nname: sample\ndescription: Drafts notes.\nversion: 2  # evalfmt: noqa: HYG1\n"
          "---\nSee shared/template.md for the layout.\nA paypаl token. <!-- evalfmt: noqa: HYG2 -->\n")
    repo = materialize(tmp_path, {"files": {"SKILL.md": md, "../shared/template.md": "x\n"}})
    code, out, err = run_cli("lint", "--isolated", "--quiet", "sample", cwd=str(repo))
    assert (code, out, err) == (0, "", "")


def test_ruff_spelling_is_accepted(run_cli, tmp_path):
    """`# noqa: EV204` (ruff's spelling) works like `# evalfmt: noqa: EV204`; other tools' codes in it are
    theirs (not EV001), and a `# noqa` naming no evalfmt code is not evalfmt's comment at all."""
    case = ("task: Write the release notes since v1.4.0.\nchecks:\n"
            "  - transcript_mentions: done  # noqa: EV204\n"
            "  - transcript_mentions: fix  # NOQA: E501, EV204, EV205\n"
            "  - transcript_mentions: ok  # noqa\n"
            "  - file_absent: X.orig  # noqa: E501,F401\n"
            "  - file_absent: Y.orig  # noqa: EV999\n")
    code, lines = run(run_cli, tmp_path, {"evals/cases/a.yaml": case, "scripts/a.py": "import os  # noqa: F401\n"},
                      "--select", "EV204,EV205,EV001")
    assert lines == [
        "sample/evals/cases/a.yaml:4:31: EV001 unused suppression: no EV205 finding on this line; remove 'EV205'",
        "sample/evals/cases/a.yaml:5:26: EV204 anchor 'ok' is shorter than 4 characters: it passes by luck in any "
        "transcript; anchor on an identifier the answer must cite",
        "sample/evals/cases/a.yaml:7:26: EV001 unknown rule code 'EV999' in suppression: remove it",
    ]
