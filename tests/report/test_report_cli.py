"""`evalfmt report`: output to a file or stdout, exit 2 with one line naming the file for every kind of
unreadable receipt, grouping and ordering of several receipts, and what the model reads from a receipt."""

from __future__ import annotations

import json
import pathlib
import sys

import pytest
from reporthelp import ROOT, receipt

from evalfmt.report import model


def load(name: str) -> dict:
    return json.loads((ROOT / receipt(name)).read_text(encoding="utf-8"))


def write(tmp_path: pathlib.Path, data, name: str = "r.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_output_file_equals_stdout(run_cli, tmp_path):
    src = receipt("release-notes-3")
    out_file = tmp_path / "sub" / "report.html"
    code, out, err = run_cli("report", src, "-o", str(out_file), cwd=str(ROOT))
    assert (code, out, err) == (0, "", "")
    code, stdout, err = run_cli("report", src, cwd=str(ROOT))
    assert (code, err) == (0, "")
    assert out_file.read_text(encoding="utf-8") == stdout
    # --out is the spelling of every command; --output, the old one, still works (hidden in --help)
    for flag in ("--out", "--output"):
        other = tmp_path / f"report{flag}.html"
        assert run_cli("report", src, flag, str(other), cwd=str(ROOT)) == (0, "", "")
        assert other.read_text(encoding="utf-8") == stdout
    assert "-o, --out OUT" in run_cli("report", "--help")[1] and "--output" not in run_cli("report", "--help")[1]
    assert stdout.startswith("<!DOCTYPE html>") and stdout.endswith("</html>\n")


def test_default_format_is_html_and_markdown_is_plain(run_cli):
    code, out, _ = run_cli("report", str(ROOT / receipt("partial")), "--format", "markdown")
    assert code == 0
    assert out.startswith("### evalfmt report: release-notes\n")
    assert "**PASS** \\[partial — 6/8 scored\\] +50% net lift (3W / 0L / 3T over 6 comparisons, sign test p=0.250)" in out
    assert "<details><summary>Rows (8)</summary>" in out and "<html" not in out


#: what every message about a file that is no receipt at all ends with
READS = "; report renders the receipt.json that 'evalfmt run' or 'evalfmt compare --receipt' writes"


@pytest.mark.parametrize("content, message", [
    ("{nope", "not a receipt: not JSON (unexpected character, expected a string key: line 1 column 2 (char 1))" + READS),
    ("", "not a receipt: not JSON (Input is a zero-length, empty document: line 1 column 1 (char 0))" + READS),
    ("[1, 2]", "not a receipt: the top level is a list, not an object" + READS),
    ('{"verdict": "PASS"}', "not a receipt: it has no 'schema_version'" + READS),
    ('{"schema_version": 1}', "schema_version 1 is not supported (evalfmt reads schema_version 2)"),
    ('{"schema_version": "2"}', "schema_version '2' is not supported (evalfmt reads schema_version 2)"),
])
def test_unreadable_receipt(run_cli, tmp_path, content, message):
    path = write(tmp_path, content)
    code, out, err = run_cli("report", path)
    assert (code, out, err) == (2, "", f"evalfmt: {path}: {message}\n")


MUTATIONS = [
    ("missing verdict", lambda d: d.pop("verdict"), "missing field 'verdict'"),
    ("missing status", lambda d: d.pop("execution_status"), "missing field 'execution_status'"),
    ("missing comparisons", lambda d: d.pop("comparisons"), "missing field 'comparisons'"),
    ("missing skill", lambda d: (d.pop("skill_name"), d.pop("skill_id")), "missing field 'skill_name'"),
    ("bad verdict", lambda d: d.update(verdict="MAYBE"), "field 'verdict' must be one of PASS, NEUTRAL, FAIL, not 'MAYBE'"),
    ("bad rows count", lambda d: d.update(scored_rows=-1), "field 'scored_rows' must be a non-negative integer, not -1"),
    ("bad tally", lambda d: d["comparisons"]["candidate-vs-baseline"].update(win="9"),
     "field 'comparisons.candidate-vs-baseline.win' must be a non-negative integer, not '9'"),
    ("tally missing", lambda d: d["comparisons"]["candidate-vs-baseline"].pop("tie"),
     "missing field 'comparisons.candidate-vs-baseline.tie'"),
    ("rows not a list", lambda d: d.update(rows={}), "field 'rows' must be a list, not an object"),
    ("bad outcome", lambda d: d["rows"][3].update(outcome="draw"),
     "field 'rows[3].outcome' must be one of win, loss, tie, not 'draw'"),
    ("row without case", lambda d: d["rows"][0].pop("case"), "missing field 'rows[0].case'"),
    ("bad check", lambda d: d["rows"][1]["arms"]["candidate"]["checks"].__setitem__(0, "x"),
     "field 'rows[1].arms.candidate.checks[0]' must be an object with a string 'check'"),
    ("bad triggers", lambda d: d["triggers"].update(misses="one"), "field 'triggers.misses' must be a list of strings"),
    ("bad recall", lambda d: d["triggers"].update(recall="high"), "field 'triggers.recall' must be a number or null, not 'high'"),
    ("bad efficiency", lambda d: d["efficiency"]["candidate"].update(turns=True),
     "field 'efficiency.candidate.turns' must be a number or null, not true"),
]


@pytest.mark.parametrize("mutate, message", [m[1:] for m in MUTATIONS], ids=[m[0] for m in MUTATIONS])
def test_receipt_with_a_bad_field(run_cli, tmp_path, mutate, message):
    data = load("release-notes-3")
    mutate(data)
    path = write(tmp_path, data)
    code, out, err = run_cli("report", path, "--format", "markdown")
    assert (code, out, err) == (2, "", f"evalfmt: {path}: {message}\n")


def test_missing_and_folder(run_cli, tmp_path):
    missing = str(tmp_path / "nope.json")
    code, out, err = run_cli("report", missing)
    assert (code, out, err) == (2, "", f"evalfmt: {missing}: cannot read receipt: No such file or directory\n")
    code, out, err = run_cli("report", str(tmp_path))
    assert code == 2 and out == "" and err.startswith("evalfmt: ") and "is a directory" in err and err.count("\n") == 1


def test_one_bad_receipt_among_good_writes_nothing(run_cli, tmp_path):
    bad = write(tmp_path, "[]", "bad.json")
    target = tmp_path / "report.html"
    code, out, err = run_cli("report", str(ROOT / receipt("partial")), bad, "-o", str(target))
    assert (code, out) == (2, "") and err == f"evalfmt: {bad}: not a receipt: the top level is a list, not an object{READS}\n"
    assert not target.exists()


@pytest.mark.parametrize("name, content, fmt", [
    ("EVAL.yaml", "tests:\n  - id: a\n    input: Write it\n    criteria: It is written\n", "agentv"),
    ("evals.json", '{"skill_name": "demo", "evals": [{"id": 1, "prompt": "Write it"}]}\n', "agent-skills"),
    ("trigger-evals.json", '[{"query": "Write it", "should_trigger": true}]\n', "skill-creator-triggers"),
])
def test_an_eval_file_given_as_a_receipt_is_named_for_what_it_is(run_cli, tmp_path, name, content, fmt):
    """An eval file passed to report (an easy slip: both are JSON or YAML in the same repository) says
    what it is and what report reads, in one line (it was 'not JSON: ...' or 'missing field ...')."""
    path = write(tmp_path, content, name)
    assert run_cli("report", path) == (2, "", f"evalfmt: {path}: not a receipt but an eval file ({fmt}){READS}\n")


def test_unknown_fields_are_tolerated(run_cli, tmp_path):
    data = load("partial")
    data["a_future_field"] = {"anything": [1, 2]}
    data["rows"][0]["another"] = None
    code, out, err = run_cli("report", write(tmp_path, data), "--format", "markdown")
    assert (code, err) == (0, "") and "**PASS**" in out


def test_usage_errors(run_cli):
    code, out, err = run_cli("report")
    assert code == 2 and out == "" and err.startswith("evalfmt: Missing argument 'RECEIPTS...'")
    code, out, err = run_cli("report", str(ROOT / receipt("partial")), "--format", "pdf")
    assert code == 2 and "'pdf' is not one of 'html', 'markdown'" in err


def test_receipts_of_one_skill_are_ordered_by_run_id():
    runs = [model.load(str(ROOT / receipt(n))) for n in ("release-notes-3", "release-notes-1", "release-notes-2")]
    report = model.build(runs)
    assert len(report.skills) == 1
    assert [r.run_id for r in report.skills[0].runs] == ["20250301T091500Z", "20250308T101200Z", "20250315T143000Z"]
    assert report.skills[0].latest.verdict_line == "PASS +44% net lift (8W / 1L / 7T over 16 comparisons, sign test p=0.039)"


def test_skills_are_grouped_in_first_appearance_order():
    names = ("terum-style", "release-notes-1", "partial", "release-notes-2")
    report = model.build([model.load(str(ROOT / receipt(n))) for n in names])
    assert [(s.skill, len(s.runs)) for s in report.skills] == [("commit-message", 1), ("release-notes", 3)]
    assert report.title == "commit-message: FAIL, release-notes: PASS"


def test_tallies_and_checks_come_from_the_rows():
    run = model.to_run(model.load(str(ROOT / receipt("release-notes-3"))))
    base = {t.case: (t.win, t.loss, t.tie, t.unscored) for t in run.tallies["baseline"]}
    assert base["breaking-change-first"] == (0, 1, 1, 0)
    assert base["no-tag-push"] == (2, 0, 0, 0)
    # the per-case tallies add up to the receipt's own comparison counts
    for c in run.comparisons:
        tallies = run.tallies[c.opponent]
        assert (sum(t.win for t in tallies), sum(t.loss for t in tallies), sum(t.tie for t in tallies)) == (c.win, c.loss, c.tie)
    failed = [(c.case, c.check, c.both_failed, c.rows) for c in run.failed_in_both]
    assert failed == [("notes-since-last-tag", 'command_succeeds:grep -q "pagination cursors" RELEASE_NOTES.md', 2, 4)]
    passed = {(c.case, c.check) for c in run.passed_in_both}
    assert ("changelog-untouched", "command_succeeds:git diff --quiet -- CHANGELOG.md") in passed
    assert ("no-tag-push", "no_command_matching:git\\s+(tag|push)") not in passed


def test_dead_rows_are_left_out_of_the_check_counts():
    run = model.to_run(model.load(str(ROOT / receipt("partial"))))
    assert run.status_suffix == " [partial — 6/8 scored]"
    dead = [(r.case, r.reason) for r in run.rows if not r.scored]
    assert dead == [("no-tag-push", "opponent-run-failed"), ("notes-since-last-tag", "candidate-run-failed")]
    assert all(c.case not in ("no-tag-push", "notes-since-last-tag") for c in run.checks)


def test_terum_receipt_without_rows_or_lines():
    run = model.to_run(model.load(str(ROOT / receipt("terum-style"))))
    # no summary_lines: the line is evalfmt.verdict.summary_line over the receipt's counts
    assert run.verdict_line == "FAIL -67% net lift (0W / 2L / 1T over 3 comparisons, sign test p=0.500)"
    assert [(r.case, r.outcome, [f.check for f in r.candidate.failed]) for r in run.rows] == [
        ("conventional-prefix", "loss", ["transcript_mentions:feat("]),
        ("subject-length", "loss", ["command_succeeds:test $(git log -1 --format=%s | wc -c) -le 73"]),
        ("no-amend", "tie", ["no_command_matching:--amend"]),
    ]
    assert run.skips == ["skipped (environment): signed-commit: missing gpg", "dropped: hooks-installed: setup exited 1"]


def test_report_does_not_import_the_scoring_stack(tmp_path):
    """Rendering reads JSON: no pydantic, no session readers, no check runners (in a fresh interpreter)."""
    import subprocess

    probe = (
        "import sys\n"
        "from evalfmt.cli import main\n"
        "try:\n"
        f"    main(['report', {str(ROOT / receipt('release-notes-3'))!r}, '-o', {str(tmp_path / 'r.html')!r}])\n"
        "except SystemExit as exc:\n"
        "    assert exc.code == 0, exc.code\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    loaded = set(proc.stdout.split())
    assert "evalfmt.report.html" in loaded and (tmp_path / "r.html").is_file()
    heavy = {m for m in loaded if m.split(".")[0] == "pydantic" or m in ("evalfmt.ir", "evalfmt.run.compare",
                                                                         "evalfmt.run.checks", "evalfmt.run.transcripts")}
    assert not heavy, f"report imported {sorted(heavy)}"
