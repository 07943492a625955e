"""Imports sit at the top of a module (docs/internals.md, "Pipeline and import layers"). An import inside a
function of evalfmt/ says why it is there, in a comment on its own line(s) or in the comment lines just
above it (above the run of imports it opens, when several follow each other): a start-up figure (a number
and ``ms``, as ``python -X importtime`` measures it), or one of the named reasons: a heavy optional
dependency it loads (pydantic, pygls, lsprotocol, ray, jinja2; regex, the dev dependency of
``lint/_scripts_gen.py``), a ``lazy facade`` (a package's ``__init__`` loading its own submodule), an
import ``cycle``. Only comments count: the name of the module imported does not explain itself."""

from __future__ import annotations

import ast
import io
import pathlib
import re
import tokenize

import pytest

from conftest import ROOT

PKG = ROOT / "evalfmt"
FIGURE = re.compile(r"\d+(?:\.\d+)?\s?ms\b")
REASON = re.compile(r"\b(?:pydantic|pygls|lsprotocol|ray|jinja2|regex|lazy facade|cycle)\b", re.IGNORECASE)

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
IMPORTS = (ast.Import, ast.ImportFrom)


def comments(source: str) -> dict[int, str]:
    """line -> the comment on it (comments only, never a string that holds a '#')."""
    return {tok.start[0]: tok.string for tok in tokenize.generate_tokens(io.StringIO(source).readline)
            if tok.type == tokenize.COMMENT}


def statement_lists(tree: ast.AST) -> list[list[ast.stmt]]:
    """Every list of statements inside a function (bodies of nested blocks and functions too)."""
    out = []
    for func in ast.walk(tree):
        if isinstance(func, FUNCTIONS):
            for node in ast.walk(func):
                for name in ("body", "orelse", "finalbody"):
                    stmts = getattr(node, name, None)
                    if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                        out.append(stmts)
    return out


def unexplained(path: pathlib.Path) -> list[str]:
    """``path:line: statement`` for each import inside a function whose comments give no reason."""
    source = path.read_text("utf-8")
    lines = source.splitlines()
    notes = comments(source)
    found: dict[int, str] = {}
    for stmts in statement_lists(ast.parse(source)):
        first = None  # the first import of the current run of imports
        for i, stmt in enumerate(stmts):
            if not isinstance(stmt, IMPORTS):
                first = None
                continue
            if first is None or stmts[i - 1].end_lineno != stmt.lineno - 1:
                first = stmt
            above = []
            line = first.lineno - 1
            while line >= 1 and lines[line - 1].lstrip().startswith("#"):
                above.append(notes.get(line, ""))
                line -= 1
            own = [notes.get(n, "") for n in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1)]
            text = " ".join(above + own)
            if not (FIGURE.search(text) or REASON.search(text)):
                found[stmt.lineno] = f"{path}:{stmt.lineno}: {lines[stmt.lineno - 1].strip()}"
    return [found[n] for n in sorted(found)]


def test_every_function_level_import_says_why():
    paths = sorted(p for p in PKG.rglob("*.py") if "__pycache__" not in p.parts)
    assert [line for p in paths for line in unexplained(p)] == []


CAUGHT = {
    "no comment": "def f():\n    import difflib\n",
    "a comment that gives no reason": "def f():\n    import difflib  # lazily\n",
    "the dependency named by the code only": "def f():\n    import ray\n",
    "a reason beyond a blank line": "def f():\n    # 12 ms to import\n\n    import difflib\n",
    "a reason that is code, not a comment": "def f():\n    x = '# 12 ms'\n    import difflib\n",
    "a nested function": "def f():\n    def g():\n        import difflib\n",
    "a method": "class C:\n    def m(self):\n        import difflib\n",
    "an async function": "async def f():\n    import difflib\n",
    "in a try block": "def f():\n    try:\n        import difflib\n    except ImportError:\n        pass\n",
    "after a run explained on its own line only": "def f():\n    import a  # 3 ms to import\n    import b\n",
}

PASSES = {
    "a figure on its line": "def f():\n    import difflib  # 1 ms to import (python -X importtime)\n",
    "a figure on the line above": "def f():\n    # 0.7 ms to import\n    import textwrap\n",
    "a figure in a comment block above": "def f():\n    # the parser: 12 ms to import,\n    # only for a YAML file\n"
                                         "    import a\n",
    "a run of imports under one comment": "def f():\n    # jinja2: only for templates\n    import a\n    import b\n",
    "an optional dependency": "def f():\n    import ray  # ray: the optional dependency\n",
    "a lazy facade": "def f():\n    from .reader import read  # lazy facade: the reader\n",
    "an import cycle": "def f():\n    from . import a  # a imports this module: an import cycle at the top\n",
    "a multi-line import": "def f():\n    from a import (b,\n                   c)  # 2 ms to import\n",
    "an import at the top": "import difflib\n\n\ndef f():\n    return difflib\n",
}


@pytest.mark.parametrize("source", CAUGHT.values(), ids=CAUGHT.keys())
def test_an_unexplained_function_level_import_is_caught(tmp_path, source):
    path = tmp_path / "module.py"
    path.write_text(source, "utf-8")
    assert len(unexplained(path)) == 1


@pytest.mark.parametrize("source", PASSES.values(), ids=PASSES.keys())
def test_an_explained_function_level_import_passes(tmp_path, source):
    path = tmp_path / "module.py"
    path.write_text(source, "utf-8")
    assert unexplained(path) == []
