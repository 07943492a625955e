"""Issue 11 items 1-4: convert never writes outside its output folder.

One root rule (api.write_files: every path must resolve inside the output folder, symlinks
followed, before the first write) and writers that never emit a name that is not a plain relative
path (a hostile hint becomes the default name, with a ``lost:`` line). The hostile inputs are in
tests/hostile/writes/.
"""

from __future__ import annotations

import os
import pathlib
import shutil

import pytest

from conftest import ROOT, FIXTURES

HOSTILE = ROOT / "tests" / "hostile" / "writes"


def files_under(folder: pathlib.Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() or p.is_symlink())


# --------------------------------------------------------------- item 1: promptfoo file:// references


@pytest.fixture
def outside_ref(tmp_path):
    """tmp/proj/src/promptfooconfig.yaml whose tests are in tmp/x/tests.yaml (file://../../x/tests.yaml), all in
    one repository (tmp/.git: a reference outside it is not read at all)."""
    shutil.copytree(HOSTILE / "promptfoo-outside-ref", tmp_path, dirs_exist_ok=True)
    (tmp_path / ".git").mkdir()
    return tmp_path


@pytest.mark.parametrize("out", ["out/", "out/p.yaml"])
def test_promptfoo_relative_reference_outside_is_written_beside_the_config(run_cli, outside_ref, out):
    proj = outside_ref / "proj"
    before = (outside_ref / "x" / "tests.yaml").read_bytes()
    code, stdout, err = run_cli("convert", "src/promptfooconfig.yaml", "--to", "promptfoo", "-o", out, cwd=str(proj))
    assert (code, stdout) == (0, "")
    config = "p.yaml" if out.endswith(".yaml") else "promptfooconfig.yaml"
    assert err == ("evalfmt: lost: src/promptfooconfig.yaml:1: tests file 'file://../../x/tests.yaml' (outside the "
                   "output folder; written as 'file://tests.yaml' beside the config)\n"
                   "evalfmt: wrote 2 files\n")
    # nothing outside out/: the tests file two folders up is untouched, no new file appeared beside it
    assert files_under(outside_ref) == ["proj/out/" + config, "proj/out/tests.yaml",
                                        "proj/src/promptfooconfig.yaml", "x/tests.yaml"]
    assert (outside_ref / "x" / "tests.yaml").read_bytes() == before
    assert "  - file://tests.yaml\n" in (proj / "out" / config).read_text()
    assert (proj / "out" / "tests.yaml").read_text() == "- vars:\n    prompt: say hi\n  assert:\n    - type: contains\n      value: hi\n"
    # the written pair reads back as the same tests
    code, stdout, err = run_cli("inspect", str(proj / "out" / config))
    assert (code, err) == (0, "") and "case test-1  say hi" in stdout


def test_promptfoo_absolute_reference_is_not_written_where_it_points(run_cli, tmp_path):
    (tmp_path / ".git").mkdir()  # (one repository: a reference outside it is not read at all)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    src = tmp_path / "src"
    src.mkdir()
    (src / "promptfooconfig.yaml").write_text(f"prompts: ['{{{{prompt}}}}']\ntests:\n  - file://{elsewhere}/shared.yaml\n")
    (elsewhere / "shared.yaml").write_text("- vars: {prompt: say hi}   # not rewritten\n")
    code, stdout, err = run_cli("convert", str(src / "promptfooconfig.yaml"), "--to", "promptfoo",
                                "-o", str(tmp_path / "out") + "/")
    assert code == 0, err
    assert f"tests file 'file://{elsewhere}/shared.yaml' (outside the output folder; written as 'file://shared.yaml'" in err
    assert files_under(tmp_path / "out") == ["promptfooconfig.yaml", "shared.yaml"]
    assert files_under(elsewhere) == ["shared.yaml"]
    assert (elsewhere / "shared.yaml").read_text() == "- vars: {prompt: say hi}   # not rewritten\n"


def test_two_outside_references_with_one_file_name_get_two_files(run_cli, tmp_path):
    (tmp_path / ".git").mkdir()
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "tests.yaml").write_text(f"- vars: {{prompt: from {d}}}\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "promptfooconfig.yaml").write_text(
        "prompts: ['{{prompt}}']\ntests:\n  - file://../a/tests.yaml\n  - file://../b/tests.yaml\n  - file://tests-2.yaml\n")
    (tmp_path / "src" / "tests-2.yaml").write_text("- vars: {prompt: local}\n")
    code, _, err = run_cli("convert", str(tmp_path / "src" / "promptfooconfig.yaml"), "--to", "promptfoo",
                           "-o", str(tmp_path / "out") + "/")
    assert code == 0, err
    config = (tmp_path / "out" / "promptfooconfig.yaml").read_text()
    assert "  - file://tests.yaml\n  - file://tests-3.yaml\n  - file://tests-2.yaml\n" in config
    assert (tmp_path / "out" / "tests-3.yaml").read_text() == "- vars:\n    prompt: from b\n"
    assert (tmp_path / "out" / "tests-2.yaml").read_text() == "- vars:\n    prompt: local\n"


# ----------------------------------------------------------------- items 2-3: hints in an IR file


@pytest.mark.parametrize("ir_file, to, written, loss", [
    ("file-name-skillgym.ir.json", "skillgym", "suite.ts",
     "file name '../escaped.ts' (not a plain file name; written as 'suite.ts')"),
    ("file-name-promptfoo.ir.json", "promptfoo", "promptfooconfig.yaml",
     "file name '../escaped.yaml' (not a plain file name; written as 'promptfooconfig.yaml')"),
    ("file-name-skill-creator-triggers.ir.json", "skill-creator-triggers", "trigger-evals.json",
     "file name '../escaped.json' (not a plain file name; written as 'trigger-evals.json')"),
    ("case-ext-terum.ir.json", "terum", "evals/cases/greets.yaml",
     "case file extension 'yaml/../../../escaped' (only yaml or yml; written as .yaml)"),
])
def test_a_hostile_hint_never_names_an_output_file(run_cli, tmp_path, ir_file, to, written, loss):
    work = tmp_path / "work"
    work.mkdir()
    code, stdout, err = run_cli("convert", str(HOSTILE / ir_file), "--from", "ir", "--to", to, "-o", "out/", cwd=str(work))
    assert code == 0, err
    assert f": {loss}\n" in err and "evalfmt: wrote 1 file\n" in err
    assert files_under(tmp_path) == ["work/out/" + written]
    # --strict refuses: the output would not be named as the IR asks
    code, _, err = run_cli("convert", str(HOSTILE / ir_file), "--from", "ir", "--to", to, "-o", "strict/", "--strict",
                           cwd=str(work))
    assert code == 1 and "nothing written" in err and not (work / "strict").exists()


@pytest.mark.parametrize("name", ["..", ".", "a/b", "a\\b", "", "evil\n.ts", "x\u202e.ts"])
def test_plain_name_refuses_every_non_plain_name(name):
    from evalfmt.formats import Loss, hinted_name, plain_name

    assert not plain_name(name)
    losses: list[Loss] = []
    assert hinted_name(name, "suite.ts", "set", losses) == "suite.ts" and len(losses) == 1


def test_case_stems_never_hold_control_characters():
    from evalfmt import ir
    from evalfmt.formats.terum.writer import write

    es = ir.EvalSet(format="agentv", cases=[ir.Case(name="evil\n::error file=x::", input="go")])
    (rel,) = [r for r in write(es).files if r.startswith("evals/cases/")]
    assert rel == "evals/cases/evil-::error file=x::.yaml"


# -------------------------------------------------------------------------- item 4: a symlink


def test_symlink_inside_the_output_folder_is_not_followed_out(run_cli, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "w" / "out"
    out.mkdir(parents=True)
    os.symlink("../../elsewhere", out / "evals")
    code, stdout, err = run_cli("convert", str(FIXTURES / "library" / "release-notes"), "--to", "terum", "-o", "out",
                                cwd=str(tmp_path / "w"))
    assert (code, stdout) == (2, "")
    assert err == ("evalfmt: refusing to write out/evals/cases/breaking-change-first.yaml: outside the output folder "
                   "out (through '..', an absolute path or a symlink); nothing written\n")
    assert files_under(elsewhere) == []


def test_output_file_that_is_a_symlink_out_is_refused(run_cli, tmp_path):
    target = tmp_path / "victim.yaml"
    target.write_text("keep me\n")
    (tmp_path / "w").mkdir()
    os.symlink(target, tmp_path / "w" / "EVAL.yaml")
    code, _, err = run_cli("convert", str(FIXTURES / "library" / "release-notes"), "--to", "agentv", "-o", "EVAL.yaml",
                           cwd=str(tmp_path / "w"))
    assert code == 2 and "refusing to write EVAL.yaml: outside the output folder ." in err
    assert target.read_text() == "keep me\n"


def test_write_files_needs_a_root_and_checks_every_path_before_writing(tmp_path):
    from evalfmt.api import write_files
    from evalfmt.errors import EvalfmtError

    files = {str(tmp_path / "out" / "a.json"): "{}\n", str(tmp_path / "b.json"): "{}\n"}
    with pytest.raises(EvalfmtError, match="refusing to write .*b.json: outside the output folder"):
        write_files(files, str(tmp_path / "out"))
    assert files_under(tmp_path) == []
    with pytest.raises(TypeError):
        write_files(files)  # type: ignore[call-arg]  # no write without a root
    with pytest.raises(EvalfmtError, match="no output folder given"):
        write_files(files, None)  # type: ignore[arg-type]  # convert's root when there is no -o
    assert files_under(tmp_path) == []


def test_transpile_and_convert_share_the_root_rule(run_cli, tmp_path):
    """transpile refused this layout before; it now goes through the same write_files check."""
    src = tmp_path / "EVAL.yaml"
    src.write_text("tests:\n  - id: t\n    input: go\n    assertions: [{type: skill-trigger, skill: deploy}]\n")
    (tmp_path / "out").mkdir()
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "out" / "deploy")
    code, _, err = run_cli("transpile", str(src), "-d", str(tmp_path / "out"))
    assert code == 2
    assert err == (f"evalfmt: refusing to write {tmp_path}/out/deploy/evals.json: outside the output folder "
                   f"{tmp_path}/out (through '..', an absolute path or a symlink); nothing written\n")
    assert files_under(tmp_path / "elsewhere") == []


def test_promptfoo_glob_reference_outside_is_expanded_beside_the_config(run_cli, tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "shared").mkdir()
    for name, prompt in (("a.yaml", "first"), ("b.yaml", "second")):
        (tmp_path / "shared" / name).write_text(f"- vars: {{prompt: {prompt}}}\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "promptfooconfig.yaml").write_text("prompts: ['{{prompt}}']\ntests:\n  - file://../shared/*.yaml\n")
    code, _, err = run_cli("convert", str(tmp_path / "src" / "promptfooconfig.yaml"), "--to", "promptfoo",
                           "-o", str(tmp_path / "out") + "/")
    assert code == 0, err
    assert (": tests file 'file://../shared/*.yaml' (outside the output folder; written as 'file://a.yaml', "
            "'file://b.yaml' beside the config)\n") in err
    assert files_under(tmp_path / "out") == ["a.yaml", "b.yaml", "promptfooconfig.yaml"]
    assert "tests:\n  - file://a.yaml\n  - file://b.yaml\n" in (tmp_path / "out" / "promptfooconfig.yaml").read_text()
    code, stdout, err = run_cli("inspect", str(tmp_path / "out" / "promptfooconfig.yaml"))
    assert (code, err) == (0, "") and "first" in stdout and "second" in stdout
