"""skillgym assert statements <-> IR checks, both directions.

Reading (:func:`recognize`): a statement of an ``assert`` body that calls a known helper with literal
arguments (literals, or consts of literals) becomes a check:

| statement | IR check |
|---|---|
| ``assert.skills.has(report, "s")`` / ``notHas`` | ``skill-trigger`` s (should_trigger absent / false) |
| ``assert.skills.includes(report, ["a", "b"])`` | one ``skill-trigger`` per name |
| ``assert.commands.includes(report, "text" or /re/)`` | ``command_matching`` (a string matches as a substring: its escaped pattern) |
| ``assert.commands.notIncludes(report, ...)`` | ``no_command_matching`` |
| ``assert.output.includes(report, "text")`` / ``(report, /re/)`` | ``contains`` / ``regex`` |
| ``assert.match(report.finalOutput or ctx.finalOutput(), /re/)`` | ``regex`` (``doesNotMatch``: ``negate``) |
| ``assert.equal(report.finalOutput.trim(), "text")`` | ``equals`` |
| ``assert.doesNotThrow(() => JSON.parse(report.finalOutput))`` | ``is-json`` |
| ``assert.fileReads.includes(report, "text" or /re/)`` / ``notIncludes`` | ``file_read_matching`` / ``no_file_read_matching`` (as commands) |
| ``assert.ok(evalfmtTranscript(report).includes("x".toLowerCase()))`` (with the helper evalfmt writes) | ``transcript_mentions`` (``!``: ``transcript_omits``) |

Which kind a statement reads as comes from the kinds' specs (:mod:`evalfmt.ir.kinds`): the kind whose skillgym
entry has the statement's form and polarity (:data:`READS`); this module knows how skillgym spells each form.
``assert.soft.*`` reads the same (``hints["soft"]``). Anything else is an ``opaque`` check of type
``code`` holding the statement verbatim. Each recognised check keeps its source statement in
``hints["src"]`` with the check's content at read time in ``hints["sig"]``: the writer puts the source
back while the check is unchanged.

Writing (:func:`render`): the canonical statement for a check, or a loss when skillgym has no
faithful equivalent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

from lark import Tree

from ... import ir
from ...ir.kinds import SPECS, Skillgym
from .lex import Tok
from .parse import ParseError, parse_tokens
from .tslit import escape_regex
from .values import Module, NotStatic, RegexValue, jsonable

CONFIDENCES = ("weak", "medium", "strong", "explicit")
#: the forms of a list skillgym matches against ``includes`` / ``notIncludes`` -> its group of assert helpers
LISTS = {"commands": "commands", "file-reads": "fileReads"}
TRANSCRIPT_FN = "evalfmtTranscript"
#: the helper the writer adds for terum's transcript checks (recognised only when present verbatim)
TRANSCRIPT_HELPER = (
    f"function {TRANSCRIPT_FN}(report: import(\"skillgym\").SessionReport): string {{\n"
    "  const parts: string[] = [report.finalOutput];\n"
    "  for (const event of report.events) {\n"
    "    if (event.type === \"message\" && event.phase !== \"thinking\") parts.push(event.text);\n"
    "    else if (event.type === \"toolCall\") parts.push(JSON.stringify(event.args ?? {}));\n"
    "  }\n"
    "  return parts.join(\"\\n\").toLowerCase();\n"
    "}"
)
TRANSCRIPT_COMMENT = ("// evalfmt: terum's transcript (final output, message text, tool-call arguments as JSON), "
                      "lower-cased\n")


def _reads() -> dict[tuple[str, bool], Any]:
    """(form, positive) -> the class of the kind whose skillgym entry has that form and polarity, written
    without an anchor or flags (a statement of that form reads as it)."""
    out: dict[tuple[str, bool], Any] = {}
    for spec in SPECS.values():
        e = spec.skillgym
        if isinstance(e, Skillgym) and not e.anchor and not e.flags:
            out.setdefault((e.form, e.positive), spec.cls)
    return out


#: (form, positive) -> the IR class a statement of that form reads as (from the kinds' specs)
READS = _reads()


def sig(check: Any) -> dict[str, Any]:
    data = ir.content(check)
    data.pop("hints", None)
    return data


# ---------------------------------------------------------------------------------------- reading


def recognize(m: Module, toks: list[Tok], lead: str, report: str | None, ctxvar: str | None, path: str) -> list[Any]:
    """The IR checks of one statement of an assert body (an ``opaque`` code check when it is none)."""
    text = m.text[toks[0].start:toks[-1].end]
    span = ir.Span(file=path, line=toks[0].line, column=toks[0].column)
    body = toks[:-1] if toks[-1].type == "SEMI" else toks
    checks = None
    if body and report:
        try:
            checks = _match(m, parse_tokens(body, "expr", m.text), report, ctxvar)
        except (ParseError, NotStatic):
            checks = None
    if not checks:
        return [ir.Opaque(type="code", origin="skillgym", raw=text, span=span, hints={"lead": lead})]
    for c in checks:
        c.span = span
    sigs = [sig(c) for c in checks]
    first = checks[0]
    first.hints.update({"lead": lead, "src": text, "sig": sigs[0] if len(sigs) == 1 else sigs})
    if len(checks) > 1:
        first.hints["group"] = len(checks)
        for c in checks[1:]:
            c.hints["group_part"] = True
    return checks


def _chain(node: Any) -> list[tuple[str, list[Any] | None]] | None:
    """``a.b.c(x)`` as [("a", None), ("b", None), ("c", [x])]; None for anything else."""
    out: list[tuple[str, list[Any] | None]] = []
    while True:
        if not isinstance(node, Tree):
            return None
        if node.data == "method_call":
            out.append((str(node.children[2].children[0]), _kids(node.children[3])))
            node = node.children[0]
        elif node.data == "member":
            out.append((str(node.children[2].children[0]), None))
            node = node.children[0]
        elif node.data == "call":
            out.append((str(node.children[0].children[0]), _kids(node.children[1])))
            break
        elif node.data == "ref":
            out.append((str(node.children[0].children[0]), None))
            break
        else:
            return None
    return out[::-1]


def _kids(node: Tree[Any]) -> list[Any]:
    return [c for c in node.children if isinstance(c, Tree)]


def _is_ref(node: Any, name: str | None) -> bool:
    return name is not None and _chain(node) == [(name, None)]


def _subject(node: Any, report: str, ctxvar: str | None) -> str | None:
    chain = _chain(node)
    if chain == [(report, None), ("finalOutput", None)]:
        return "report"
    if ctxvar and chain == [(ctxvar, None), ("finalOutput", [])]:
        return "ctx"
    return None


def _options(m: Module, args: list[Any], pos: int, skills: bool) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(hints, extra) from an options argument; None when it holds something evalfmt does not model."""
    if len(args) <= pos:
        return {}, {}
    if len(args) > pos + 1:
        return None
    value = m.value(args[pos])
    if not isinstance(value, dict):
        return None
    hints: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, v in value.items():
        if key == "message" and isinstance(v, str):
            hints["message"] = v
        elif key == "explain":
            hints["explain"] = jsonable(v)
        elif key == "minConfidence" and skills and v in CONFIDENCES:
            extra["minConfidence"] = v
        else:
            return None
    hints["options"] = list(value)
    return hints, extra


def _matcher(m: Module, node: Any) -> str | RegexValue | None:
    value = m.value(node)
    if isinstance(value, (str, RegexValue)):
        return value
    return None


@dataclass
class _Call:
    """One ``assert[.soft][.group].fn(args)`` call of an assert body, with the names it may refer to."""

    m: Module
    fn: str
    args: list[Any]
    report: str
    ctxvar: str | None
    hints: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def message(self, at: int) -> bool:
        """Take ``args[at]`` (when there is one) as the assertion's message; False when it is no string."""
        if len(self.args) <= at:
            return True
        msg = self.m.value(self.args[at])
        if not isinstance(msg, str):
            return False
        self.hints["message"] = msg
        return True


def _match(m: Module, tree: Tree[Any], report: str, ctxvar: str | None) -> list[Any] | None:
    """The IR checks of one assert statement (its expression ``tree``), or None when it is not one evalfmt models."""
    chain = _chain(tree)
    if not chain or chain[0] != ("assert", None):
        return None
    rest = chain[1:]
    soft = bool(rest) and rest[0] == ("soft", None)
    if soft:
        rest = rest[1:]
    if len(rest) == 2 and rest[0][1] is None and rest[1][1] is not None:
        group, (fn, args) = rest[0][0], rest[1]
    elif len(rest) == 1 and rest[0][1] is not None:
        group, (fn, args) = None, rest[0]
    else:
        return None
    call = _Call(m, fn, args or [], report, ctxvar, {"soft": True} if soft else {})
    if group is None:
        plain = _PLAIN.get(fn)
        return plain(call) if plain is not None else None
    return _match_group(call, group)


def _match_group(call: _Call, group: str) -> list[Any] | None:
    """``assert.<group>.<fn>(report, ..., options?)``: skillgym's own helpers."""
    if not call.args or not _is_ref(call.args[0], call.report):
        return None
    opts = _options(call.m, call.args, 2, group == "skills")
    if opts is None:
        return None
    hints, call.extra = opts
    call.hints.update(hints)
    helper = _GROUPS.get((group, call.fn))
    return helper(call) if helper is not None else None


def _skills_has(call: _Call) -> list[Any] | None:
    name = call.m.value(call.args[1]) if len(call.args) > 1 else None
    if not isinstance(name, str):
        return None
    return [READS["skills", True](skill=name, should_trigger=False if call.fn == "notHas" else None,
                                  extra=call.extra, hints=call.hints)]


def _skills_includes(call: _Call) -> list[Any] | None:
    names = call.m.value(call.args[1]) if len(call.args) > 1 else None
    if not (isinstance(names, list) and names and all(isinstance(n, str) for n in names)):
        return None
    call.hints["call"] = "includes"
    return [READS["skills", True](skill=n, extra=dict(call.extra), hints=dict(call.hints) if i == 0 else {})
            for i, n in enumerate(names)]


def _listed(form: str) -> Callable[[_Call], list[Any] | None]:
    """``assert.<group>.includes|notIncludes(report, "text" or /re/)`` of a list form (:data:`LISTS`): the kind of
    that form and polarity, its pattern the regex (a string: its escaped pattern, a substring as skillgym matches
    it)."""

    def read(call: _Call) -> list[Any] | None:
        matcher = _matcher(call.m, call.args[1]) if len(call.args) > 1 else None
        if matcher is None:
            return None
        model = READS[form, call.fn == "includes"]
        if isinstance(matcher, str):
            call.hints["matcher"] = "string"
            return [model(pattern=escape_regex(matcher), hints=call.hints)]
        check = model(pattern=matcher.source, hints=call.hints)
        _set_flags(check, matcher.flags)
        return [check]

    return read


def _output_includes(call: _Call) -> list[Any] | None:
    matcher = _matcher(call.m, call.args[1]) if len(call.args) > 1 else None
    if matcher is None:
        return None
    call.hints["call"] = "output.includes"
    if isinstance(matcher, str):
        return [READS["output-includes", True](value=matcher, hints=call.hints)]
    return [READS["regex", True](value=matcher.source, flags=matcher.flags or None, hints=call.hints)]


def _plain_match(call: _Call) -> list[Any] | None:
    """``assert.match(report.finalOutput or ctx.finalOutput(), /re/, message?)`` (``doesNotMatch``: negated)."""
    if len(call.args) not in (2, 3):
        return None
    subject = _subject(call.args[0], call.report, call.ctxvar)
    regex = call.m.value(call.args[1])
    if subject is None or not isinstance(regex, RegexValue):
        return None
    call.hints["call"] = "match"
    if subject == "ctx":
        call.hints["subject"] = "ctx"
    if not call.message(2):
        return None
    return [READS["regex", True](value=regex.source, flags=regex.flags or None,
                                 negate=True if call.fn == "doesNotMatch" else None, hints=call.hints)]


def _plain_equal(call: _Call) -> list[Any] | None:
    """``assert.equal(report.finalOutput.trim(), "text", message?)``."""
    if len(call.args) not in (2, 3):
        return None
    if _chain(call.args[0]) != [(call.report, None), ("finalOutput", None), ("trim", [])]:
        return None
    value = call.m.value(call.args[1])
    if not isinstance(value, str):
        return None
    call.hints["call"] = call.fn
    if not call.message(2):
        return None
    return [READS["equal", True](value=value, hints=call.hints)]


def _plain_is_json(call: _Call) -> list[Any] | None:
    """``assert.doesNotThrow(() => JSON.parse(report.finalOutput))``."""
    args = call.args
    if len(args) != 1 or not (isinstance(args[0], Tree) and args[0].data == "arrow"):
        return None
    if " ".join(call.m.src(args[0]).split()) != f"() => JSON.parse({call.report}.finalOutput)":
        return None
    return [READS["json-parse", True](hints=dict(call.hints))]


def _plain_transcript(call: _Call) -> list[Any] | None:
    """``assert.ok([!]evalfmtTranscript(report).includes("x".toLowerCase()), message?)`` with evalfmt's helper."""
    if len(call.args) not in (1, 2) or call.m.functions.get(TRANSCRIPT_FN) != TRANSCRIPT_HELPER:
        return None
    node = call.args[0]
    negated = isinstance(node, Tree) and node.data == "not_"
    if negated:
        node = node.children[1]
    needle = _transcript_needle(node, call.report)
    text = call.m.value(needle) if needle is not None else None
    if not isinstance(text, str) or not call.message(1):
        return None
    return [READS["transcript", not negated](text=text, hints=call.hints)]


def _transcript_needle(node: Any, report: str) -> Any:
    """X of ``evalfmtTranscript(report).includes(X.toLowerCase())``, else None."""
    chain = _chain(node)
    if not (chain and len(chain) == 2 and chain[0][0] == TRANSCRIPT_FN):
        return None
    (_, fn_args), (method, inc_args) = chain
    if fn_args is None or len(fn_args) != 1 or not _is_ref(fn_args[0], report):
        return None
    if method != "includes" or inc_args is None or len(inc_args) != 1:
        return None
    return _chain_lower(inc_args[0])


#: ``assert.<group>.<fn>`` -> the checks it reads as
_GROUPS: dict[tuple[str, str], Callable[[_Call], list[Any] | None]] = {
    ("skills", "has"): _skills_has, ("skills", "notHas"): _skills_has, ("skills", "includes"): _skills_includes,
    **{(group, fn): _listed(form) for form, group in LISTS.items() for fn in ("includes", "notIncludes")},
    ("output", "includes"): _output_includes,
}
#: plain node ``assert.<fn>`` helpers -> the checks they read as
_PLAIN: dict[str, Callable[[_Call], list[Any] | None]] = {
    "match": _plain_match, "doesNotMatch": _plain_match, "equal": _plain_equal, "strictEqual": _plain_equal,
    "doesNotThrow": _plain_is_json, "ok": _plain_transcript,
}


def _chain_lower(node: Any) -> Any:
    """``X.toLowerCase()`` -> X."""
    if isinstance(node, Tree) and node.data == "method_call" and str(node.children[2].children[0]) == "toLowerCase" \
            and not _kids(node.children[3]):
        return node.children[0]
    return None


def _set_flags(check: Any, flags: str) -> None:
    if not flags:
        return
    if set(flags) <= set("gd"):
        check.hints["flags"] = flags  # no effect on a test of one command
    else:
        check.flags = flags
