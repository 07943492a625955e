"""Static values of a skillgym suite: what an expression is worth without running it.

:class:`Module` holds a parsed suite file (text, tokens, tree, its ``const`` declarations) and evaluates
literals, consts of literals, template literals whose ``${}`` name such consts, ``+`` of strings,
``[...].join(sep)``, regex literals and ``new RegExp("...")``; anything else is :class:`NotStatic`.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Any, cast
from collections.abc import Callable

from lark import Token, Tree

from ... import js
from .lex import Tok, cook, number_value, template_parts, tokenize
from .parse import ParseError, parse_module, parse_tokens, tokenize_at
from .tslit import normalize_regex_source


class NotStatic(Exception):
    """An expression whose value is not known without running the code."""

    def __init__(self, why: str, node: Any):
        super().__init__(why)
        self.why = why
        self.node = node


@dataclass(frozen=True)
class RegexValue:
    source: str
    flags: str

    def to_json(self) -> dict[str, Any]:
        return {"$regex": self.source, "$flags": self.flags}


def js_string_of(value: Any) -> str:
    """``String(value)`` of a static value (evalfmt.js semantics; a regex as its literal)."""
    if isinstance(value, RegexValue):
        return f"/{value.source}/{value.flags}"
    if isinstance(value, list):
        return js.join([v if js.nullish(v) else js_string_of(v) for v in value], ",")
    return js.string(value)


def jsonable(value: Any) -> Any:
    """A static value as JSON data (regexes as ``{"$regex", "$flags"}``, undefined as null)."""
    if isinstance(value, RegexValue):
        return value.to_json()
    if value is js.UNDEFINED:
        return None
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    return value


def pos_of(node: Any) -> tuple[int, int]:
    if isinstance(node, Token):
        return node.line or 1, node.column or 1  # a lexer's token always has its position
    if isinstance(node, Tree) and not node.meta.empty:
        return node.meta.line, node.meta.column
    return 1, 1


def span_of(node: Any) -> tuple[int, int]:
    """Start and end offsets of a node in the source."""
    if isinstance(node, Token):
        return node.start_pos or 0, node.end_pos or 0  # a lexer's token always has its offsets
    return node.meta.start_pos, node.meta.end_pos


class Module:
    """A parsed suite file: text, tokens, tree, and its const declarations."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text
        self.toks = tokenize(text)
        self._starts = [t.start for t in self.toks]
        self.tree = parse_module(self.toks, text)
        self.consts: dict[str, Tree[Any]] = {}
        self.functions: dict[str, str] = {}
        self._values: dict[str, Any] = {}
        self._busy: set[str] = set()
        for item in self.tree.children:
            decl = item.children[1] if item.data == "export_var" else item
            if isinstance(decl, Tree) and decl.data == "var_decl":
                name = str(decl.children[1].children[0])
                self.consts[name] = decl.children[-2] if _is_semi(decl.children[-1]) else decl.children[-1]
            elif isinstance(item, Tree) and item.data == "function_decl":
                ident = next(c for c in item.children if isinstance(c, Tree) and c.data == "ident")
                start, end = span_of(item)
                self.functions[str(ident.children[0])] = self.text[start:end]

    def src(self, node: Any) -> str:
        start, end = span_of(node)
        return self.text[start:end]

    def tokens_between(self, start: int, end: int) -> list[Tok]:
        """The tokens within ``[start, end]`` (offsets)."""
        lo, hi = bisect_left(self._starts, start), bisect_right(self._starts, end)
        return [t for t in self.toks[lo:hi] if t.end <= end]

    def tokens_inside(self, start: int, end: int) -> list[Tok]:
        """The tokens strictly inside ``(start, end)``: between a bracket at ``start`` and its closing one."""
        lo, hi = bisect_right(self._starts, start), bisect_left(self._starts, end)
        return [t for t in self.toks[lo:hi] if t.end < end]

    # -- evaluation

    def const(self, name: str, node: Any) -> Any:
        if name in self._values:
            return self._values[name]
        if name not in self.consts:
            raise NotStatic(f"'{name}' is not a const declared in this file", node)
        if name in self._busy:
            raise NotStatic(f"'{name}' refers to itself", node)
        self._busy.add(name)
        try:
            value = self.value(self.consts[name])
        finally:
            self._busy.discard(name)
        self._values[name] = value
        return value

    def value(self, node: Any) -> Any:
        """The static value of an expression node, or NotStatic."""
        if isinstance(node, Token):
            raise NotStatic(f"'{node}' is not a literal", node)
        constant = _CONSTANTS.get(node.data, _NO_CONSTANT)
        if constant is not _NO_CONSTANT:
            return constant
        evaluate = _EVALUATORS.get(node.data)
        if evaluate is None:
            raise NotStatic(f"a {node.data.replace('_', ' ')} expression", node)
        return evaluate(self, node)

    def _string(self, node: Tree[Any]) -> Any:
        return cook(str(node.children[0])[1:-1])

    def _template_node(self, node: Tree[Any]) -> Any:
        return self._template(cast(Token, node.children[0]))  # the grammar's template_node is one TEMPLATE

    def _number(self, node: Tree[Any]) -> Any:
        return number_value(str(node.children[0]))

    def _regex(self, node: Tree[Any]) -> Any:
        raw = str(node.children[0])
        cut = raw.rfind("/")
        return RegexValue(normalize_regex_source(raw[1:cut]), raw[cut + 1:])

    def _ref(self, node: Tree[Any]) -> Any:
        return self.const(str(node.children[0].children[0]), node)

    def _inner(self, node: Tree[Any]) -> Any:
        return self.value(node.children[0])

    def _neg(self, node: Tree[Any]) -> Any:
        v = self.value(node.children[1])
        if _is_number(v):
            return -v
        raise NotStatic("'-' of something that is not a number", node)

    def _plus(self, node: Tree[Any]) -> Any:
        a, b = self.value(node.children[0]), self.value(node.children[2])
        if isinstance(a, str) or isinstance(b, str):
            return js_string_of(a) + js_string_of(b)
        if _is_number(a) and _is_number(b):
            return a + b
        raise NotStatic("'+' of values that are not strings or numbers", node)

    def _array(self, node: Tree[Any]) -> Any:
        out: list[Any] = []
        for item in _kids(node):
            if item.data != "spread":
                out.append(self.value(item))
                continue
            v = self.value(item.children[1])
            if not isinstance(v, list):
                raise NotStatic("'...' of something that is not a literal array", item)
            out.extend(v)
        return out

    def _object(self, node: Tree[Any]) -> Any:
        out: dict[str, Any] = {}
        for prop in _kids(node):
            if prop.data == "keyed":
                out[self.key(prop.children[0])] = self.value(prop.children[2])
            elif prop.data == "shorthand":
                name = str(prop.children[0].children[0])
                out[name] = self.const(name, prop)
            elif prop.data == "spread":
                v = self.value(prop.children[1])
                if not isinstance(v, dict):
                    raise NotStatic("'...' of something that is not a literal object", prop)
                out.update(v)
            else:
                raise NotStatic("a method is code, not a literal", prop)
        return out

    def _method_call(self, node: Tree[Any]) -> Any:
        ch = node.children
        target, name, args = ch[0], str(ch[2].children[0]), _args(ch[3])
        base = self.value(target)
        if name == "join" and isinstance(base, list) and len(args) <= 1:
            sep = self.value(args[0]) if args else ","
            if isinstance(sep, str):
                return js.join([v if js.nullish(v) else js_string_of(v) for v in base], sep)
        if name in _STRING_METHODS and isinstance(base, str) and not args:
            return _STRING_METHODS[name](base)
        raise NotStatic(f"a call of '.{name}()'", node)

    def _new(self, node: Tree[Any]) -> Any:
        ch = node.children
        if str(ch[1].children[0]) == "RegExp":
            args = [self.value(a) for a in _args(ch[2])]
            if 1 <= len(args) <= 2 and all(isinstance(a, str) for a in args):
                return RegexValue(args[0], args[1] if len(args) > 1 else "")
        raise NotStatic("a 'new' expression", node)

    @staticmethod
    def _call(node: Tree[Any]) -> Any:
        raise NotStatic("a call or property access", node)

    @staticmethod
    def _function(node: Tree[Any]) -> Any:
        raise NotStatic("a function", node)

    def key(self, node: Tree[Any]) -> str:
        """The name of a property key."""
        if node.data == "computed":
            v = self.value(node.children[1])
            return js_string_of(v)
        (tok,) = node.children
        if isinstance(tok, Tree):  # ident
            return str(tok.children[0])
        if tok.type == "STRING":
            return cook(str(tok)[1:-1])
        return js_string_of(number_value(str(tok)))

    def _template(self, tok: Token) -> str:
        raw = str(tok)
        out: list[str] = []
        for part in template_parts(raw):
            if isinstance(part, str):
                out.append(part)
                continue
            offset, code = part
            base = span_of(tok)[0] + offset
            sub = tokenize_at(self.text, base, base + len(code))
            if not sub:
                raise NotStatic("an empty ${} in a template literal", tok)
            try:
                tree = parse_tokens(sub, "expr", self.text)
            except ParseError:
                raise NotStatic("${} holding code", tok) from None
            out.append(js_string_of(self.value(tree)))
        return "".join(out)



def _is_semi(node: Any) -> bool:
    return isinstance(node, Token) and node.type == "SEMI"


def _kids(node: Tree[Any]) -> list[Tree[Any]]:
    """Child trees (tokens and absent optional parts left out)."""
    return [c for c in node.children if isinstance(c, Tree)]


_args = _kids


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_NO_CONSTANT = object()
#: node kinds whose value is a constant
_CONSTANTS: dict[str, Any] = {"true": True, "false": False, "null": None, "undefined": js.UNDEFINED}
#: the string methods evaluated statically (JavaScript's ``trim`` strips these characters)
_STRING_METHODS: dict[str, Callable[[str], str]] = {
    "trim": lambda s: s.strip(" \t\n\r\f\v\u00a0\ufeff\u2028\u2029"),
    "toLowerCase": str.lower,
    "toUpperCase": str.upper,
}
#: node kind -> how its value is computed (a kind missing here is not static)
_EVALUATORS: dict[str, Callable[[Module, Tree[Any]], Any]] = {
    "string": Module._string, "template": Module._template_node, "number": Module._number,
    "regex": Module._regex, "ref": Module._ref, "satisfies": Module._inner, "as_type": Module._inner,
    "as_const": Module._inner, "neg": Module._neg, "plus": Module._plus, "array": Module._array,
    "object": Module._object, "method_call": Module._method_call, "new": Module._new,
    "call": lambda _m, node: Module._call(node), "member": lambda _m, node: Module._call(node),
    "arrow": lambda _m, node: Module._function(node), "function_expr": lambda _m, node: Module._function(node),
}
