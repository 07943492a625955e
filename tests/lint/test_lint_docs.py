"""The rule documentation: every rule's docstring has the sections docs need, its examples do what
they say (the failing one fires the rule, the passing one does not), and docs/rules.md is what
`evalfmt rules --markdown` generates."""

from __future__ import annotations

import pathlib

import pytest

from evalfmt.lint.docs import example_blocks, rules_markdown
from evalfmt.lint.registry import registry
from lintkit import lint_spec  # noqa: F401 - a fixture

ROOT = pathlib.Path(__file__).resolve().parents[2]
RULES = [r for r in registry() if r.origin == "evalfmt"]
#: codes an example needs besides its own (EV001's example suppresses an EV204 finding)
ALSO = {"EV001": ["EV204"]}
CONFIG = "../evalfmt.toml"  # an example file that is the configuration beside the skill folder


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_docstring_sections(rule):
    doc = rule.doc()
    assert doc.summary and doc.why and doc.fails and doc.passes and doc.fix, rule.code
    for body in (doc.fails, doc.passes):
        blocks = example_blocks(body)
        assert blocks and all(name for name, _ in blocks), f"{rule.code}: every example names its file"
    if rule.options:
        assert doc.options, f"{rule.code}: options are documented"
        for name in rule.options:
            assert f"`{name}`" in doc.options, f"{rule.code}: option {name} is documented"


@pytest.mark.parametrize("side", ["fails", "passes"])
@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_docstring_examples(rule, side, lint_spec):  # noqa: F811 - the fixture imported above
    files = dict(example_blocks(getattr(rule.doc(), side)))
    spec = {"files": files}
    if CONFIG in files:
        spec["config"] = files.pop(CONFIG)
    code, lines, err = lint_spec(spec, [rule.code] + ALSO.get(rule.code, []))
    assert err == ""
    hits = [line for line in lines if f": {rule.code} " in line]
    if side == "fails":
        assert hits, f"{rule.code}: the failing example does not fire"
    else:
        assert lines == [], f"{rule.code}: the passing example fires: {lines}"


def test_rules_md_is_generated(run_cli):
    code, out, err = run_cli("rules", "--markdown")
    assert (code, err) == (0, "")
    assert out == rules_markdown(registry())
    assert (ROOT / "docs" / "rules.md").read_text("utf-8") == out, \
        "docs/rules.md is stale: evalfmt rules --markdown > docs/rules.md"
