"""Parsing skillgym suite files: the lark grammar ``skillgym.lark`` fed by :mod:`.lex`, and the statement
splitter (top-level ``;`` and JavaScript's automatic semicolon insertion) the reader and the module
parser share. Nothing here evaluates or executes anything."""

from __future__ import annotations

from importlib import resources
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from .lex import Tok, Tokenizer, to_lark

_parser: Lark | None = None


def parser() -> Lark:
    global _parser
    if _parser is None:
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


def parse_tokens(toks: list[Tok], start: str = "start", text: str = "") -> Tree[Any]:
    ip: Any = parser().parse_interactive(start=start)  # (lark's InteractiveParser is not annotated)
    try:
        for tok in toks:
            ip.feed_token(to_lark(tok))
        tree: Tree[Any] = ip.feed_eof()
        return tree
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


def parse_module(toks: list[Tok], text: str) -> Tree[Any]:
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
    items: list[Any] = []
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



def tokenize_at(text: str, start: int, end: int) -> list[Tok]:
    line = text.count("\n", 0, start) + 1
    col = start - text.rfind("\n", 0, start)
    tk = Tokenizer(text[:end], start, line, col)
    return tk.tokens()



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
