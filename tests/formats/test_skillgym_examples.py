"""Issue 13 item 7: skillgym suites as users write them.

Any top-level statement outside the subset evalfmt reads (a call that prepares a folder, ``if``, an
``export { ... }`` list, a ``const`` computed at load time) is kept verbatim, and the suite still reads
and writes back byte for byte. The example suites shipped in skillgym 0.8.1's npm package (the code
blocks of its README.md and skills/*.md, installed by ``make test`` into .cache/node/skillgym) are read
in place."""

from __future__ import annotations

import re

import pytest

from conftest import ROOT
from evalfmt.formats.skillgym import reader as skillgym_read
from evalfmt.formats.skillgym import writer as skillgym_write

PACKAGE = ROOT / ".cache" / "node" / "skillgym" / "node_modules" / "skillgym"

#: A suite shaped like skillgym's own repeat-counter example: setup calls at the top level, an export
#: list, and a helper function after the default export.
SETUP_SUITE = """import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type TestCase } from "skillgym";

const stateDir = path.join(os.tmpdir(), "counter-demo");
const statePath = path.join(stateDir, "state.json");

mkdirSync(stateDir, { recursive: true });
writeFileSync(statePath, JSON.stringify({ value: 0 }, null, 2), "utf8");
if (process.env.RESET) {
  writeFileSync(statePath, "{}");
}

const suite: TestCase[] = [
  {
    id: "counts",
    prompt: "Say only: counted",
    async assert(_report, ctx) {
      const next = await bump(statePath);
      console.log(next);
    },
  },
];

export default suite;
export { stateDir, statePath };

async function bump(file: string): Promise<number> {
  return 1;
}
"""


def _read(tmp_path, text: str, name: str = "suite.ts"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return skillgym_read.read(str(path))


def test_top_level_statements_are_kept_verbatim(tmp_path):
    result = _read(tmp_path, SETUP_SUITE)
    assert [d.format() for d in result.diagnostics] == []
    (evalset,) = result.sets
    assert [c.name for c in evalset.cases] == ["counts"]
    ((_, text),) = skillgym_write.write(evalset).files.items()
    assert text == SETUP_SUITE


def test_a_typo_in_the_suite_itself_is_still_an_error_at_its_position(tmp_path):
    broken = SETUP_SUITE.replace('id: "counts",', 'id: "counts"')
    result = _read(tmp_path, broken)
    assert [d.format().split(": ", 1)[1] for d in result.diagnostics] == [
        "EV100 unexpected 'prompt': this is outside the TypeScript evalfmt reads statically (see docs/skillgym.md)"]
    assert result.diagnostics[0].line == 18


def _blocks() -> list[tuple[str, str]]:
    if not PACKAGE.is_dir():
        return []
    out = []
    for md in [PACKAGE / "README.md", *sorted((PACKAGE / "skills").glob("*.md"))]:
        text = md.read_text(encoding="utf-8")
        for m in re.finditer(r"```(?:ts|typescript)\n(.*?)```", text, re.S):
            line = text.count("\n", 0, m.start()) + 1
            out.append((f"{md.relative_to(PACKAGE)}:{line}", m.group(1)))
    return out


BLOCKS = _blocks()
needs_package = pytest.mark.skipif(not PACKAGE.is_dir(), reason=f"skillgym npm package not installed: {PACKAGE}")


@needs_package
def test_the_package_ships_example_suites():
    suites = [name for name, code in BLOCKS if "export default suite" in code]
    assert suites == ["README.md:77", "skills/cases.md:19", "skills/core.md:31"]


@needs_package
@pytest.mark.parametrize("name, code", [b for b in BLOCKS if "export default suite" in b[1]] or [("none", "")])
def test_every_example_suite_reads_and_round_trips(tmp_path, name, code):
    result = _read(tmp_path, code)
    assert [d.format() for d in result.diagnostics] == [], name
    (evalset,) = result.sets
    assert evalset.cases and all(c.input for c in evalset.cases), name
    ((_, text),) = skillgym_write.write(evalset).files.items()
    assert text == code


@needs_package
@pytest.mark.parametrize("name, code", [b for b in BLOCKS if "export const workspace" in b[1]] or [("none", "")])
def test_every_example_workspace_reads_in_a_suite(tmp_path, name, code):
    suite = code + '\nexport default [{ id: "a", prompt: "p", assert() {} }];\n'
    result = _read(tmp_path, suite)
    assert [d.format() for d in result.diagnostics] == [], name
    (evalset,) = result.sets
    assert isinstance(evalset.extra["workspace"], dict) and "mode" in evalset.extra["workspace"]


@needs_package
@pytest.mark.parametrize("name, code", [b for b in BLOCKS if re.match(r"(import .*\n)*\n?assert\.", b[1])]
                         or [("none", "")])
def test_every_example_assertion_reads_inside_an_assert_body(tmp_path, name, code):
    imports = "".join(line + "\n" for line in code.splitlines() if line.startswith("import "))
    body = "".join("      " + line + "\n" for line in code.splitlines() if not line.startswith("import "))
    suite = (imports + 'export default [\n  {\n    id: "a",\n    prompt: "p",\n    assert(report, ctx) {\n'
             + body + "    },\n  },\n];\n")
    result = _read(tmp_path, suite)
    assert [d.format() for d in result.diagnostics] == [], name
    ((_, text),) = skillgym_write.write(result.sets[0]).files.items()
    assert text == suite
