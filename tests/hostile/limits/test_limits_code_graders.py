"""A hostile agentv code grader in a trigger run is held like a ``command_succeeds`` check: one that hangs is
killed at the check time limit (``--timeout``), one that leaves a daemon behind (setsid, double fork) has it
killed when it exits, with a cgroup or evalfmt as a child subreaper; one that writes outside the sandbox is
not stopped (a folder is not a container: docs/security.md says so) and changes nothing evalfmt decides.
evalfmt runs in a fresh process here, as a user runs it."""

from __future__ import annotations

import json
import pathlib
import shlex
import sys
import time

import pytest
from test_limits_processes import AGENT, _alive, _cleanup, _evalfmt, _mode_available

PICKER = pathlib.Path(__file__).resolve().parents[2] / "run_agents" / "fake_picker.py"


def trigger_run(tmp_path: pathlib.Path, graders: list[str]) -> pathlib.Path:
    skill = tmp_path / "skills" / "notes"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: notes\ndescription: Writes meeting minutes.\n---\n")
    lines = "".join(f"      - name: g{i}\n        type: code-grader\n        command: {g}\n"
                    for i, g in enumerate(graders))
    (tmp_path / "EVAL.yaml").write_text("tests:\n  - id: minutes\n    input: Write the minutes of the meeting\n"
                                        f"    assertions:\n{lines}")
    return tmp_path / "EVAL.yaml"


def run(tmp_path: pathlib.Path, *extra: str, env: dict[str, str]):
    cmd = f"{shlex.quote(sys.executable)} {shlex.quote(str(PICKER))} {{task}}"
    return _evalfmt("run", str(tmp_path / "EVAL.yaml"), "--skills", str(tmp_path / "skills"), "--out",
                    str(tmp_path / "out"), "--agent-command", cmd, "--format", "json", *extra, env=env)


@pytest.mark.parametrize("mode", ["cgroup", "reaper"])
def test_a_code_grader_that_daemonizes_or_hangs_is_contained(tmp_path, mode):
    _mode_available(mode)
    piddir = tmp_path / "pids"
    piddir.mkdir()
    py = json.dumps(sys.executable)
    trigger_run(tmp_path, [f"[{py}, {json.dumps(str(AGENT))}, x]",
                           f"[{py}, -c, 'import time; time.sleep(60)']"])
    try:
        start = time.monotonic()
        proc = run(tmp_path, "--timeout", "1", env={"EVALFMT_CONTAINMENT": mode, "DAEMON_PIDDIR": str(piddir)})
        took = time.monotonic() - start
        assert proc.returncode == 1, proc.stderr
        results = [(c["passed"], c["detail"]) for c in json.loads(proc.stdout)["sessions"][0]["checks"]]
        assert results == [(False, "score 0.00 (needs 1.00): the grader printed no JSON object"),
                           (False, "score 0.00 (needs 1.00): grader timed out after 1 s")]
        assert took < 50  # the sleeping grader was killed at its limit, not waited for (60 s)
        assert len([f for f in piddir.iterdir() if f.name.startswith("daemon-")]) == 1  # it really daemonized
        assert _alive(piddir) == []
    finally:
        _cleanup(piddir)


def test_a_code_grader_that_writes_outside_the_sandbox_is_not_stopped_and_changes_no_result(tmp_path):
    outside = tmp_path / "elsewhere" / "written.txt"
    outside.parent.mkdir()
    script = (f"import json, sys; json.load(sys.stdin); open({str(outside)!r}, 'w').write('x'); "
              "open('out/receipt.json', 'w').write('forged'); print(json.dumps({'score': 1}))")  # cwd: the eval's folder
    trigger_run(tmp_path, [f"[{json.dumps(sys.executable)}, -c, {json.dumps(script)}]"])
    proc = run(tmp_path, env={})
    assert proc.returncode == 0, proc.stderr
    assert outside.read_text() == "x"  # the documented limit: a grader runs with your rights
    data = json.loads((tmp_path / "out" / "receipt.json").read_text())  # written after every check: not forged
    assert [c["detail"] for c in data["sessions"][0]["checks"]] == ["score 1.00 (needs 1.00): no assertions given"]
