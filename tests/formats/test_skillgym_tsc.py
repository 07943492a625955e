"""Every skillgym suite evalfmt writes must type-check: ``tsc --noEmit --strict`` against the real
``skillgym`` package (pinned in scripts/node-packages.txt, installed into .cache/node/skillgym/).

Checked: the golden suites the other tests compare against (canonical output, terum and agentv
conversions, every agentv conformance input), the fixture suites after a round trip, and a seeded
set of generated suites covering every check kind the writer renders, and the fixture suites whose prompts
are computed by the suite's own code (tests/formats/computed/computed-prompt.ts), as written."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid

import pytest

from conftest import FIXTURES, ROOT
from evalfmt.formats.skillgym import reader as skillgym_read
from evalfmt.formats.skillgym import writer as skillgym_write

PREFIX = ROOT / ".cache" / "node" / "skillgym"
TSC = PREFIX / "node_modules" / ".bin" / "tsc"
GOLDEN = ROOT / "tests" / "golden" / "skillgym"
#: fixtures whose prompts the suite computes (prompt: buildPrompt({...})): they must type-check too
COMPUTED = ["computed-prompt.ts"]

pytestmark = [pytest.mark.node, pytest.mark.slow]


def _ensure_packages() -> None:
    if not shutil.which("node") or not shutil.which("npm"):
        pytest.skip("node/npm not found: cannot type-check the generated suites")
    if not TSC.exists() or not (PREFIX / "node_modules" / "skillgym").is_dir():
        subprocess.run([str(ROOT / "scripts" / "node-deps.sh")], check=True, cwd=ROOT)
    assert TSC.exists(), "scripts/node-deps.sh did not install typescript into .cache/node/skillgym"


def _fixture(name: str):
    """A fixture suite: the bundled ones, or a computed-prompt one kept with the tests (its warnings are
    not part of the README tour's `validate fixtures`)."""
    return ROOT / "tests" / "formats" / "computed" / name if name in COMPUTED else FIXTURES / "skillgym" / name


def suites_to_check() -> dict[str, str]:
    from test_skillgym import VALID, seeded_suites

    out: dict[str, str] = {}
    for path in sorted(GOLDEN.rglob("*.ts")):
        out[path.relative_to(GOLDEN).as_posix().replace("/", "__")] = path.read_text(encoding="utf-8")
    for name in VALID + COMPUTED:
        (evalset,) = skillgym_read.read(str(_fixture(name))).sets
        ((_, text),) = skillgym_write.write(evalset).files.items()
        out["roundtrip__" + name] = text
    for name in COMPUTED:  # suites skillgym runs that evalfmt reads only in part (EV117): as written
        out["fixture__" + name] = _fixture(name).read_text(encoding="utf-8")
    for i, text in enumerate(seeded_suites()):
        out[f"generated__{i}.ts"] = text
    return out


def test_generated_suites_type_check():
    _ensure_packages()
    suites = suites_to_check()
    assert len(suites) >= 20
    work = PREFIX / f"tsc-{uuid.uuid4().hex[:8]}"
    work.mkdir()
    try:
        (work / "package.json").write_text('{"type": "module", "private": true}\n')
        for name, text in suites.items():
            (work / name).write_text(text, encoding="utf-8")
        config = {"compilerOptions": {"strict": True, "noEmit": True, "target": "es2022", "module": "nodenext",
                                      "moduleResolution": "nodenext", "types": ["node"], "skipLibCheck": False},
                  "files": sorted(suites)}
        (work / "tsconfig.json").write_text(json.dumps(config, indent=2))
        proc = subprocess.run([str(TSC), "-p", str(work / "tsconfig.json")], capture_output=True, text=True,
                              cwd=work, env={**os.environ, "NO_COLOR": "1"})
        assert proc.returncode == 0, proc.stdout + proc.stderr
    finally:
        shutil.rmtree(work, ignore_errors=True)
