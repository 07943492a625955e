"""Every eval asset of the conformance corpus is read without a crash and has a golden IR snapshot.

The per-format tests (test_terum_read, test_agentv_*, test_agent_skills, test_skill_creator_triggers,
test_promptfoo) hold most snapshots; this file covers the agent-skills files among agentv's inputs
and checks that no eval asset of the corpus is left without one.
"""

from __future__ import annotations

import pytest

from conftest import CONFORMANCE, ROOT, check_golden, conformance_id
from evalfmt import api
from evalfmt.formats import ir_json

GOLDEN = ROOT / "tests" / "golden" / "conformance"
#: Folders of the corpus that hold recorded sessions or agentv's outputs, not eval assets.
NOT_ASSETS = ("claude-code/", "agentv-4.42.4/expected/", "agentv-4.42.4/eval-schema.json")


def assets() -> list:
    if not CONFORMANCE.is_dir():
        return []
    return sorted(p for p in CONFORMANCE.rglob("*") if p.is_file()
                  and not str(p.relative_to(CONFORMANCE)).startswith(NOT_ASSETS))


@pytest.mark.conformance
def test_every_eval_asset_has_a_golden_ir_snapshot():
    found = assets()
    assert len(found) == 30, [conformance_id(p) for p in found]
    goldens = {p.name for p in GOLDEN.rglob("*") if p.is_file()}
    missing = [conformance_id(p) for p in found
               if not any(g.startswith(p.name) and (g.endswith(".ir.json") or g.endswith(".suite.json"))
                          for g in goldens)
               and not (p.name == "suite.yaml" and "hybrid-review.suite.json" in goldens)]
    assert missing == []


@pytest.mark.conformance
@pytest.mark.parametrize("path", ["agentv-4.42.4/inputs/examples/features/agent-skills-evals/evals.json",
                                  "agentv-4.42.4/inputs/examples/features/agent-skills-evals/csv-analyzer.evals.json"])
def test_agent_skills_inputs_of_the_agentv_corpus(path):
    full = CONFORMANCE / path
    result = api.read(str(full))
    assert [d.format() for d in result.diagnostics if d.severity == "error"] == []
    assert [s.format for s in result.sets] == ["agent-skills"]
    text = ir_json.dumps(result.sets).replace(str(CONFORMANCE), "$CONFORMANCE")
    check_golden(GOLDEN / "agent-skills" / (full.name + ".ir.json"), text)
