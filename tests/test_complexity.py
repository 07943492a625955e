"""No function of evalfmt is more complex than 25, and at most 10 are at 20 or more (issue 25):
cyclomatic complexity as radon counts it (one per decision point and per boolean operator;
``radon cc -s -n C evalfmt`` shows the figures). Methods and nested functions count as functions; a
class's own figure (the sum of its methods) does not. ``evalfmt/npmyaml/`` is left out: a port of the
``yaml`` package's parser, kept close to its source so that it can be compared line by line.

A function that grows past the limit gets a table or small functions with names that say what they do,
not another branch. The functions listed in :data:`KNOWN` are over the rules today and being rewritten
(the check kinds moving to one spec table; the readers and writers of formats/): each is listed at its
figure of today, and the list only shrinks. A listed function whose figure changes fails the test until
its entry says the new figure (lower: a function may not grow); one that falls below 20, or is gone,
fails until its entry is removed. An entry at 25 or less may also leave the list before that, when the
ten places of the rule have room for it."""

from __future__ import annotations

import pathlib

from radon.complexity import add_inner_blocks, cc_visit
from radon.visitors import Class

from conftest import ROOT

PACKAGE = ROOT / "evalfmt"
EXEMPT = PACKAGE / "npmyaml"
LIMIT = 25  # no function above it
HIGH = 20  # ... and at most MOST_HIGH functions at it or above
MOST_HIGH = 10

#: ``path:function`` (``Class.method``; ``outer.inner`` for a nested function) -> its figure today
KNOWN = {
    "evalfmt/formats/ir_json.py:_report": 22,
    "evalfmt/formats/terum/reader.py:read_unit": 20,
    "evalfmt/formats/terum/reader.py:read_suite_entries": 20,
    "evalfmt/formats/agent_skills/reader.py:read": 20,
    "evalfmt/formats/agent_skills/reader.py:_read_seed": 20,
}


def figures(path: pathlib.Path, root: pathlib.Path = ROOT) -> list[tuple[str, int]]:
    """``(path:function, complexity)`` of every function, method and nested function of one module."""
    rel = path.relative_to(root).as_posix()
    blocks = add_inner_blocks(cc_visit(path.read_text(encoding="utf-8")))
    return [(f"{rel}:{b.fullname}", b.complexity) for b in blocks if not isinstance(b, Class)]


def measured(package: pathlib.Path = PACKAGE, exempt: pathlib.Path = EXEMPT) -> dict[str, int]:
    """The figure of every function of ``package`` outside ``exempt`` (a name met twice keeps its highest)."""
    out: dict[str, int] = {}
    for path in sorted(package.rglob("*.py")):
        if exempt in path.parents or "__pycache__" in path.parts:
            continue
        for name, cc in figures(path, package.parent):
            out[name] = max(cc, out.get(name, 0))
    return out


def breaches(found: dict[str, int], known: dict[str, int]) -> list[str]:
    """What breaks the rules: a function not listed in ``known`` above LIMIT, more than MOST_HIGH unlisted
    functions at HIGH or more, and a listed one whose figure is not its entry's."""
    out = [f"{name} ({cc}) is above {LIMIT}" for name, cc in sorted(found.items())
           if cc > LIMIT and name not in known]
    high = sorted(f"{name} ({cc})" for name, cc in found.items() if cc >= HIGH and name not in known)
    if len(high) > MOST_HIGH:
        out.append(f"{len(high)} functions at {HIGH} or more, {MOST_HIGH} at most: {', '.join(high)}")
    for name, was in sorted(known.items()):
        now = found.get(name)
        if now is None or now < HIGH:
            out.append(f"{name} is {'gone' if now is None else f'at {now}'}: remove it from KNOWN")
        elif now > was:
            out.append(f"{name} grew from {was} to {now}")
        elif now < was:
            out.append(f"{name} is down from {was} to {now}: write {now} in KNOWN")
    return out


def test_every_function_keeps_to_the_rules():
    assert breaches(measured(), KNOWN) == []


def test_the_measure_sees_a_complex_function(tmp_path):
    """The check can fail: a function with 26 branches, a method at 21 and a nested function are seen."""
    body = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(LIMIT + 1))
    method = "".join(f"        if x == {i}:\n            return {i}\n" for i in range(HIGH - 1))
    inner = "".join(f"        if y == {i}:\n            return {i}\n" for i in range(HIGH - 1))
    pkg = tmp_path / "pkg"
    (pkg / "exempt").mkdir(parents=True)
    (pkg / "m.py").write_text(f"def f(x):\n{body}    return -1\n\n\nclass C:\n    def g(self, x):\n{method}"
                              f"        return -1\n\n\ndef outer():\n    def h(y):\n{inner}        return -1\n"
                              "    return h\n")
    (pkg / "exempt" / "e.py").write_text(f"def f(x):\n{body}    return -1\n")
    found = measured(pkg, pkg / "exempt")
    assert {n: cc for n, cc in found.items() if cc > 1} == {"pkg/m.py:f": LIMIT + 2, "pkg/m.py:C.g": HIGH,
                                                             "pkg/m.py:outer.h": HIGH}
    assert breaches(found, {}) == [f"pkg/m.py:f ({LIMIT + 2}) is above {LIMIT}"]
    assert breaches(found, {"pkg/m.py:f": LIMIT + 2}) == []


def test_the_rule_counts_the_functions_at_20_or_more():
    """Ten functions at 20 or more are allowed, an eleventh is not; a listed one counts apart."""
    found = {f"m.py:f{i}": HIGH for i in range(MOST_HIGH)}
    assert breaches(found, {}) == []
    found["m.py:g"] = HIGH
    assert len(breaches(found, {})) == 1
    assert breaches(found, {"m.py:g": HIGH}) == []


def test_the_known_list_only_shrinks():
    found = {"m.py:big": 30, "m.py:smaller": 19}
    assert breaches(found, {"m.py:big": 30}) == []
    assert breaches(found, {"m.py:big": 28}) == ["m.py:big grew from 28 to 30"]
    assert breaches(found, {"m.py:big": 31}) == ["m.py:big is down from 31 to 30: write 30 in KNOWN"]
    assert breaches(found, {"m.py:big": 30, "m.py:smaller": 21}) == ["m.py:smaller is at 19: remove it from KNOWN"]
    assert breaches(found, {"m.py:big": 30, "m.py:gone": 21}) == ["m.py:gone is gone: remove it from KNOWN"]
