"""IR checks -> skillgym assert statements (the writer's side of :mod:`.checks`).

A check's kind says, in its spec's skillgym entry (:mod:`evalfmt.ir.kinds`), which form of statement it is
written as and with which parameters (its polarity, an ``output-match``'s anchor and flags); :data:`RENDERERS`
maps each form to a small function that spells it. A kind whose entry is ``Absent`` has no skillgym
equivalent and the writer turns it into a loss in the entry's words (:func:`render` answers None); an opaque
check (``Verbatim``) is written back as the statement it was read from. ``hints`` are the check's hints when
the set was read from skillgym (its presentation: ``soft``, the message, the call it was written with), else
empty: the writer decides that once for every check.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Mapping

from ...ir.kinds import Absent, Skillgym, Verbatim, spec_of
from ...ir.kinds.spec import SkillgymForm
from .checks import CONFIDENCES, LISTS, TRANSCRIPT_FN
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
    #: the kind's skillgym entry (its form and the form's parameters)
    entry: Skillgym
    report: str
    ctxvar: str | None
    hints: Mapping[str, Any]

    @property
    def a(self) -> str:
        return "assert.soft." if self.hints.get("soft") else "assert."

    @property
    def positive(self) -> bool:
        """Whether the statement asserts its form's positive (``has``, ``includes``, ``match``): the entry's
        polarity, turned by the check's ``negate``."""
        return self.entry.positive != bool(self.check.negate)

    @property
    def output(self) -> str:
        """The expression of the final output the statement tests."""
        if self.hints.get("subject") == "ctx" and self.ctxvar:
            return f"{self.ctxvar}.finalOutput()"
        return f"{self.report}.finalOutput"

    def opts(self, extra_opts: dict[str, Any] | None = None) -> str:
        """``, { message: ..., explain: ... }`` for skillgym's own helpers."""
        h = self.hints
        opts: dict[str, Any] = {}
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
    """The statement for ``check``; None when skillgym has no equivalent of its kind (its entry is ``Absent``)."""
    entry = spec_of(check).skillgym
    if isinstance(entry, Absent):
        return None
    if isinstance(entry, Verbatim):
        return _verbatim(check)
    return RENDERERS[entry.form](_Out(check, entry, report, ctxvar, hints))


def _skills(o: _Out) -> Rendered:
    """``assert.skills.has|notHas(report, "skill")``: ``notHas`` when the check expects the skill not to be used."""
    c = o.check
    if not c.skill:
        return Rendered(None, ["skill-trigger check without a skill name"])
    fires = c.expects_trigger == o.positive
    confidence = c.extra.get("minConfidence")
    extra_opts = {"minConfidence": confidence} if confidence in CONFIDENCES else {}
    return Rendered(f"{o.a}skills.{'has' if fires else 'notHas'}({o.report}, {js_str(c.skill)}{o.opts(extra_opts)});",
                    o.extra_lost(("minConfidence",)))


def _listed(o: _Out) -> Rendered:
    """``assert.<group>.includes|notIncludes(report, matcher)`` (commands, file reads): a pattern of literal
    characters without flags is written as a string, which skillgym matches as a substring."""
    c = o.check
    flags = c.flags or o.hints.get("flags") or ""
    literal = literal_of(c.pattern) if not flags else None
    matcher = js_str(literal) if literal is not None else regex_literal(c.pattern, flags)
    fn = "includes" if o.positive else "notIncludes"
    return Rendered(f"{o.a}{LISTS[o.entry.form]}.{fn}({o.report}, {matcher}{o.opts()});", o.extra_lost())


def _transcript(o: _Out) -> Rendered:
    c = o.check
    bang = "" if o.positive else "!"
    needle = f"{TRANSCRIPT_FN}({o.report}).includes({js_str(c.text)}.toLowerCase())"
    return Rendered(f"{o.a}ok({bang}{needle}{o.msg_arg()});", o.extra_lost(), helper=True)


def _output_includes(o: _Out) -> Rendered:
    c = o.check
    if not o.positive:
        return Rendered(f"{o.a}doesNotMatch({o.output}, {regex_literal(escape_regex(c.value))}{o.msg_arg()});",
                        o.extra_lost())
    return Rendered(f"{o.a}output.includes({o.report}, {js_str(c.value)}{o.opts()});", o.extra_lost())


def _output_match(o: _Out) -> Rendered:
    """A match of the final output against the value escaped, anchored by the entry's ``anchor`` (``^`` at the
    start, ``$`` at the end) and with its ``flags``."""
    c, e = o.check, o.entry
    pattern = escape_regex(c.value)
    pattern = "^" + pattern if e.anchor == "^" else pattern + "$" if e.anchor == "$" else pattern
    fn = "match" if o.positive else "doesNotMatch"
    return Rendered(f"{o.a}{fn}({o.output}, {regex_literal(pattern, e.flags)}{o.msg_arg()});", o.extra_lost())


def _regex(o: _Out) -> Rendered:
    c = o.check
    if o.hints.get("call") == "output.includes" and o.positive:
        return Rendered(f"{o.a}output.includes({o.report}, {regex_literal(c.value, c.flags)}{o.opts()});",
                        o.extra_lost())
    fn = "match" if o.positive else "doesNotMatch"
    return Rendered(f"{o.a}{fn}({o.output}, {regex_literal(c.value, c.flags)}{o.msg_arg()});", o.extra_lost())


def _equal(o: _Out) -> Rendered:
    c = o.check
    if not isinstance(c.value, str) or not o.positive:
        return Rendered(None)
    fn = o.hints.get("call", "equal")
    return Rendered(f"{o.a}{fn}({o.report}.finalOutput.trim(), {js_str(c.value)}{o.msg_arg()});", o.extra_lost())


def _json_parse(o: _Out) -> Rendered:
    if not o.positive:
        return Rendered(None)
    return Rendered(f"{o.a}doesNotThrow(() => JSON.parse({o.report}.finalOutput));", o.extra_lost())


def _verbatim(c: Any) -> Rendered:
    """An opaque check: a statement read from skillgym is written back as it was; another format's is lost."""
    if c.origin != "skillgym":
        return Rendered(None)
    if c.raw is None:
        return Rendered(None, ["a skillgym statement without its code"])
    return Rendered(str(c.raw))


#: skillgym form (a kind's spec says which) -> the function that writes its statement
RENDERERS: dict[SkillgymForm, Callable[[_Out], Rendered]] = {
    "skills": _skills,
    "commands": _listed, "file-reads": _listed,
    "transcript": _transcript,
    "output-includes": _output_includes,
    "output-match": _output_match,
    "regex": _regex,
    "equal": _equal,
    "json-parse": _json_parse,
}
