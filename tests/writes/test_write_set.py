"""Issue 11, also observed (b) and (c): a multi-file write is one set a killed run's rerun finishes,
and two evalfmt processes writing into one folder take turns (a lock on the folder).

Real processes: ``instrumented_evalfmt.py`` runs evalfmt with its renames instrumented, to SIGKILL it
before a given step or to slow it down so that a second process overlaps it.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import pathlib
import subprocess
import sys
import time

import pytest

from conftest import FIXTURES

HERE = pathlib.Path(__file__).resolve().parent
INSTRUMENTED = [sys.executable, str(HERE / "instrumented_evalfmt.py")]
EVALFMT = [sys.executable, "-m", "evalfmt"]
SKILLS = ("alpha", "beta", "gamma")


def eval_yaml(version: str) -> str:
    return "tests:\n" + "".join(
        f"  - id: {s}-{version}\n    input: version {version} of {s}\n"
        f"    assertions: [{{type: skill-trigger, skill: {s}}}]\n" for s in SKILLS)


def expected(version: str, skill: str) -> str:
    return (f'{{\n  "tests": [\n    {{\n      "id": "{skill}-{version}",\n      "input": "version {version} of {skill}",\n'
            f'      "should_trigger": true\n    }}\n  ]\n}}\n')


def state(out: pathlib.Path) -> list[str | None]:
    """Which version each skill's file holds (None when missing)."""
    found = []
    for s in SKILLS:
        p = out / s / "evals.json"
        text = p.read_text() if p.exists() else None
        found.append(next((v for v in ("v1", "v2", "A", "B") if text == expected(v, s)), text and "?"))
    return found


def leftovers(out: pathlib.Path) -> list[str]:
    return sorted(str(p.relative_to(out)) for p in out.rglob(".evalfmt*"))


def run(cmd: list[str], cwd: pathlib.Path, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})}, **kw)


@pytest.fixture
def work(tmp_path):
    (tmp_path / "EVAL.yaml").write_text(eval_yaml("v1"))
    done = run(EVALFMT + ["transpile", "EVAL.yaml", "-d", "out"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert state(tmp_path / "out") == ["v1", "v1", "v1"]
    (tmp_path / "EVAL.yaml").write_text(eval_yaml("v2"))
    return tmp_path


# ------------------------------------------------------------------------ (b) a killed write

#: steps of a three-file set: 1 journal (pending), 2-4 temporary files, 5 journal (commit), 6-8 renames
STEPS = range(1, 9)


@pytest.mark.parametrize("kill_at", STEPS)
def test_a_killed_set_is_all_old_or_committed_and_a_rerun_finishes_it(work, kill_at):
    out = work / "out"
    killed = run(INSTRUMENTED + ["kill", str(kill_at), "transpile", "EVAL.yaml", "-d", "out"], work)
    assert killed.returncode == -9, killed.stderr
    journal = out / ".evalfmt-journal"
    committed = journal.exists() and json.loads(journal.read_text())["state"] == "commit"
    if kill_at <= 5:  # before the commit point: nothing replaced
        assert state(out) == ["v1", "v1", "v1"] and not committed
    else:  # after it: the journal says which temporary files are still to rename
        assert committed
        assert state(out) == ["v2"] * (kill_at - 6) + ["v1"] * (3 - (kill_at - 6))
    rerun = run(EVALFMT + ["transpile", "EVAL.yaml", "-d", "out"], work)
    assert rerun.returncode == 0, rerun.stderr
    assert state(out) == ["v2", "v2", "v2"]
    assert leftovers(out) == []  # no journal, no temporary file
    note = rerun.stderr.splitlines()[0] if rerun.stderr else ""
    if kill_at >= 6:
        assert note == f"evalfmt: finished an interrupted write in out ({9 - kill_at} of 3 files were still to rename)"
    elif kill_at >= 2:
        assert note == "evalfmt: rolled back an interrupted write in out (no file had been replaced)"


def test_any_write_into_the_folder_finishes_the_set_first(work):
    """The repair does not need the same command: a write of one other file finishes the set too."""
    out = work / "out"
    assert run(INSTRUMENTED + ["kill", "7", "transpile", "EVAL.yaml", "-d", "out"], work).returncode == -9
    assert state(out) == ["v2", "v1", "v1"]
    (work / "one.yaml").write_text("tests:\n  - id: d\n    input: go\n    assertions: [{type: skill-trigger, skill: delta}]\n")
    done = run(EVALFMT + ["transpile", "one.yaml", "-d", "out"], work)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ("evalfmt: finished an interrupted write in out (2 of 3 files were still to rename)\n"
                           "evalfmt: wrote out/delta/evals.json\n")
    assert state(out) == ["v2", "v2", "v2"] and leftovers(out) == []


def test_convert_sets_are_journaled_too(tmp_path):
    src = FIXTURES / "library" / "release-notes"
    killed = run(INSTRUMENTED + ["kill", "10", "convert", str(src), "--to", "terum", "-o", "out"], tmp_path)
    assert killed.returncode == -9
    assert json.loads((tmp_path / "out" / ".evalfmt-journal").read_text())["state"] == "commit"
    done = run(EVALFMT + ["convert", str(src), "--to", "terum", "-o", "out"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("evalfmt: finished an interrupted write in out (")
    assert leftovers(tmp_path / "out") == []
    again = run(EVALFMT + ["convert", str(src), "--to", "terum", "-o", "out"], tmp_path)
    assert "unchanged)\n" in again.stderr and "wrote 0 files" in again.stderr


def test_a_journal_naming_files_outside_the_folder_is_refused(tmp_path):
    from evalfmt.api import write_files
    from evalfmt.errors import EvalfmtError

    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n")
    (tmp_path / ".evalfmt-x.tmp").write_text("gotcha\n")
    for files in ([["../victim.txt", "../.evalfmt-x.tmp"]], [["a.json", "sub/.evalfmt-x.tmp"]], [["a.json", "b.json"]],
                  "x"):
        (out / ".evalfmt-journal").write_text(json.dumps({"evalfmt_journal": 1, "state": "commit", "files": files}))
        with pytest.raises(EvalfmtError) as info:
            write_files({str(out / "a.json"): "{}\n"}, str(out))
        assert str(info.value).startswith(f"{out}/.evalfmt-journal: not a journal evalfmt can finish (")
        assert str(info.value).endswith(f"); if no evalfmt is writing to {out}, delete it")
        assert victim.read_text() == "keep\n" and not (out / "a.json").exists()


def test_a_stale_journal_temporary_is_cleaned(tmp_path):
    from evalfmt.api import write_files

    out = tmp_path / "out"
    out.mkdir()
    (out / ".evalfmt-journal.tmp").write_text("{")  # killed while writing the journal itself
    write_files({str(out / "a.json"): "{}\n"}, str(out))
    assert leftovers(out) == []


# ---------------------------------------------------------------------------------- (c) a lock


def test_two_transpiles_into_one_folder_take_turns(tmp_path):
    """A starts first and pauses after its first rename; B starts then. Without a lock B's files land
    between A's and the folder ends with files from both; with it B says it waits, A finishes, then B
    writes its whole set."""
    for name in ("A", "B"):
        (tmp_path / f"{name}.yaml").write_text(eval_yaml(name))
    marker, go = tmp_path / "a-started", tmp_path / "a-go-on"
    a = subprocess.Popen(INSTRUMENTED + ["pause", str(marker), str(go), "transpile", "A.yaml", "-d", "out"],
                         cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    b = None
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert a.poll() is None and time.monotonic() < deadline, "A never started writing"
            time.sleep(0.01)
        b = subprocess.Popen(EVALFMT + ["transpile", "B.yaml", "-d", "out"], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = b.stderr.readline()  # B is blocked on the lock (without one it would have written by now)
        go.touch()
        _, a_err = a.communicate(timeout=60)
        _, b_rest = b.communicate(timeout=60)
    finally:
        for p in (a, b):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
    assert a.returncode == 0, a_err
    assert b.returncode == 0, b_rest
    assert first == "evalfmt: waiting for another evalfmt that is writing to out (at most 120 s)\n"
    assert state(tmp_path / "out") == ["B", "B", "B"]
    assert leftovers(tmp_path / "out") == []


def hold_lock(folder: pathlib.Path) -> int:
    folder.mkdir(exist_ok=True)
    fd = os.open(folder, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


@pytest.mark.parametrize("cmd", [
    ["transpile", "EVAL.yaml", "-d", "out"],
    ["convert", str(FIXTURES / "library" / "release-notes"), "--to", "terum", "-o", "out"],
])
def test_a_writer_that_waits_too_long_gives_up_writing_nothing(tmp_path, cmd):
    (tmp_path / "EVAL.yaml").write_text(eval_yaml("v1"))
    fd = hold_lock(tmp_path / "out")
    try:
        done = run(EVALFMT + cmd, tmp_path, env={"EVALFMT_LOCK_TIMEOUT": "0.3"})
    finally:
        os.close(fd)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.endswith(  # convert prints its lost: lines first
        "evalfmt: waiting for another evalfmt that is writing to out (at most 0.3 s)\n"
        "evalfmt: another evalfmt has been writing to out for 0.3 s; giving up, nothing written "
        "(EVALFMT_LOCK_TIMEOUT sets the wait)\n")
    assert list((tmp_path / "out").iterdir()) == []


def test_a_writer_waits_for_the_lock_then_writes(tmp_path):
    (tmp_path / "EVAL.yaml").write_text(eval_yaml("v1"))
    fd = hold_lock(tmp_path / "out")
    proc = subprocess.Popen(EVALFMT + ["transpile", "EVAL.yaml", "-d", "out"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stderr.readline()
        assert first == "evalfmt: waiting for another evalfmt that is writing to out (at most 120 s)\n"
        assert state(tmp_path / "out") == [None, None, None]
    finally:
        os.close(fd)
    rest, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert state(tmp_path / "out") == ["v1", "v1", "v1"]


def test_a_folder_that_refuses_locks_uses_a_lock_file(tmp_path, monkeypatch):
    from evalfmt import writeset

    def no_folder_locks(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_folder_locks)
    out = tmp_path / "out"
    assert writeset.write_set({str(out / "a.json"): b"{}\n", str(out / "b.json"): b"[]\n"}, str(out)) == \
        [str(out / "a.json"), str(out / "b.json")]
    assert sorted(p.name for p in out.iterdir()) == [".evalfmt.lock", "a.json", "b.json"]


def test_a_bad_lock_timeout_is_one_line(tmp_path, run_cli, monkeypatch):
    (tmp_path / "EVAL.yaml").write_text(eval_yaml("v1"))
    monkeypatch.setenv("EVALFMT_LOCK_TIMEOUT", "soon")
    code, out, err = run_cli("transpile", "EVAL.yaml", "-d", "out", cwd=str(tmp_path))
    assert (code, out, err) == (2, "", "evalfmt: EVALFMT_LOCK_TIMEOUT='soon' is not a number of seconds\n")


def test_an_unchanged_set_leaves_nothing_behind(work):
    done = run(EVALFMT + ["transpile", "EVAL.yaml", "-d", "out"], work)
    assert done.returncode == 0
    again = run(EVALFMT + ["transpile", "EVAL.yaml", "-d", "out"], work)
    assert (again.returncode, again.stderr) == (0, "")
    assert leftovers(work / "out") == []

