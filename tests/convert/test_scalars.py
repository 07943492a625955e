"""Issue 13 item 6: scalar types survive a round trip (an integer stays an integer); a string reads back as
the same string in YAML 1.1 and 1.2."""

from __future__ import annotations

import yaml
from hypothesis import given, settings, strategies as st
from ruamel.yaml import YAML

from evalfmt import yamlrt


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


CASE = ("# the size limit is in bytes\ntask: Write the notes\nbucket: explicit\nrequires: [git]\nchecks:\n"
        "  - transcript_omits: 25600\n  - transcript_mentions: 1.50\n  - transcript_mentions: true\n"
        "  - transcript_mentions: \"quoted\"\n")
TRIGGERS = "should_trigger:\n  - 42\n  - write the notes\nshould_not_trigger: [false]\n"


def test_writing_back_over_a_skill_keeps_the_scalars_terum_reads_as_strings(run_cli, tmp_path):
    """terum's engine reads a check's argument and a trigger prompt with String(value): over an existing
    file, the converted string "25600" is the bare 25600 already there, which stays as it was written
    (it became '25600' in quotes)."""
    skill = tmp_path / "s"
    (skill / "evals" / "cases").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\n", encoding="utf-8")
    (skill / "evals" / "cases" / "a.yaml").write_text(CASE, encoding="utf-8")
    (skill / "evals" / "triggers.yaml").write_text(TRIGGERS, encoding="utf-8")
    eval_yaml = str(tmp_path / "a.EVAL.yaml")
    assert run_cli("convert", str(skill), "--to", "agentv", "-o", eval_yaml)[0] == 0
    assert "value: '25600'" in (tmp_path / "a.EVAL.yaml").read_text(encoding="utf-8")
    assert run_cli("convert", eval_yaml, "--to", "terum", "-o", str(skill)) == (
        0, "", "evalfmt: wrote 0 files (2 unchanged)\n")
    assert (skill / "evals" / "cases" / "a.yaml").read_text(encoding="utf-8") == CASE
    assert (skill / "evals" / "triggers.yaml").read_text(encoding="utf-8") == TRIGGERS

    # a value that did change is written as the string it is
    text = (tmp_path / "a.EVAL.yaml").read_text(encoding="utf-8")
    (tmp_path / "a.EVAL.yaml").write_text(text.replace("'25600'", "'25601'"), encoding="utf-8")
    assert run_cli("convert", eval_yaml, "--to", "terum", "-o", str(skill))[0] == 0
    assert (skill / "evals" / "cases" / "a.yaml").read_text(encoding="utf-8") == \
        CASE.replace("transcript_omits: 25600", "transcript_omits: '25601'")


# --------------------------------------------------------------------- strings YAML 1.1 reads otherwise

#: strings a YAML 1.1 reader (PyYAML) takes for a boolean, a number or a merge key when written plain
YAML11 = ["no", "No", "NO", "yes", "on", "Off", "y", "N", "1_000", "1:30", "0777", "0x1F", "0b101", "-1_0.5",
          ".5", "1.5", "3.", "+12", "<<", "="]


def test_a_string_yaml_1_1_reads_as_no_string_is_written_quoted():
    """promptfoo's js-yaml and agentv's yaml package read YAML 1.2, where `no` is a string; a YAML 1.1 reader
    (PyYAML, yamllint's truthy rule, Go's yaml.v2) reads False. A string evalfmt writes reads as itself in
    both (found by the promptfoo round-trip property: a var 'no' came back unquoted)."""
    out = yamlrt.dump({"vars": YAML11, "plain": ["noon", "yes please", "hello", "v1.2.3"]})
    assert yaml.safe_load(out) == {"vars": YAML11, "plain": ["noon", "yes please", "hello", "v1.2.3"]}
    assert "- noon\n" in out and "- 'no'\n" in out  # (only what needs it is quoted)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["y", "N", "o", "on", "Off", "yes", "no", "1", "_", "0", "7", ":", "3", "x", "b",
                                  ".", "e", "E", "+", "-", "<<", "=", " ", "true", "null", "~"]), max_size=3).map("".join))
def test_every_string_reads_back_as_itself_in_yaml_1_1_and_1_2(text):
    out = yamlrt.dump({"k": text})
    assert yaml.safe_load(out) == {"k": text}
    assert YAML(typ="safe", pure=True).load(out) == {"k": text}
