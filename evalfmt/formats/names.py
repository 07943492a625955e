"""EV116: names and ids that hold a control character, checked once for every format.

A skill name, a test id, a case or suite-entry name and an eval set's name are printed on one line
(diagnostics, ``lost:`` lines, ``inspect``, CI annotations) and some become file or folder names
(``transpile``, ``convert --to terum``, ``run``). One holding a line break, a tab, an escape, NUL, a
Unicode line separator or a bidi override (:data:`evalfmt.errors.CONTROL`) could forge an output line
or hide where it is, so it is refused as a structural error, whatever the format.

:func:`check` works on what a reader added (the IR's JSON shape, or IR objects), so it keeps pydantic
off ``validate``'s path.
"""

from __future__ import annotations

from typing import Any

from ..errors import CONTROL, Diagnostic, control_char

CODE = "EV116"
#: what a case's name is called in each format
CASE_NOUN = {"agentv": "test id", "agent-skills": "eval id", "skillgym": "case id", "promptfoo": "test name"}


def _get(node: Any, key: str) -> Any:
    return node.get(key) if isinstance(node, dict) else getattr(node, key, None)


def _at(span: Any, fallback: str) -> tuple[str, int, int]:
    if not span:
        return fallback, 1, 1
    return _get(span, "file") or fallback, _get(span, "line") or 1, _get(span, "column") or 1


def check(items: list, diagnostics: list[Diagnostic], documents: dict | None = None) -> None:
    """Append an EV116 error for every name or id in ``items`` (eval sets) holding a control character.
    The position is the span of the node holding the name; for an eval set's ``name``, the key in its
    document (``documents``: path -> Loaded) when there is one."""
    for es in items:
        if isinstance(es, dict) and not _may_hold(es):
            continue
        source = _get(es, "source") or "-"
        set_span = _get(es, "span")

        def report(noun: str, value: Any, span: Any, fallback: Any = set_span) -> None:
            if not isinstance(value, str) or not CONTROL.search(value):
                return
            path, line, column = _at(span or fallback, source)
            diagnostics.append(Diagnostic(path, line, column, CODE, message(noun, value)))

        def checks(items: Any, span: Any) -> None:
            for c in items or []:
                if _get(c, "kind") == "skill-trigger":
                    report("skill name", _get(c, "skill"), _get(c, "span") or span)

        report("eval set name", _get(es, "name"), _name_key(documents, set_span, _get(es, "name")) or set_span)
        skill, triggers = _get(es, "skill"), _get(es, "triggers")
        if skill and not (triggers and _get(triggers, "skill") == _get(skill, "name")):  # else reported below
            report("skill name", _get(skill, "name"), _get(skill, "span"))
        checks(_get(es, "checks"), set_span)
        noun = CASE_NOUN.get(_get(es, "format"), "case name")
        for case in _get(es, "cases") or []:
            report(noun, _get(case, "name"), _get(case, "span"))
            checks(_get(case, "checks"), _get(case, "span"))
        suite = _get(es, "suite")
        if suite:
            checks(_get(suite, "checks"), _get(suite, "span"))
            for entry in _get(suite, "entries") or []:
                report("suite entry name", _get(entry, "name"), _get(entry, "span") or _get(suite, "span"))
                checks(_get(entry, "checks"), _get(entry, "span"))
        if triggers:  # where the router reports it too (the same diagnostic, so it is listed once)
            report("skill name", _get(triggers, "skill"), _get(triggers, "span"), fallback=None)


def _may_hold(es: dict) -> bool:
    """A quick look at an eval set in the IR's JSON shape: could any name in it hold a control character?
    (Lint and validate read thousands of sets; almost none do.)"""
    names = [es.get("name"), (es.get("skill") or {}).get("name"), (es.get("triggers") or {}).get("skill")]
    add = names.append
    groups = [es.get("checks")]
    for case in es.get("cases") or ():
        add(case.get("name"))
        groups.append(case.get("checks"))
    suite = es.get("suite")
    if suite:
        groups.append(suite.get("checks"))
        for entry in suite.get("entries") or ():
            add(entry.get("name"))
            groups.append(entry.get("checks"))
    for group in groups:
        for c in group or ():
            if c.get("kind") == "skill-trigger":
                add(c.get("skill"))
    return CONTROL.search("\ue000".join([n for n in names if n.__class__ is str])) is not None


def message(noun: str, value: str) -> str:
    """The EV116 message (the router gives the same one for a skill name, so the two dedupe)."""
    return f"{noun} '{value}' holds a control character ({control_char(value)}): names and ids must print on one " \
           "line; remove it"


def _name_key(documents: dict | None, span: Any, name: Any) -> dict | None:
    """The span of a top-level ``name:`` key holding ``name`` in the document ``span`` points into."""
    loaded = (documents or {}).get(_get(span, "file")) if span else None
    data = getattr(loaded, "data", None)
    if not isinstance(data, dict) or data.get("name") != name:
        return None
    pos = loaded.key_pos("name")
    return {"file": loaded.path, "line": pos.line, "column": pos.column}
