"""No function of the formats already split into rooms, the IR or the router is more complex than 25
(cyclomatic complexity as radon counts it: one per decision point and per boolean operator; ``radon cc
-s PATH`` shows the figures). A reader or writer that grows past it gets a table or small functions, not
another branch (issue 14)."""

from __future__ import annotations

import pathlib

import pytest

radon_complexity = pytest.importorskip("radon.complexity", reason="radon is in .[dev]")
from radon.visitors import Class  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIMIT = 25
MODULES = sorted(
    [*(ROOT / "evalfmt/formats/terum").glob("*.py"), *(ROOT / "evalfmt/formats/agentv").glob("*.py"),
     *(ROOT / "evalfmt/formats/agent_skills").glob("*.py"),
     *(ROOT / "evalfmt/formats/skillgym").glob("*.py"), *(ROOT / "evalfmt/formats/promptfoo").glob("*.py"),
     *(ROOT / "evalfmt/ir").glob("*.py")]
    + [ROOT / "evalfmt/formats" / n for n in ("__init__.py", "skill_creator_triggers.py", "by_skill.py",
                                              "ir_json.py", "ir_doc.py", "names.py", "losses.py", "matrix.py")]
    + [ROOT / "evalfmt/route.py", ROOT / "evalfmt/suggest.py"])


def over_limit(path: pathlib.Path) -> list[str]:
    out = []
    for block in radon_complexity.cc_visit(path.read_text(encoding="utf-8")):
        for fn in (block.methods if isinstance(block, Class) else [block]):
            if fn.complexity > LIMIT:
                out.append(f"{path.name}:{fn.lineno} {fn.fullname} ({fn.complexity})")
    return out


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(ROOT)) for p in MODULES])
def test_no_function_above_the_limit(path):
    assert over_limit(path) == []


def test_the_measure_sees_a_complex_function(tmp_path):
    """The check can fail: a function with 26 branches is over the limit."""
    body = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(LIMIT + 1))
    path = tmp_path / "m.py"
    path.write_text(f"def f(x):\n{body}    return -1\n")
    assert over_limit(path) == [f"m.py:1 f ({LIMIT + 2})"]
