"""Issue 13 item 6: scalar types survive a round trip (an integer stays an integer)."""

from __future__ import annotations


def test_timeout_minutes_stays_an_integer_through_agentv(run_cli, tmp_path):
    case = tmp_path / "s" / "evals" / "cases" / "a.yaml"
    case.parent.mkdir(parents=True)
    (tmp_path / "s" / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\n", encoding="utf-8")
    case.write_text("task: do it\ntimeout_minutes: 30\nmax_turns: 5\nchecks:\n  - transcript_mentions: x\n",
                    encoding="utf-8")
    code, _, _ = run_cli("convert", str(tmp_path / "s"), "--to", "agentv", "-o", str(tmp_path / "a.EVAL.yaml"))
    assert code == 0
    code, _, _ = run_cli("convert", str(tmp_path / "a.EVAL.yaml"), "--to", "terum", "-o", str(tmp_path / "b"))
    assert code == 0
    assert (tmp_path / "b" / "evals" / "cases" / "a.yaml").read_text(encoding="utf-8") == \
        "task: do it\ntimeout_minutes: 30\nmax_turns: 5\nchecks:\n  - transcript_mentions: x\n"
