"""Whatever shape an EVAL.yaml has (the differential test's generator: wrong types, nulls, legacy keys,
odd skill names), reading, writing back and planning both layouts never raise, and the agentv reader's
IR reads back from what its writer wrote."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings

from evalfmt import ir, yamlrt
from evalfmt.formats import agentv
from evalfmt.transpile import plan
from gen_evalyaml import eval_document


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(doc=eval_document())
def test_read_write_and_plan_never_raise(tmp_path_factory, doc):
    tmp = tmp_path_factory.mktemp("shape")
    path = tmp / "dataset.eval.yaml"
    path.write_text(yamlrt.dump(doc), encoding="utf-8")
    result = agentv.read(str(path))
    (evalset,) = result.sets
    (text,) = agentv.write(evalset).files.values()
    again = tmp / "again.eval.yaml"
    again.write_text(text, encoding="utf-8")
    (back,) = agentv.read(str(again)).sets
    if not evalset.hints.get("inlined"):
        assert _content(back) == _content(evalset)
    for layout in ("seed", "agentv"):
        p = plan([str(path)], layout=layout, out_dir=str(tmp / layout))
        assert all(str(tmp / layout) in target for target in p.files)


def _content(evalset: ir.EvalSet) -> str:
    """ir.content as text (so that a NaN equals itself), wherever the set was read from."""
    return json.dumps(ir.content(ir.replace(evalset, source=None)), sort_keys=True)
