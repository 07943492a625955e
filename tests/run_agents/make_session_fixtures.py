#!/usr/bin/env python3
"""Regenerate the recorded sessions of ``fixtures/library/release-notes`` (both arms, every case and
the suite) in ``fixtures/sessions/release-notes/``, with the fake agent.

    .venv/bin/python tests/run_agents/make_session_fixtures.py

It runs ``evalfmt run`` with ``fake_agent.py`` (git commit dates pinned, so commit hashes and the
transcripts are the same on every machine), then keeps, per session, the run layout's
``transcript.jsonl``, ``stderr.log`` and ``dead.txt`` (if any), and a ``sandbox.overlay/`` holding
only the files the agent created or changed (``.git/`` and ``.claude/`` left out). The sandbox path
in the transcripts is replaced by ``/tmp/sandbox``.

Replay them with ``evalfmt run fixtures/library/release-notes --runner replay --replay-from
fixtures/sessions/release-notes --out DIR``: each sandbox is staged afresh (fixture, files, setup,
skill) and the overlay laid over it, so the file checks see what the agent wrote. Needs git.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
SKILL = ROOT / "fixtures" / "library" / "release-notes"
AGENT = ROOT / "tests" / "run_agents" / "fake_agent.py"
PINNED = {"GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
SKIP = (".git", ".claude")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "fixtures" / "sessions" / "release-notes"))
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from evalfmt import api
    from evalfmt.run import execute, runners, sandbox

    with tempfile.TemporaryDirectory(prefix="evalfmt-fixtures-") as tmp:
        run_dir = pathlib.Path(tmp) / "run"
        cmd = [sys.executable, "-m", "evalfmt", "run", str(SKILL), "--out", str(run_dir), "--quiet",
               "--agent-command", f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENT))} {{task}}"]
        for k, v in PINNED.items():
            cmd += ["--env", f"{k}={v}"]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if proc.returncode not in (0, 1):
            sys.stderr.write(proc.stderr)
            return 2
        (evalset,) = list(api.read(str(SKILL), "terum").sets)
        units = {u.name: u for u in execute.units_of(evalset)}
        out = pathlib.Path(args.out)
        for arm in ("candidate", "baseline"):
            if (out / arm).exists():
                shutil.rmtree(out / arm)
        for arm in ("candidate", "baseline"):
            for unit in sorted(units):
                src = run_dir / arm / unit
                dest = out / arm / unit
                dest.mkdir(parents=True)
                sandbox_path = _sandbox_cwd(src / "transcript.jsonl")
                for name in ("transcript.jsonl", "stderr.log", "dead.txt"):
                    if (src / name).exists():
                        text = (src / name).read_text(encoding="utf-8")
                        if sandbox_path:
                            text = text.replace(sandbox_path, "/tmp/sandbox")
                        (dest / name).write_text(text, encoding="utf-8")
                # what the agent changed: the sandbox after the session against a fresh staging
                with tempfile.TemporaryDirectory(prefix="evalfmt-fresh-") as fresh:
                    u = units[unit]
                    spec = sandbox.StageSpec(unit, u.case_dir, u.target.fixture, u.target.files, u.target.setup,
                                             str(SKILL) if arm == "candidate" else None,
                                             "release-notes" if arm == "candidate" else None)
                    sandbox.stage(spec, fresh, runners.agent_env(fresh, PINNED))
                    changed = _changed(src / "sandbox", pathlib.Path(fresh))
                for rel in changed:
                    target = dest / "sandbox.overlay" / rel
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(src / "sandbox" / rel, target)
    print(f"wrote {out}")
    return 0


def _sandbox_cwd(transcript: pathlib.Path) -> str | None:
    import json

    try:
        first = transcript.read_text(encoding="utf-8").splitlines()[0]
        return json.loads(first).get("cwd")
    except (OSError, IndexError, ValueError):
        return None


def _changed(after: pathlib.Path, before: pathlib.Path) -> list[str]:
    out = []
    for base, dirs, files in os.walk(after):
        rel_base = os.path.relpath(base, after)
        if rel_base == ".":
            dirs[:] = [d for d in dirs if d not in SKIP]
        dirs.sort()
        for name in sorted(files):
            rel = os.path.normpath(os.path.join(rel_base, name))
            old = before / rel
            if not old.is_file() or not filecmp.cmp(after / rel, old, shallow=False):
                out.append(rel)
    return out


if __name__ == "__main__":
    sys.exit(main())
