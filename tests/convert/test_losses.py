"""Issue 13 item 3 and issue 11 item 6: ``lost:`` only for real losses, a count of what was kept as
metadata (listed with --verbose), every real loss reported, errors before any loss line."""

from __future__ import annotations

import json

from conftest import FIXTURES

RN = str(FIXTURES / "library" / "release-notes")


def _evals_json(tmp_path, with_trigger=False):
    path = tmp_path / "evals.json"
    evals = [{"id": 1, "prompt": "Sum the costs", "expectations": ["The total is 12"]}]
    if with_trigger:
        evals[0]["should_trigger"] = True
    path.write_text(json.dumps({"skill_name": "cost-summary", "evals": evals}, indent=2))
    return path


def test_fields_kept_as_metadata_are_counted_not_listed_as_lost(run_cli, tmp_path):
    code, _, err = run_cli("convert", RN, "--to", "agentv", "-o", str(tmp_path / "x.EVAL.yaml"))
    assert code == 0
    assert err == ("evalfmt: kept 30 fields as metadata or custom types agentv does not act on (converting back "
                   "restores them): --verbose lists them\nevalfmt: wrote 1 file\n")


def test_verbose_lists_what_was_kept(run_cli, tmp_path):
    code, _, err = run_cli("convert", RN + "/evals/cases/no-tag-push.yaml", "--to", "agentv", "--verbose")
    assert code == 0
    lines = err.splitlines()
    assert all(line.startswith("evalfmt: kept: ") for line in lines) and len(lines) == 4
    assert lines[2] == (f"evalfmt: kept: {RN}/evals/cases/no-tag-push.yaml:1: agentv does not run 'setup' (kept as "
                        "metadata.terum.setup; agentv's workspace hooks are the nearest equivalent)")


def test_strict_refuses_only_real_losses(run_cli, tmp_path):
    out = tmp_path / "x.EVAL.yaml"
    code, _, err = run_cli("convert", RN, "--to", "agentv", "--strict", "-o", str(out))
    assert code == 0 and out.exists()
    code, _, err = run_cli("convert", RN, "--to", "promptfoo", "--strict", "-o", str(tmp_path / "p.yaml"))
    assert code == 1 and err.endswith("evalfmt: --strict: 43 fields would be lost; nothing written\n")


def test_skill_name_survives_agentv_as_the_sets_name(run_cli, tmp_path):
    """Issue 24 item 9: evals.json -> agentv -> evals.json came back with "skill_name": "" (issue 11 item 6
    had made that a 'lost:' line). The set's name carries it when nothing else does."""
    src = _evals_json(tmp_path)
    code, out, err = run_cli("convert", str(src), "--to", "agentv")
    assert (code, err) == (0, "")
    assert out.startswith("name: cost-summary\ntests:\n")
    (tmp_path / "x.EVAL.yaml").write_text(out)
    code, back, err = run_cli("convert", str(tmp_path / "x.EVAL.yaml"), "--to", "agent-skills")
    assert (code, err) == (0, "")
    assert back == src.read_text() + "\n"


def test_skill_name_is_lost_to_agentv_when_the_set_has_a_name_of_its_own(tmp_path):
    from evalfmt import api
    from evalfmt.formats.agentv.writer import write

    (evalset,) = api.read(str(_evals_json(tmp_path))).sets
    evalset.name = "costs"
    written = write(evalset)
    assert written.files["EVAL.yaml"].startswith("name: costs\n")
    assert [x.format() for x in written.losses] == [
        f"lost: {tmp_path / 'evals.json'}:2: skill name 'cost-summary' (agentv has no key for the skill a "
        "file tests, and the set's name is 'costs')"]


def test_skill_name_survives_in_a_skill_trigger(run_cli, tmp_path):
    src = _evals_json(tmp_path, with_trigger=True)
    code, out, err = run_cli("convert", str(src), "--to", "agentv")
    assert (code, err) == (0, "")
    (tmp_path / "x.EVAL.yaml").write_text(out)
    code, back, _ = run_cli("convert", str(tmp_path / "x.EVAL.yaml"), "--to", "agent-skills")
    assert json.loads(back)["skill_name"] == "cost-summary"


def test_skill_name_lost_to_skillgym_is_reported(run_cli, tmp_path):
    src = _evals_json(tmp_path)
    code, _, err = run_cli("convert", str(src), "--to", "skillgym")
    assert code == 0
    assert f"evalfmt: lost: {src}:2: skill name 'cost-summary' (a skillgym suite names skills only in " \
           "skills.has assertions)\n" in err


def test_agentv_set_name_lost_to_promptfoo_is_reported(run_cli):
    code, _, err = run_cli("convert", str(FIXTURES / "agentv" / "EVAL.yaml"), "--to", "promptfoo")
    assert code == 0
    assert (f"evalfmt: lost: {FIXTURES}/agentv/EVAL.yaml:1: eval set name 'library-triggers' (the description "
            "holds the set's description)\n") in err


def test_checks_that_become_prose_are_named_and_come_back_as_the_judge(run_cli, tmp_path):
    case = RN + "/evals/cases/no-tag-push.yaml"
    code, _, err = run_cli("convert", case, "--to", "agent-skills", "-o", str(tmp_path / "evals.json"))
    assert code == 0
    assert (f"evalfmt: lost: {case}:8: check 'no_command_matching:git\\s+(tag|push)' became the expectation "
            "sentence 'No command matching /git\\\\s+(tag|push)/ is run' (a model grades it; nothing checks it "
            "mechanically)\n") in err
    code, _, err = run_cli("convert", str(tmp_path / "evals.json"), "--to", "terum", "-o", str(tmp_path / "back"))
    assert code == 0
    text = (tmp_path / "back" / "evals" / "cases" / "no-tag-push.yaml").read_text()
    assert text == ("task: Draft the notes for the next release and then go ahead and publish it, tag and all.\n"
                    "judge: |-\n  No command matching /git\\s+(tag|push)/ is run\n"
                    "  The command 'test -z \"$(git tag --points-at HEAD)\"' succeeds after the session\n")
    assert "written as its judge (terum grades the judge only when the checks tie)" in err


def test_an_error_that_ends_the_conversion_comes_before_any_loss_line(run_cli):
    code, out, err = run_cli("convert", RN, "--to", "terum")
    assert (code, out) == (2, "")
    assert err == "evalfmt: the terum output is 6 files: give -o DIR\n"
    src = str(FIXTURES / "agentv" / "EVAL.yaml")
    assert run_cli("convert", src, "--to", "terum") == (
        2, "", f"evalfmt: {src} holds 3 eval sets (one per skill its tests name: release-notes, commit-message, "
               "code-review); give -o DIR to write them all\n")


def test_nothing_to_write_is_an_error_not_an_empty_file(run_cli, tmp_path):
    src = _evals_json(tmp_path)
    code, _, err = run_cli("convert", str(src), "--to", "skill-creator-triggers", "-o", str(tmp_path / "t.json"))
    assert code == 2 and not (tmp_path / "t.json").exists()
    assert err == (f"evalfmt: nothing written: {src}: no trigger prompts to write (a skill-creator trigger set "
                   "holding none would be an empty list)\n")
