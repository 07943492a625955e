"""The agentv layout: byte-identical to ``agentv transpile`` 4.42.4 on the conformance files, and one
test per quirk of the real tool that it reproduces (named after the quirk; the expected bytes, exit
code and stderr were written by the real tool: tests/golden/transpile/agentv-quirks/)."""

from __future__ import annotations

import pathlib
import shutil

import pytest

from conftest import CONFORMANCE, FIXTURES, ROOT, conformance_files, conformance_id
from quirks import QUIRKS

QUIRK_GOLDEN = ROOT / "tests" / "golden" / "transpile" / "agentv-quirks"
INPUTS = CONFORMANCE / "agentv-4.42.4" / "inputs"
EXPECTED = CONFORMANCE / "agentv-4.42.4" / "expected"
EVAL_FILES = conformance_files("agentv-4.42.4/inputs/**/*.yaml")


def as_agentv_stderr(err: str) -> str:
    """evalfmt's stderr as agentv writes it: ``evalfmt: warning: X`` is ``Warning: X``, ``evalfmt: X``
    is ``Error: X``; the ``wrote`` lines are agentv's stdout ``Transpiled to`` lines."""
    out = []
    for line in err.splitlines(keepends=True):
        if line.startswith("evalfmt: wrote "):
            continue
        if line.startswith("evalfmt: warning: "):
            line = "Warning: " + line[len("evalfmt: warning: "):]
        elif line.startswith("evalfmt: "):
            line = "Error: " + line[len("evalfmt: "):]
        out.append(line)
    return "".join(out)


def json_files(folder: pathlib.Path) -> dict[str, str]:
    if not folder.exists():
        return {}
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir()) if p.name.endswith(".json")}


def expected_of(folder: pathlib.Path) -> tuple[int, str, dict[str, str]]:
    return (int((folder / "rc").read_text().strip()), (folder / "stderr.txt").read_text(encoding="utf-8"),
            json_files(folder))


def transpile_cli(run_cli, src: pathlib.Path, out: pathlib.Path) -> tuple[int, str, dict[str, str]]:
    code, stdout, err = run_cli("transpile", "--layout", "agentv", str(src), "-d", str(out))
    assert stdout == ""
    return code, as_agentv_stderr(err), json_files(out)


# ------------------------------------------------------------------------------- conformance


@pytest.mark.conformance
@pytest.mark.parametrize("path", EVAL_FILES, ids=conformance_id)
def test_conformance_byte_identical_to_agentv(run_cli, tmp_path, path):
    expected = expected_of(EXPECTED / path.relative_to(INPUTS).with_suffix(""))
    assert transpile_cli(run_cli, path, tmp_path / "out") == expected


@pytest.mark.conformance
def test_conformance_check_against_the_real_outputs(run_cli, tmp_path):
    """--check reports no drift for the files agentv itself wrote."""
    for path in EVAL_FILES:
        folder = EXPECTED / path.relative_to(INPUTS).with_suffix("")
        if (folder / "rc").read_text().strip() != "0":
            continue
        code, out, err = run_cli("transpile", "--layout", "agentv", "--check", str(path), "-d", str(folder))
        assert (code, out, err) == (0, "", ""), path


# ------------------------------------------------------------------------------------ quirks


#: quirks whose error agentv prints with a code frame under it: evalfmt prints it on one line (CLI.md:
#: errors are one line; the byte-identical promise covers the files written), at the same position.
ONE_LINE_ERRORS = {
    "duplicate_keys_fail_like_the_yaml_package": (
        "Error: Map keys must be unique at line 4, column 5:",
        "Error: {src}:4:5: Map keys must be unique (duplicate key 'input', first at line 3)\n"),
}


def _quirk_test(name: str):
    def test(run_cli, tmp_path):
        src = tmp_path / "EVAL.yaml"
        src.write_text(QUIRKS[name], encoding="utf-8")
        rc, stderr, files = expected_of(QUIRK_GOLDEN / name)
        if name in ONE_LINE_ERRORS:
            agentv_first_line, ours = ONE_LINE_ERRORS[name]
            assert stderr.splitlines()[0] == agentv_first_line and len(stderr.splitlines()) > 1
            stderr = ours.format(src=src)
        assert transpile_cli(run_cli, src, tmp_path / "out") == (rc, stderr, files)

    test.__name__ = f"test_{name}"
    test.__doc__ = f"agentv quirk reproduced: {name.replace('_', ' ')}."
    return test


for _name in QUIRKS:
    globals()[f"test_{_name}"] = _quirk_test(_name)


# --------------------------------------------------------------------------------- the rest


def test_default_out_dir_is_the_inputs_folder(run_cli, tmp_path):
    (tmp_path / "evals").mkdir()
    src = tmp_path / "evals" / "EVAL.yaml"
    src.write_text(QUIRKS["several_skills_are_named_after_sanitised_skills"])
    code, out, err = run_cli("transpile", "--layout", "agentv", str(src))
    assert (code, out) == (0, "")
    assert sorted(p.name for p in (tmp_path / "evals").iterdir()) == [
        "EVAL.yaml", "___escape.evals.json", "caf____.evals.json", "plugin_deploy.evals.json"]
    assert err == "".join(f"evalfmt: wrote {tmp_path}/evals/{n}\n"
                          for n in ["plugin_deploy.evals.json", "___escape.evals.json", "caf____.evals.json"])


def test_agentv_layout_never_writes_outside_its_folder(tmp_path):
    from evalfmt.transpile import plan

    src = tmp_path / "EVAL.yaml"
    src.write_text("tests:\n" + "".join(
        f"  - id: t{i}\n    input: go\n    assertions: [{{type: skill-trigger, skill: \"{s}\"}}]\n"
        for i, s in enumerate(["../../etc/x", "/abs", "..", "a\\\\b", "ok"])))
    p = plan([str(src)], layout="agentv", out_dir=str(tmp_path / "out"))
    assert p.ok
    for target in p.files:
        assert pathlib.Path(target).resolve().parent == (tmp_path / "out").resolve()


def test_stdout_for_one_skill_and_the_agentv_error_for_several(run_cli, tmp_path):
    src = tmp_path / "EVAL.yaml"
    src.write_text(QUIRKS["listed_twice_for_two_triggers_of_one_skill"])
    code, out, err = run_cli("transpile", "--layout", "agentv", "--stdout", str(src))
    assert (code, err) == (0, "")
    assert out == (QUIRK_GOLDEN / "listed_twice_for_two_triggers_of_one_skill" / "evals.json").read_text()
    src.write_text(QUIRKS["untriggered_tests_join_the_dominant_skill_after_its_own"])
    assert run_cli("transpile", "--layout", "agentv", "--stdout", str(src)) == (
        1, "", "evalfmt: --stdout is only valid when input produces a single evals.json (multi-skill input "
               "produces multiple files)\n")


def test_check_in_the_agentv_layout(run_cli, tmp_path):
    src = tmp_path / "EVAL.yaml"
    src.write_text(QUIRKS["dominant_skill_tie_goes_to_the_first_skill"])
    code, _, err = run_cli("transpile", "--layout", "agentv", "--check", str(src))
    assert code == 1
    assert err.splitlines()[:2] == [f"evalfmt: missing: {tmp_path}/beta.evals.json",
                                    f"evalfmt: missing: {tmp_path}/alpha.evals.json"]
    assert run_cli("transpile", "--layout", "agentv", str(src))[0] == 0
    assert run_cli("transpile", "--layout", "agentv", "--check", str(src)) == (0, "", "")


def test_terum_skill_in_the_agentv_layout_routes_its_trigger_prompts(run_cli, tmp_path):
    shutil.copytree(FIXTURES / "library", tmp_path / "library")
    skill = tmp_path / "library" / "release-notes"
    code, _, err = run_cli("transpile", "--layout", "agentv", str(skill), "-d", str(tmp_path / "out"))
    assert code == 0
    files = json_files(tmp_path / "out")
    assert list(files) == ["evals.json"]
    import json

    data = json.loads(files["evals.json"])
    assert data["skill_name"] == "release-notes"
    triggered = [(e["prompt"], e.get("should_trigger")) for e in data["evals"] if "should_trigger" in e]
    assert triggered == [
        ("Write release notes for v2.3.0 from the commits since v2.2.0.", True),
        ("What changed since the last release? Give me something I can paste into the GitHub release.", True),
        ("Summarise the merged work since the last tag, grouped into features and fixes.", True),
        ("Write a commit message for my staged changes.", False),
        ("Review my uncommitted diff for bugs before I commit.", False),
        ("Bump the version in package.json to 2.4.0.", False),
    ]
    # the cases (no trigger) follow, routed to the dominant skill as agentv does
    assert len(data["evals"]) == 6 + 5


def test_two_inputs_writing_one_file_is_refused(run_cli, tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "EVAL.yaml").write_text(QUIRKS["no_trigger_at_all_writes_no_skill"])
    code, _, err = run_cli("transpile", "--layout", "agentv", str(tmp_path / "a" / "EVAL.yaml"),
                           str(tmp_path / "b" / "EVAL.yaml"), "-d", str(tmp_path / "out"))
    assert code == 2
    assert err == (f"evalfmt: {tmp_path}/out/evals.json would be written from both {tmp_path}/a/EVAL.yaml and "
                   f"{tmp_path}/b/EVAL.yaml; give them different --out folders\n")
    assert not (tmp_path / "out").exists()
