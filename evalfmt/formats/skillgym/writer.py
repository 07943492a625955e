"""Writing skillgym suites: IR -> ``suite.ts`` (pure, deterministic).

A suite read from a skillgym file is written back from its hints: every piece of text the IR did
not change (imports, consts, comments, unrecognised statements, property layout) is put back as it
was, and only what changed is generated. Any other IR is written in the canonical layout:

```ts
import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "...",
    prompt: "...",
    assert(report) {
      assert.skills.has(report, "...");
    },
  },
];

export default suite;
```

What skillgym cannot hold is a loss (see :func:`evalfmt.formats.skillgym.render.render` and
``docs/skillgym.md``).
"""

from __future__ import annotations

import re
from typing import Any
from collections.abc import Mapping

from ... import ir
from ...ir.kinds import Absent, Skillgym, Verbatim, spec_of
from .. import Loss, WriteResult, hinted_name
from ..losses import Rule, Table
from ..restore import Restore
from .checks import TRANSCRIPT_COMMENT, TRANSCRIPT_HELPER, sig
from .render import render
from .tslit import js_key, js_str, js_value

NAME = "skillgym"
DEFAULT_NAME = "suite.ts"
FIELD_ORDER = ("id", "prompt", "tags", "timeoutMs", "expectedFail")
LOST_FIELDS = (
    ("judge", "judge rubric (skillgym has no model judge)"),
    ("expected_output", "expected_output"),
    ("files", "inline files (skillgym stages no per-case files)"),
    ("fixture", "fixture (skillgym's workspace is per suite)"),
    ("setup", "setup command (skillgym's workspace bootstrap is per suite)"),
    ("bucket", "bucket"),
    ("requires", "requires"),
    ("max_turns", "max_turns (skillgym's maxSteps is a run option)"),
    ("input_files", "input_files"),
    ("metadata", "metadata"),
)


TABLE = Table(NAME, {
    **{f"case.{f}": Rule("lost") for f, _ in LOST_FIELDS},
    "case.extra": Rule("lost"),
    "case.messages": Rule("flattened to the text of the user messages", when="more than one plain user message"),
    "case.input/missing": Rule("written as an empty prompt", when="the test has no prompt"),
    "check.workspace": Rule("lost: a skillgym report does not hold the workspace after the session"),
    "check.rubric": Rule("lost: skillgym has no model grader"),
    **{f"check.{k}": Rule("lost: skillgym has no equivalent") for k in ("code_grader", "trajectory", "budget")},
    "check.opaque": Rule("lost: another format's code means nothing to skillgym"),
    "check.output": Rule("lost", when="contains-any/all, a non-string equals, a negated is-json"),
    "check.skill_trigger": Rule("lost", when="it names no skill"),
    "check.fields": Rule("lost: skillgym has no weights, names or extra keys"),
    "triggers": Rule("lost: a skillgym suite has no trigger set (write them with --to skill-creator-triggers)"),
    "triggers.extra": Rule("lost with the trigger prompts", covered_by="triggers"),
    "set.input": Rule("lost"), "set.name": Rule("lost"), "set.description": Rule("lost"),
    "set.tags": Rule("lost"), "set.extra": Rule("lost"),
    "set.skill": Rule("lost unless a skills.has assertion names it", when="no skill-trigger names the skill"),
    "suite": Rule("its rows become separate cases, each running its own session"),
    "suite/checks": Rule("lost (terum's engine discards a suite's own checks)", when="the suite has checks"),
})




class _W:
    """One write: the set, its restoration pass (:class:`~evalfmt.formats.restore.Restore`: a skillgym
    suite's hints and extra keys back, none of another format's), the losses so far.

    The branches left on :attr:`own` are meaning, not presentation: another format's set has fields
    skillgym has no place for (losses), suite-level checks skillgym repeats in each case, and a timeout
    in its own unit; a skillgym suite has none of those."""

    def __init__(self, evalset: ir.EvalSet):
        self.evalset = evalset
        self.r = Restore(evalset.format, NAME)
        self.own = self.r.own
        self.losses: list[Loss] = []
        self.needs_helper = False
        self.where = f"{evalset.span.file}:{evalset.span.line}" if evalset.span else "set"

    def hints(self, node: Any) -> Mapping[str, Any]:
        """The presentation a node was read with, which the writer restores (none for another format's set)."""
        return self.r.hints(node)

    def kept_extra(self, node: Any) -> Mapping[str, Any]:
        """The node's extra keys the output holds: skillgym's own (a workspace, classifyFailure, ...);
        another format's extra keys are losses (:func:`_case_losses`, :func:`_set_losses`)."""
        return self.r.extra(node)

    def lose(self, feature: str, node: Any, fallback: str, what: str) -> None:
        TABLE.add(self.losses, feature, getattr(node, "span", None), fallback, what)


def write(evalset: ir.EvalSet, existing: dict[str, str] | None = None) -> WriteResult:
    w = _W(evalset)
    cases = list(evalset.cases)
    _set_losses(w)
    if evalset.suite is not None:
        cases.extend(_suite_cases(w, evalset.suite))
    shape = w.hints(evalset).get("shape", "array")
    container = _container(w, cases, shape)
    module = w.hints(evalset).get("module")
    if module:
        text = _own_module(w, module, container)
    else:
        text = _canonical_module(w, container)
    where = f"{evalset.span.file}:{evalset.span.line}" if evalset.span else "set"
    name = hinted_name(w.hints(evalset).get("file_name"), DEFAULT_NAME, where, w.losses)
    return WriteResult(files={name: text}, losses=w.losses)


# ------------------------------------------------------------------------------------------ module


def _canonical_module(w: _W, container: str) -> str:
    parts = ['import { assert, type Case } from "skillgym";\n']
    if w.needs_helper:
        parts.append("\n" + TRANSCRIPT_COMMENT + TRANSCRIPT_HELPER + "\n")
    workspace = w.kept_extra(w.evalset).get("workspace")
    if workspace is not None and not (isinstance(workspace, dict) and "$code" in workspace):
        parts.append(f"\nexport const workspace = {js_value(workspace)};\n")
    elif isinstance(workspace, dict) and "$code" in workspace:
        parts.append("\n" + workspace["$code"] + "\n")
    parts.append(f"\nconst suite: Case[] = {container};\n\nexport default suite;\n")
    return "".join(parts)


def _own_module(w: _W, module: list[dict[str, Any]], container: str) -> str:
    out: list[str] = []
    workspace = w.evalset.extra.get("workspace")
    had_workspace = False
    for seg in module:
        if seg.get("suite"):
            out.append(container)
        elif "workspace" in seg:
            had_workspace = True
            if workspace is None:
                continue
            if workspace == seg["workspace"]:
                out.append(seg["text"])
            elif isinstance(workspace, dict) and "$code" in workspace:
                out.append(workspace["$code"])
            else:
                out.append(f"export const workspace = {js_value(workspace)};")
        else:
            out.append(seg["text"])
    if workspace is not None and not had_workspace:
        code = workspace["$code"] if isinstance(workspace, dict) and "$code" in workspace else \
            f"export const workspace = {js_value(workspace)};"
        out.append(("" if "".join(out).endswith("\n") else "\n") + code + "\n")
    text = "".join(out)
    if w.needs_helper and TRANSCRIPT_HELPER not in text:
        text = _insert_after_imports(text, "\n" + TRANSCRIPT_COMMENT + TRANSCRIPT_HELPER + "\n")
    return text


_IMPORT_LINE = re.compile(r"^import\b[^\n]*(?:\n(?![A-Za-z]|\n)[^\n]*)*\n", re.M)


def _insert_after_imports(text: str, block: str) -> str:
    """``block`` after the import lines that only blanks, ``//`` comments and imports precede."""
    end = 0
    matches = list(_IMPORT_LINE.finditer(text))
    ok = _preamble_ends(text, matches[-1].start()) if matches else b""
    for m in matches:
        if not ok[m.start()]:
            break
        end = m.end()
    return text[:end] + block + text[end:]


def _preamble_ends(text: str, upto: int) -> bytearray:
    """``ok[p]`` is 1 when ``text[:p]`` is made of blanks, ``//`` comments and ``import ...;``
    statements only (the language of ``(?:\\s|//[^\\n]*|import\\b[^;]*;?)*``), for every p <= upto.
    One pass: a comment reaches any point up to its line's end, an import any point up to its
    ``;`` (that included); the regex itself backtracks exponentially over such splits."""
    ok = bytearray(upto + 1)
    ok[0] = 1
    reach = -1  # every position up to here is reachable through a comment or an import
    pending: dict[int, int] = {}  # where an interval opens -> where it ends
    nl = semi = -1
    for p in range(upto + 1):
        if p in pending:
            reach = max(reach, pending.pop(p))
        if not (ok[p] or p <= reach):
            continue
        ok[p] = 1
        if p == upto:
            break
        ch = text[p]
        if ch.isspace():
            ok[p + 1] = 1
        elif text.startswith("//", p):
            if nl < p:
                nl = text.find("\n", p)
                nl = len(text) if nl < 0 else nl
            pending[p + 2] = max(pending.get(p + 2, -1), nl)
        elif text.startswith("import", p) and not _word_char(text[p + 6: p + 7]):
            if semi < p + 6:
                semi = text.find(";", p + 6)
            last = len(text) if semi < 0 else semi + 1
            pending[p + 6] = max(pending.get(p + 6, -1), last)
    return ok


def _word_char(ch: str) -> bool:
    return bool(ch) and (ch.isalnum() or ch == "_")


# --------------------------------------------------------------------------------------- container


def _container(w: _W, cases: list[ir.Case], shape: str) -> str:
    open_, close = ("[", "]") if shape == "array" else ("{", "}")
    pieces: list[list[str]] = []
    for i, case in enumerate(cases):
        h = w.hints(case)
        own_case = "props" in h or "verbatim" in h
        lead = h.get("lead", "\n  ")
        after = h.get("after", ",")
        text = h["verbatim"] if "verbatim" in h else _case_text(w, case, i, own_case, _indent_of(lead))
        if shape == "record" and "verbatim" not in h:
            key = h["key_src"] if "key_src" in h else f"{js_key(case.name)}: "
            text = key + text
        pieces.append([lead, text, after])
    for i in range(len(pieces) - 1):
        if "," not in pieces[i][2]:
            pieces[i][2] = "," + pieces[i][2]
    tail: str = w.hints(w.evalset).get("tail", "\n" if cases else "")
    return open_ + "".join("".join(p) for p in pieces) + tail + close


def _indent_of(lead: str) -> str:
    last = lead.rsplit("\n", 1)[-1]
    return last if last.strip() == "" else "  "


# -------------------------------------------------------------------------------------------- cases


def _field_value(case: ir.Case, key: str) -> Any:
    if key in case.extra:
        return case.extra[key]
    if key == "id":
        return case.name if case.name.strip() else None
    if key == "prompt":
        return case.task
    if key == "tags":
        return case.tags
    if key == "timeoutMs":
        if case.timeout_ms is not None:
            return case.timeout_ms
        return None
    if key == "expectedFail":
        return case.expected_fail
    return None


def _field_text(key: str, value: Any) -> str:
    if isinstance(value, dict) and "$code" in value:
        return str(value["$code"])
    if key == "tags" and isinstance(value, list):
        return "tags: [" + ", ".join(js_value(v) for v in value) + "]"
    return f"{js_key(key)}: {js_value(value)}"


def _case_losses(w: _W, case: ir.Case, where: str) -> None:
    if w.own:
        return
    for field, what in LOST_FIELDS:
        if getattr(case, field) not in (None, [], {}):
            w.lose(f"case.{field}", case, where, f"{what} of '{case.name}'")
    if case.input is not None and not isinstance(case.input, str) and _flatten_loses(case.input):
        w.lose("case.messages", case, where,
               f"message input of '{case.name}' flattened to the text of its user messages")
    for key in w.r.dropped(case):
        w.lose("case.extra", case, where, f"'{key}' of '{case.name}'")


def _flatten_loses(messages: list[Any]) -> bool:
    """False for a single user message of plain text (the prompt itself): nothing is lost."""
    if len(messages) != 1:
        return True
    msg = messages[0]
    if msg.role != "user" or msg.extra:
        return True
    if isinstance(msg.content, str):
        return False
    if isinstance(msg.content, list):
        return not all(p.type == "text" and isinstance(p.value, str) and not p.extra for p in msg.content) \
            or len(msg.content) != 1
    return True


def _foreign_timeout(case: ir.Case) -> int | None:
    if case.timeout_ms is not None:
        return case.timeout_ms
    if case.timeout_minutes is not None:
        return int(round(case.timeout_minutes * 60_000))
    return None


def _case_text(w: _W, case: ir.Case, index: int, own_case: bool, indent: str) -> str:
    where = f"cases[{index}]"
    _case_losses(w, case, where)
    if own_case:
        return _own_case_text(w, case, indent)
    inner = indent + "  "
    lines = ["{"]
    lines.append(f"{inner}id: {js_str(case.name)},")
    if case.task is not None:
        lines.append(f"{inner}prompt: {js_str(case.task)},")
    else:
        lines.append(f"{inner}prompt: \"\",")
        w.lose("case.input/missing", case, where, f"'{case.name}' has no prompt (written as an empty one)")
    if case.tags is not None:
        lines.append(f"{inner}{_field_text('tags', case.tags)},")
    timeout = _foreign_timeout(case) if not w.own else case.timeout_ms
    if timeout is not None:
        lines.append(f"{inner}timeoutMs: {timeout},")
    if case.expected_fail is not None:
        lines.append(f"{inner}expectedFail: {'true' if case.expected_fail else 'false'},")
    for key, value in w.kept_extra(case).items():
        if key.startswith("$") or key in FIELD_ORDER:
            continue
        lines.append(f"{inner}{_prop_source(key, value)},")
    checks = list(case.checks) + _set_checks(w)
    stmts = _statements(w, case, checks, "report", "ctx", inner + "  ", where)
    code = any(_own_code(c) for c in checks)
    if stmts:
        params = "report, ctx" if code else "report"
        lines.append(f"{inner}assert({params}) {{" + "".join(stmts) + f"\n{inner}}},")
    else:
        lines.append(f"{inner}assert() {{}},")
    return "\n".join(lines) + f"\n{indent}}}"


def _set_checks(w: _W) -> list[Any]:
    """agentv suite-level assertions apply to every test: skillgym repeats them in each case."""
    return [] if w.own else list(w.evalset.checks)


def _own_case_text(w: _W, case: ir.Case, indent: str) -> str:
    """A case read from a skillgym suite: its properties as they were written (a changed one rewritten, one now
    empty left out), then the new ones, before its ``assert`` (else last)."""
    props = case.hints.get("props", [])
    prop_indent = next((_indent_of(p["lead"]) for p in props if "\n" in p["lead"]), indent + "  ")
    out, present, assert_at = _kept_props(w, case, props, prop_indent)
    at = assert_at if assert_at is not None else len(out)
    out[at:at] = _new_props(w, case, present, prop_indent)
    for i in range(len(out) - 1):
        if "," not in out[i][2]:
            out[i][2] = "," + out[i][2]
    tail: str = case.hints.get("tail", "\n" + indent)
    return "{" + "".join("".join(p) for p in out) + tail + "}"


def _kept_props(w: _W, case: ir.Case, props: list[dict[str, Any]],
                prop_indent: str) -> tuple[list[list[str]], set[str | None], int | None]:
    """The properties the case was read with, as ``[lead, text, after]``; the keys met; where ``assert`` is."""
    out: list[list[str]] = []
    present = set()
    assert_at = None
    for p in props:
        key = p.get("key")
        present.add(key)
        if key == "assert":
            assert_at = len(out)
            text: str | None = _own_assert(w, case, p, prop_indent)
        else:
            text = _prop_text(case, p)
        if text is not None:
            out.append([p["lead"], text, p["after"]])
    present.discard(None)
    return out, present, assert_at


def _prop_text(case: ir.Case, p: dict[str, Any]) -> str | None:
    """A property as written while its value is unchanged (code that is no property too), else its new text;
    None when its field is now empty."""
    key = p.get("key")
    if key is None:
        return str(p["text"])
    value = _field_value(case, key)
    if value is None:
        return None
    return p["text"] if value == p.get("value") else _prop_source(key, value)


def _new_props(w: _W, case: ir.Case, present: set[str | None], prop_indent: str) -> list[list[str]]:
    """The properties the case has that it was not read with: its fields in skillgym's order, its extra keys,
    and an ``assert`` for its checks."""
    lead = "\n" + prop_indent
    new = [[lead, _field_text(key, _field_value(case, key)), ","] for key in FIELD_ORDER
           if key not in present and _field_value(case, key) is not None]
    new += [[lead, _prop_source(key, value), ","] for key, value in case.extra.items()
            if key not in present and not key.startswith("$") and key not in FIELD_ORDER]
    if "assert" not in present and case.checks:
        p = {"lead": lead, "head": "assert(report) {", "body_tail": lead + "}", "report": "report", "ctx": None}
        new.append([lead, _own_assert(w, case, p, prop_indent), ","])
    return new


def _prop_source(key: str, value: Any) -> str:
    """A property's text: ``classifyFailure`` kept as the code it was read as, any other ``key: value``."""
    return value if key == "classifyFailure" and isinstance(value, str) else _field_text(key, value)


def _own_assert(w: _W, case: ir.Case, p: dict[str, Any], prop_indent: str) -> str:
    report = p.get("report") or "report"
    head: str = p["head"]
    body_tail: str = p["body_tail"]
    if not p.get("report") and _needs_report(case):
        head = re.sub(r"\(\s*\)", "(report)", head, count=1)
    stmt_indent = prop_indent + "  "
    for c in case.checks:
        lead = c.hints.get("lead", "")
        if "\n" in lead:
            stmt_indent = _indent_of(lead)
            break
    stmts = _statements(w, case, list(case.checks), report, p.get("ctx"), stmt_indent, "assert")
    if p.get("expr"):
        if len(stmts) == 1 and stmts[0] == case.checks[0].hints.get("src", None):
            return head + stmts[0] + body_tail
        body = "".join(s if s.startswith("\n") else "\n" + stmt_indent + s for s in stmts)
        body = "".join(_semi(line) for line in body.splitlines(keepends=True))
        return head + "{" + body + "\n" + prop_indent + "}"
    return head + "".join(stmts) + body_tail


def _semi(line: str) -> str:
    stripped = line.rstrip("\n")
    if stripped.strip() and not stripped.rstrip().endswith((";", "}", "{", ",")):
        return stripped + ";" + line[len(stripped):]
    return line


def _needs_report(case: ir.Case) -> bool:
    return any(not _own_code(c) for c in case.checks)


def _own_code(check: Any) -> bool:
    """A statement of a skillgym suite evalfmt keeps as code (an opaque check read from skillgym)."""
    return isinstance(spec_of(check).skillgym, Verbatim) and check.origin == NAME


def _statements(w: _W, case: ir.Case, checks: list[Any], report: str, ctxvar: str | None, indent: str,
                where: str) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(checks):
        c = checks[i]
        h = w.hints(c)
        lead = h.get("lead", "\n" + indent)
        n = _unchanged_group(checks, i, h)
        if n:
            out.append(lead + h["src"])
            i += n
            continue
        at = f"{where}.checks[{i}]"
        r = render(c, report, ctxvar, h)
        if r is None or r.text is None:
            _lose_check(w, case, c, at, r.lost if r is not None else [])
        else:
            for what in r.lost:
                w.lose("check.fields", c, at, what)
            w.needs_helper = w.needs_helper or r.helper
            out.append(lead + r.text)
        i += 1
    return out


def _unchanged_group(checks: list[Any], i: int, h: Mapping[str, Any]) -> int:
    """How many checks from ``i`` on are the statement they were read from, unchanged (its source is put
    back as it was); 0 when they changed or were not read from a statement."""
    if "src" not in h:
        return 0
    n: int = h.get("group", 1)
    group = checks[i:i + n]
    expected = h["sig"] if n > 1 else [h["sig"]]
    if len(group) == n and [sig(x) for x in group] == expected and all(x.hints.get("group_part") for x in group[1:]):
        return n
    return 0


def _lose_check(w: _W, case: ir.Case, check: Any, at: str, lost: list[str]) -> None:
    """The one place a check skillgym cannot hold becomes a loss (its kind's row of the loss table)."""
    spec = spec_of(check)
    for what in lost:
        w.lose(spec.feature, check, at, what)
    if not lost:
        why = _why(check, spec.skillgym)
        w.lose(spec.feature, check, at, f"check '{check.label()}' of '{case.name}' (skillgym has no equivalent"
                                        f"{': ' + why if why else ''})")


def _why(check: Any, entry: Skillgym | Absent | Verbatim) -> str:
    """Why skillgym cannot hold the check: its kind's reason (an opaque check: whose code it is); none when the
    kind has a form that this check's values do not fit."""
    if isinstance(entry, Verbatim):
        return f"{check.origin or 'unknown'} {entry.why}"
    if isinstance(entry, Absent):
        return entry.why
    return ""


# --------------------------------------------------------------------------------------- set level


def _set_losses(w: _W) -> None:
    e = w.evalset
    if w.own:
        return
    if e.triggers is not None and e.triggers.prompts:
        w.lose("triggers", e.triggers, w.where, f"{len(e.triggers.prompts)} trigger prompts (a skillgym suite has "
                                                "no trigger set; write them with --to skill-creator-triggers)")
    if e.input is not None:
        w.lose("set.input", e, w.where, "suite-level input prepended to every test")
    for key in ("name", "description", "tags"):
        if getattr(e, key):
            w.lose(f"set.{key}", e, w.where, f"eval set {key}")
    for key in w.r.dropped(e):
        w.lose("set.extra", e, w.where, f"{e.format} key '{key}'")
    skill = e.skill
    if skill is not None and skill.span is not None and not any(
            _names_skill(c, skill.name) for case in e.cases for c in case.checks):
        w.lose("set.skill", skill, w.where, f"skill name '{skill.name}' (a skillgym suite names skills only in "
                                            "skills.has assertions)")


def _names_skill(check: Any, name: str) -> bool:
    """A check written as ``assert.skills.has`` (or ``notHas``) naming the skill ``name``."""
    e = spec_of(check).skillgym
    return isinstance(e, Skillgym) and e.form == "skills" and check.skill == name


def _suite_cases(w: _W, suite: ir.Suite) -> list[ir.Case]:
    """A terum suite (one session, rows scored against it) as one skillgym case per entry."""
    w.lose("suite", suite, "suite", f"suite: its {len(suite.entries)} entries become separate skillgym cases, each "
           "running its own session")
    for c in suite.checks:
        w.lose("suite/checks", c, "suite.checks", f"suite-level check '{c.label()}' (the engine discards it)")
    out = []
    for entry in suite.entries:
        case = ir.Case(name=entry.name, input=suite.input, checks=list(entry.checks), span=entry.span or suite.span,
                       timeout_minutes=suite.timeout_minutes, timeout_ms=suite.timeout_ms)
        for field, _ in LOST_FIELDS:
            if field != "judge" and getattr(suite, field) is not None:
                setattr(case, field, getattr(suite, field))
        out.append(case)
    return out
