"""Issue 11, also observed: a ``fixture`` outside the skill folder (absolute, ``../``, or through a
symlink) is validate's EV107, and ``run`` refuses to copy it: the case is dropped (staging) with a
message naming the field, and nothing from outside reaches a sandbox."""

from __future__ import annotations

import json
import os

import pytest
from e2ehelp import agent_command, make_skill


@pytest.fixture
def secret(tmp_path):
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "id_rsa").write_text("PRIVATE KEY\n")
    return outside


def cases_for(secret) -> dict[str, str]:
    return {
        "absolute": f"task: |\n  !say hi\nfixture: {secret}\nchecks: [{{transcript_mentions: hi}}]\n",
        "dotdot": "task: |\n  !say hi\nfixture: ../../../../secret\nchecks: [{transcript_mentions: hi}]\n",
        "inside": "task: |\n  !say hi\nfixture: ../fixtures/repo\nchecks: [{transcript_mentions: hi}]\n",
    }


def test_validate_and_dry_run_agree_on_a_fixture_outside(run_cli, tmp_path, secret):
    skill = make_skill(tmp_path / "lib", "fx", cases_for(secret), extra_files={"evals/fixtures/repo/a.txt": "x\n"})
    cases = skill / "evals" / "cases"
    code, out, _ = run_cli("validate", str(skill))
    assert code == 1
    assert [line.split(": ", 1)[1][:5] for line in out.splitlines()[:-1]] == ["EV107", "EV107"]
    code, out, err = run_cli("run", str(skill), "--dry-run")
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        f"{cases}/absolute.yaml:3:10: fixture '{secret}' is outside the skill folder (EV107): not copied; keep "
        "fixtures under evals/",
        f"{cases}/dotdot.yaml:3:10: fixture '../../../../secret' is outside the skill folder (EV107): not copied; keep "
        "fixtures under evals/",
        "dry run: 1 of 3 seeded, 2 failed, 0 skipped (missing requirements)"]


def test_run_drops_the_case_and_copies_nothing_from_outside(run_cli, tmp_path, secret):
    skill = make_skill(tmp_path / "lib", "fx", cases_for(secret), extra_files={"evals/fixtures/repo/a.txt": "x\n"})
    out = tmp_path / "out"
    code, stdout, _ = run_cli("run", str(skill), "--agent-command", agent_command(), "--out", str(out), "--quiet")
    receipt = json.loads((out / "receipt.json").read_text())
    assert receipt["dropped_cases"] == {
        "absolute": {"kind": "staging", "detail": f"fixture '{secret}' is outside the skill folder (EV107): not "
                                                  "copied; keep fixtures under evals/"},
        "dotdot": {"kind": "staging", "detail": "fixture '../../../../secret' is outside the skill folder (EV107): "
                                                "not copied; keep fixtures under evals/"}}
    assert "dropped: dotdot (staging): fixture '../../../../secret' is outside the skill folder (EV107): not copied; " \
           "keep fixtures under evals/" in stdout.splitlines()
    copied = list(out.rglob("id_rsa"))
    assert copied == []
    assert (out / "candidate" / "inside" / "sandbox" / "a.txt").read_text() == "x\n"


def test_a_fixture_reaching_out_through_a_symlink_is_refused(tmp_path, secret):
    from evalfmt.run.sandbox import StageError, StageSpec, stage

    skill = tmp_path / "skill"
    (skill / "evals" / "cases").mkdir(parents=True)
    os.symlink(secret, skill / "evals" / "fixtures")
    box = tmp_path / "box"
    box.mkdir()
    spec = StageSpec("c", str(skill / "evals" / "cases"), fixture="../fixtures", fixture_root=str(skill))
    with pytest.raises(StageError) as info:
        stage(spec, str(box))
    assert (info.value.kind, info.value.where) == ("staging", ("fixture",))
    assert os.listdir(box) == []
