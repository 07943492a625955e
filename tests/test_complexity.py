"""No function of evalfmt is more complex than 25, and at most 10 are at 20 or more (issue 25):
cyclomatic complexity as radon counts it (one per decision point and per boolean operator;
``radon cc -s -n C evalfmt`` shows the figures). Methods and nested functions count as functions; a
class's own figure (the sum of its methods) does not. ``evalfmt/npmyaml/`` is left out: a port of the
``yaml`` package's parser, kept close to its source so that it can be compared line by line.

A function that grows past the limit gets a table or small functions with names that say what they do,
not another branch. No function is exempt (the list of functions over the rules that the rewrite onto the
kind specs started from is empty now)."""

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


def breaches(found: dict[str, int]) -> list[str]:
    """What breaks the rules: a function above LIMIT, more than MOST_HIGH functions at HIGH or more."""
    out = [f"{name} ({cc}) is above {LIMIT}" for name, cc in sorted(found.items()) if cc > LIMIT]
    high = sorted(f"{name} ({cc})" for name, cc in found.items() if cc >= HIGH)
    if len(high) > MOST_HIGH:
        out.append(f"{len(high)} functions at {HIGH} or more, {MOST_HIGH} at most: {', '.join(high)}")
    return out


def test_every_function_keeps_to_the_rules():
    assert breaches(measured()) == []


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
    assert breaches(found) == [f"pkg/m.py:f ({LIMIT + 2}) is above {LIMIT}"]


def test_the_rule_counts_the_functions_at_20_or_more():
    """Ten functions at 20 or more are allowed, an eleventh is not."""
    found = {f"m.py:f{i}": HIGH for i in range(MOST_HIGH)}
    assert breaches(found) == []
    found["m.py:g"] = HIGH
    assert len(breaches(found)) == 1
