"""A template's Jinja2 tree checked and rewritten so that Jinja2 runs what nunjucks would (:mod:`.template`).

:func:`check_tokens` refuses what the two lexers read differently (``True``, string escapes other than
``\\n \\t \\r \\\\ \\' \\"``, numbers other than ``12`` and ``1.5``). :func:`prepare` refuses what Jinja2 reads
and nunjucks does not, and rewrites the rest in place: ``~`` and comparisons go through nunjucks' own
operators, a ``{% for %}`` iterates what nunjucks' compiled loop iterates (its body's text charged to the
budget with each round), ``[]``/``{}`` literals are JavaScript arrays and objects, ``x if c`` without an
else is ``''`` and ``null`` is the literal. Imported with Jinja2, when a template needs it.
"""

from __future__ import annotations

import re
from typing import Any

from jinja2 import nodes
from jinja2.parser import Parser
from jinja2.visitor import NodeTransformer

from .nunjucks import FILTERS, TESTS, Unrenderable

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_ESCAPE = re.compile(r"\\(.)", re.S)


def check_tokens(env: Any, template: str) -> None:
    """Unrenderable for a token nunjucks' lexer reads otherwise than Jinja2's."""
    for _line, kind, value in env.lex(template):
        if kind == "name" and value in ("True", "False", "None"):
            raise Unrenderable(f"'{value}' (nunjucks reads it as an undefined variable; its literals are "
                               "true, false, none)")
        if kind in ("integer", "float") and not _NUMBER.fullmatch(value):
            raise Unrenderable(f"the number '{value}' (nunjucks reads numbers written as 12 or 1.5 only)")
        if kind == "string" and any(m.group(1) not in "ntr\\'\"" for m in _ESCAPE.finditer(value[1:-1])):
            raise Unrenderable(f"the string {value} (nunjucks reads a backslash other than \\n, \\t, \\r as the "
                               "character after it)")


_NOT_NUNJUCKS = {
    nodes.Slice: "a slice such as s[1:3] (nunjucks does not parse it)",
    nodes.With: "the tag 'with' (not a nunjucks tag)",
    nodes.ScopedEvalContextModifier: "the tag 'autoescape' (not a nunjucks tag)",
    nodes.EvalContextModifier: "the tag 'autoescape' (not a nunjucks tag)",
    nodes.NSRef: "a namespace attribute (not in nunjucks)",
    nodes.Include: "the tag 'include' (a template file promptfoo would look up)",
    nodes.Import: "the tag 'import' (a template file promptfoo would look up)",
    nodes.FromImport: "the tag 'from' (a template file promptfoo would look up)",
    nodes.Extends: "the tag 'extends' (a template file promptfoo would look up)",
    nodes.Block: "the tag 'block' (template inheritance)",
}


_GROUP = "_evalfmt_parenthesized"


class _Parser(Parser):
    """Jinja2's parser, marking what was written in parentheses (nunjucks compiles them to parentheses in its
    JavaScript; Jinja2's tree does not keep them)."""

    def parse_primary(self, with_namespace: bool = False) -> nodes.Expr:
        grouped = self.stream.current.type == "lparen"
        node = super().parse_primary(with_namespace)
        if grouped:
            setattr(node, _GROUP, True)
        return node


def parse(env: Any, template: str) -> nodes.Template:
    """The template's tree, parentheses marked."""
    return _Parser(env, template).parse()


def _bare(node: Any) -> bool:
    """Whether ``node`` was not written in parentheses."""
    return not getattr(node, _GROUP, False)


def prepare(tree: nodes.Template, env: Any) -> None:
    """Check ``tree`` (see the module docstring) and rewrite it in place for nunjucks' meanings."""
    for node in tree.find_all(nodes.Node):
        _check_node(node)
        _check_order(node)
    _check_loop_scopes(tree)
    tree.body = _PushNot().visit_body(tree.body)
    tree.body = _Rewrite().visit_body(tree.body)
    tree.set_environment(env)


#: what nunjucks compiles to ``left op right`` with no parentheses of its own
_FLAT = (nodes.Add, nodes.Sub, nodes.Mul, nodes.Div, nodes.Mod)
_EQUALITY, _RELATIONAL, _MEMBERSHIP = {"eq", "ne"}, {"lt", "gt", "lteq", "gteq"}, {"in", "notin"}
_ORDER = "an expression whose operators nunjucks' JavaScript groups otherwise (add parentheses)"


def _check_order(node: nodes.Node) -> None:
    """Unrenderable where nunjucks' compiled JavaScript groups operators otherwise than Jinja2 reads them:
    ``a + b ~ c`` (JavaScript adds ``a + b`` first), ``a == b < c`` and chains with ``in``, ``a * b // c``
    (nunjucks takes ``b // c`` into ``Math.floor``), ``--x``, a test after an operator (``a + b is odd``)."""
    if any(regrouped(node) for regrouped in _REGROUPED):
        raise Unrenderable(_ORDER)
    if isinstance(node, (nodes.Neg, nodes.Pos)) and type(node.node) is type(node) and _bare(node.node):
        raise Unrenderable("'--' or '++' before a value (nunjucks' JavaScript does not parse it)")


def _concat_in_sum(node: nodes.Node) -> bool:
    """``a + b ~ c``: JavaScript adds ``a + b`` first."""
    return isinstance(node, (nodes.Add, nodes.Sub)) and isinstance(node.right, nodes.Concat) and _bare(node.right)


def _mixed_chain(node: nodes.Node) -> bool:
    """``a == b < c``, a chain with ``in``: JavaScript compares two at a time."""
    if not (isinstance(node, nodes.Compare) and len(node.ops) > 1):
        return False
    ops = {o.op for o in node.ops}
    return bool(ops & _MEMBERSHIP or (ops & _EQUALITY and ops & _RELATIONAL))


def _floor_after_operator(node: nodes.Node) -> bool:
    """``a * b // c``, ``a // b % c``: nunjucks takes the right side into ``Math.floor`` or ``%`` first."""
    if isinstance(node, nodes.FloorDiv):
        return isinstance(node.left, (*_FLAT, nodes.FloorDiv)) and _bare(node.left)
    return isinstance(node, nodes.Mod) and isinstance(node.left, nodes.FloorDiv) and _bare(node.left)


def _test_after_operator(node: nodes.Node) -> bool:
    """``a + b is odd``: nunjucks tests ``b`` alone."""
    return isinstance(node, (nodes.BinExpr, nodes.Compare, nodes.Concat, nodes.Operand)) and any(
        isinstance(c, nodes.Test) and _bare(c) for c in node.iter_child_nodes())


#: the expressions nunjucks' JavaScript groups otherwise than Jinja2 reads them
_REGROUPED = (_concat_in_sum, _mixed_chain, _floor_after_operator, _test_after_operator)


class _PushNot(NodeTransformer):
    """``not a == b`` as nunjucks runs it: it compiles to ``!a == b``, so the ``!`` applies to the first value."""

    def visit_body(self, body: list[nodes.Node]) -> list[nodes.Node]:
        return [self.visit(node) for node in body]

    def visit_Not(self, node: Any) -> Any:
        grouped = not _bare(node)
        node = self.generic_visit(node)
        out = _push_not(node.node)
        if grouped:
            setattr(out, _GROUP, True)
        return out


def _push_not(x: Any) -> Any:
    if not _bare(x):
        return nodes.Not(x, lineno=x.lineno)
    if isinstance(x, _FLAT):
        x.left = _push_not(x.left)
        return x
    if isinstance(x, nodes.Concat):
        x.nodes[0] = _push_not(x.nodes[0])
        return x
    if isinstance(x, nodes.Compare) and x.ops[0].op not in _MEMBERSHIP:  # ('in' compiles to a call)
        x.expr = _push_not(x.expr)
        return x
    return nodes.Not(x, lineno=x.lineno)


def _check_node(node: nodes.Node) -> None:
    why = _NOT_NUNJUCKS.get(type(node))
    if why is not None:
        raise Unrenderable(why)
    if isinstance(node, nodes.Tuple) and node.ctx == "load":
        raise Unrenderable("a tuple such as (1, 2) (nunjucks reads it otherwise)")
    if isinstance(node, (nodes.Assign, nodes.AssignBlock)) and isinstance(node.target, nodes.Tuple):
        raise Unrenderable("setting several names at once (nunjucks sets each to the whole value)")
    if isinstance(node, nodes.For) and node.recursive:
        raise Unrenderable("a recursive loop (Jinja2 only)")
    if isinstance(node, nodes.Filter) and node.name not in FILTERS:
        raise Unrenderable(f"the filter '{node.name}' (not one of nunjucks' built-in filters)")
    if isinstance(node, nodes.Test) and node.name not in TESTS:
        raise Unrenderable(f"the test '{node.name}' (not one of nunjucks' tests)")
    if isinstance(node, (nodes.Call, nodes.Filter, nodes.Test)) and (node.dyn_args or node.dyn_kwargs):
        raise Unrenderable("a call with *args or **kwargs (not in nunjucks)")


def _assigned(body: list[nodes.Node]) -> set[str]:
    """The names ``{% set %}`` assigns in ``body`` (not inside macros, which have a scope of their own)."""
    out: set[str] = set()
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (nodes.Assign, nodes.AssignBlock)) and isinstance(node.target, nodes.Name):
            out.add(node.target.name)
        if not isinstance(node, (nodes.Macro, nodes.CallBlock)):
            stack.extend(node.iter_child_nodes())
    return out


def _check_loop_scopes(tree: nodes.Template) -> None:
    """Unrenderable for a name set inside a loop and also outside it: nunjucks sets the outer one (its frames
    resolve upward), Jinja2 a new one in the loop."""
    everywhere = _set_counts(tree)
    for loop in tree.find_all(nodes.For):
        inside = _set_counts(loop)
        both = sorted(n for n in _assigned(loop.body) if everywhere.get(n, 0) > inside.get(n, 0))
        if both:
            raise Unrenderable(f"setting '{both[0]}' inside a loop when it is also set outside it (nunjucks changes "
                               "the outer one)")


def _set_counts(node: nodes.Node) -> dict[str, int]:
    """How many ``{% set %}`` tags below ``node`` assign each name."""
    counts: dict[str, int] = {}
    for found in node.find_all((nodes.Assign, nodes.AssignBlock)):
        target = getattr(found, "target", None)
        if isinstance(target, nodes.Name):
            counts[target.name] = counts.get(target.name, 0) + 1
    return counts


def _body_text(body: list[nodes.Node]) -> int:
    """The characters of template text ``body`` prints, not counting nested loops and macros."""
    total = 0
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, nodes.TemplateData):
            total += len(node.data)
        elif not isinstance(node, (nodes.For, nodes.Macro, nodes.CallBlock)):
            stack.extend(node.iter_child_nodes())
    return total


def _filter(node: Any, name: str, *args: Any, lineno: int) -> nodes.Filter:
    return nodes.Filter(node, name, [nodes.Const(a) for a in args], [], None, None, lineno=lineno)


class _Rewrite(NodeTransformer):
    """The rewrites of :func:`prepare` (children first). ``bound``: the names nunjucks binds when it compiles
    (loop variables, a macro's arguments without a default): looked up directly, the others through the
    context when they are undefined."""

    def __init__(self) -> None:
        self.bound: list[set[str]] = [set()]

    def visit_body(self, body: list[nodes.Node]) -> list[nodes.Node]:
        out: list[nodes.Node] = []
        for node in body:
            new = self.visit(node)
            out.extend(new if isinstance(new, list) else [new])
        return out

    def visit_Concat(self, node: Any) -> Any:
        node = self.generic_visit(node)
        return _filter(nodes.List(node.nodes, lineno=node.lineno), "__concat", lineno=node.lineno)

    def visit_Compare(self, node: Any) -> Any:
        node = self.generic_visit(node)
        items: list[nodes.Expr] = [node.expr]
        for op in node.ops:
            items += [nodes.Const(op.op), op.expr]
        return _filter(nodes.List(items, lineno=node.lineno), "__compare", lineno=node.lineno)

    def visit_For(self, node: Any) -> Any:
        text = _body_text(node.body)
        node.iter = self.visit(node.iter)
        if node.test is not None:
            node.test = self.visit(node.test)
        self.bound.append(self.bound[-1] | {n.name for n in node.target.find_all(nodes.Name)})
        node.body = self.visit_body(node.body)
        node.else_ = self.visit_body(node.else_)
        self.bound.pop()
        target = node.target
        names = len(target.items) if isinstance(target, nodes.Tuple) else 1
        if node.test is not None:  # (nunjucks reads 'xs if c' as an inline if: xs when c, else '')
            node.iter = nodes.CondExpr(node.test, node.iter, nodes.Const(""), lineno=node.lineno)
            node.test = None
        node.iter = _filter(node.iter, "__iter", names, text, lineno=node.lineno)
        return node

    def visit_CondExpr(self, node: Any) -> Any:
        node = self.generic_visit(node)
        if node.expr2 is None:
            node.expr2 = nodes.Const("")
        return node

    def visit_List(self, node: Any) -> Any:
        node = self.generic_visit(node)
        return _filter(node, "__array", lineno=node.lineno)

    def visit_Dict(self, node: Any) -> Any:
        node = self.generic_visit(node)
        return _filter(node, "__object", lineno=node.lineno)

    def visit_Macro(self, node: Any) -> Any:
        return self._macro(node)

    def visit_CallBlock(self, node: Any) -> Any:
        node.call = self.visit(node.call)
        return self._macro(node)

    def _macro(self, node: Any) -> Any:
        positional = node.args[:len(node.args) - len(node.defaults)]
        self.bound.append({a.name for a in positional})
        node.defaults = [self.visit(d) for d in node.defaults]
        node.body = self.visit_body(node.body)
        self.bound.pop()
        return node

    def visit_Name(self, node: Any) -> Any:
        if node.ctx != "load":
            return node
        if node.name == "null":
            return nodes.Const(None, lineno=node.lineno)
        if node.name in self.bound[-1]:
            return node
        # (nunjucks looks a name up in the frames, then, where that gives undefined, in the context: a
        # variable set to undefined, a macro argument not passed, show the config's var of that name)
        return _filter(node, "__lookup", node.name, lineno=node.lineno)
