"""Running the real promptfoo 0.123.1 (installed by scripts/node-deps.sh into ``.cache/node/promptfoo-run/``
with a Node 22 from npm: promptfoo needs Node >= 22.22) and collecting its expansion of a config.

``promptfoo eval -c CONFIG -r echo --grader echo --no-cache --no-write -o out.json`` with telemetry and
update checks off, a temporary HOME and config folder (one per run), and no other environment: the echo provider
answers with the rendered prompt, so no model is called. What is kept of each result: the rendered prompt
(the echo provider's raw answer: the text it was sent), the test's assertions (defaultTest's merged in), its vars and description.

The outcome of a folder depends only on its files, promptfoo's and Node's versions and the fixed
environment, so it is cached under ``.cache/promptfoo-differential/`` by a hash of those."""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import tempfile

from conftest import ROOT

PREFIX = ROOT / ".cache" / "node" / "promptfoo-run" / "node_modules"
NODE = PREFIX / "node" / "bin" / "node"
MAIN = PREFIX / "promptfoo" / "dist" / "src" / "main.js"
PACKAGE = PREFIX / "promptfoo" / "package.json"
CACHE = ROOT / ".cache" / "promptfoo-differential"


def unavailable() -> str | None:
    """Why the real promptfoo cannot run here (None when it can). Installs it when node and npm exist."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return "node/npm not found: the differential test against the real promptfoo needs node and npm"
    if not (NODE.exists() and MAIN.exists()):
        subprocess.run([str(ROOT / "scripts" / "node-deps.sh")], cwd=ROOT, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return None


def _key(folder: pathlib.Path) -> str:
    h = hashlib.sha256(b"rows 4\0")  # (what _extract keeps: change it when _extract changes)
    h.update(PACKAGE.read_bytes())
    h.update(str(NODE.resolve()).encode())
    for p in sorted(folder.rglob("*")):
        if p.is_file() and not p.name.startswith("out."):
            h.update(str(p.relative_to(folder)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:32]


def _extract(out: pathlib.Path) -> list[dict]:
    data = json.loads(out.read_text(encoding="utf-8"))
    rows = []
    for r in data["results"]["results"]:
        tc = r.get("testCase") or {}
        # the echo provider answers with what it was sent (its raw answer: ``output`` went through transforms)
        # (without one, an assertion stopped with an error: the rendered prompt is then ``prompt.raw``, empty
        # when the rendering itself failed)
        sent = (r.get("response") or {}).get("raw") or r["prompt"]["raw"] or None
        rows.append({"prompt": sent if isinstance(sent, str) else None,
                     "assert": tc.get("assert") or [], "vars": r.get("vars"),
                     "description": tc.get("description"), "promptIdx": r.get("promptIdx"),
                     "testIdx": r.get("testIdx"), "error": r.get("error")})
    return rows


def run_many(folders: list[pathlib.Path], parallel: int = 2) -> list[dict]:
    """{"rc", "rows" (None when promptfoo wrote no output), "stderr"} for each folder's
    ``promptfooconfig.yaml``, from the cache where it holds them."""
    assert NODE.exists() and MAIN.exists(), f"promptfoo not installed in {PREFIX}: run scripts/node-deps.sh"
    CACHE.mkdir(parents=True, exist_ok=True)
    keys = [_key(f) for f in folders]
    todo = [(f, k) for f, k in zip(folders, keys) if not (CACHE / f"{k}.json").exists()]
    fresh: dict[str, dict] = {}
    if todo:
        with tempfile.TemporaryDirectory() as home:
            env = {"PATH": f"{NODE.parent}:/usr/bin:/bin", "HOME": home,
                   "PROMPTFOO_DISABLE_TELEMETRY": "1", "PROMPTFOO_DISABLE_UPDATE": "1", "NO_COLOR": "1",
                   "PROMPTFOO_DISABLE_SHARING": "1", "LANG": "C.UTF-8"}
            script = (f'cd "$1" && export PROMPTFOO_CONFIG_DIR="$(mktemp -d -p "$HOME")" && "{NODE}" --no-warnings "{MAIN}" eval -c promptfooconfig.yaml -r echo --grader echo '
                      '--no-cache --no-write -o out.json > out.stdout 2> out.stderr; echo $? > out.rc')
            data = b"".join(f"{f}\0".encode() for f, _ in todo)
            subprocess.run(["xargs", "-0", "-n", "1", "-P", str(parallel), "sh", "-c", script, "sh"], input=data,
                           check=True, env=env, timeout=1800)
        for f, k in todo:
            out = f / "out.json"
            entry = {"rc": int((f / "out.rc").read_text().strip()),
                     "rows": _extract(out) if out.exists() else None,
                     "stderr": (f / "out.stderr").read_text(encoding="utf-8", errors="replace")[-2000:]}
            for name in ("out.json", "out.rc", "out.stdout", "out.stderr"):
                (f / name).unlink(missing_ok=True)
            fresh[k] = entry
            if entry["rows"] is not None:  # (a refusal is run again: it may be the machine's, not the config's)
                (CACHE / f"{k}.json").write_text(json.dumps(entry), encoding="utf-8")
    return [fresh.get(k) or json.loads((CACHE / f"{k}.json").read_text(encoding="utf-8")) for k in keys]


def version() -> str:
    return json.loads(PACKAGE.read_text())["version"]


def node_version() -> str:
    return subprocess.run([str(NODE), "--version"], capture_output=True, text=True, check=True).stdout.strip()


__all__ = ["unavailable", "run_many", "version", "node_version", "os"]
