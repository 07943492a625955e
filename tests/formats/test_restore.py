"""The shared round-trip pass (evalfmt/formats/restore.py): what a writer gets back for its own set,
for another format's set, and for a format it carries."""

from __future__ import annotations

from evalfmt import ir
from evalfmt.formats.restore import Restore, carry_all, reorder


def _case() -> ir.Case:
    return ir.Case(name="c", extra={"note": 1, "prompt": ["not", "text"]},
                   hints={"key_order": ["note", "id", "prompt"], "layout": "x"})


def test_own_set_gets_extras_original_values_and_key_order_back():
    r = Restore("agent-skills", "agent-skills")
    case = _case()
    assert r.own and r.hints(case) == case.hints and r.extra(case) == case.extra
    assert r.value(case, "prompt", "canonical") == ["not", "text"]
    assert r.value(case, "id", 7) == 7
    assert r.kept_or(case, "prompt", lambda: 1 / 0) == ["not", "text"]  # the canonical value is not built
    lost: list[str] = []
    out = r.back({"id": 7, "prompt": "canonical"}, case, ("prompt",), lose=lost.append)
    assert list(out.items()) == [("note", 1), ("id", 7), ("prompt", "canonical")]
    assert lost == [] and r.dropped(case) == []


def test_foreign_set_gets_nothing_back_and_each_extra_key_is_lost():
    r = Restore("promptfoo", "agent-skills")
    case = _case()
    assert not r.own and dict(r.hints(case)) == {} and dict(r.extra(case)) == {}
    assert not r.has(case, "prompt") and r.value(case, "prompt", "canonical") == "canonical"
    lost: list[str] = []
    out = r.back({"prompt": "canonical", "id": 7}, case, lose=lost.append, order=["id"])
    assert list(out) == ["id", "prompt"]  # only the writer's own default order applies
    assert lost == ["note", "prompt"] and r.dropped(case) == ["note", "prompt"]


def test_carried_format_keeps_its_keys_but_not_its_hints():
    r = Restore("terum", "agentv", {"terum": carry_all, "x": lambda key: key != "note"})
    case = _case()
    out = r.back({"id": 7}, case)
    assert list(out.items()) == [("id", 7), ("note", 1), ("prompt", ["not", "text"])]  # no key_order from terum
    assert not r.has(case, "prompt")
    partial = Restore("x", "agentv", {"x": lambda key: key != "note"})
    assert partial.dropped(case) == ["note"]
    assert Restore(None, "agentv").dropped(case) == ["note", "prompt"]


def test_reorder():
    assert list(reorder({"a": 1, "b": 2, "c": 3}, ["c", "z", "a"])) == ["c", "a", "b"]
    assert list(reorder({"a": 1, "b": 2}, None)) == ["a", "b"]
