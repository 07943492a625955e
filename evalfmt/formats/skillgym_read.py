"""Reading skillgym suite files (``suite.ts``) statically: lark parse, literal evaluation, check recognition.

Nothing in the file is executed. The module is parsed with ``skillgym.lark``; ``const`` declarations
of literals are evaluated (strings with escapes, template literals whose ``${}`` name such consts,
numbers with ``_``, booleans, arrays, objects, regex literals, ``[...].join(sep)``, ``+`` of strings);
the suite (an array of cases, or a record of cases) becomes IR cases; inside each ``assert`` body, a
statement that calls a known helper with literal arguments becomes an IR check and every other
statement is kept verbatim, in order, as an :class:`ir.Opaque` check (origin ``skillgym``).

Presentation is recorded in ``hints`` (the text around the cases, each property's source text, each
statement's source and leading whitespace/comments) so that the writer puts an unchanged file back
byte for byte and a changed one with the smallest change.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from lark import Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from .. import ir, js
from ..errors import Diagnostic, LoadError
from ..load import read_text
from . import ReadResult
from .skillgym_lex import LexError, Tok, cook, number_value, template_parts, to_lark, tokenize

NAME = "skillgym"
CASE_KEYS = ("id", "prompt", "tags", "timeoutMs", "expectedFail", "classifyFailure", "assert")
_parser = None


def parser():
    global _parser
    if _parser is None:
        from importlib import resources

        from lark import Lark

        grammar = resources.files(__package__).joinpath("skillgym.lark").read_text(encoding="utf-8")
        _parser = Lark(grammar, parser="lalr", lexer="basic", propagate_positions=True, start=["start", "expr"])
    return _parser


class ParseError(Exception):
    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def _describe(tok: Token) -> str:
    if tok.type == "$END":
        return "end of file"
    value = str(tok)
    if len(value) > 30:
        value = value[:27] + "..."
    return f"'{value}'"


def parse_tokens(toks: list[Tok], start: str = "start", text: str = "") -> Tree:
    ip = parser().parse_interactive(start=start)
    try:
        for tok in toks:
            ip.feed_token(to_lark(tok))
        return ip.feed_eof()
    except UnexpectedToken as exc:
        tok = exc.token
        if tok.type == "$END":
            line = text.count("\n") + 1
            col = len(text) - text.rfind("\n")
            raise ParseError("unexpected end of file: a bracket or brace is not closed", line, col) from None
        raise ParseError(f"unexpected {_describe(tok)}: this is outside the TypeScript evalfmt reads statically "
                         "(see docs/skillgym.md)", tok.line, tok.column) from None
    except (UnexpectedEOF, UnexpectedCharacters, UnexpectedInput) as exc:  # pragma: no cover - defensive
        raise ParseError(f"syntax error: {exc}", getattr(exc, "line", 1) or 1, getattr(exc, "column", 1) or 1) from None


def parse_module(toks: list[Tok], text: str) -> Tree:
    """The module's tree. A top-level statement outside the subset (``mkdirSync(dir);``, ``if (...) {}``,
    ``export { a, b };``, a ``const`` whose value is computed) is left out of the tree and so kept
    verbatim in the module's text, as skillgym would run it; only a statement evalfmt must read (the
    default export, ``export const workspace``, and the declaration the default export names) or
    unbalanced brackets still end the read with EV100 at their position."""
    try:
        return parse_tokens(toks, "start", text)
    except ParseError as whole:
        error = whole
    depth = 0
    for t in toks:
        depth += t.type in ("LPAR", "LSQB", "LBRACE")
        depth -= t.type in ("RPAR", "RSQB", "RBRACE")
        if depth < 0:
            raise error
    if depth:
        raise error
    needed = _needed_names(toks)
    items: list = []
    for stmt in split_statements(toks):
        try:
            items.extend(parse_tokens(stmt, "start", text).children)
        except ParseError:
            if _needed(stmt, needed):
                raise
    return Tree("start", items)


def _needed_names(toks: list[Tok]) -> set[str]:
    """``workspace`` and the name ``export default NAME`` refers to."""
    names = {"workspace"}
    for a, b, c in zip(toks, toks[1:], toks[2:]):
        if a.type == "EXPORT" and b.type == "DEFAULT" and c.type == "NAME":
            names.add(c.value)
    return names


def _needed(stmt: list[Tok], names: set[str]) -> bool:
    types = [t.type for t in stmt[:3]]
    if types[:2] == ["EXPORT", "DEFAULT"]:
        return True
    decl = stmt[1:] if types[:1] == ["EXPORT"] else stmt
    return len(decl) > 1 and decl[0].type in ("CONST", "LET", "VAR") and decl[1].type == "NAME" \
        and decl[1].value in names


# ------------------------------------------------------------------------------------ static values


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

    def to_json(self) -> dict:
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
        return node.line, node.column
    if isinstance(node, Tree) and not node.meta.empty:
        return node.meta.line, node.meta.column
    return 1, 1


def span_of(node: Any) -> tuple[int, int]:
    """Start and end offsets of a node in the source."""
    if isinstance(node, Token):
        return node.start_pos, node.end_pos
    return node.meta.start_pos, node.meta.end_pos


class Module:
    """A parsed suite file: text, tokens, tree, and its const declarations."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text
        self.toks = tokenize(text)
        self.tree = parse_module(self.toks, text)
        self.consts: dict[str, Tree] = {}
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
        return [t for t in self.toks if t.start >= start and t.end <= end]

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
        kind = node.data
        ch = node.children
        if kind == "string":
            return cook(str(ch[0])[1:-1])
        if kind == "template":
            return self._template(ch[0])
        if kind == "number":
            return number_value(str(ch[0]))
        if kind == "true":
            return True
        if kind == "false":
            return False
        if kind == "null":
            return None
        if kind == "undefined":
            return js.UNDEFINED
        if kind == "regex":
            raw = str(ch[0])
            cut = raw.rfind("/")
            return RegexValue(normalize_regex_source(raw[1:cut]), raw[cut + 1:])
        if kind == "ref":
            return self.const(str(ch[0].children[0]), node)
        if kind in ("satisfies", "as_type", "as_const"):
            return self.value(ch[0])
        if kind == "neg":
            v = self.value(ch[1])
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return -v
            raise NotStatic("'-' of something that is not a number", node)
        if kind == "plus":
            a, b = self.value(ch[0]), self.value(ch[2])
            if isinstance(a, str) or isinstance(b, str):
                return js_string_of(a) + js_string_of(b)
            if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b)):
                return a + b
            raise NotStatic("'+' of values that are not strings or numbers", node)
        if kind == "array":
            out = []
            for item in _kids(node):
                if item.data == "spread":
                    v = self.value(item.children[1])
                    if not isinstance(v, list):
                        raise NotStatic("'...' of something that is not a literal array", item)
                    out.extend(v)
                else:
                    out.append(self.value(item))
            return out
        if kind == "object":
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
        if kind == "method_call":
            target, name, args = ch[0], str(ch[2].children[0]), _args(ch[3])
            base = self.value(target)
            if name == "join" and isinstance(base, list) and len(args) <= 1:
                sep = self.value(args[0]) if args else ","
                if isinstance(sep, str):
                    return js.join([v if js.nullish(v) else js_string_of(v) for v in base], sep)
            if name in ("trim", "toLowerCase", "toUpperCase") and isinstance(base, str) and not args:
                return {"trim": base.strip(" \t\n\r\f\v\u00a0\ufeff\u2028\u2029"), "toLowerCase": base.lower(),
                        "toUpperCase": base.upper()}[name]
            raise NotStatic(f"a call of '.{name}()'", node)
        if kind == "new":
            if str(ch[1].children[0]) == "RegExp":
                args = [self.value(a) for a in _args(ch[2])]
                if 1 <= len(args) <= 2 and all(isinstance(a, str) for a in args):
                    return RegexValue(args[0], args[1] if len(args) > 1 else "")
            raise NotStatic("a 'new' expression", node)
        if kind in ("call", "member"):
            raise NotStatic("a call or property access", node)
        if kind in ("arrow", "function_expr"):
            raise NotStatic("a function", node)
        raise NotStatic(f"a {kind.replace('_', ' ')} expression", node)

    def key(self, node: Tree) -> str:
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
        out = []
        for kind, part in template_parts(raw):
            if kind == "text":
                out.append(part)
                continue
            offset, code = part
            base = tok.start_pos + offset
            sub = tokenize_at(self.text, base, base + len(code))
            if not sub:
                raise NotStatic("an empty ${} in a template literal", tok)
            try:
                tree = parse_tokens(sub, "expr", self.text)
            except ParseError:
                raise NotStatic("${} holding code", tok) from None
            out.append(js_string_of(self.value(tree)))
        return "".join(out)


def tokenize_at(text: str, start: int, end: int) -> list[Tok]:
    from .skillgym_lex import Tokenizer

    line = text.count("\n", 0, start) + 1
    col = start - text.rfind("\n", 0, start)
    tk = Tokenizer(text[:end], start, line, col)
    return tk.tokens()


def _is_semi(node: Any) -> bool:
    return isinstance(node, Token) and node.type == "SEMI"


def _kids(node: Tree) -> list[Tree]:
    """Child trees (tokens and absent optional parts left out)."""
    return [c for c in node.children if isinstance(c, Tree)]


_args = _kids


def normalize_regex_source(src: str) -> str:
    """``\\/`` -> ``/`` outside character classes (the same pattern: ``/`` needs no escape in a pattern)."""
    if "\\/" not in src:
        return src
    out = []
    i = 0
    in_class = False
    while i < len(src):
        ch = src[i]
        if ch == "\\" and i + 1 < len(src):
            if src[i + 1] == "/" and not in_class:
                out.append("/")
            else:
                out.append(src[i:i + 2])
            i += 2
            continue
        if ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        out.append(ch)
        i += 1
    return "".join(out)


# ------------------------------------------------------------------------------------- the reader


@dataclass
class Ctx:
    module: Module
    result: ReadResult
    path: str
    diags: list[Diagnostic] = field(default_factory=list)

    def add(self, code: str, message: str, node: Any = None, pos: tuple[int, int] | None = None,
            severity: str = "error") -> None:
        line, col = pos if pos is not None else pos_of(node)
        self.diags.append(Diagnostic(self.path, line, col, code, message, severity))

    def span(self, node: Any) -> ir.Span:
        line, col = pos_of(node)
        return ir.Span(file=self.path, line=line, column=col)


def read(path: str) -> ReadResult:
    result = ReadResult()
    try:
        text = read_text(path)
    except LoadError as exc:
        result.diagnostics.append(exc.to_diagnostic())
        return result
    return read_text_as(path, text, result)


def read_text_as(path: str, text: str, result: ReadResult | None = None) -> ReadResult:
    result = result or ReadResult()
    try:
        module = Module(path, text)
        ctx = Ctx(module, result, path)
        evalset = ir.EvalSet(format=NAME, source=path, span=ir.Span(file=path, line=1, column=1))
        evalset.hints["file_name"] = os.path.basename(path)
        _read_module(ctx, evalset)
    except (LexError, ParseError) as exc:
        result.diagnostics.append(Diagnostic(path, exc.line, exc.column, "EV100", exc.message))
        return result
    except RecursionError:
        result.diagnostics.append(Diagnostic(path, 1, 1, "EV100", "nesting is too deep to read statically"))
        return result
    result.diagnostics.extend(ctx.diags)
    result.sets.append(evalset)
    return result


def _unwrap(node: Any) -> Any:
    while isinstance(node, Tree) and node.data in ("satisfies", "as_type", "as_const"):
        node = node.children[0]
    return node


def _read_module(ctx: Ctx, evalset: ir.EvalSet) -> None:
    m = ctx.module
    default = None
    workspace = None
    for item in m.tree.children:
        if isinstance(item, Tree) and item.data == "export_default":
            if default is not None:
                ctx.add("EV115", "a second 'export default': a module has one default export", item)
            else:
                default = item
        if isinstance(item, Tree) and item.data == "export_var":
            name = str(item.children[1].children[1].children[0])
            if name == "workspace":
                workspace = item
    if default is None:
        ctx.add("EV103", "missing 'export default' of the suite (an array of cases or a record of cases)",
                pos=(1, 1))
        evalset.hints["module"] = [{"text": m.text}]
        return
    expr = _unwrap(default.children[2])
    container = expr
    if isinstance(expr, Tree) and expr.data == "ref":
        name = str(expr.children[0].children[0])
        if name not in m.consts:
            ctx.add("EV100", f"the default export '{name}' is not a const declared in this file", expr)
            evalset.hints["module"] = [{"text": m.text}]
            return
        container = _unwrap(m.consts[name])
    if not (isinstance(container, Tree) and container.data in ("array", "object")):
        ctx.add("EV100", "the suite must be an array literal of cases or an object literal of cases "
                         "(this one is computed: evalfmt reads suites statically)", container)
        evalset.hints["module"] = [{"text": m.text}]
        return

    # Module text around the container (and the workspace declaration).
    c_start, c_end = span_of(container)
    segments: list[dict] = []
    cuts: list[tuple[int, int, dict]] = [(c_start, c_end, {"suite": True})]
    if workspace is not None:
        w_start, w_end = span_of(workspace)
        value_node = workspace.children[1]
        try:
            value = jsonable(m.value(_value_of_decl(value_node)))
            evalset.extra["workspace"] = value
            cuts.append((w_start, w_end, {"workspace": value}))
        except NotStatic as exc:
            ctx.add("EV100", f"'workspace' is not a literal ({exc.why}): it is kept as code", exc.node)
            evalset.extra["workspace"] = {"$code": m.text[w_start:w_end]}
            cuts.append((w_start, w_end, {"workspace": evalset.extra["workspace"]}))
    cuts.sort(key=lambda c: c[0])
    at = 0
    for start, end, seg in cuts:
        if start > at:
            segments.append({"text": m.text[at:start]})
        if "workspace" in seg:
            seg["text"] = m.text[start:end]
        segments.append(seg)
        at = end
    segments.append({"text": m.text[at:]})
    evalset.hints["module"] = segments
    evalset.hints["shape"] = "array" if container.data == "array" else "record"

    elements = _kids(container)
    toks_in = [t for t in m.toks if c_start < t.start and t.end < c_end]
    commas = [t for t in toks_in if t.type == "COMMA" and _depth_at(m, toks_in, t) == 0]
    prev_end = c_start + 1
    ids: dict[str, Any] = {}
    for i, el in enumerate(elements):
        e_start, e_end = span_of(el)
        comma = next((c for c in commas if c.start >= e_end), None)
        after = ""
        if comma is not None and (i + 1 == len(elements) or comma.end <= span_of(elements[i + 1])[0]):
            after = m.text[e_end:comma.end]
        case = _read_element(ctx, el, container.data == "object")
        case.hints["lead"] = m.text[prev_end:e_start]
        case.hints["after"] = after
        prev_end = e_end + len(after)
        if case.name in ids and "verbatim" not in case.hints and case.name.strip():
            ctx.add("EV115", f"duplicate case id '{case.name}' (first at line {pos_of(ids[case.name])[0]}): "
                             "give each case its own id (it names the artifact folders)", el)
        else:
            ids.setdefault(case.name, el)
        evalset.cases.append(case)
    evalset.hints["tail"] = m.text[prev_end:c_end - 1]


def _value_of_decl(decl: Tree) -> Any:
    return decl.children[-2] if _is_semi(decl.children[-1]) else decl.children[-1]


def _depth_at(m: Module, toks: list[Tok], target: Tok) -> int:
    depth = 0
    for t in toks:
        if t is target:
            return depth
        if t.type in ("LPAR", "LSQB", "LBRACE"):
            depth += 1
        elif t.type in ("RPAR", "RSQB", "RBRACE"):
            depth -= 1
    return depth


def _read_element(ctx: Ctx, el: Tree, record: bool) -> ir.Case:
    m = ctx.module
    key_src = None
    node = el
    if record:
        if el.data != "keyed":
            ctx.add("EV100", "a suite record holds 'key: { case }' entries; this entry is code", el)
            return _verbatim_case(ctx, el)
        key_node, node = el.children[0], el.children[2]
        key_src = m.text[span_of(key_node)[0]:span_of(node)[0]]
    node = _unwrap(node)
    if not (isinstance(node, Tree) and node.data == "object"):
        if isinstance(node, Tree) and node.data == "ref":
            what = f"this one is the name '{node.children[0].children[0]}'"
        elif isinstance(node, Tree) and node.data == "call":
            what = f"this one is a call of '{node.children[0].children[0]}'"
        else:
            what = "this one is computed"
        ctx.add("EV100", f"a case must be written inline as an object literal ({what}): evalfmt reads suites "
                         "statically", node)
        return _verbatim_case(ctx, el)
    case = _read_case(ctx, node)
    if key_src is not None:
        case.hints["key_src"] = key_src
    return case


def _verbatim_case(ctx: Ctx, el: Tree) -> ir.Case:
    text = ctx.module.src(el)
    line, _ = pos_of(el)
    return ir.Case(name=f"<line {line}>", span=ctx.span(el), extra={"$code": text}, hints={"verbatim": text})


def _read_case(ctx: Ctx, obj: Tree) -> ir.Case:
    m = ctx.module
    case = ir.Case(name="", span=ctx.span(obj))
    o_start, o_end = span_of(obj)
    props = _kids(obj)
    toks_in = [t for t in m.toks if o_start < t.start and t.end < o_end]
    commas = [t for t in toks_in if t.type == "COMMA" and _depth_at(m, toks_in, t) == 0]
    prev_end = o_start + 1
    out: list[dict] = []
    seen: set[str] = set()
    for i, prop in enumerate(props):
        p_start, p_end = span_of(prop)
        comma = next((c for c in commas if c.start >= p_end), None)
        after = ""
        if comma is not None and (i + 1 == len(props) or comma.end <= span_of(props[i + 1])[0]):
            after = m.text[p_end:comma.end]
        entry = {"lead": m.text[prev_end:p_start], "text": m.text[p_start:p_end], "after": after}
        prev_end = p_end + len(after)
        _read_prop(ctx, case, prop, entry, seen)
        out.append(entry)
    case.hints["props"] = out
    case.hints["tail"] = m.text[prev_end:o_end - 1]
    if "id" not in seen:
        ctx.add("EV103", "a case needs an 'id' (it names the case in results and artifact paths)", obj)
    if "prompt" not in seen:
        ctx.add("EV103", "a case needs a 'prompt' (the exact prompt sent to the runner)", obj)
    if "assert" not in seen:
        ctx.add("EV103", "a case needs an 'assert(report, ctx)' method", obj)
    return case


def _prop_key(ctx: Ctx, prop: Tree) -> tuple[str | None, Any]:
    if prop.data == "keyed":
        return ctx.module.key(prop.children[0]), prop.children[0]
    if prop.data == "shorthand":
        return str(prop.children[0].children[0]), prop.children[0]
    if prop.data == "method":
        key = next(c for c in prop.children if isinstance(c, Tree) and c.data in ("prop_key", "computed"))
        return ctx.module.key(key), key
    return None, prop


def _read_prop(ctx: Ctx, case: ir.Case, prop: Tree, entry: dict, seen: set[str]) -> None:
    m = ctx.module
    try:
        key, key_node = _prop_key(ctx, prop)
    except NotStatic as exc:
        ctx.add("EV100", f"a computed property key ({exc.why}): evalfmt reads suites statically", prop)
        key, key_node = None, prop
    if key is None:
        ctx.add("EV100", "'...' spread in a case: write the properties out (evalfmt reads suites statically)", prop)
        entry["key"] = None
        case.extra.setdefault("$code", []).append(entry["text"])
        return
    entry["key"] = key
    if key in seen:
        ctx.add("EV114", f"duplicate property '{key}' in a case (the later one wins)", key_node)
    seen.add(key)
    if key == "assert":
        _read_assert(ctx, case, prop, entry)
        return
    if key == "classifyFailure":
        case.extra["classifyFailure"] = entry["text"]
        entry["value"] = entry["text"]
        return
    if prop.data == "method":
        if key in ("id", "prompt", "tags", "timeoutMs", "expectedFail"):
            ctx.add("EV102", f"'{key}' must be a value, not a method", key_node)
        else:
            ctx.add("EV101", f"unknown case property '{key}' (skillgym's Case has {', '.join(CASE_KEYS)})", key_node)
        case.extra[key] = {"$code": entry["text"]}
        entry["value"] = case.extra[key]
        return
    value_node = prop.children[2] if prop.data == "keyed" else prop.children[0]
    try:
        value = m.value(value_node) if prop.data == "keyed" else m.const(key, prop)
    except NotStatic as exc:
        if key in ("id", "prompt", "tags", "timeoutMs", "expectedFail"):
            ctx.add("EV100", f"'{key}' is not a literal ({exc.why}): evalfmt reads suites statically; "
                             "use a literal or a const of literals", exc.node)
        else:
            ctx.add("EV101", f"unknown case property '{key}' (skillgym's Case has {', '.join(CASE_KEYS)})", key_node)
        case.extra[key] = {"$code": entry["text"]}
        entry["value"] = case.extra[key]
        if key == "id":
            case.name = entry["text"]
        return
    value = jsonable(value)
    entry["value"] = value
    where = value_node
    if key == "id":
        if isinstance(value, str) and value.strip():
            case.name = value
        elif isinstance(value, str):
            ctx.add("EV103", "'id' is blank: give the case an id (it names results and artifact folders)", where)
            case.extra["id"] = value
        else:
            ctx.add("EV102", f"'id' must be a non-empty string, not {_what(value)}", where)
            case.extra["id"] = value
            case.name = "" if value is None else js_string_of(value)
    elif key == "prompt":
        if isinstance(value, str):
            case.input = value
            if not value.strip():
                ctx.add("EV103", "'prompt' is blank: write the prompt sent to the runner", where)
        else:
            ctx.add("EV102", f"'prompt' must be a string, not {_what(value)}", where)
            case.extra["prompt"] = value
    elif key == "tags":
        if isinstance(value, list) and all(isinstance(t, str) and t.strip() for t in value):
            case.tags = value
        else:
            ctx.add("EV102", "'tags' must be a list of non-empty strings", where)
            case.extra["tags"] = value
    elif key == "timeoutMs":
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 and float(value).is_integer():
            case.timeout_ms = int(value)
        else:
            ctx.add("EV102", f"'timeoutMs' must be a positive whole number of milliseconds, not {_what(value)}", where)
            case.extra["timeoutMs"] = value
    elif key == "expectedFail":
        if isinstance(value, bool):
            case.expected_fail = value
        else:
            ctx.add("EV102", f"'expectedFail' must be true or false, not {_what(value)}", where)
            case.extra["expectedFail"] = value
    else:
        ctx.add("EV101", f"unknown case property '{key}' (skillgym's Case has {', '.join(CASE_KEYS)})", key_node)
        case.extra[key] = value


def _what(value: Any) -> str:
    from ..load import type_name

    if isinstance(value, dict) and "$regex" in value:
        return "a regular expression"
    return f"a {type_name(value)}"


# ----------------------------------------------------------------------------------- assert bodies


def _read_assert(ctx: Ctx, case: ir.Case, prop: Tree, entry: dict) -> None:
    from .skillgym_checks import recognize

    m = ctx.module
    fn = prop
    if prop.data == "keyed":
        fn = _unwrap(prop.children[2])
        if not (isinstance(fn, Tree) and fn.data in ("arrow", "function_expr")):
            ctx.add("EV102", "'assert' must be a method or a function", prop.children[2])
            case.extra["assert"] = {"$code": entry["text"]}
            entry["value"] = case.extra["assert"]
            return
    params = next((c for c in fn.children if isinstance(c, Tree) and c.data in ("params", "arrow_params")), None)
    names = _param_names(m, params)
    entry["report"] = names[0] if names else None
    entry["ctx"] = names[1] if len(names) > 1 else None
    body = fn.children[-1]
    p_start = span_of(prop)[0]
    if isinstance(body, Tree) and body.data == "block":
        b_start, b_end = span_of(body)
        entry["head"] = m.text[p_start:b_start + 1]
        inner = m.tokens_between(b_start + 1, b_end - 1)
        statements = split_statements(inner)
        at = b_start + 1
        for stmt in statements:
            s_start, s_end = stmt[0].start, stmt[-1].end
            lead = m.text[at:s_start]
            at = s_end
            case.checks.extend(recognize(m, stmt, lead, entry["report"], entry["ctx"], ctx))
        entry["body_tail"] = m.text[at:b_end]
    else:
        b_start, b_end = span_of(body)
        entry["head"] = m.text[p_start:b_start]
        entry["expr"] = True
        stmt = m.tokens_between(b_start, b_end)
        case.checks.extend(recognize(m, stmt, "", entry["report"], entry["ctx"], ctx))
        entry["body_tail"] = m.text[b_end:span_of(prop)[1]]
    del entry["text"]


def _param_names(m: Module, params: Tree | None) -> list[str]:
    if params is None:
        return []
    if params.data == "arrow_params" and isinstance(params.children[0], Tree) and params.children[0].data == "ident":
        return [str(params.children[0].children[0])]
    if params.data == "arrow_params":
        params = params.children[0]
    start, end = span_of(params)
    toks = m.tokens_between(start + 1, end - 1)
    names: list[str] = []
    depth = 0
    expect = True
    for t in toks:
        if t.type in ("LPAR", "LSQB", "LBRACE", "LT"):
            depth += 1
        elif t.type in ("RPAR", "RSQB", "RBRACE", "GT"):
            depth -= 1
        elif t.type == "COMMA" and depth == 0:
            expect = True
            continue
        if expect and depth == 0 and re.fullmatch(r"[A-Za-z_$][\w$]*", t.value):
            names.append(t.value)
            expect = False
        elif expect and depth > 0:
            names.append("")  # destructuring: no single name
            expect = False
    return names


_CONTINUES_BEFORE = {"DOT", "COMMA", "OP", "PLUS", "MINUS", "STAR", "EQUAL", "ARROW", "COLON", "QMARK", "AMP",
                     "VBAR", "GT", "LT", "RPAR", "RSQB", "LPAR", "LSQB", "TEMPLATE", "SATISFIES", "AS"}
_CONTINUES_AFTER = {"DOT", "COMMA", "OP", "PLUS", "MINUS", "STAR", "EQUAL", "ARROW", "COLON", "QMARK", "AMP",
                    "VBAR", "LT", "LPAR", "LSQB", "LBRACE", "BANG", "NEW", "SATISFIES", "AS"}
_CONTROL = {"if", "for", "while", "with"}


def split_statements(toks: list[Tok]) -> list[list[Tok]]:
    """Statements of a function body: split at top-level ``;`` and where JavaScript inserts one."""
    stmts: list[list[Tok]] = []
    cur: list[Tok] = []
    depth = 0
    for t in toks:
        if cur and depth == 0 and t.nl and _asi_break(cur[-1], t):
            stmts.append(cur)
            cur = []
        cur.append(t)
        if t.type in ("LPAR", "LSQB", "LBRACE"):
            depth += 1
        elif t.type in ("RPAR", "RSQB", "RBRACE"):
            depth -= 1
        if depth == 0 and t.type == "SEMI":
            stmts.append(cur)
            cur = []
    if cur:
        stmts.append(cur)
    # a control header without a block takes the next statement as its body
    merged: list[list[Tok]] = []
    for stmt in stmts:
        if merged and _is_open_header(merged[-1]):
            merged[-1] = merged[-1] + stmt
        else:
            merged.append(stmt)
    return merged


def _asi_break(prev: Tok, nxt: Tok) -> bool:
    if prev.type in _CONTINUES_AFTER or (prev.type == "OP" and prev.value not in ("++", "--")):
        return False
    if nxt.type in _CONTINUES_BEFORE and not (nxt.type == "OP" and nxt.value in ("++", "--")):
        return False
    if nxt.type == "NAME" and nxt.value in ("else", "catch", "finally"):
        return False
    if prev.type == "NAME" and prev.value in ("return", "throw", "break", "continue"):
        return True
    return True


def _is_open_header(stmt: list[Tok]) -> bool:
    first, last = stmt[0], stmt[-1]
    if first.type == "NAME" and first.value in ("else", "do") and len(stmt) == 1:
        return True
    if last.type == "NAME" and last.value == "else":
        return True
    if first.type == "NAME" and first.value in _CONTROL and last.type == "RPAR":
        # the header's parenthesis closes at the end: `if (...)` with the body on the next line
        depth = 0
        for i, t in enumerate(stmt[1:], 1):
            if t.type == "LPAR":
                depth += 1
            elif t.type == "RPAR":
                depth -= 1
                if depth == 0:
                    return i == len(stmt) - 1
    return False
