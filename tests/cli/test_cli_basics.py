"""The command line: version, help, exit codes, one-line errors, no tracebacks."""

from __future__ import annotations

import subprocess
import sys

import pytest

from evalfmt import __version__


def case_file(tmp_path, data: bytes, name: str = "c.yaml") -> str:
    folder = tmp_path / "skill" / "evals" / "cases"
    folder.mkdir(parents=True, exist_ok=True)
    (tmp_path / "skill" / "SKILL.md").write_text("---\nname: skill\ndescription: d\n---\n")
    path = folder / name
    path.write_bytes(data)
    return str(path)


def test_version(run_cli):
    assert run_cli("--version") == (0, f"evalfmt {__version__}\n", "")


def test_help_lists_commands(run_cli):
    code, out, err = run_cli("--help")
    assert code == 0 and err == ""
    for name in ("inspect", "validate", "convert"):
        assert f"  {name} " in out


def test_unknown_command_is_a_usage_error(run_cli):
    assert run_cli("frobnicate") == (2, "", "evalfmt: no such command 'frobnicate' (see 'evalfmt --help')\n")


@pytest.mark.parametrize("typo,meant", [("valdate", "validate"), ("lnt", "lint"), ("transpil", "transpile"),
                                        ("shema", "schema")])
def test_a_command_typo_gets_a_suggestion(run_cli, typo, meant):
    assert run_cli(typo, "x") == (2, "", f"evalfmt: no such command '{typo}' (did you mean '{meant}'?) "
                                         "(see 'evalfmt --help')\n")


def test_missing_path(run_cli, tmp_path):
    missing = str(tmp_path / "nope")
    assert run_cli("validate", missing) == (2, "", f"evalfmt: {missing}: no such file or directory\n")


def test_unrecognised_file(run_cli, tmp_path):
    p = tmp_path / "notes.txt"
    p.write_text("hello")
    assert run_cli("validate", str(p)) == (2, "", f"evalfmt: {p}: not an eval file evalfmt recognises (use --from FORMAT)\n")


def test_from_a_single_file_format_with_a_folder_reads_its_files_of_that_format(run_cli, tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    assert run_cli("validate", "--from", "agentv", str(tmp_path)) == (
        2, "", f"evalfmt: {tmp_path}: is a folder holding no agentv file evalfmt finds: give the file, or leave out "
               "--from to search the folder\n")
    (tmp_path / "EVAL.yaml").write_text("tests:\n  - id: a\n    input: x\n    criteria: c\n")
    assert run_cli("validate", "--from", "agentv", str(tmp_path)) == (0, "", "")  # one skill folder, several formats
    assert run_cli("validate", "--from", "agentv", str(tmp_path / "EVAL.yaml")) == (0, "", "")


BAD_INPUTS = [
    ("alias bomb", b'a: &a ["x","x","x","x","x","x","x","x","x","x"]\n'
     + b"".join(b"%c: &%c [" % (98 + i, 98 + i) + b",".join([b"*%c" % (97 + i)] * 10) + b"]\n" for i in range(7)),
     "5:29: EV100 aliases expand to more than 100000 nodes (an alias bomb?)"),
    ("deep nesting", b"task: " + b"[" * 5000 + b"]" * 5000 + b"\n", "1:106: EV100 nesting is deeper than 100 levels"),
    ("NUL byte", b"task: a\x00b\n", "1:8: EV100 NUL byte in file (binary data is not an eval file)"),
    ("invalid UTF-8", b"task: \xc3\x28\n", "1:7: EV100 invalid UTF-8 (byte 0xc3)"),
    ("not a mapping", b"- task: x\n", "1:1: EV102 a case file must be a mapping of fields, this one is a list"),
    ("tabs", b"task: x\nchecks:\n\t- file_exists: a\n", "3:1: EV100 invalid YAML: tab character used for indentation (YAML allows only spaces)"),
]


@pytest.mark.parametrize("label,data,expected", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_input_gives_one_line_with_position_and_exit_1(run_cli, tmp_path, label, data, expected):
    path = case_file(tmp_path, data)
    code, out, err = run_cli("validate", "-q", path)
    assert (code, err) == (1, "")
    assert out.splitlines()[0] == f"{path}:{expected}"


def test_file_over_the_size_limit(run_cli, tmp_path):
    path = case_file(tmp_path, b"task: " + b"x" * 5000 + b"\n")
    code, out, err = run_cli("validate", "-q", path, env={"EVALFMT_MAX_BYTES": "4096"})
    assert (code, out, err) == (1, f"{path}:1:1: EV100 file is 5007 bytes, larger than the limit of 4096 bytes "
                                   "(set EVALFMT_MAX_BYTES to raise it)\n", "")


def test_clean_file_exits_0_silently(run_cli, tmp_path):
    path = case_file(tmp_path, b"task: do it\nchecks: [{transcript_mentions: X}]\n")
    assert run_cli("validate", path) == (0, "", "")


def test_summary_line_and_json(run_cli, tmp_path):
    path = case_file(tmp_path, b"task: x\nchek: []\nbucket: easy\n")
    code, out, _ = run_cli("validate", path)
    assert code == 1
    assert out.splitlines()[-1] == "2 errors, 0 warnings in 1 file"
    code, out, _ = run_cli("validate", "--format", "json", path)
    import json

    doc = json.loads(out)
    assert doc["summary"] == {"errors": 2, "warnings": 0, "files": 1}
    assert doc["diagnostics"][0] == {"path": path, "line": 2, "column": 1, "code": "EV101", "severity": "error",
                                     "message": "unknown key 'chek' (did you mean 'checks'?); the engine ignores it silently"}


def test_internal_errors_never_show_a_traceback(run_cli, monkeypatch, tmp_path):
    import evalfmt.api

    def boom(*a, **k):
        raise RuntimeError("kaput")

    monkeypatch.setattr(evalfmt.api, "validate_paths", boom)
    path = case_file(tmp_path, b"task: x\n")
    assert run_cli("validate", path) == (2, "", "evalfmt: internal error: RuntimeError: kaput (run with --debug for details)\n")


def test_cold_process_runs_and_exits_cleanly(tmp_path):
    path = case_file(tmp_path, b"task: x\nbucket: nope\n")
    proc = subprocess.run([sys.executable, "-m", "evalfmt", "validate", "-q", path], capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stdout == (f"{path}:2:9: EV109 unknown bucket 'nope'; the engine refuses the case: use one of "
                           "explicit, implicit, contextual, negative, adversarial\n")
    assert proc.stderr == ""


def test_cli_start_does_not_import_heavy_modules():
    code = ("import sys, evalfmt.cli; "
            "print(sorted(m for m in ('pydantic', 'ruamel.yaml', 'orjson', 'lark', 'evalfmt.ir') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_validating_a_terum_file_does_not_import_pydantic(tmp_path):
    """The reader builds the IR (plain dataclasses); pydantic is only the IR's boundary (evalfmt.ir.adapter)."""
    path = case_file(tmp_path, b"task: x\nchecks: [{transcript_mentions: y}]\n")
    code = ("import sys; from evalfmt.api import validate; "
            f"validate([{path!r}]); print('pydantic' in sys.modules, 'evalfmt.ir.adapter' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False False"


LIGHT_FORMATS = [
    ("agentv", "EVAL.yaml", "tests:\n  - id: a\n    input: hi\n    criteria: c\n"),
    ("agent-skills", "evals.json", '{"skill_name": "s", "evals": [{"id": 1, "prompt": "p", "expectations": ["e"]}]}\n'),
    ("skill-creator-triggers", "trigger-evals.json",
     '[{"query": "q", "should_trigger": true}, {"query": "r", "should_trigger": false}]\n'),
    ("promptfoo", "promptfooconfig.yaml", "prompts: ['{{prompt}}']\ntests:\n  - vars: {prompt: hi}\n"
                                          "    assert: [{type: contains, value: x}]\n"),
]


@pytest.mark.parametrize("fmt,name,text", LIGHT_FORMATS, ids=[f[0] for f in LIGHT_FORMATS])
def test_validate_and_lint_of_one_file_do_not_import_pydantic(tmp_path, fmt, name, text):
    """pre-commit runs validate and lint on every commit: readers build the IR's dataclasses, and neither
    they nor detection of a .json file load pydantic (the IR's boundary, evalfmt.ir.adapter)."""
    path = tmp_path / name
    path.write_text(text)
    code = ("import sys\nfrom evalfmt.cli import main\nfrom evalfmt.formats import detect\n"
            "print(detect(sys.argv[1]).name)\n"
            "for args in (['validate', sys.argv[1]], ['lint', '--isolated', '--quiet', sys.argv[1]]):\n"
            "    try:\n        main(args)\n    except SystemExit as exc:\n        print('exit', exc.code)\n"
            "print(sorted(m for m in ('pydantic', 'evalfmt.ir.adapter') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [fmt, "exit 0", "exit 0", "[]"]


def test_bare_evalfmt_prints_its_help_as_help(run_cli):
    """As ruff: the whole help, as `--help` lays it out, on stderr, exit 2 (it was squeezed into one
    'evalfmt: Usage: ...' error line)."""
    help_text = run_cli("--help")[1]
    assert run_cli() == (2, "", help_text)
    assert help_text.count("\n") > 20


def _a_skill_with_a_typo(tmp_path):
    skill = tmp_path / "sk"
    (skill / "evals" / "cases").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: sk\ndescription: Writes notes.\n---\nBody.\n")
    (skill / "evals" / "cases" / "a.yaml").write_text("task: Write the notes\ncheck: []\n")


@pytest.mark.parametrize("command", ["lint", "validate"])
def test_lint_and_validate_without_a_path_take_the_current_folder(run_cli, tmp_path, command):
    _a_skill_with_a_typo(tmp_path)
    bare = run_cli(command, cwd=str(tmp_path))
    assert bare == run_cli(command, ".", cwd=str(tmp_path))
    assert bare[0] == 1 and "sk/evals/cases/a.yaml:2:1: EV101 unknown key 'check'" in bare[1]


@pytest.mark.parametrize("command", ["lint", "validate"])
def test_output_format_is_an_alias_of_format(run_cli, tmp_path, command):
    _a_skill_with_a_typo(tmp_path)
    alias = run_cli(command, "--output-format", "json", ".", cwd=str(tmp_path))
    assert alias == run_cli(command, "--format", "json", ".", cwd=str(tmp_path))
    assert alias[0] == 1 and '"code": "EV101"' in alias[1]


def test_inspect_of_a_folder_without_eval_files_says_so(run_cli, tmp_path):
    (tmp_path / "notes.md").write_text("# notes\n")
    assert run_cli("inspect", str(tmp_path)) == (0, "", f"evalfmt: no eval files found under {tmp_path}\n")
    code, out, err = run_cli("inspect", "--format", "json", str(tmp_path))
    assert (code, err) == (0, f"evalfmt: no eval files found under {tmp_path}\n") and '"sets": []' in out
