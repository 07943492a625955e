"""Running the real ``agentv transpile`` (agentv@4.42.4, installed by scripts/node-deps.sh into
``.cache/node/agentv/``) and collecting what it did, for the differential tests."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

from conftest import ROOT

AGENTV = ROOT / ".cache" / "node" / "agentv" / "node_modules" / ".bin" / "agentv"


def unavailable() -> str | None:
    """Why the real agentv cannot run here (None when it can). Installs it when node and npm exist."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return "node/npm not found: the differential test against the real agentv needs Node 20 and npm"
    if not AGENTV.exists():
        subprocess.run([str(ROOT / "scripts" / "node-deps.sh")], cwd=ROOT, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return None


def collect(out_dir: pathlib.Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(out_dir.iterdir()) if p.name.endswith(".json")}


def run_many(jobs: list[tuple[pathlib.Path, pathlib.Path]], parallel: int = 2) -> list[tuple[int, str, dict]]:
    """Run ``agentv transpile IN -d OUT`` for each (IN, OUT), from one ``xargs`` loop running
    ``parallel`` at a time; returns (exit code, stderr, {file name: text}) per job."""
    assert AGENTV.exists(), f"agentv not installed at {AGENTV}: run scripts/node-deps.sh"
    for _src, out in jobs:
        out.mkdir(parents=True, exist_ok=True)
    data = b"".join(f"{src}\0{out}\0".encode() for src, out in jobs)
    script = f'"{AGENTV}" transpile "$1" -d "$2" > "$2.stdout" 2> "$2.stderr"; echo $? > "$2.rc"'
    env = dict(os.environ, NO_COLOR="1")
    subprocess.run(["xargs", "-0", "-n", "2", "-P", str(parallel), "sh", "-c", script, "sh"], input=data,
                   check=True, env=env, timeout=1800)
    results = []
    for _src, out in jobs:
        rc = int(pathlib.Path(f"{out}.rc").read_text().strip())
        err = pathlib.Path(f"{out}.stderr").read_text(encoding="utf-8")
        results.append((rc, err, collect(out)))
    return results
