"""Input that made commands fail with an internal error (issue 11.14) or stall them (11.9) now gives
a diagnostic with a position, or a clear limit error, on every command; and input just inside a
limit works on every command. The hostile seeds of this file are generated (they are large)."""

from __future__ import annotations

import json

import pytest
from limitkit import make_skill, write_stream

from evalfmt.load import MAX_DEPTH

NUL_FIXTURE = "task: Write the notes.\nfixture: \"\\0ab\"\nchecks:\n  - transcript_mentions: LegacyConfigLoader\n"
EV107 = ("{skill}/evals/cases/a.yaml:2:10: EV107 fixture '\\0ab' holds a NUL character: no directory has that "
         "name; the engine drops the case")


@pytest.mark.parametrize("args,code,out,err", [
    (["validate", "{skill}"], 1, EV107 + "\n1 error, 0 warnings in 1 file\n", ""),
    (["inspect", "{skill}"], 1, None, "evalfmt: " + EV107 + "\n"),
    (["inspect", "--format", "json", "{skill}"], 1, None, "evalfmt: " + EV107 + "\n"),
    (["convert", "{skill}", "--to", "ir", "-o", "{tmp}/out.json"], 0, "",
     "evalfmt: note: the source has 1 structural error (see 'evalfmt validate {skill}'); they are carried over "
     "as they are\nevalfmt: wrote 1 file\n"),
    (["transpile", "{skill}", "-d", "{tmp}/t"], 1, "",
     "evalfmt: " + EV107 + "\nevalfmt: not routed: {skill}/evals/cases/a.yaml:1: test 'a' has no skill-trigger\n"
     "evalfmt: 1 error; nothing written\n"),
])
def test_a_nul_byte_in_a_fixture_path_is_ev107_on_every_command(run_cli, tmp_path, args, code, out, err):
    skill = make_skill(tmp_path / "lib", "notes", {"a": NUL_FIXTURE})
    fill = {"skill": str(skill), "tmp": str(tmp_path)}
    got = run_cli(*[a.format(**fill) for a in args])
    assert got[0] == code and got[2] == err.format(**fill)
    if out is not None:
        assert got[1] == out.format(**fill)


def test_a_nul_byte_in_a_fixture_path_in_lint_score_and_run(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "notes", {"a": NUL_FIXTURE})
    code, out, err = run_cli("lint", "--isolated", "--select", "EV107", str(skill))
    assert (code, out, err) == (1, EV107.format(skill=skill) + "\n1 error, 0 warnings in 1 file\n", "")
    transcript = write_stream(tmp_path / "t.jsonl", texts=["LegacyConfigLoader"])
    assert run_cli("score", str(skill / "evals/cases/a.yaml"), "--transcript", str(transcript))[0] == 0
    code, out, err = run_cli("run", str(skill), "--dry-run", "--out", str(tmp_path / "out"), "--quiet")
    assert (code, err) == (1, "")
    assert out == (f"{skill}/evals/cases/a.yaml:2:10: fixture '\\0ab' holds a NUL character (EV107): not copied\n"
                   "dry run: 0 of 1 seeded, 1 failed, 0 skipped (missing requirements)\n")


BIG = "123456789012345678901234567890"


def test_an_integer_beyond_64_bits_in_inspect_json_and_convert_to_ir(run_cli, tmp_path):
    evals = tmp_path / "EVAL.yaml"
    evals.write_text(f"tests:\n  - id: t1\n    input: hi\n    weight: {BIG}\n    assertions:\n"
                     "      - type: contains\n        value: notes\n", encoding="utf-8")
    code, out, err = run_cli("inspect", "--format", "json", "--no-spans", str(evals))
    assert (code, err) == (0, "")
    assert json.loads(out)["sets"][0]["cases"][0]["extra"]["weight"] == 1.2345678901234568e29
    code, out, err = run_cli("convert", str(evals), "--to", "ir", "-o", str(tmp_path / "ir.json"))
    assert (code, out, err) == (0, "", "evalfmt: wrote 1 file\n")
    assert '"weight": 1.2345678901234568e+29' in (tmp_path / "ir.json").read_text(encoding="utf-8")


def _deep_yaml(depth: int) -> str:
    return ("task: Write the notes.\nchecks:\n  - transcript_mentions: LegacyConfigLoader\n"
            "  - transcript_omits: Curated entry\nnotes: " + "[" * (depth - 1) + "]" * (depth - 1) + "\n")


TARGETS = ["ir", "terum", "agentv", "agent-skills", "skill-creator-triggers", "skillgym", "promptfoo"]


def test_yaml_nested_just_under_the_limit_works_on_every_command(run_cli, tmp_path):
    """The old limit (500) let 499 levels through to RecursionErrors; the limit is now one every
    command can serve: a document MAX_DEPTH deep (the case mapping, then MAX_DEPTH - 1 lists)."""
    skill = make_skill(tmp_path / "lib", "notes", {"a": _deep_yaml(MAX_DEPTH)})
    for args in (["validate", str(skill)], ["lint", "--isolated", str(skill)], ["inspect", str(skill)],
                 ["inspect", "--format", "json", str(skill)], ["transpile", str(skill), "-d", str(tmp_path / "t")]):
        code, out, err = run_cli(*args)
        assert code in (0, 1) and "internal error" not in err, (args, err)
    for target in TARGETS:
        code, out, err = run_cli("convert", str(skill), "--to", target, "-o", str(tmp_path / f"o-{target}"))
        # (skill-creator-triggers has nothing to write from a case without trigger prompts: exit 2)
        assert code == (2 if target == "skill-creator-triggers" else 0) and "internal error" not in err, (target, err)
    transcript = write_stream(tmp_path / "t.jsonl", texts=["LegacyConfigLoader"])
    assert run_cli("score", str(skill / "evals/cases/a.yaml"), "--transcript", str(transcript))[0] == 0


def test_yaml_one_level_deeper_is_a_limit_error(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "notes", {"a": _deep_yaml(MAX_DEPTH + 1)})
    assert run_cli("validate", str(skill)) == (
        1, f"{skill}/evals/cases/a.yaml:5:{MAX_DEPTH + 7}: EV100 nesting is deeper than {MAX_DEPTH} levels\n"
           "1 error, 0 warnings in 1 file\n", "")


def test_json_900_deep_is_a_limit_error_and_just_under_works(run_cli, tmp_path):
    deep = tmp_path / "sample" / "evals" / "evals.json"
    deep.parent.mkdir(parents=True)
    body = {"skill_name": "sample", "evals": [{"id": 1, "prompt": "Write the notes.", "expected_output": "Notes.",
                                               "expectations": ["Lists breaking changes"]}]}
    text = json.dumps(body)
    deep.write_text(text.replace('"Notes."', "[" * 900 + "]" * 900), encoding="utf-8")
    col = text.index('"Notes."') + 1 + MAX_DEPTH - 3  # the root object, "evals", its item: 3 levels already
    assert run_cli("validate", str(deep)) == (
        1, f"{deep}:1:{col}: EV100 nesting is deeper than {MAX_DEPTH} levels\n1 error, 0 warnings in 1 file\n", "")
    deep.write_text(text.replace('"Notes."', "[" * (MAX_DEPTH - 3) + "]" * (MAX_DEPTH - 3)), encoding="utf-8")
    for args in (["inspect", "--format", "json", str(deep)], ["convert", str(deep), "--to", "ir", "-o",
                                                              str(tmp_path / "ir.json")]):
        code, out, err = run_cli(*args)
        assert code in (0, 1) and "internal error" not in err, (args, err)


def test_a_transcript_line_5000_deep_is_skipped(run_cli, tmp_path):
    skill = make_skill(tmp_path / "lib", "notes", {"a": "task: t\nchecks:\n  - transcript_mentions: hello\n"})
    deep_line = '{"type":"user","x":' + "[" * 5000 + "]" * 5000 + "}"
    deep_input = json.dumps({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "d", "name": "Bash",
                                                                            "input": {"command": "ls", "x": 1}}]}})
    deep_input = deep_input.replace('"x": 1', '"x": ' + "[" * 900 + "]" * 900)  # parsed (orjson: up to 1024)
    transcript = write_stream(tmp_path / "t.jsonl", texts=["hello"], extra_lines=[deep_line, deep_input])
    code, out, err = run_cli("score", str(skill / "evals/cases/a.yaml"), "--transcript", str(transcript))
    assert (code, err) == (0, "")
    assert out == (f"transcript: {transcript} (claude-code-stream-json, 4 records, 1 non-JSON line skipped)\n"
                   "PASS a (1/1 checks passed)\n  ok   transcript_mentions:hello: found in the transcript\n")


LIMIT = ("aliases expand the document to more than 10.0 MB (an alias bomb?); set EVALFMT_MAX_BYTES to raise "
         "the limit")


def test_a_long_string_aliased_thousands_of_times_through_the_cli(run_cli, tmp_path):
    """1 MB aliased 2,999 times: a 1 MB file that expands to 3 GB (issue 11.9), in a terum case."""
    skill = make_skill(tmp_path / "lib", "notes", {
        "a": "task: &s " + "y" * 1_000_000 + "\nchecks:\n  - transcript_mentions: LegacyConfigLoader\nnotes: ["
             + ", ".join(["*s"] * 2999) + "]\n"})
    case = skill / "evals" / "cases" / "a.yaml"
    assert run_cli("validate", str(case)) == (1, f"{case}:4:45: EV100 {LIMIT}\n1 error, 0 warnings in 1 file\n", "")
    code, out, err = run_cli("inspect", "--format", "json", "--no-spans", str(skill))
    assert (code, err) == (1, f"evalfmt: {case}:4:45: EV100 {LIMIT}\n")
    code, out, err = run_cli("convert", str(skill), "--to", "ir", "-o", str(tmp_path / "ir.json"))
    assert code == 1 and err.startswith(f"evalfmt: {case}:4:45: EV100 {LIMIT}\n")
    assert not (tmp_path / "ir.json").exists()


def test_aliases_in_an_agentv_file(run_cli, tmp_path):
    """agentv files are read as agentv's parser reads them: it refuses about 100 uses of one anchor
    (its own alias-bomb guard); fewer uses of a long string are held to the size limit by evalfmt."""
    evals = tmp_path / "EVAL.yaml"
    text = "x: &s " + "y" * 1_000_000 + "\ntests:\n  - id: t1\n    input: hi\n    notes: [{}]\n"
    evals.write_text(text.format(", ".join(["*s"] * 2999)), encoding="utf-8")
    code, out, err = run_cli("validate", str(evals))
    assert code == 1 and out.startswith(f"{evals}:5:409: EV100 invalid YAML: excessive alias count indicates a "
                                        "resource exhaustion attack (agentv's YAML parser)")
    evals.write_text(text.format(", ".join(["*s"] * 50)), encoding="utf-8")
    assert run_cli("validate", str(evals)) == (1, f"{evals}:5:49: EV100 {LIMIT}\n1 error, 0 warnings in 1 file\n", "")


def test_huge_numbers_in_an_agentv_file_read_as_javascript_reads_them(run_cli, tmp_path):
    """agentv files go through the model of agentv's parser: a number beyond a double is Infinity
    there (parseInt), as agentv reads it; it was an OverflowError (and 5,000 digits a ValueError)."""
    evals = tmp_path / "EVAL.yaml"
    evals.write_text("tests:\n  - id: a\n    input: hi\n    criteria: c\n    weight: &w " + "9" * 400
                     + "\n    other: *w\n    digits: " + "7" * 5000 + "\n", encoding="utf-8")
    code, out, err = run_cli("inspect", "--format", "json", "--no-spans", str(evals))
    assert (code, err) == (0, "")
    extra = json.loads(out)["sets"][0]["cases"][0]["extra"]
    assert (extra["weight"], extra["other"], extra["digits"]) == (None, None, None)  # Infinity: JSON null


def test_a_skillgym_timeout_beyond_2_53_is_ev102(run_cli, tmp_path):
    """2**64 as timeoutMs became an int orjson cannot write (found by the fuzz test)."""
    suite = tmp_path / "suite.ts"
    suite.write_text('import { assert, type Case } from "skillgym";\nconst suite: Case[] = [\n  {\n    id: "a",\n'
                     '    prompt: "p",\n    timeoutMs: 18446744073709551616,\n    assert(report) {\n'
                     '      assert.skills.has(report, "x");\n    },\n  },\n];\nexport default suite;\n', encoding="utf-8")
    message = f"{suite}:6:16: EV102 'timeoutMs' must be a positive whole number of milliseconds, not a number"
    assert run_cli("validate", str(suite)) == (1, message + "\n1 error, 0 warnings in 1 file\n", "")
    code, out, err = run_cli("inspect", "--format", "json", "--no-spans", str(suite))
    assert (code, err) == (1, f"evalfmt: {message}\n")
    assert json.loads(out)["sets"][0]["cases"][0]["extra"]["timeoutMs"] == 1.8446744073709552e19


def test_max_turns_beyond_2_53_is_ev108(run_cli, tmp_path):
    """2**64 read as a float, then int() again for the IR: JSON output could not hold it (found by the fuzz test)."""
    skill = make_skill(tmp_path / "lib", "notes", {"a": "task: t\nmax_turns: 18446744073709551616\nchecks:\n"
                                                         "  - transcript_mentions: LegacyConfigLoader\n"})
    case = skill / "evals" / "cases" / "a.yaml"
    message = (f"{case}:2:12: EV108 'max_turns' is 18446744073709552000: it must be a positive integer")
    assert run_cli("validate", str(case)) == (1, message + "\n1 error, 0 warnings in 1 file\n", "")
    code, out, err = run_cli("inspect", "--format", "json", "--no-spans", str(skill))
    assert (code, err) == (1, f"evalfmt: {message}\n")
    assert json.loads(out)["sets"][0]["cases"][0]["extra"]["max_turns"] == 1.8446744073709552e19


def test_json_output_holds_any_integer():
    """The last guard of JSON output: an integer beyond 64 bits is written as a JavaScript number."""
    from evalfmt.js import json_numbers

    assert json_numbers({"a": [2 ** 70, 1, -(2 ** 80), 10 ** 400, True, None, 1.5, "x"]}) == {
        "a": [1.1805916207174113e21, 1, -1.2089258196146292e24, float("inf"), True, None, 1.5, "x"]}
