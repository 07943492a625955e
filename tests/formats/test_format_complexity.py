"""The format packages stay readable: no function above cyclomatic complexity 25 (issue 14 item 2).

Measured with radon (``radon cc -s evalfmt/formats/<package>`` shows the figures), as its CLI counts:
one per decision point and per boolean operator. Extend PACKAGES as packages are split to this bar.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from radon.complexity import cc_visit
from radon.visitors import Class

FORMATS = Path(__file__).resolve().parents[2] / "evalfmt" / "formats"
PACKAGES = ["skillgym", "promptfoo"]
LIMIT = 25


def _over(path: Path) -> list[str]:
    out = []
    for block in cc_visit(path.read_text(encoding="utf-8")):
        for fn in (block.methods if isinstance(block, Class) else [block]):
            if fn.complexity > LIMIT:
                out.append(f"{path.name}:{fn.lineno} {fn.fullname} ({fn.complexity})")
    return out


@pytest.mark.parametrize("package", PACKAGES)
def test_no_function_above_the_complexity_limit(package):
    files = sorted((FORMATS / package).glob("*.py"))
    assert files, package
    assert [line for f in files for line in _over(f)] == []


def test_the_measure_sees_a_complex_function(tmp_path):
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(LIMIT))
    path = tmp_path / "m.py"
    path.write_text(f"def f(x):\n{branches}    return -1\n")
    assert _over(path) == [f"m.py:1 f ({LIMIT + 1})"]
