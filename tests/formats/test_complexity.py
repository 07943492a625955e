"""No function of the formats already split into rooms is more complex than 25 (McCabe's cyclomatic
complexity, measured with the ``mccabe`` package): a reader or writer that grows past it gets a table or
small functions, not another branch (issue 14). skillgym and promptfoo join the list when they are split."""

from __future__ import annotations

import ast
import pathlib

import pytest

mccabe = pytest.importorskip("mccabe", reason="mccabe is in .[dev]")

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIMIT = 25
MODULES = sorted(
    [*(ROOT / "evalfmt/formats/terum").glob("*.py"), *(ROOT / "evalfmt/formats/agentv").glob("*.py"),
     *(ROOT / "evalfmt/ir").glob("*.py")]
    + [ROOT / "evalfmt/formats" / n for n in ("__init__.py", "agent_skills.py", "skill_creator_triggers.py",
                                              "ir_json.py", "ir_doc.py", "names.py", "losses.py", "matrix.py")]
    + [ROOT / "evalfmt/route.py", ROOT / "evalfmt/suggest.py"])


def complexities(path: pathlib.Path) -> list[tuple[str, int]]:
    visitor = mccabe.PathGraphingAstVisitor()
    visitor.preorder(ast.parse(path.read_text(encoding="utf-8"), str(path)), visitor)
    return [(graph.entity, graph.complexity()) for graph in visitor.graphs.values()]


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(ROOT)) for p in MODULES])
def test_no_function_above_the_limit(path):
    over = [(name, n) for name, n in complexities(path) if n > LIMIT]
    assert not over, f"{path.relative_to(ROOT)}: {over} (limit {LIMIT}: split it or use a table)"


def test_the_measure_sees_a_complex_function(tmp_path):
    """The check can fail: a function with 26 branches is measured as 27."""
    body = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(26))
    path = tmp_path / "m.py"
    path.write_text(f"def f(x):\n{body}    return -1\n")
    assert complexities(path) == [("f", 27)]
