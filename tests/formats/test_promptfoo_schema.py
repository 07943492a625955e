"""Every promptfoo config evalfmt writes is checked against promptfoo's own config schema: the
``UnifiedConfigSchema`` zod schema whose TypeScript declarations ship in the ``promptfoo`` npm package
(pinned in scripts/node-packages.txt; unpacked without its dependencies, with ``zod`` for the types).
Each config becomes ``const c = <config as JSON> satisfies z.output<typeof UnifiedConfigSchema>`` and
``tsc --strict`` checks it, so an unknown key or an assertion type promptfoo does not know fails
(top-level ``x-`` keys, which only hold YAML anchors, are left out first).

The real configs of the conformance folder are checked too (they must pass: the check accepts what
promptfoo accepts), and one broken config must fail (the check is not vacuous)."""

from __future__ import annotations

import json
import shutil
import subprocess
import uuid

import pytest

from conftest import ROOT, conformance_files
from evalfmt.formats import promptfoo
from evalfmt.load import load_text

PREFIX = ROOT / ".cache" / "node" / "promptfoo"
TSC = PREFIX / "node_modules" / "typescript" / "bin" / "tsc"
pytestmark = [pytest.mark.node, pytest.mark.slow]


def _ensure_packages() -> None:
    if not shutil.which("node") or not shutil.which("npm"):
        pytest.skip("node/npm not found: cannot check configs against promptfoo's schema")
    if not TSC.exists() or not (PREFIX / "node_modules" / "promptfoo" / "dist").is_dir():
        subprocess.run([str(ROOT / "scripts" / "node-deps.sh")], check=True, cwd=ROOT)
    assert TSC.exists(), "scripts/node-deps.sh did not install the promptfoo schema packages"


def written_configs() -> dict[str, str]:
    out: dict[str, str] = {}
    for path in sorted((ROOT / "tests" / "golden").rglob("*.yaml")):
        if path.parent.name == "promptfoo" or path.name.endswith(".promptfooconfig.yaml"):
            out[path.relative_to(ROOT / "tests" / "golden").as_posix()] = path.read_text(encoding="utf-8")
    for path in conformance_files("promptfoo/*promptfooconfig.yaml"):
        (evalset,) = promptfoo.read(str(path)).sets
        out["roundtrip/" + path.name] = promptfoo.write(evalset).files[path.name]
    return out


def _typecheck(configs: dict[str, str]) -> subprocess.CompletedProcess:
    work = PREFIX / f"check-{uuid.uuid4().hex[:8]}"
    work.mkdir()
    try:
        lines = ['import type { z } from "zod";', 'import type { UnifiedConfigSchema } from "promptfoo";',
                 "type Config = z.output<typeof UnifiedConfigSchema>;", ""]
        for i, (name, text) in enumerate(configs.items()):
            data = load_text(text, name, "yaml").data
            if isinstance(data, dict):  # ``x-`` keys hold YAML anchors; promptfoo ignores them
                data = {k: v for k, v in data.items() if not k.startswith("x-")}
            lines.append(f"// {name}")
            lines.append(f"export const c{i} = {json.dumps(data, ensure_ascii=False, indent=2)} satisfies Config;")
        (work / "configs.ts").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (work / "package.json").write_text('{"type": "module", "private": true}\n')
        (work / "tsconfig.json").write_text(json.dumps({
            "compilerOptions": {"strict": True, "noEmit": True, "target": "es2022", "module": "nodenext",
                                "moduleResolution": "nodenext", "skipLibCheck": True, "types": []},
            "files": ["configs.ts"]}))
        return subprocess.run(["node", str(TSC), "-p", str(work / "tsconfig.json")], capture_output=True, text=True,
                              cwd=work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_written_configs_match_promptfoos_schema():
    _ensure_packages()
    configs = written_configs()
    # the golden configs are always there; the round trips of the conformance configs when it is
    assert len([name for name in configs if not name.startswith("roundtrip/")]) >= 7
    assert len([name for name in configs if name.startswith("roundtrip/")]) == \
        len(conformance_files("promptfoo/*promptfooconfig.yaml"))
    proc = _typecheck(configs)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.conformance
def test_real_configs_pass_and_a_broken_one_fails():
    _ensure_packages()
    real = {p.name: p.read_text(encoding="utf-8") for p in conformance_files("promptfoo/*promptfooconfig.yaml")}
    assert len(real) == 3
    assert _typecheck(real).returncode == 0
    broken = {"broken.yaml": "prompts: ['{{prompt}}']\ntests:\n  - vars: {prompt: hi}\n    asert: []\n"
                             "    assert:\n      - type: contains-word\n        value: x\n"}
    proc = _typecheck(broken)
    assert proc.returncode != 0
    assert "asert" in proc.stdout or "contains-word" in proc.stdout
