"""No process outlives a trigger run over a skill library either (``evalfmt run EVAL.yaml --skills DIR``): its
agents run one at a time or several at once (``--jobs``), and an agent whose children leave its
process group (``setsid``, a double fork, a child that keeps forking) has every one of them killed when its
session ends, in a cgroup or with evalfmt as a child subreaper."""

from __future__ import annotations

import os
import pathlib
import shlex
import subprocess
import sys

import pytest
from test_limits_processes import AGENT, _alive, _cleanup, _mode_available

from evalfmt.run import contain


def _library(root: pathlib.Path) -> None:
    for name in ("notes", "deploy"):
        (root / "skills" / name).mkdir(parents=True)
        (root / "skills" / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Does {name}.\n---\n")
    (root / "EVAL.yaml").write_text("tests:\n" + "".join(
        f"  - id: t{i}\n    input: Write the notes {i}\n    assertions:\n      - type: contains\n        value: done\n"
        for i in range(3)))


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("mode", ["cgroup", "reaper"])
def test_a_library_run_whose_agents_daemonize_leaves_nothing_behind(tmp_path, mode, jobs):
    _mode_available(mode)
    _library(tmp_path)
    piddir = tmp_path / "pids"
    piddir.mkdir()
    cmd = f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENT))} {{task}}"
    base = contain._cgroup_dir()
    before = set(os.listdir(base)) if base is not None and os.path.isdir(base) else set()
    try:
        proc = subprocess.run([sys.executable, "-m", "evalfmt", "run", "EVAL.yaml", "--skills", "skills", "--out",
                               "out", "--agent-command", cmd, "--jobs", jobs, "--env", f"DAEMON_PIDDIR={piddir}"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "EVALFMT_CONTAINMENT": mode})
        assert (proc.returncode, proc.stderr) == (0, "")
        daemons = [f for f in piddir.iterdir() if f.name.startswith("daemon-")]
        assert len(daemons) == 3  # each session really left a daemon running
        assert _alive(piddir) == []
        if base is not None and os.path.isdir(base):  # and no cgroup of it is left, used or made ahead (others'
            # runs share the hierarchy: a cgroup left by this run is new, its maker is gone, and it is empty)
            left = [n for n in set(os.listdir(base)) - before if n.startswith("evalfmt-")
                    and not os.path.exists(f"/proc/{n.split('-')[1]}")
                    and not pathlib.Path(base, n, "cgroup.procs").read_text().split()]
            assert left == []
    finally:
        _cleanup(piddir)
