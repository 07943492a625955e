"""The closed IR (docs/internals.md, "A closed IR"): the stages after the readers (run/, transpile/,
report/, and the kinds' specs in ir/kinds/, whose scoring functions the executor runs) read typed IR fields, never the leftovers of the source format: a node's ``extra``, ``hints``,
an opaque check's ``raw`` or ``origin``, an eval set's ``format``. Read from the source: every attribute
of those names that is read (not called: ``Diagnostic.format()`` is a method) in those packages, by
module and function, must be one of :data:`REMAINING`, the reads not yet replaced by a typed field, each
with its reason. The list only shrinks: a new read fails, and so does an entry no longer read."""

from __future__ import annotations

import ast
import pathlib

from conftest import ROOT

PKG = ROOT / "evalfmt"
#: the stages, and the kinds' scoring functions (evalfmt/ir/kinds/: the executor runs them)
STAGES = ("run", "transpile", "report", "ir/kinds")
#: the attributes that hold what a reader kept of the source format
LEFTOVERS = {"extra", "hints", "raw", "origin", "format"}

#: (module, function, the expression read) -> why it is still read. Remove an entry with the read.
REMAINING: dict[tuple[str, str, str], str] = {
    # not IR: the format discovery detected for a file; transpile hands an EVAL.yaml to its model of
    # `agentv transpile`, which reads the file itself (its output is byte-identical to agentv's)
    ("transpile/__init__.py", "_plan_seed", "unit.format"): "discover.Unit, not IR: the seed layout's default folder",
    ("transpile/__init__.py", "_agentv_unit", "unit.format"): "discover.Unit, not IR: agentv's own transpile model",
    # provenance, no behaviour: plan.json records the format of the run's eval set
    ("run/skillrun.py", "_plan", "request.sets[0].format"): "provenance in plan.json (eval_format)",
    # a writer's words, not scoring: the evals.json sentence of an opaque check names the format it came from
    ("ir/kinds/opaque.py", "<module>", "c.origin"): "the evals.json sentence names the opaque check's format",
}


def _reads(path: pathlib.Path, base: pathlib.Path = PKG) -> set[tuple[str, str, str]]:
    """(module, function, expression) for every leftover attribute read in ``path`` (calls excepted)."""
    tree = ast.parse(path.read_text("utf-8"))
    rel = path.relative_to(base).as_posix()
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    found: set[tuple[str, str, str]] = set()

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else where
            if isinstance(child, ast.Attribute) and child.attr in LEFTOVERS and id(child) not in called:
                found.add((rel, where, ast.unparse(child)))
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Name) \
                    and child.func.id in ("getattr", "hasattr", "setattr") and len(child.args) > 1 \
                    and isinstance(child.args[1], ast.Constant) and child.args[1].value in LEFTOVERS:
                found.add((rel, where, ast.unparse(child)))
            visit(child, inner)

    visit(tree, "<module>")
    return found


def stage_reads() -> set[tuple[str, str, str]]:
    return {r for stage in STAGES for path in sorted((PKG / stage).rglob("*.py")) for r in _reads(path)}


def test_stages_read_no_leftover_of_the_source_format():
    new = sorted(stage_reads() - set(REMAINING))
    assert new == [], "read a typed IR field instead (the reader fills it): " + \
        "; ".join(f"{m} {f}(): {e}" for m, f, e in new)


def test_the_list_of_remaining_reads_only_shrinks():
    gone = sorted(set(REMAINING) - stage_reads())
    assert gone == [], "no longer read: remove from REMAINING: " + "; ".join(f"{m} {f}(): {e}" for m, f, e in gone)


def test_the_wall_sees_a_read(tmp_path):
    """What the wall catches: an attribute read, getattr with the name, inside nested functions; not a call."""
    (tmp_path / "x.py").write_text("def f(c):\n    def g():\n        return c.extra.get('k'), getattr(c, 'raw')\n"
                                   "    return g, c.format(), d.format\n", encoding="utf-8")
    assert _reads(tmp_path / "x.py", tmp_path) == {("x.py", "g", "c.extra"), ("x.py", "g", "getattr(c, 'raw')"),
                                                   ("x.py", "f", "d.format")}
