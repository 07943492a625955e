"""Lint output: text, json, sarif (2.1.0) and github (workflow commands). Each returns the whole
output as a string (ending with a newline), so tests compare it byte for byte."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING
from urllib.parse import quote

import orjson

from .. import __version__
from ..errors import counts_line

if TYPE_CHECKING:  # pragma: no cover
    from .result import LintResult
    from .registry import Registry

FORMATS = ("text", "json", "sarif", "github")

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def summary(result: LintResult, fixed: int = 0) -> str:
    line = counts_line(result.errors, result.warnings, result.infos, result.files)
    extra = []
    if fixed:
        extra.append(f"{fixed} fixed")
    if result.fixable:
        extra.append(f"{result.fixable} fixable")
    if extra:
        line += f" ({', '.join(extra)})"
    return line


def text(result: LintResult, fixed: int = 0, quiet: bool = False) -> str:
    lines = [d.format() for d in result.diagnostics]
    if not quiet:
        s = summary(result, fixed)
        if result.fixable:
            s += "; run with --fix to fix them"
        lines.append(s)
    return "".join(line + "\n" for line in lines)


def json(result: LintResult, fixed: int = 0) -> str:
    data = {
        "diagnostics": [d.to_json() for d in result.diagnostics],
        "summary": {"errors": result.errors, "warnings": result.warnings, "infos": result.infos,
                    "files": result.files, "fixable": result.fixable, "fixed": fixed},
    }
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n"


def _escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def github(result: LintResult, fixed: int = 0) -> str:
    out = []
    for d in result.diagnostics:
        level = GITHUB_LEVEL.get(d.severity, "warning")
        out.append(f"::{level} file={_escape_prop(d.path)},line={d.line},col={d.column},"
                   f"title={_escape_prop(d.code)}::{_escape_data(d.code + ' ' + d.message)}")
    out.append(summary(result, fixed))
    return "".join(line + "\n" for line in out)


def artifact_uri(path: str) -> str:
    """A path as a SARIF artifact URI: relative paths stay relative (to the working folder,
    ``%SRCROOT%``), with forward slashes and percent-encoding."""
    p = path.replace(os.sep, "/")
    if os.path.isabs(path):
        return "file://" + quote(p if p.startswith("/") else "/" + p)
    while p.startswith("./"):
        p = p[2:]
    return quote(p)


def rule_metadata(rule) -> dict:
    doc = rule.doc()
    help_md = [doc.summary]
    for title, body in (("Why", doc.why), ("Fails", doc.fails), ("Passes", doc.passes), ("Fix", doc.fix)):
        if body:
            if title in ("Fails", "Passes"):
                help_md.append(f"**{title}:**\n\n```yaml\n{body}\n```")
            else:
                help_md.append(f"**{title}:** {body}")
    meta = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": doc.summary},
        "fullDescription": {"text": " ".join(x for x in (doc.summary, doc.why) if x)},
        "help": {"text": doc.fix or doc.summary, "markdown": "\n\n".join(help_md)},
        "defaultConfiguration": {"level": SARIF_LEVEL[rule.severity]},
        "properties": {"tags": [rule.family()], "fixable": bool(rule.fixable)},
    }
    return meta


def sarif(result: LintResult, reg: Registry, fixed: int = 0) -> str:
    codes = list(reg.codes())
    extra = sorted({d.code for d in result.diagnostics} - set(codes))
    rules = [rule_metadata(r) for r in reg]
    for code in extra:  # a code some reader emits that no rule registers
        rules.append({"id": code, "shortDescription": {"text": code}, "defaultConfiguration": {"level": "warning"}})
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = []
    for d in result.diagnostics:
        results.append({
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": SARIF_LEVEL.get(d.severity, "warning"),
            "message": {"text": d.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": artifact_uri(d.path),
                                     **({} if os.path.isabs(d.path) else {"uriBaseId": "%SRCROOT%"})},
                "region": {"startLine": d.line, "startColumn": d.column},
            }}],
        })
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "evalfmt",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    return orjson.dumps(log, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n"


def render(fmt: str, result: LintResult, reg: Registry | None, fixed: int = 0, quiet: bool = False) -> str:
    """The findings in ``fmt``; ``reg`` (the rule registry) is needed by ``sarif`` only."""
    if fmt == "json":
        return json(result, fixed)
    if fmt == "sarif":
        if reg is None:
            from .registry import registry  # 1.2 ms to import; registry() loads the rules (29 ms)

            reg = registry()
        return sarif(result, reg, fixed)
    if fmt == "github":
        return github(result, fixed)
    return text(result, fixed, quiet)
