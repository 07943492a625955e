"""IR checks -> skillgym assert statements (the writer's side of :mod:`.checks`)."""

from __future__ import annotations

import json
from typing import Any

from .checks import CONFIDENCES, TRANSCRIPT_FN
from .tslit import escape_regex, js_key, js_str, literal_of, regex_literal

def _opts(check: Any, own: bool, extra_opts: dict | None = None) -> str:
    opts: dict = {}
    if own and "message" in check.hints and check.hints.get("call") not in ("match", "equal", "strictEqual"):
        opts["message"] = check.hints["message"]
    if own and "explain" in check.hints:
        opts["explain"] = check.hints["explain"]
    opts.update(extra_opts or {})
    if not opts:
        return ""
    return ", { " + ", ".join(f"{js_key(k)}: {json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else js_str(v)}"
                              for k, v in opts.items()) + " }"


def _msg_arg(check: Any, own: bool) -> str:
    if own and "message" in check.hints and check.hints.get("call") in ("match", "equal", "strictEqual", None):
        return ", " + js_str(check.hints["message"])
    return ""


COMMON = ("name", "weight", "required", "min_score")


def render(check: Any, report: str, ctxvar: str | None, own: bool) -> tuple[str | None, list[str], bool]:
    """(statement, what is lost, needs the transcript helper). A None statement means the whole check is lost."""
    lost = [f"'{f}' of check '{check.label()}' (skillgym has no weights or names)"
            for f in COMMON if getattr(check, f, None) is not None]
    soft = "soft." if own and check.hints.get("soft") else ""
    a = f"assert.{soft}"
    k = check.kind
    negate = bool(check.negate)
    out_expr = f"{ctxvar}.finalOutput()" if own and check.hints.get("subject") == "ctx" and ctxvar else \
        f"{report}.finalOutput"

    if k == "skill-trigger":
        if not check.skill:
            return None, [f"skill-trigger check without a skill name"], False
        fires = check.expects_trigger != negate
        extra_opts = {"minConfidence": check.extra["minConfidence"]} if check.extra.get("minConfidence") in CONFIDENCES else {}
        lost += [f"'{key}' of check '{check.label()}'" for key in check.extra if key != "minConfidence"]
        return f"{a}skills.{'has' if fires else 'notHas'}({report}, {js_str(check.skill)}{_opts(check, own, extra_opts)});", lost, False
    if k in ("command_matching", "no_command_matching"):
        if negate:
            k = "no_command_matching" if k == "command_matching" else "command_matching"
        fn = "includes" if k == "command_matching" else "notIncludes"
        flags = check.extra.get("flags") or (check.hints.get("flags") if own else None) or ""
        lost += [f"'{key}' of check '{check.label()}'" for key in check.extra if key != "flags"]
        literal = literal_of(check.pattern) if not flags else None
        matcher = js_str(literal) if literal is not None else regex_literal(check.pattern, flags)
        return f"{a}commands.{fn}({report}, {matcher}{_opts(check, own)});", lost, False
    if k in ("transcript_mentions", "transcript_omits"):
        if negate:
            k = "transcript_omits" if k == "transcript_mentions" else "transcript_mentions"
        bang = "!" if k == "transcript_omits" else ""
        lost += [f"'{key}' of check '{check.label()}'" for key in check.extra]
        return (f"{a}ok({bang}{TRANSCRIPT_FN}({report}).includes({js_str(check.text)}.toLowerCase()){_msg_arg(check, own)});",
                lost, True)
    if k == "contains":
        lost += _extra_lost(check)
        if negate:
            return f"{a}doesNotMatch({out_expr}, {regex_literal(escape_regex(check.value))}{_msg_arg(check, own)});", lost, False
        return f"{a}output.includes({report}, {js_str(check.value)}{_opts(check, own)});", lost, False
    if k in ("icontains", "starts-with", "ends-with"):
        lost += _extra_lost(check)
        pattern = escape_regex(check.value)
        pattern = "^" + pattern if k == "starts-with" else pattern + "$" if k == "ends-with" else pattern
        flags = "i" if k == "icontains" else ""
        fn = "doesNotMatch" if negate else "match"
        return f"{a}{fn}({out_expr}, {regex_literal(pattern, flags)}{_msg_arg(check, own)});", lost, False
    if k == "regex":
        lost += _extra_lost(check)
        if own and check.hints.get("call") == "output.includes" and not negate:
            return f"{a}output.includes({report}, {regex_literal(check.value, check.flags)}{_opts(check, own)});", lost, False
        fn = "doesNotMatch" if negate else "match"
        return f"{a}{fn}({out_expr}, {regex_literal(check.value, check.flags)}{_msg_arg(check, own)});", lost, False
    if k == "equals" and isinstance(check.value, str) and not negate:
        lost += _extra_lost(check)
        fn = check.hints.get("call", "equal") if own else "equal"
        return f"{a}{fn}({report}.finalOutput.trim(), {js_str(check.value)}{_msg_arg(check, own)});", lost, False
    if k == "is-json" and not negate:
        lost += _extra_lost(check)
        return f"{a}doesNotThrow(() => JSON.parse({report}.finalOutput));", lost, False
    if k == "opaque" and check.origin == "skillgym":
        if check.raw is None:
            return None, ["a skillgym statement without its code"], False
        return str(check.raw), [], False
    return None, [], False


def _extra_lost(check: Any) -> list[str]:
    return [f"'{key}' of check '{check.label()}'" for key in check.extra]
