"""Shards (``run --shard I/N``) and ``evalfmt merge``: the merged receipt is the unsharded run's, byte for
byte apart from the timing fields docs/receipts.md names; mismatched shards are refused on one line."""

from __future__ import annotations

import json
import os
import pathlib
import re
import tempfile

import pytest
from e2ehelp import agent_command, load, make_script, make_skill, tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalfmt.run import manifest

RUN_ID = "20260101T000000Z"
#: the receipt fields that may differ between a run and the merge of its shards (docs/receipts.md)
TIMING = re.compile(rb'\n    "timestamp": "[0-9T:Z-]+",\n')


def timeless(data: bytes) -> bytes:
    assert len(TIMING.findall(data)) == 1
    return TIMING.sub(b'\n    "timestamp": "-",\n', data)


@pytest.fixture
def script_runner():
    from evalfmt.run import runners

    runners.REGISTRY.register("script", make_script)
    yield "script"
    runners.REGISTRY.unregister("script")


def run_api(skill: pathlib.Path, out: pathlib.Path, *, k: int, shard=None, resume: bool = False, jobs: int = 1):
    from evalfmt.api import read
    from evalfmt.run.skillrun import RunRequest, run_skill

    result = read(str(skill), "terum")
    return run_skill(RunRequest(skill_dir=str(skill), sets=result.sets, documents=result.documents, out=str(out),
                                runner="script", k=k, jobs=jobs, shard=shard, resume=resume, quiet=True,
                                run_id=RUN_ID, cwd=str(skill.parent)))


def merge_api(skill: pathlib.Path, shards: list[pathlib.Path], out: pathlib.Path):
    from evalfmt.api import read
    from evalfmt.run.merge import MergeRequest, merge_runs

    result = read(str(skill), "terum")
    return merge_runs(MergeRequest(shard_dirs=tuple(str(s) for s in shards), out=str(out), skill_dir=str(skill),
                                   sets=result.sets))


def sessions(out: pathlib.Path) -> set[str]:
    """The session folders of a run (those holding dead.txt or transcript.jsonl)."""
    return {os.path.dirname(p) for p in tree(out) if os.path.basename(p) in ("dead.txt", "transcript.jsonl")}


LINES = ["say hello", "skilled SKILL_USED", "skilled-write notes.md", "write plain.md", "say bye"]
CHECKS = ["transcript_mentions: hello", "transcript_mentions: SKILL_USED", "transcript_omits: SKILL_USED",
          "file_exists: notes.md", "file_exists: plain.md", "transcript_mentions: bye"]
case = st.tuples(st.lists(st.sampled_from(LINES), min_size=1, max_size=4),
                 st.lists(st.sampled_from(CHECKS), max_size=3, unique=True),
                 st.sampled_from(["", "", "", "", "die", "setup: exit 2", "requires: [evalfmt-no-such-tool-9]"]))


def case_yaml(lines: list[str], checks: list[str], extra: str) -> str:
    if extra == "die":
        lines = [*lines, "die"]
    text = "task: |\n" + "".join(f"  {line}\n" for line in lines)
    if checks:
        text += "checks:\n" + "".join(f"  - {c}\n" for c in checks)
    if extra and extra != "die":
        text += extra + "\n"
    return text


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(cases=st.lists(case, min_size=1, max_size=6), suite=st.booleans(), k=st.integers(1, 3),
       n=st.integers(1, 5))
def test_merged_shards_give_the_unsharded_receipt(script_runner, cases, suite, k, n):
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        suite_text = ("task: |\n  say hello\n  skilled SKILL_USED\ncases:\n  - name: hi\n    checks: "
                      "[{transcript_mentions: hello}]\n  - name: used\n    checks: [{transcript_mentions: SKILL_USED}]\n")
        skill = make_skill(root / "lib", "notes", {f"c{i}": case_yaml(*c) for i, c in enumerate(cases)},
                           suite=suite_text if suite else None)
        whole = run_api(skill, root / "whole", k=k)
        shards = [root / f"shard-{i}" for i in range(1, n + 1)]
        for i, folder in enumerate(shards, 1):
            run_api(skill, folder, k=k, shard=(i, n))
        plans = [load(s / "plan.json") for s in shards]
        units = load(root / "whole" / "plan.json")["units"]
        # every case in exactly one shard, shard sizes within one case of each other
        dealt = [u for p in plans for u in p["shard_units"]]
        assert sorted(dealt) == sorted(units) and len(dealt) == len(set(dealt))
        sizes = [len(p["shard_units"]) for p in plans]
        assert max(sizes) - min(sizes) <= 1
        # ... and so every session in exactly one shard
        found = [s for folder in shards for s in sessions(folder)]
        assert sorted(found) == sorted(sessions(root / "whole")) and len(found) == len(set(found))
        merged = merge_api(skill, list(reversed(shards)), root / "merged")
        assert merged.comparison is not None and whole.comparison is not None
        a = (root / "whole" / "receipt.json").read_bytes()
        b = (root / "merged" / "receipt.json").read_bytes()
        assert timeless(a) == timeless(b)
        assert sessions(root / "merged") == sessions(root / "whole")


def test_the_slice_depends_only_on_the_cases_and_n():
    units = [f"c{i}" for i in range(7)] + ["suite"]
    assert [manifest.shard_slice(units, i, 3) for i in (1, 2, 3)] == [
        ["c0", "c3", "c6"], ["c1", "c4", "suite"], ["c2", "c5"]]
    assert manifest.shard_slice(units, 5, 9) == ["c4"]
    assert manifest.shard_slice(units, 9, 9) == []


SKILL_BODY = "!skill notes\n!say The notes skill says SKILL_USED\n!write notes.md :: made by the skill\n"
CASES = {
    "a-wins": "task: |\n  !say hello\nchecks:\n  - transcript_mentions: SKILL_USED\n  - file_exists: notes.md\n",
    "b-loses": "task: |\n  !say hello\nchecks:\n  - transcript_omits: SKILL_USED\n",
    "c-ties": "task: |\n  !say hello\nchecks:\n  - transcript_mentions: hello\n",
}


@pytest.fixture
def notes(tmp_path):
    return make_skill(tmp_path / "lib", "notes", CASES, body=SKILL_BODY)


def cli_run(run_cli, skill, out, *args):
    return run_cli("run", str(skill), "--agent-command", agent_command(), "--out", str(out), "--quiet", *args)


def test_cli_shards_of_the_fake_agent_merge_to_the_unsharded_receipt(run_cli, notes, tmp_path):
    assert cli_run(run_cli, notes, tmp_path / "whole", "--k", "2", "--run-id", RUN_ID)[0] == 0
    for i, verdict in ((1, 0), (2, 1)):  # shard 2 holds the losing case alone: its own verdict is FAIL
        code, stdout, stderr = cli_run(run_cli, notes, tmp_path / f"s{i}", "--k", "2", "--shard", f"{i}/2")
        assert (code, stderr) == (verdict, "")
    code, stdout, stderr = run_cli("merge", "--out", str(tmp_path / "m"), str(tmp_path / "s2"), str(tmp_path / "s1"),
                                   "--run-id", RUN_ID)
    assert (code, stderr) == (0, "")
    assert stdout.splitlines()[-1] == f"receipt: {tmp_path / 'm'}/receipt.json"
    assert stdout.splitlines()[0] == "a-wins #1 vs baseline: win (checks) — baseline failed " \
                                     "transcript_mentions:SKILL_USED, file_exists:notes.md"
    whole = (tmp_path / "whole" / "receipt.json").read_bytes()
    merged = (tmp_path / "m" / "receipt.json").read_bytes()
    assert timeless(whole) == timeless(merged)
    assert sorted(os.listdir(tmp_path / "m" / "candidate")) == ["a-wins", "b-loses", "c-ties"]
    # the shards' own receipts cover their cases only
    assert load(tmp_path / "s1" / "receipt.json")["provenance"]["cases"] == ["a-wins", "c-ties"]
    assert load(tmp_path / "s2" / "receipt.json")["provenance"]["cases"] == ["b-loses"]
    # and the merged folder is a run folder: compare re-scores it to the same rows
    code, again, _ = run_cli("compare", str(notes), "--arm", f"candidate={tmp_path}/m/candidate",
                             "--arm", f"baseline={tmp_path}/m/baseline", "--format", "json")
    assert [r["outcome"] for r in json.loads(again)["rows"]] == [r["outcome"] for r in load(tmp_path / "m" /
                                                                                             "receipt.json")["rows"]]


def test_merge_finds_the_skill_relative_to_the_working_folder(run_cli, notes, tmp_path):
    """A CI merge job checks the repository out elsewhere: the plan's relative path finds the skill."""
    for i in (1, 2):
        code, _, stderr = run_cli("run", "lib/notes", "--agent-command", agent_command(), "--out", f"s{i}", "--quiet",
                                  "--shard", f"{i}/2", "--case", "c-ties", "--case", "a-wins", cwd=str(tmp_path))
        assert (code, stderr) == (0, "")
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    (tmp_path / "lib").rename(moved / "lib")
    code, stdout, stderr = run_cli("merge", "--out", str(tmp_path / "m"), str(tmp_path / "s1"), str(tmp_path / "s2"),
                                   cwd=str(moved))
    assert (code, stderr) == (0, "")
    assert load(tmp_path / "m" / "receipt.json")["provenance"]["cases"] == ["a-wins", "c-ties"]
    code, stdout, stderr = run_cli("merge", "--out", str(tmp_path / "m2"), str(tmp_path / "s1"), str(tmp_path / "s2"),
                                   cwd=str(tmp_path))
    assert (code, stdout) == (2, "")
    assert stderr == (f"evalfmt: merge: the skill the shards ran is not at {tmp_path / 'lib' / 'notes'} nor at "
                      "lib/notes; give --skill DIR\n")


def _shard(run_cli, skill, out, *args):
    code, _, stderr = cli_run(run_cli, skill, out, *args)
    assert code in (0, 1) and stderr == "", stderr


@pytest.mark.parametrize("change, message", [
    (("--k", "2"), "cannot merge {b}: its k is 2, {a}'s is 1"),
    (("--case", "a-wins"), "cannot merge {b}: its case list is [a-wins], {a}'s is [a-wins, b-loses, c-ties]"),
    (("--model", "other"), "cannot merge {b}: its model is 'other', {a}'s is none"),
    (("--trigger-detection", "any-call"), "cannot merge {b}: its trigger detection is 'any-call', {a}'s is 'first-call'"),
    (("--timeout-minutes", "5"), "cannot merge {b}: its session timeout (minutes) is 5.0, {a}'s is 120.0"),
])
def test_mismatched_shards_are_refused_naming_the_difference(run_cli, notes, tmp_path, change, message):
    a, b = tmp_path / "s1", tmp_path / "s2"
    _shard(run_cli, notes, a, "--shard", "1/2")
    _shard(run_cli, notes, b, "--shard", "2/2", *change)
    code, stdout, stderr = run_cli("merge", "--out", str(tmp_path / "m"), str(a), str(b))
    assert (code, stdout) == (2, "")
    assert stderr == "evalfmt: " + message.format(a=a, b=b) + "\n"
    assert not (tmp_path / "m").exists()


def test_shards_of_another_eval_set_or_skill_are_refused(run_cli, notes, tmp_path):
    a, b, c = tmp_path / "s1", tmp_path / "s2", tmp_path / "t2"
    _shard(run_cli, notes, a, "--shard", "1/2")
    _shard(run_cli, notes, b, "--shard", "2/2")
    (notes / "evals" / "cases" / "c-ties.yaml").write_text(CASES["c-ties"] + "  - transcript_mentions: more\n")
    _shard(run_cli, notes, c, "--shard", "2/2")
    code, _, stderr = run_cli("merge", "--out", str(tmp_path / "m"), str(a), str(c))
    assert code == 2
    assert re.fullmatch(rf"evalfmt: cannot merge {c}: its eval set \(evals/\) is 'sha256:[0-9a-f]{{64}}', "
                        rf"{a}'s is 'sha256:[0-9a-f]{{64}}'\n", stderr)
    # the skill changed after the shards ran: their sessions measured other bytes
    (notes / "SKILL.md").write_text("---\nname: notes\ndescription: changed\n---\n")
    code, _, stderr = run_cli("merge", "--out", str(tmp_path / "m"), str(a), str(b))
    assert (code, stderr) == (2, f"evalfmt: merge: the skill at {notes} is not the one the shards ran "
                                 "(its skill content digest differs)\n")
    assert not (tmp_path / "m").exists()


def test_missing_duplicate_and_unfinished_shards_are_refused(run_cli, notes, tmp_path):
    a, b, c = tmp_path / "s1", tmp_path / "s2", tmp_path / "t2"
    _shard(run_cli, notes, a, "--shard", "1/3")
    _shard(run_cli, notes, b, "--shard", "2/3")
    _shard(run_cli, notes, c, "--shard", "2/3")
    m = str(tmp_path / "m")
    assert run_cli("merge", "--out", m, str(a), str(b))[2] == \
        "evalfmt: cannot merge: shard 3/3 is missing (give all 3 shard folders; 1 missing)\n"
    assert run_cli("merge", "--out", m, str(a), str(b), str(c))[2] == \
        f"evalfmt: cannot merge: {b} and {c} are both shard 2/3\n"
    _shard(run_cli, notes, tmp_path / "four", "--shard", "3/4")
    assert run_cli("merge", "--out", m, str(a), str(tmp_path / "four"))[2] == \
        f"evalfmt: cannot merge {tmp_path / 'four'}: it is shard 3/4, {a} is shard 1/3 (different shard counts)\n"
    _shard(run_cli, notes, tmp_path / "whole")
    assert run_cli("merge", "--out", m, str(tmp_path / "whole"))[2] == \
        f"evalfmt: cannot merge {tmp_path / 'whole'}: it is not a shard (run without --shard)\n"
    d = tmp_path / "s3"
    _shard(run_cli, notes, d, "--shard", "3/3")
    (d / "receipt.json").unlink()  # a shard whose driver was killed
    assert run_cli("merge", "--out", m, str(a), str(b), str(d))[2] == \
        f"evalfmt: cannot merge {d}: the shard did not finish (no receipt.json); run it again with --resume\n"
    assert run_cli("merge", "--out", m, str(tmp_path / "nothing"))[2] == \
        f"evalfmt: merge: {tmp_path / 'nothing'}: not a run folder of this evalfmt (no plan.json)\n"
    assert run_cli("run", str(notes), "--out", m, "--shard", "3/2", "--agent-command", agent_command())[0] == 2


def test_an_empty_shard_merges(run_cli, notes, tmp_path):
    """More shards than cases: the extra shards run nothing and still merge."""
    for i in range(1, 6):
        _shard(run_cli, notes, tmp_path / f"s{i}", "--shard", f"{i}/5", "--run-id", RUN_ID)
    assert load(tmp_path / "s5" / "plan.json")["shard_units"] == []
    _shard(run_cli, notes, tmp_path / "whole", "--run-id", RUN_ID)
    code, _, stderr = run_cli("merge", "--out", str(tmp_path / "m"), *[str(tmp_path / f"s{i}") for i in range(1, 6)])
    assert (code, stderr) == (0, "")
    assert timeless((tmp_path / "whole" / "receipt.json").read_bytes()) == \
        timeless((tmp_path / "m" / "receipt.json").read_bytes())


def test_a_tampered_shard_plan_cannot_write_outside_the_merged_folder(run_cli, notes, tmp_path):
    """A shard folder comes from a CI artifact: a plan naming a case outside the eval set is refused."""
    a, b = tmp_path / "s1", tmp_path / "s2"
    _shard(run_cli, notes, a, "--shard", "1/2")
    _shard(run_cli, notes, b, "--shard", "2/2")
    plan = load(b / "plan.json")
    plan["shard_units"] = ["../../escaped"]
    (b / "plan.json").write_text(json.dumps(plan))
    (b / "candidate" / ".." / ".." / "escaped").mkdir()
    (tmp_path / "escaped" / "x.txt").write_text("x")
    code, stdout, stderr = run_cli("merge", "--out", str(tmp_path / "m" / "run"), str(a), str(b))
    assert (code, stdout) == (2, "")
    assert stderr == f"evalfmt: cannot merge {b}: its cases are not those of shard 2/2 of the eval set\n"
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("field, value, message", [
    ("arms", ["../../escaped", "candidate"], "its plan's arms are not baseline, candidate"),
    ("k", "1", "its plan's k is not a whole number >= 1"),
    ("k", 0, "its plan's k is not a whole number >= 1"),
    ("shard", {"index": 3, "count": 2}, "its plan's shard or case list is malformed"),
    ("shard", {"index": "2", "count": 2}, "its plan's shard or case list is malformed"),
])
def test_a_plan_tampered_in_every_shard_is_refused_before_anything_is_written(run_cli, notes, tmp_path, field, value,
                                                                              message):
    """Every shard's plan changed the same way (so the shards agree with each other): the merge makes paths
    and loops of a plan's arms, k and shard numbers, so they must be what run writes."""
    a, b = tmp_path / "s1", tmp_path / "s2"
    _shard(run_cli, notes, a, "--shard", "1/2")
    _shard(run_cli, notes, b, "--shard", "2/2")
    for folder in (a, b):
        plan = load(folder / "plan.json")
        plan[field] = value
        (folder / "plan.json").write_text(json.dumps(plan))
    code, stdout, stderr = run_cli("merge", "--out", str(tmp_path / "m" / "run"), str(a), str(b))
    assert (code, stdout, stderr) == (2, "", f"evalfmt: cannot merge {a}: {message}\n")
    assert not (tmp_path / "m").exists() and not (tmp_path / "escaped").exists()
