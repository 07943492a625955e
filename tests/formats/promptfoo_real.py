"""Running the real promptfoo 0.123.1 (installed by scripts/node-deps.sh into ``.cache/node/promptfoo-run/``
with a Node 22 from npm: promptfoo needs Node >= 22.22) and collecting its expansion of a config.

``promptfoo eval -c CONFIG -r echo --grader echo --no-cache --no-write -o out.json`` with telemetry and
update checks off, a temporary HOME and config folder (one per run), and no other environment: the echo provider
answers with the rendered prompt, so no model is called. What is kept of each result: the rendered prompt
(the echo provider's raw answer: the text it was sent), the test's assertions (defaultTest's merged in), its vars and description.

The outcome of a folder depends only on its files, the installed promptfoo (its package.json and the
lockfile of everything installed with it), the Node that runs it (its ``--version``), the command line, the
environment and what is kept of the output (this module's source, which holds all three) and the comparison
that reads it (``test_promptfoo_differential.py``'s source): it is cached under
``.cache/promptfoo-differential/`` by a hash of all of those, so a change to any of them runs promptfoo again.
Each entry holds its own key and the versions it was made with, checked when it is read (an entry copied or
renamed to another key is not used). ``EVALFMT_PROMPTFOO_FRESH=1`` runs promptfoo on every folder, cache
or not (what a reviewer runs to see the comparison made against promptfoo itself, not against a file)."""

from __future__ import annotations

import functools
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


#: the shape of a cache entry (change it when the entry changes)
ENTRY_FORMAT = 5
#: the sources whose text decides what an entry holds and how it is compared
SOURCES = (pathlib.Path(__file__), pathlib.Path(__file__).with_name("test_promptfoo_differential.py"))


def tool_identity() -> bytes:
    """What identifies the promptfoo that runs: its package.json, the lockfile of what was installed with it,
    Node's version, and the sources of this module and of the comparison."""
    lock = PREFIX.parent / "package-lock.json"
    parts = [f"entry {ENTRY_FORMAT}".encode(), PACKAGE.read_bytes(), lock.read_bytes() if lock.exists() else b"-",
             node_version().encode(), *(p.read_bytes() for p in SOURCES)]
    return b"".join(hashlib.sha256(part).digest() for part in parts)


def key(folder: pathlib.Path, identity: bytes) -> str:
    """The cache key of a folder's outcome: ``identity`` (:func:`tool_identity`) and every file of the
    folder (its path and bytes): the config and every file it can name."""
    h = hashlib.sha256(identity)
    for p in sorted(folder.rglob("*")):
        rel = hashlib.sha256(str(p.relative_to(folder)).encode()).digest()
        if p.is_symlink():
            h.update(b"link" + rel + hashlib.sha256(os.readlink(p).encode()).digest())
        elif p.is_file() and not p.name.startswith("out."):
            h.update(b"file" + rel + hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def cached(k: str) -> dict | None:
    """The entry stored under key ``k``, or None when there is none, or one not made for ``k`` (its own key,
    its format and versions are checked), or when ``EVALFMT_PROMPTFOO_FRESH=1``."""
    if os.environ.get("EVALFMT_PROMPTFOO_FRESH") == "1":
        return None
    try:
        entry = json.loads((CACHE / f"{k}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("key") != k or entry.get("format") != ENTRY_FORMAT or \
            entry.get("promptfoo") != version() or entry.get("node") != node_version():
        return None
    return entry


def _extract(out: pathlib.Path) -> list[dict]:
    data = json.loads(out.read_text(encoding="utf-8"))
    rows = []
    for r in data["results"]["results"]:
        tc = r.get("testCase") or {}
        # the echo provider answers with what it was sent (its raw answer: ``output`` went through transforms);
        # without one, an assertion stopped with an error: the rendered prompt is then ``prompt.raw``, empty
        # when the rendering itself failed (an error) or rendered nothing (no error)
        raw = (r.get("response") or {}).get("raw")
        sent = raw if isinstance(raw, str) else r["prompt"]["raw"] or (None if r.get("error") else "")
        rows.append({"prompt": sent if isinstance(sent, str) else None,
                     "assert": tc.get("assert") or [], "vars": r.get("vars"),
                     "description": tc.get("description"), "promptIdx": r.get("promptIdx"),
                     "testIdx": r.get("testIdx"), "error": r.get("error")})
    return rows


#: where the folder promptfoo ran in was, in a stored outcome (a prompt promptfoo makes an absolute path of)
FOLDER = "$FOLDER"


def _placed(value, folder: pathlib.Path, stored: bool = False):
    """An outcome (or its rows) with the folder's absolute path written as :data:`FOLDER` (``stored``) or put
    back in place of it: the outcome of a folder's files does not depend on where the folder is."""
    old, new = (str(folder), FOLDER) if stored else (FOLDER, str(folder))
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, list):
        return [_placed(v, folder, stored) for v in value]
    if isinstance(value, dict):
        return {k: _placed(v, folder, stored) for k, v in value.items()}
    return value


def run_many(folders: list[pathlib.Path], parallel: int = 2) -> list[dict]:
    """{"rc", "rows" (None when promptfoo wrote no output), "stderr", "ran" (promptfoo ran now, not read from
    the cache)} for each folder's ``promptfooconfig.yaml``, from the cache where it holds them."""
    assert NODE.exists() and MAIN.exists(), f"promptfoo not installed in {PREFIX}: run scripts/node-deps.sh"
    CACHE.mkdir(parents=True, exist_ok=True)
    identity = tool_identity()
    keys = [key(f, identity) for f in folders]
    found = {k: _placed(e, f) for f, k in zip(folders, keys) if (e := cached(k)) is not None}
    todo = [(f, k) for f, k in zip(folders, keys) if k not in found]
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
                     "stderr": (f / "out.stderr").read_text(encoding="utf-8", errors="replace")[-2000:],
                     "ran": True}
            for name in ("out.json", "out.rc", "out.stdout", "out.stderr"):
                (f / name).unlink(missing_ok=True)
            found[k] = entry
            if entry["rows"] is not None:  # (a refusal is run again: it may be the machine's, not the config's)
                stored = {**entry, "rows": _placed(entry["rows"], f, stored=True), "ran": False, "key": k,
                          "format": ENTRY_FORMAT, "promptfoo": version(), "node": node_version()}
                (CACHE / f"{k}.json").write_text(json.dumps(stored), encoding="utf-8")
    return [found[k] for k in keys]


def version() -> str:
    return json.loads(PACKAGE.read_text())["version"]


@functools.cache
def node_version() -> str:
    return subprocess.run([str(NODE), "--version"], capture_output=True, text=True, check=True).stdout.strip()


__all__ = ["unavailable", "run_many", "version", "node_version", "key", "tool_identity", "cached"]
