"""The report of a trigger run's receipt at the per-skill report's standard, from receipts real runs wrote
(tests/golden/run/library/, pinned by the run_e2e tests) changed where a case needs it: a note naming the
skills one library holds and the other lacks (each way), a skill the tests expect that a one-library run's
library lacks, a dead session's row, and the confusion columns in one order for every library whatever
order the receipt's tables list them in. HTML and Markdown say the same."""

from __future__ import annotations

import json
import pathlib

from evalfmt.report import render

LIBRARY = pathlib.Path(__file__).resolve().parents[1] / "golden" / "run" / "library"


def _write(tmp_path: pathlib.Path, name: str, data: dict) -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data, indent=2))
    return str(path)


def _both(path: str) -> tuple[str, list[str]]:
    return render([path], "html"), render([path], "markdown").splitlines()


def test_each_library_lacking_a_skill_the_other_holds_is_named_each_way(tmp_path):
    page, md = _both(str(LIBRARY / "compare-ab.json"))  # the same skills: no note
    assert "<span class=\"word\">PASS</span>" in page and "class=\"panel libdiff\"" not in page
    assert md[0] == "### evalfmt report: trigger run, candidate (b) vs baseline (a)"
    assert not [x for x in md if x.startswith(">")]
    data = json.loads((LIBRARY / "compare-ab.json").read_text())
    data["libraries"]["baseline"]["skills"] = ["deploy", "review"]  # no notes
    data["libraries"]["candidate"]["skills"] = ["deploy", "notes"]  # no review, which four tests expect
    page, md = _both(_write(tmp_path, "cmp", data))
    assert ("<li><code><bdi>notes</bdi></code>: in <bdi>candidate (b)</bdi>, not in <bdi>baseline (a)</bdi> — tests "
            "that expect it: <bdi>minutes</bdi></li>") in page
    assert ("<li><code><bdi>review</bdi></code>: in <bdi>baseline (a)</bdi>, not in <bdi>candidate (b)</bdi> — tests "
            "that expect it: <bdi>cr-1</bdi>, <bdi>cr-2</bdi>, <bdi>cr-3</bdi>, <bdi>cr-4</bdi></li>") in page
    assert "> - `notes`: in candidate (b), not in baseline (a) — tests that expect it: minutes" in md
    assert "> - `review`: in baseline (a), not in candidate (b) — tests that expect it: cr-1, cr-2, cr-3, cr-4" in md
    # the library that lacks a skill: tagged in the skill table, and its confusion column is a dash, not a 0
    assert "| notes | baseline (a) (not in library) | 1.00 | 1.00 | 1.00 | 1.00 | 1 | 0 | 0 | 0 |" in md
    assert ("<td>baseline (a)<span class=\"tag\">not in library</span></td>") in page
    baseline = md[md.index("**baseline (a)**"):]
    assert baseline[2:5] == ["| expected \\\\ fired | deploy | notes | review | (none) |", "|---|---:|---:|---:|---:|",
                             "| deploy | 1 | — | 0 | 0 |"]  # a count the receipt holds is shown as it is


def test_the_confusion_columns_keep_one_order_whatever_order_the_receipt_lists(tmp_path):
    data = json.loads((LIBRARY / "compare-ab.json").read_text())
    conf = data["scores"]["baseline"]["confusion"]
    data["scores"]["baseline"]["confusion"] = {r: dict(reversed(list(v.items()))) for r, v in reversed(conf.items())}
    page, md = _both(_write(tmp_path, "cmp", data))
    head = ("<thead><tr><th>expected \\ fired</th><th class=\"num\"><bdi>deploy</bdi></th><th class=\"num\"><bdi>notes"
            "</bdi></th><th class=\"num\"><bdi>review</bdi></th><th class=\"num\"><bdi>(none)</bdi></th></tr></thead>")
    assert page.count(head) == 2
    tables = "\n".join(md).split("**baseline (a)**")[1]
    assert tables.split("\n")[2:6] == ["| expected \\\\ fired | deploy | notes | review | (none) |",
                                       "|---|---:|---:|---:|---:|", "| deploy | 1 | 0 | 0 | 0 |",
                                       "| notes | 0 | 1 | 0 | 0 |"]
    assert "| review | 0 | 0 | 0 | 4 |" in tables


def test_a_one_library_run_names_a_skill_its_tests_expect_and_the_library_lacks(tmp_path):
    data = json.loads((LIBRARY / "receipt.json").read_text())
    data["libraries"]["library"]["skills"] = ["deploy", "notes"]
    page, md = _both(_write(tmp_path, "run", data))
    assert "<h4>Skills the tests expect that the library lacks</h4>" in page
    assert ("<li><code><bdi>review</bdi></code>: not in <bdi>skills</bdi> — tests that expect it: "
            "<bdi>wrong</bdi></li>") in page
    assert "> - `review`: not in skills — tests that expect it: wrong" in md
    assert "| review (not in library) | 0.00 | n/a | n/a | 0.00 | 0 | 1 | 0 | 0 |" in md
    assert "| deploy | 1 | 0 | — | 1 |" in md


def test_a_dead_session_is_a_row_not_scored_with_the_error(tmp_path):
    data = json.loads((LIBRARY / "compare-ab.json").read_text())
    data["sessions"][0].update(fired=[], dead=True, error="agent exited 3; stderr: boom", passed=None, checks=[])
    data["rows"][0]["reason"] = "opponent-run-failed"
    page, md = _both(_write(tmp_path, "cmp", data))
    assert ("| minutes | 1 | notes | not scored | opponent-run-failed | passed, fired notes | dead: agent exited 3; "
            "stderr: boom |") in md
    assert md[4].startswith("5/6 rows scored · 6 tests · 1 dead session · ")
    assert ("<td><span class=\"o o-dead\">not scored</span></td><td>opponent-run-failed</td>") in page
    assert ("<span class=\"o o-dead\" data-session=\"dead\">dead</span> <bdi>agent exited 3; stderr: boom</bdi>"
            in page)
    assert "<strong data-scored=\"5\" data-expected=\"6\">5 of 6</strong>" in page


def test_the_one_library_gate_is_the_run_s_exit_code(tmp_path):
    """PASS only when every live session passed (evalfmt run exits 0), FAIL otherwise."""
    data = json.loads((LIBRARY / "receipt.json").read_text())
    page, md = _both(str(LIBRARY / "receipt.json"))
    assert md[2] == "**FAIL** 3 of 5 live sessions passed every check"
    for s in data["sessions"]:
        s.update(passed=True, checks=[c | {"passed": True} for c in s["checks"]])
    page, md = _both(_write(tmp_path, "run", data))
    assert md[2] == "**PASS** 5 of 5 live sessions passed every check"
    assert '<div class="verdict v-PASS" data-verdict="PASS">' in page
