"""Issue 11 item 12: a user string never starts a line of its own, drives the terminal or flips a line.

One helper, ``errors.one_line`` (a run of line breaks and tabs prints as one space, the way lint
already printed messages; other control, invisible and bidi characters as ``[U+XXXX]``), used by
``Diagnostic.format``, ``Loss.format``, every ``evalfmt: ...`` line (``commands._common.err`` and
``cli.main``), the text output of inspect, score, triggers, compare and run, and run's progress
lines. Names and ids holding a control character are refused (EV116).
"""

from __future__ import annotations

import os
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT

from evalfmt.errors import CONTROL, one_line

HOSTILE = ROOT / "tests" / "hostile" / "writes" / "forged-lines"
#: characters that must never reach one-line output raw
RAW = ("\n", "\r", "\x0b", "\x0c", "\x85", "\u2028", "\u2029", "\x1b", "\x07", "\u202e")


def assert_one_line_each(*streams: str) -> None:
    for text in streams:
        for line in text.split("\n"):
            assert not line.startswith("::error file=README.md"), f"forged annotation: {line!r}"
            assert not any(ch in line for ch in RAW), f"raw control character in {line!r}"


@pytest.fixture
def hostile(tmp_path):
    shutil.copytree(HOSTILE, tmp_path / "h")
    return tmp_path / "h"


# ----------------------------------------------------------------------------------- the helper


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40))
def test_one_line_never_leaves_a_line_break_or_control_character(text):
    shown = one_line(text)
    assert not CONTROL.search(shown)
    assert "\ufeff" not in shown and "\u200b" not in shown
    assert one_line(shown) == shown  # escaping twice changes nothing
    if not CONTROL.search(text) and "\ufeff" not in text and not any("\u200b" <= c <= "\u200f" or "\u2060" <= c <= "\u2064"
                                                                      or c in "\u061c\ufff9\ufffa\ufffb" for c in text):
        assert shown == text  # ordinary text is left alone


def test_one_line_examples():
    assert one_line("a\n::error file=x::") == "a ::error file=x::"
    assert one_line("a\r\n\t\u2028b") == "a b"
    assert one_line("x\x1b[2Jy\u202ez\x00") == "x[U+001B][2Jy[U+202E]z[U+0000]"
    assert one_line("café — 日本語 שלום") == "café — 日本語 שלום"


# -------------------------------------------------------------------------------------- EV116


def test_validate_refuses_control_characters_in_names_and_ids(run_cli, hostile):
    code, out, err = run_cli("validate", "EVAL.yaml", cwd=str(hostile))
    assert (code, err) == (1, "")
    assert out == (
        "EVAL.yaml:3:1: EV116 eval set name 'set ::error file=README.md::forged by the set name' holds a control "
        "character (U+000A): names and ids must print on one line; remove it\n"
        "EVAL.yaml:5:5: EV116 test id 't1 ::error file=README.md::forged by an id' holds a control character "
        "(U+000A): names and ids must print on one line; remove it\n"
        "EVAL.yaml:8:9: EV116 skill name 'evil ::error file=README.md::forged by a skill name' holds a control "
        "character (U+000D): names and ids must print on one line; remove it\n"
        "EVAL.yaml:10:5: EV116 test id 't2[U+001B]]8;;https://evil.example[U+0007]click[U+001B]]8;;[U+0007]' holds "
        "a control character (U+001B): names and ids must print on one line; remove it\n"
        "4 errors, 0 warnings in 1 file\n")


def test_transpile_writes_nothing_for_a_skill_name_with_a_line_break(run_cli, hostile):
    code, out, err = run_cli("transpile", "EVAL.yaml", "-d", "out", cwd=str(hostile))
    assert (code, out) == (1, "")
    assert_one_line_each(err)
    assert err.splitlines()[-1] == "evalfmt: 4 errors; nothing written"
    assert "evalfmt: not routed: EVAL.yaml:10: test 't2[U+001B]]8;;https://evil.example[U+0007]click[U+001B]]8;;[U+0007]' " \
           "has no skill-trigger" in err.splitlines()
    assert not (hostile / "out").exists()


def test_a_folder_whose_name_holds_a_line_break(run_cli, tmp_path):
    """The folder is a terum skill: its name is the skill name (EV116), and every path printed with
    it stays on one line."""
    skill = tmp_path / "evil\n::error file=README.md::folder"
    shutil.copytree(HOSTILE / "notes", skill)
    (skill / "SKILL.md").write_text("---\nname: notes\ndescription: Drafts release notes.\n---\n")
    (skill / "evals" / "triggers.yaml").write_text("should_trigger: [write notes]\nshould_not_trigger: [review]\n")
    (skill / "evals" / "cases" / "mentions.yaml").write_text("task: Draft notes\nchecks: [{transcript_mentions: x}]\nbucket: 3\n")
    for args in (["validate", str(skill)], ["lint", "--isolated", str(skill)], ["inspect", str(skill)],
                 ["transpile", str(skill), "-d", str(tmp_path / "out")], ["convert", str(skill), "--to", "agentv"]):
        code, out, err = run_cli(*args)
        assert_one_line_each(out, err)
    code, out, err = run_cli("validate", str(skill))
    shown = str(tmp_path) + "/evil ::error file=README.md::folder"
    assert code == 1
    assert out == (
        f"{shown}/evals/cases/mentions.yaml:3:9: EV109 unknown bucket '3'; the engine refuses the case: use one of "
        "explicit, implicit, contextual, negative, adversarial\n"
        f"{shown}/evals/triggers.yaml:1:1: EV116 skill name 'evil ::error file=README.md::folder' holds a control "
        "character (U+000A): names and ids must print on one line; remove it\n"
        "2 errors, 0 warnings in 2 files\n")
    (skill / "evals" / "triggers.yaml").unlink()  # without a trigger set, the folder itself is named
    code, out, err = run_cli("validate", str(skill))
    assert out.splitlines()[0] == (f"{shown}:1:1: EV116 skill name 'evil ::error file=README.md::folder' holds a "
                                   "control character (U+000A): names and ids must print on one line; remove it")


# ------------------------------------------------------------------------- every one-line output


def test_every_command_prints_user_strings_on_one_line(run_cli, hostile):
    runs = [
        ("validate", "EVAL.yaml"), ("validate", "notes"), ("inspect", "EVAL.yaml"), ("inspect", "notes"),
        ("lint", "--isolated", "EVAL.yaml"), ("lint", "--isolated", "notes"),
        ("lint", "--isolated", "--format", "github", "EVAL.yaml"),
        ("transpile", "EVAL.yaml", "-d", "out"), ("transpile", "--layout", "agentv", "EVAL.yaml", "-d", "out2"),
        ("transpile", "--check", "notes", "-d", "out3"),
        ("convert", "EVAL.yaml", "--to", "terum", "-o", "conv/", "--force"),
        ("convert", "notes", "--to", "promptfoo"),
        ("triggers", "notes", "--selections", "selections.jsonl"),
        ("score", "notes/evals/cases/mentions.yaml", "--transcript", "transcript.jsonl"),
    ]
    seen = 0
    for args in runs:
        code, out, err = run_cli(*args, cwd=str(hostile))
        assert code in (0, 1), (args, err)
        if args[0] in ("convert",) and "-o" not in args:
            out = ""  # the converted file itself (multi-line YAML, values quoted as YAML quotes them)
        assert_one_line_each(out, err)
        seen += ("::error file=README.md::forged" in out + err)
    assert seen == 10  # the runs that print a hostile string did print it (escaped)


def test_errors_that_end_a_command_are_one_line(run_cli, tmp_path):
    code, out, err = run_cli("validate", str(tmp_path / "no\n::error file=README.md::such"))
    assert (code, out) == (2, "")
    assert err == f"evalfmt: {tmp_path}/no ::error file=README.md::such: no such file or directory\n"
    code, out, err = run_cli("convert", str(tmp_path), "--to", "x\n::error::y")
    assert code == 2 and err.count("\n") == 1 and "::error::y" in err


def test_lost_lines_are_one_line(run_cli, hostile):
    code, out, err = run_cli("convert", "EVAL.yaml", "--to", "terum", "-o", "conv/", "--force", cwd=str(hostile))
    assert code == 0
    assert "evalfmt: lost: EVAL.yaml:13: 'contains' check 'x ::error file=README.md::forged by a value[U+202E]' (terum " \
           "checks the transcript, commands and files, not the final answer)" in err.splitlines()
    assert_one_line_each(err)


def test_run_progress_lines_are_one_line():
    import io

    from evalfmt.run.execute import Progress

    stream = io.StringIO()
    p = Progress(1, enabled=True, stream=stream)
    p.line("case 'a\n::error file=x::b' \x1b[2J")
    assert stream.getvalue() == "case 'a ::error file=x::b' [U+001B][2J\n"


def test_diagnostic_and_loss_format_are_one_line():
    from evalfmt.errors import Diagnostic
    from evalfmt.formats import Loss

    d = Diagnostic("a\nb.yaml", 1, 2, "EV116", "name 'x\ny'")
    assert d.format() == "a b.yaml:1:2: EV116 name 'x y'"
    assert Loss("f\n:1", "what\u202e").format() == "lost: f :1: what[U+202E]"


def test_paths_in_write_errors_are_one_line(run_cli, tmp_path):
    out = tmp_path / "o\n::error::x"
    out.mkdir()
    os.symlink("/", out / "evals")
    code, stdout, err = run_cli("convert", str(ROOT / "fixtures" / "library" / "release-notes"), "--to", "terum",
                                "-o", str(out))
    assert code == 2 and err.count("\n") == 1 and "o ::error::x/evals/cases" in err


def test_path_helper_for_inspect_alignment():
    from evalfmt import ir
    from evalfmt.summary import describe

    text = describe([ir.EvalSet(format="agentv", cases=[ir.Case(name="a\nb", input="t"), ir.Case(name="cc", input="u")])])
    assert text.splitlines()[1:5] == ["  case a b  t", "            no checks", "  case cc   u", "            no checks"]


def test_no_command_module_echoes_around_the_helpers():
    """A guard for the next command: text output goes through err / echo_line / Diagnostic.format."""
    offenders = []
    for path in sorted((ROOT / "evalfmt" / "commands").glob("*.py")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            s = line.strip()
            if "click.echo(" in s and path.name != "_common.py" and "nl=False" not in s and "d.format()" not in s \
                    and "summary_line(" not in s:
                offenders.append(f"{path.name}:{n}: {s}")
    assert offenders == []


def test_one_line_keeps_lint_messages_as_before():
    """lint already printed a run of line breaks and tabs as one space: still so, through the helper."""
    assert one_line("mentions 'a\n\n\tb'") == "mentions 'a b'"

