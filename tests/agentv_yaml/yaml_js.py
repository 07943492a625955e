"""The real ``yaml`` npm package, as agentv 4.42.4 calls it, in one Node process per test session
(``yaml_js.cjs``: one JSON line of texts in, one JSON line of results out), and the comparison of its
verdicts with evalfmt's loader for agentv files."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess

from conftest import ROOT

SCRIPT = os.path.join(os.path.dirname(__file__), "yaml_js.cjs")
AGENTV_PACKAGE = ROOT / ".cache" / "node" / "agentv" / "node_modules" / "agentv" / "package.json"
YAML_PACKAGE = AGENTV_PACKAGE.parent.parent / "yaml" / "package.json"


def unavailable() -> str | None:
    """Why the real parser cannot run here (None when it can); installs agentv when node and npm exist."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return "node/npm not found: the differential test against agentv's YAML parser needs Node 20 and npm"
    if not AGENTV_PACKAGE.exists():
        subprocess.run([str(ROOT / "scripts" / "node-deps.sh")], cwd=ROOT, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return None


class YamlJs:
    """``parse(texts)`` -> the package's results (see yaml_js.cjs); ``version`` of the package."""

    def __init__(self):
        assert AGENTV_PACKAGE.exists(), f"agentv not installed at {AGENTV_PACKAGE}: run scripts/node-deps.sh"
        self.proc = subprocess.Popen(["node", "--no-warnings", SCRIPT, str(AGENTV_PACKAGE)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, encoding="utf-8")
        self.version = None

    def parse(self, texts: list[str]) -> list[dict]:
        self.proc.stdin.write(json.dumps(texts) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, "the node process ended"
        answer = json.loads(line)
        self.version = answer["version"]
        return answer["results"]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


# ---------------------------------------------------------------------------------------- verdicts


def evalfmt_verdict(text: str) -> dict:
    """What evalfmt's gate does with ``text`` as an agentv file: {"ok": True, "value"} or {"ok": False,
    "line", "column" (UTF-16 units, as the package counts), "code"} (the code of an agentv parser error,
    or EV114 for a duplicate key, or evalfmt's own refusal)."""
    from evalfmt.errors import LoadError
    from evalfmt.formats.agentv.loader import AgentvYamlError, load_text
    from evalfmt.load import plain

    try:
        loaded = load_text(text, "t.yaml")
    except AgentvYamlError as exc:
        return {"ok": False, "line": exc.line, "column": exc.js_column, "agentv": exc.agentv_message}
    except LoadError as exc:
        return {"ok": False, "line": exc.line, "column": _utf16_col(text, exc.line, exc.column), "evalfmt": str(exc)}
    if loaded.duplicates:
        first = min(loaded.duplicates, key=lambda d: (d.second.line, d.second.column))
        return {"ok": False, "line": first.second.line, "column": _utf16_col(text, first.second.line,
                                                                               first.second.column), "EV114": True}
    return {"ok": True, "value": plain(loaded.data)}


def _utf16_col(text: str, line: int | None, column: int | None) -> int | None:
    if line is None or column is None:
        return None
    lines = text.split("\n")
    here = lines[line - 1] if 0 < line <= len(lines) else ""
    return len(here[:column - 1].encode("utf-16-le")) // 2 + 1


def _json_like(value):
    """evalfmt's data as the package's results write it (JSON; NaN and infinities tagged)."""
    if isinstance(value, float):
        if math.isnan(value):
            return {"$number": "NaN"}
        if math.isinf(value):
            return {"$number": "Infinity" if value > 0 else "-Infinity"}
        return int(value) if value.is_integer() and abs(value) < 1e21 else value
    if isinstance(value, bytes):
        import base64

        return {"$binary": base64.b64encode(value).decode()}
    if isinstance(value, dict):
        return {k: _json_like(v) for k, v in value.items() if not _collection_key(k)}
    if isinstance(value, list):
        return [_json_like(v) for v in value]
    return value


def _collection_key(key: str) -> bool:
    """A key the package made from a mapping or sequence used as a key (its YAML text, written by its
    stringifier, which evalfmt does not reproduce byte for byte): left out of the data comparison."""
    return key[:1] in ("{", "[") and key[-1:] in ("}", "]")


def differences(texts: list[str], results: list[dict]) -> list[str]:
    """Where evalfmt and the package disagree: accept/refuse, the line and column of a refusal (and
    the message agentv prints, which ``transpile --layout agentv`` repeats), or the data of an accepted
    text. One line per text."""
    out = []
    for text, js in zip(texts, results):
        ours = evalfmt_verdict(text)
        if js.get("circular"):
            # an alias inside its own anchor: the package returns a circular structure and agentv then
            # fails on it; evalfmt refuses it
            if ours["ok"] or "agentv" not in ours:
                out.append(f"{text!r}: the package gives a circular structure; evalfmt {ours}")
            continue
        if ours["ok"] != js["ok"]:
            out.append(f"{text!r}: evalfmt {'accepts' if ours['ok'] else 'refuses'} ({ours}), "
                       f"the package {'accepts' if js['ok'] else 'refuses'} ({js})")
        elif not ours["ok"]:
            if js["line"] is not None and (ours["line"], ours["column"]) != (js["line"], js["col"]):
                out.append(f"{text!r}: refused at {ours['line']}:{ours['column']} ({ours}) vs "
                           f"{js['line']}:{js['col']} ({js['message']})")
            elif "agentv" in ours and ours["agentv"] != js["printed"]:
                out.append(f"{text!r}: agentv would print {js['printed']!r}, evalfmt {ours['agentv']!r}")
        elif _json_like(ours["value"]) != _json_like(js["value"]):
            out.append(f"{text!r}: data {ours['value']!r} vs {js['value']!r}")
    return out
