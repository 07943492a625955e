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
| ``assert.fileReads.includes|notIncludes(report, m)`` | ``opaque`` ``fileReads.includes`` (no IR kind; the matcher in ``extra``) |
| ``assert.ok(evalfmtTranscript(report).includes("x".toLowerCase()))`` (with the helper evalfmt writes) | ``transcript_mentions`` (``!``: ``transcript_omits``) |

``assert.soft.*`` reads the same (``hints["soft"]``). Anything else is an ``opaque`` check of type
``code`` holding the statement verbatim. Each recognised check keeps its source statement in
``hints["src"]`` with the check's content at read time in ``hints["sig"]``: the writer puts the source
back while the check is unchanged.

Writing (:func:`render`): the canonical statement for a check, or a loss when skillgym has no
faithful equivalent.
"""

from __future__ import annotations

from typing import Any

from lark import Tree

from ... import ir
from .parse import ParseError, parse_tokens
from .tslit import escape_regex
from .values import Module, NotStatic, RegexValue, jsonable

CONFIDENCES = ("weak", "medium", "strong", "explicit")
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


def sig(check: Any) -> dict:
    data = ir.content(check)
    data.pop("hints", None)
    return data


# ---------------------------------------------------------------------------------------- reading


def recognize(m, toks: list, lead: str, report: str | None, ctxvar: str | None, ctx) -> list:
    text = m.text[toks[0].start:toks[-1].end]
    span = ir.Span(file=ctx.path, line=toks[0].line, column=toks[0].column)
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
        if c.kind == "opaque":
            c.raw = text
    sigs = [sig(c) for c in checks]
    first = checks[0]
    first.hints.update({"lead": lead, "src": text, "sig": sigs[0] if len(sigs) == 1 else sigs})
    if len(checks) > 1:
        first.hints["group"] = len(checks)
        for c in checks[1:]:
            c.hints["group_part"] = True
    return checks


def _chain(node: Any) -> list[tuple[str, list | None]] | None:
    """``a.b.c(x)`` as [("a", None), ("b", None), ("c", [x])]; None for anything else."""
    out: list[tuple[str, list | None]] = []
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


def _kids(node: Tree) -> list:
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


def _options(m, args: list, pos: int, skills: bool) -> tuple[dict, dict] | None:
    """(hints, extra) from an options argument; None when it holds something evalfmt does not model."""
    if len(args) <= pos:
        return {}, {}
    if len(args) > pos + 1:
        return None
    value = m.value(args[pos])
    if not isinstance(value, dict):
        return None
    hints: dict = {}
    extra: dict = {}
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


def _matcher(m, node: Any):
    value = m.value(node)
    if isinstance(value, (str, RegexValue)):
        return value
    return None


def _match(m, tree: Tree, report: str, ctxvar: str | None) -> list | None:
    negated = False
    chain = _chain(tree)
    if chain is None or not chain or chain[0] != ("assert", None):
        return None
    rest = chain[1:]
    soft = False
    if rest and rest[0] == ("soft", None):
        soft, rest = True, rest[1:]
    if len(rest) == 2 and rest[0][1] is None and rest[1][1] is not None:
        group, (fn, args) = rest[0][0], rest[1]
    elif len(rest) == 1 and rest[0][1] is not None:
        group, (fn, args) = None, rest[0]
    else:
        return None
    base_hints: dict = {"soft": True} if soft else {}
    out: list = []
    if group is not None:
        if not args or not _is_ref(args[0], report):
            return None
        opts = _options(m, args, 2, group == "skills")
        if opts is None:
            return None
        hints, extra = opts
        hints = {**base_hints, **hints}
        if group == "skills" and fn in ("has", "notHas"):
            name = m.value(args[1]) if len(args) > 1 else None
            if not isinstance(name, str):
                return None
            out.append(ir.SkillTrigger(skill=name, should_trigger=False if fn == "notHas" else None,
                                       extra=extra, hints=hints))
        elif group == "skills" and fn == "includes":
            names = m.value(args[1]) if len(args) > 1 else None
            if not (isinstance(names, list) and names and all(isinstance(n, str) for n in names)):
                return None
            hints["call"] = "includes"
            out.extend(ir.SkillTrigger(skill=n, extra=dict(extra), hints=dict(hints) if i == 0 else {})
                       for i, n in enumerate(names))
        elif group == "commands" and fn in ("includes", "notIncludes") and len(args) > 1:
            matcher = _matcher(m, args[1])
            if matcher is None:
                return None
            model = ir.CommandMatching if fn == "includes" else ir.NoCommandMatching
            if isinstance(matcher, str):
                hints["matcher"] = "string"
                out.append(model(pattern=escape_regex(matcher), hints=hints))
            else:
                check = model(pattern=matcher.source, hints=hints)
                _set_flags(check, matcher.flags)
                out.append(check)
        elif group == "output" and fn == "includes" and len(args) > 1:
            matcher = _matcher(m, args[1])
            if matcher is None:
                return None
            hints["call"] = "output.includes"
            if isinstance(matcher, str):
                out.append(ir.Contains(value=matcher, hints=hints))
            else:
                out.append(ir.Regex(value=matcher.source, flags=matcher.flags or None, hints=hints))
        elif group == "fileReads" and fn in ("includes", "notIncludes") and len(args) > 1:
            matcher = _matcher(m, args[1])
            if matcher is None:
                return None
            data = {"text": matcher} if isinstance(matcher, str) else {"regex": matcher.source, "flags": matcher.flags}
            out.append(ir.Opaque(type=f"fileReads.{fn}", origin="skillgym", extra={"matcher": data}, hints=hints))
        else:
            return None
        return out
    # plain node-assert helpers
    if fn in ("match", "doesNotMatch") and len(args) in (2, 3):
        subject = _subject(args[0], report, ctxvar)
        regex = m.value(args[1])
        if subject is None or not isinstance(regex, RegexValue):
            return None
        hints = {**base_hints, "call": "match"}
        if subject == "ctx":
            hints["subject"] = "ctx"
        if len(args) == 3:
            msg = m.value(args[2])
            if not isinstance(msg, str):
                return None
            hints["message"] = msg
        return [ir.Regex(value=regex.source, flags=regex.flags or None, negate=True if fn == "doesNotMatch" else None,
                         hints=hints)]
    if fn in ("equal", "strictEqual") and len(args) in (2, 3):
        chain2 = _chain(args[0])
        if chain2 != [(report, None), ("finalOutput", None), ("trim", [])]:
            return None
        value = m.value(args[1])
        if not isinstance(value, str):
            return None
        hints = {**base_hints, "call": fn}
        if len(args) == 3:
            msg = m.value(args[2])
            if not isinstance(msg, str):
                return None
            hints["message"] = msg
        return [ir.Equals(value=value, hints=hints)]
    if fn == "doesNotThrow" and len(args) == 1 and isinstance(args[0], Tree) and args[0].data == "arrow":
        if " ".join(m.src(args[0]).split()) != f"() => JSON.parse({report}.finalOutput)":
            return None
        return [ir.IsJson(hints=dict(base_hints))]
    if fn == "ok" and len(args) in (1, 2) and m.functions.get(TRANSCRIPT_FN) == TRANSCRIPT_HELPER:
        node = args[0]
        if isinstance(node, Tree) and node.data == "not_":
            negated, node = True, node.children[1]
        chain2 = _chain(node)
        if not (chain2 and len(chain2) == 2 and chain2[0][0] == TRANSCRIPT_FN and chain2[0][1] is not None
                and len(chain2[0][1]) == 1 and _is_ref(chain2[0][1][0], report)
                and chain2[1][0] == "includes" and chain2[1][1] is not None and len(chain2[1][1]) == 1):
            return None
        needle = _chain_lower(chain2[1][1][0])
        if needle is None:
            return None
        text = m.value(needle)
        if not isinstance(text, str):
            return None
        hints = dict(base_hints)
        if len(args) == 2:
            msg = m.value(args[1])
            if not isinstance(msg, str):
                return None
            hints["message"] = msg
        model = ir.TranscriptOmits if negated else ir.TranscriptMentions
        return [model(text=text, hints=hints)]
    return None


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
        check.extra["flags"] = flags
