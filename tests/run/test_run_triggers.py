"""Trigger sets: terum's counting of failed selections, the MISS / FALSE-FIRE lines, the catalog."""

from __future__ import annotations

import json

from runhelp import make_skill

from evalfmt import ir
from evalfmt.run.triggers import Selection, catalog, score_triggers

TRIGGERS = ("should_trigger:\n  - notes for v2\n  - what changed\n  - summarise the release\n"
            "should_not_trigger:\n  - write a commit message\n  - review my diff\n")


def test_counting_with_failed_selections():
    ts = ir.TriggerSet(skill="notes", prompts=[ir.TriggerPrompt(text=t, should_trigger=s) for t, s in [
        ("a", True), ("b", True), ("c", True), ("d", False), ("e", False), ("f", False)]])
    sel = {"a": Selection("a", ["notes"]), "b": Selection("b", None, "timeout"), "d": Selection("d", ["notes", "x"]),
           "e": Selection("e", None, "boom"), "f": Selection("f", [])}
    sc = score_triggers(ts, sel)
    # b errored and c was never recorded: both misses; e errored: counted nowhere
    assert (sc.tp, sc.fn, sc.fp, sc.tn) == (1, 2, 1, 1)
    assert sc.misses == ["b", "c"] and sc.false_fires == ["d"]
    assert sc.recall == 1 / 3 and sc.precision == 0.5
    assert sc.lines() == ["triggers: recall=0.33 precision=0.50 (tp=1 fn=2 fp=1 tn=1)", "MISS: b", "MISS: c", "FALSE-FIRE: d"]


def test_zero_denominators_are_null():
    sc = score_triggers(ir.TriggerSet(skill="s", prompts=[ir.TriggerPrompt(text="x", should_trigger=False)]), {"x": Selection("x", [])})
    assert sc.recall is None and sc.precision is None
    assert sc.lines()[0] == "triggers: recall=n/a precision=n/a (tp=0 fn=0 fp=0 tn=1)"


def write_selections(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_triggers_cli_text_and_json(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "notes", {}, triggers=TRIGGERS)
    sel = write_selections(tmp_path / "sel.jsonl", [
        {"prompt": "notes for v2", "selected": ["notes"]}, {"prompt": "what changed", "error": "rate limited"},
        {"prompt": "summarise the release", "selected": ["notes", "review"]},
        {"prompt": "write a commit message", "selected": ["notes"]}, {"prompt": "review my diff", "selected": ["review"]}])
    rc, out, err = run_cli("triggers", str(skill), "--selections", str(sel))
    assert (rc, err) == (1, "")
    assert out == ("triggers: recall=0.67 precision=0.67 (tp=2 fn=1 fp=1 tn=1)\n"
                   "MISS: what changed\nFALSE-FIRE: write a commit message\n")
    rc, out, err = run_cli("triggers", str(skill / "evals" / "triggers.yaml"), "--selections", str(sel), "--format", "json")
    assert (rc, err) == (1, "")
    data = json.loads(out)
    assert list(data) == ["skill", "tp", "fp", "fn", "tn", "recall", "precision", "misses", "false_fires"]
    assert data == {"skill": "notes", "tp": 2, "fp": 1, "fn": 1, "tn": 1, "recall": 2 / 3, "precision": 2 / 3,
                    "misses": ["what changed"], "false_fires": ["write a commit message"]}


def test_triggers_all_right_exits_0(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "notes", {}, triggers="should_trigger: [go]\nshould_not_trigger: [stop]\n")
    sel = write_selections(tmp_path / "sel.jsonl", [{"prompt": "go", "selected": ["notes"]}, {"prompt": "stop", "selected": []}])
    assert run_cli("triggers", str(skill), "--selections", str(sel))[0] == 0


def test_bad_selection_file_is_exit_2(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "notes", {}, triggers=TRIGGERS)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": "x"}\n')
    rc, out, err = run_cli("triggers", str(skill), "--selections", str(bad))
    assert rc == 2 and err == f"evalfmt: {bad}:1: a selection needs 'selected' (a list) or 'error'\n"


def test_catalog_lists_sibling_skills_sorted(run_cli, tmp_path):
    lib = tmp_path / "lib"
    make_skill(lib, "notes", {}, description="Drafts release notes.")
    make_skill(lib, "commit", {}, description="Writes\n  commit messages.")
    (lib / "not-a-skill").mkdir()
    assert catalog(str(lib / "notes")) == ["- commit: Writes commit messages.", "- notes: Drafts release notes."]
    rc, out, err = run_cli("triggers", str(lib / "notes"), "--catalog")
    assert (rc, out, err) == (0, "- commit: Writes commit messages.\n- notes: Drafts release notes.\n", "")
