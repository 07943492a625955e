"""IR checks -> skillgym assert statements (the writer's side of :mod:`.checks`).

:data:`RENDERERS` maps each IR check kind skillgym can hold to a small function; a kind missing from
it has no skillgym equivalent and the writer turns it into a loss (:func:`render` answers None).
``hints`` are the check's hints when the set was read from skillgym (its presentation: ``soft``, the
message, the call it was written with), else empty: the writer decides that once for every check.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Mapping

from .checks import CONFIDENCES, TRANSCRIPT_FN
from .tslit import escape_regex, js_key, js_str, literal_of, regex_literal

COMMON = ("name", "weight", "required", "min_score")
#: assert helpers whose message is their last argument (the others take an options object)
_MESSAGE_ARG = ("match", "equal", "strictEqual")


@dataclass
class Rendered:
    """A statement for one check (None: the whole check is lost), what of it is lost, and whether it
    needs evalfmt's transcript helper in the module."""

    text: str | None
    lost: list[str] = field(default_factory=list)
    helper: bool = False


@dataclass
class _Out:
    check: Any
    report: str
    ctxvar: str | None
    hints: Mapping[str, Any]

    @property
    def a(self) -> str:
        return "assert.soft." if self.hints.get("soft") else "assert."

    @property
    def output(self) -> str:
        """The expression of the final output the statement tests."""
        if self.hints.get("subject") == "ctx" and self.ctxvar:
            return f"{self.ctxvar}.finalOutput()"
        return f"{self.report}.finalOutput"

    def opts(self, extra_opts: dict | None = None) -> str:
        """``, { message: ..., explain: ... }`` for skillgym's own helpers."""
        h = self.hints
        opts: dict = {}
        if "message" in h and h.get("call") not in _MESSAGE_ARG:
            opts["message"] = h["message"]
        if "explain" in h:
            opts["explain"] = h["explain"]
        opts.update(extra_opts or {})
        if not opts:
            return ""
        return ", { " + ", ".join(f"{js_key(k)}: {_opt_value(v)}" for k, v in opts.items()) + " }"

    def msg_arg(self) -> str:
        """``, "message"`` for node's assert helpers."""
        if "message" in self.hints and self.hints.get("call") in (*_MESSAGE_ARG, None):
            return ", " + js_str(self.hints["message"])
        return ""

    def extra_lost(self, keep: tuple[str, ...] = ()) -> list[str]:
        """What of a written check skillgym cannot hold: its common fields, its extra keys but ``keep``."""
        label = self.check.label()
        return [f"'{f}' of check '{label}' (skillgym has no weights or names)"
                for f in COMMON if getattr(self.check, f, None) is not None] + \
            [f"'{key}' of check '{label}'" for key in self.check.extra if key not in keep]


def _opt_value(v: Any) -> str:
    return js_str(v) if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def render(check: Any, report: str, ctxvar: str | None, hints: Mapping[str, Any]) -> Rendered | None:
    """The statement for ``check``; None when skillgym has no equivalent of its kind."""
    renderer = RENDERERS.get(check.kind)
    return renderer(_Out(check, report, ctxvar, hints)) if renderer is not None else None


def _skill_trigger(o: _Out) -> Rendered:
    c = o.check
    if not c.skill:
        return Rendered(None, ["skill-trigger check without a skill name"])
    fires = c.expects_trigger != bool(c.negate)
    confidence = c.extra.get("minConfidence")
    extra_opts = {"minConfidence": confidence} if confidence in CONFIDENCES else {}
    return Rendered(f"{o.a}skills.{'has' if fires else 'notHas'}({o.report}, {js_str(c.skill)}{o.opts(extra_opts)});",
                    o.extra_lost(("minConfidence",)))


def _command(o: _Out) -> Rendered:
    c = o.check
    positive = (c.kind == "command_matching") != bool(c.negate)
    flags = c.flags or o.hints.get("flags") or ""
    literal = literal_of(c.pattern) if not flags else None
    matcher = js_str(literal) if literal is not None else regex_literal(c.pattern, flags)
    fn = "includes" if positive else "notIncludes"
    return Rendered(f"{o.a}commands.{fn}({o.report}, {matcher}{o.opts()});", o.extra_lost())


def _transcript(o: _Out) -> Rendered:
    c = o.check
    bang = "" if (c.kind == "transcript_mentions") != bool(c.negate) else "!"
    needle = f"{TRANSCRIPT_FN}({o.report}).includes({js_str(c.text)}.toLowerCase())"
    return Rendered(f"{o.a}ok({bang}{needle}{o.msg_arg()});", o.extra_lost(), helper=True)


def _contains(o: _Out) -> Rendered:
    c = o.check
    if c.negate:
        return Rendered(f"{o.a}doesNotMatch({o.output}, {regex_literal(escape_regex(c.value))}{o.msg_arg()});",
                        o.extra_lost())
    return Rendered(f"{o.a}output.includes({o.report}, {js_str(c.value)}{o.opts()});", o.extra_lost())


def _text_match(o: _Out) -> Rendered:
    """icontains, starts-with, ends-with: a match against an anchored or case-insensitive pattern."""
    c = o.check
    pattern = escape_regex(c.value)
    pattern = "^" + pattern if c.kind == "starts-with" else pattern + "$" if c.kind == "ends-with" else pattern
    flags = "i" if c.kind == "icontains" else ""
    fn = "doesNotMatch" if c.negate else "match"
    return Rendered(f"{o.a}{fn}({o.output}, {regex_literal(pattern, flags)}{o.msg_arg()});", o.extra_lost())


def _regex(o: _Out) -> Rendered:
    c = o.check
    if o.hints.get("call") == "output.includes" and not c.negate:
        return Rendered(f"{o.a}output.includes({o.report}, {regex_literal(c.value, c.flags)}{o.opts()});",
                        o.extra_lost())
    fn = "doesNotMatch" if c.negate else "match"
    return Rendered(f"{o.a}{fn}({o.output}, {regex_literal(c.value, c.flags)}{o.msg_arg()});", o.extra_lost())


def _equals(o: _Out) -> Rendered:
    c = o.check
    if not isinstance(c.value, str) or c.negate:
        return Rendered(None)
    fn = o.hints.get("call", "equal")
    return Rendered(f"{o.a}{fn}({o.report}.finalOutput.trim(), {js_str(c.value)}{o.msg_arg()});", o.extra_lost())


def _is_json(o: _Out) -> Rendered:
    if o.check.negate:
        return Rendered(None)
    return Rendered(f"{o.a}doesNotThrow(() => JSON.parse({o.report}.finalOutput));", o.extra_lost())


def _opaque(o: _Out) -> Rendered:
    c = o.check
    if c.origin != "skillgym":
        return Rendered(None)
    if c.raw is None:
        return Rendered(None, ["a skillgym statement without its code"])
    return Rendered(str(c.raw))


#: IR check kind -> its skillgym statement
RENDERERS: dict[str, Callable[[_Out], Rendered]] = {
    "skill-trigger": _skill_trigger,
    "command_matching": _command, "no_command_matching": _command,
    "transcript_mentions": _transcript, "transcript_omits": _transcript,
    "contains": _contains,
    "icontains": _text_match, "starts-with": _text_match, "ends-with": _text_match,
    "regex": _regex,
    "equals": _equals,
    "is-json": _is_json,
    "opaque": _opaque,
}
