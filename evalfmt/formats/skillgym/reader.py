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
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

from lark import Tree

from ... import ir
from ...errors import Diagnostic, LoadError, Severity
from ...fsview import DISK, View
from ...load import read_text, type_name
from .. import ReadResult
from .checks import recognize
from .lex import LexError, Tok
from .parse import ParseError, split_statements
from .values import Module, NotStatic, _is_semi, _kids, js_string_of, jsonable, pos_of, span_of

NAME = "skillgym"
CASE_KEYS = ("id", "prompt", "tags", "timeoutMs", "expectedFail", "classifyFailure", "assert")


# ------------------------------------------------------------------------------------- the reader


@dataclass
class Ctx:
    module: Module
    result: ReadResult
    path: str
    diags: list[Diagnostic] = field(default_factory=list)

    def add(self, code: str, message: str, node: Any = None, pos: tuple[int, int] | None = None,
            severity: Severity = "error") -> None:
        line, col = pos if pos is not None else pos_of(node)
        self.diags.append(Diagnostic(self.path, line, col, code, message, severity))

    def span(self, node: Any) -> ir.Span:
        line, col = pos_of(node)
        return ir.Span(file=self.path, line=line, column=col)


def read(path: str, *, fs: View = DISK) -> ReadResult:
    result = ReadResult()
    try:
        text = read_text(path, fs=fs)
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
    default, workspace = _exports(ctx)
    container = _suite_container(ctx, default)
    if container is None:
        evalset.hints["module"] = [{"text": ctx.module.text}]
        return
    evalset.hints["module"] = _module_segments(ctx, evalset, container, workspace)
    evalset.hints["shape"] = "array" if container.data == "array" else "record"
    elements = _kids(container)
    layout, tail = _layout(ctx.module, container, elements)
    ids: dict[str, Any] = {}
    for el, (lead, after) in zip(elements, layout):
        case = _read_element(ctx, el, container.data == "object")
        case.hints["lead"] = lead
        case.hints["after"] = after
        if case.name in ids and "verbatim" not in case.hints and case.name.strip():
            ctx.add("EV115", f"duplicate case id '{case.name}' (first at line {pos_of(ids[case.name])[0]}): "
                             "give each case its own id (it names the artifact folders)", el)
        else:
            ids.setdefault(case.name, el)
        evalset.cases.append(case)
    evalset.hints["tail"] = tail


def _exports(ctx: Ctx) -> tuple[Tree[Any] | None, Tree[Any] | None]:
    """The module's ``export default`` (EV115 for a second one) and its ``export const workspace``."""
    default = None
    workspace = None
    for item in ctx.module.tree.children:
        if isinstance(item, Tree) and item.data == "export_default":
            if default is not None:
                ctx.add("EV115", "a second 'export default': a module has one default export", item)
            else:
                default = item
        if isinstance(item, Tree) and item.data == "export_var":
            name = str(item.children[1].children[1].children[0])
            if name == "workspace":
                workspace = item
    return default, workspace


def _suite_container(ctx: Ctx, default: Tree[Any] | None) -> Tree[Any] | None:
    """The array or object literal the default export is (or names); None, with a diagnostic, otherwise."""
    m = ctx.module
    if default is None:
        ctx.add("EV103", "missing 'export default' of the suite (an array of cases or a record of cases)",
                pos=(1, 1))
        return None
    expr = _unwrap(default.children[2])
    container = expr
    if isinstance(expr, Tree) and expr.data == "ref":
        name = str(expr.children[0].children[0])
        if name not in m.consts:
            ctx.add("EV100", f"the default export '{name}' is not a const declared in this file", expr)
            return None
        container = _unwrap(m.consts[name])
    if not (isinstance(container, Tree) and container.data in ("array", "object")):
        ctx.add("EV100", "the suite must be an array literal of cases or an object literal of cases "
                         "(this one is computed: evalfmt reads suites statically)", container)
        return None
    return container


def _module_segments(ctx: Ctx, evalset: ir.EvalSet, container: Tree[Any],
                     workspace: Tree[Any] | None) -> list[dict[str, Any]]:
    """The module's text around the suite container and the workspace declaration (whose value goes to
    ``extra``), in order."""
    m = ctx.module
    c_start, c_end = span_of(container)
    cuts: list[tuple[int, int, dict[str, Any]]] = [(c_start, c_end, {"suite": True})]
    if workspace is not None:
        w_start, w_end = span_of(workspace)
        try:
            value = jsonable(m.value(_value_of_decl(workspace.children[1])))
        except NotStatic as exc:
            ctx.add("EV100", f"'workspace' is not a literal ({exc.why}): it is kept as code", exc.node)
            value = {"$code": m.text[w_start:w_end]}
        evalset.extra["workspace"] = value
        cuts.append((w_start, w_end, {"workspace": value}))
    cuts.sort(key=lambda c: c[0])
    segments: list[dict[str, Any]] = []
    at = 0
    for start, end, seg in cuts:
        if start > at:
            segments.append({"text": m.text[at:start]})
        if "workspace" in seg:
            seg["text"] = m.text[start:end]
        segments.append(seg)
        at = end
    segments.append({"text": m.text[at:]})
    return segments


def _value_of_decl(decl: Tree[Any]) -> Any:
    return decl.children[-2] if _is_semi(decl.children[-1]) else decl.children[-1]


def _layout(m: Module, node: Tree[Any], items: list[Any]) -> tuple[list[tuple[str, str]], str]:
    """The text around the items of a bracketed literal (an array of cases, an object's properties):
    (lead, after) of each item (``after`` runs to the item's comma, when one follows it), and the text
    before the closing bracket."""
    o_start, o_end = span_of(node)
    commas = _top_level_commas(m.tokens_inside(o_start, o_end))
    comma_starts = [c.start for c in commas]
    out: list[tuple[str, str]] = []
    prev_end = o_start + 1
    for i, item in enumerate(items):
        i_start, i_end = span_of(item)
        k = bisect_left(comma_starts, i_end)
        comma = commas[k] if k < len(commas) else None
        after = ""
        if comma is not None and (i + 1 == len(items) or comma.end <= span_of(items[i + 1])[0]):
            after = m.text[i_end:comma.end]
        out.append((m.text[prev_end:i_start], after))
        prev_end = i_end + len(after)
    return out, m.text[prev_end:o_end - 1]


def _top_level_commas(toks: list[Tok]) -> list[Tok]:
    """The commas of ``toks`` outside any bracket they open."""
    out: list[Tok] = []
    depth = 0
    for t in toks:
        if t.type in ("LPAR", "LSQB", "LBRACE"):
            depth += 1
        elif t.type in ("RPAR", "RSQB", "RBRACE"):
            depth -= 1
        elif t.type == "COMMA" and depth == 0:
            out.append(t)
    return out


def _read_element(ctx: Ctx, el: Tree[Any], record: bool) -> ir.Case:
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


def _verbatim_case(ctx: Ctx, el: Tree[Any]) -> ir.Case:
    text = ctx.module.src(el)
    line, _ = pos_of(el)
    return ir.Case(name=f"<line {line}>", span=ctx.span(el), extra={"$code": text}, hints={"verbatim": text})


def _read_case(ctx: Ctx, obj: Tree[Any]) -> ir.Case:
    m = ctx.module
    case = ir.Case(name="", span=ctx.span(obj))
    props = _kids(obj)
    layout, tail = _layout(m, obj, props)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for prop, (lead, after) in zip(props, layout):
        entry = {"lead": lead, "text": m.src(prop), "after": after}
        _read_prop(ctx, case, prop, entry, seen)
        out.append(entry)
    case.hints["props"] = out
    case.hints["tail"] = tail
    for key, why in (("id", "an 'id' (it names the case in results and artifact paths)"),
                     ("prompt", "a 'prompt' (the exact prompt sent to the runner)"),
                     ("assert", "an 'assert(report, ctx)' method")):
        if key not in seen:
            ctx.add("EV103", f"a case needs {why}", obj)
    return case


def _prop_key(ctx: Ctx, prop: Tree[Any]) -> tuple[str | None, Any]:
    if prop.data == "keyed":
        return ctx.module.key(prop.children[0]), prop.children[0]
    if prop.data == "shorthand":
        return str(prop.children[0].children[0]), prop.children[0]
    if prop.data == "method":
        key = next(c for c in prop.children if isinstance(c, Tree) and c.data in ("prop_key", "computed"))
        return ctx.module.key(key), key
    return None, prop


def _read_prop(ctx: Ctx, case: ir.Case, prop: Tree[Any], entry: dict[str, Any], seen: set[str]) -> None:
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
    elif key == "classifyFailure":
        case.extra["classifyFailure"] = entry["text"]
        entry["value"] = entry["text"]
    elif prop.data == "method":
        if key in _VALUE_KEYS:
            ctx.add("EV102", f"'{key}' must be a value, not a method", key_node)
        else:
            _unknown_prop(ctx, key, key_node)
        _keep_code(case, key, entry)
    else:
        _read_value_prop(ctx, case, prop, key, key_node, entry)


def _unknown_prop(ctx: Ctx, key: str, key_node: Any) -> None:
    ctx.add("EV101", f"unknown case property '{key}' (skillgym's Case has {', '.join(CASE_KEYS)})", key_node)


def _keep_code(case: ir.Case, key: str, entry: dict[str, Any]) -> None:
    """A property whose value is code: kept verbatim in ``extra``."""
    case.extra[key] = {"$code": entry["text"]}
    entry["value"] = case.extra[key]


def _read_value_prop(ctx: Ctx, case: ir.Case, prop: Tree[Any], key: str, key_node: Any,
                     entry: dict[str, Any]) -> None:
    """``key: value`` or a shorthand ``key`` (a const of that name)."""
    value_node = prop.children[2] if prop.data == "keyed" else prop.children[0]
    try:
        value = ctx.module.value(value_node) if prop.data == "keyed" else ctx.module.const(key, prop)
    except NotStatic as exc:
        if key in _VALUE_KEYS:
            _computed(ctx, case, key, exc)
        else:
            _unknown_prop(ctx, key, key_node)
        _keep_code(case, key, entry)
        if key == "id":
            case.name = entry["text"]
        return
    value = jsonable(value)
    entry["value"] = value
    setter = _FIELDS.get(key)
    if setter is None:
        _unknown_prop(ctx, key, key_node)
        case.extra[key] = value
    elif not setter(ctx, case, value, value_node):
        case.extra[key] = value


def _computed(ctx: Ctx, case: ir.Case, key: str, exc: NotStatic) -> None:
    """EV117: a case property skillgym computes when the suite runs (``prompt: buildPrompt({...})``). The
    suite is fine (skillgym runs it), so this is a warning; the case keeps the code as written, and
    ``hints["computed"]`` says where and why convert and transpile cannot carry it to another format."""
    node = exc.node
    what = exc.why
    if isinstance(node, Tree) and node.data == "call" and isinstance(node.children[0], Tree) \
            and node.children[0].data == "ident":
        what = f"a call of '{node.children[0].children[0]}'"
    elif isinstance(node, Tree) and node.data == "member" and len(ctx.module.src(node)) <= 60 \
            and "\n" not in ctx.module.src(node):
        what = f"the property '{ctx.module.src(node)}'"
    ctx.add("EV117", f"'{key}' is computed when the suite runs ({what}): evalfmt reads suites statically, so "
                     "convert and transpile leave this case out", node, severity="warning")
    line, column = pos_of(node)
    case.hints.setdefault("computed", {"why": f"its '{key}' is computed when the suite runs ({what})",
                                       "line": line, "column": column})


def _set_id(ctx: Ctx, case: ir.Case, value: Any, where: Any) -> bool:
    if isinstance(value, str) and value.strip():
        case.name = value
        return True
    if isinstance(value, str):
        ctx.add("EV103", "'id' is blank: give the case an id (it names results and artifact folders)", where)
        return False
    ctx.add("EV102", f"'id' must be a non-empty string, not {_what(value)}", where)
    case.name = "" if value is None else js_string_of(value)
    return False


def _set_prompt(ctx: Ctx, case: ir.Case, value: Any, where: Any) -> bool:
    if not isinstance(value, str):
        ctx.add("EV102", f"'prompt' must be a string, not {_what(value)}", where)
        return False
    case.input = value
    if not value.strip():
        ctx.add("EV103", "'prompt' is blank: write the prompt sent to the runner", where)
    return True


def _set_tags(ctx: Ctx, case: ir.Case, value: Any, where: Any) -> bool:
    if isinstance(value, list) and all(isinstance(t, str) and t.strip() for t in value):
        case.tags = value
        return True
    ctx.add("EV102", "'tags' must be a list of non-empty strings", where)
    return False


def _set_timeout(ctx: Ctx, case: ir.Case, value: Any, where: Any) -> bool:
    # (2**53: JavaScript's largest safe integer)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 2 ** 53 \
            and float(value).is_integer():
        case.timeout_ms = int(value)
        return True
    ctx.add("EV102", f"'timeoutMs' must be a positive whole number of milliseconds, not {_what(value)}", where)
    return False


def _set_expected_fail(ctx: Ctx, case: ir.Case, value: Any, where: Any) -> bool:
    if isinstance(value, bool):
        case.expected_fail = value
        return True
    ctx.add("EV102", f"'expectedFail' must be true or false, not {_what(value)}", where)
    return False


#: the case properties that hold a value -> how a value is set on the case (False: it is kept in
#: ``extra`` under its own key, with the diagnostic given)
_FIELDS: dict[str, Callable[[Ctx, ir.Case, Any, Any], bool]] = {
    "id": _set_id, "prompt": _set_prompt, "tags": _set_tags, "timeoutMs": _set_timeout,
    "expectedFail": _set_expected_fail,
}
_VALUE_KEYS = tuple(_FIELDS)


def _what(value: Any) -> str:
    if isinstance(value, dict) and "$regex" in value:
        return "a regular expression"
    return f"a {type_name(value)}"


# ----------------------------------------------------------------------------------- assert bodies


def _read_assert(ctx: Ctx, case: ir.Case, prop: Tree[Any], entry: dict[str, Any]) -> None:
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
            case.checks.extend(recognize(m, stmt, lead, entry["report"], entry["ctx"], ctx.path))
        entry["body_tail"] = m.text[at:b_end]
    else:
        b_start, b_end = span_of(body)
        entry["head"] = m.text[p_start:b_start]
        entry["expr"] = True
        stmt = m.tokens_between(b_start, b_end)
        case.checks.extend(recognize(m, stmt, "", entry["report"], entry["ctx"], ctx.path))
        entry["body_tail"] = m.text[b_end:span_of(prop)[1]]
    del entry["text"]


def _param_names(m: Module, params: Tree[Any] | None) -> list[str]:
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
