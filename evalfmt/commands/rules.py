"""``evalfmt rules``: list the lint rules, or explain one."""

from __future__ import annotations

import sys

import click

from ..errors import EvalfmtError
from ..lint import docs
from ..lint.registry import registry
from ._common import echo_json


@click.command("rules")
@click.option("--explain", metavar="CODE", default=None, help="Print one rule's documentation (code or name).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: one line per rule; json: a list of {code, name, severity, scope, fixable, summary}.")
@click.option("--markdown", is_flag=True, help="Print the rule reference as Markdown (docs/rules.md).")
def command(explain: str | None, fmt: str, markdown: bool) -> int:
    """List the lint rules (code, name, default severity, whether --fix fixes it, what it finds).

    Codes are stable: use them in --select, --ignore, the configuration and noqa comments.
    """
    reg = registry()
    if explain:
        rule = reg.get(explain)
        if rule is None:
            raise EvalfmtError(f"unknown rule '{explain}' (see 'evalfmt rules')")
        sys.stdout.write(docs.explain_text(rule))
        return 0
    if markdown:
        sys.stdout.write(docs.rules_markdown(reg))
        return 0
    if fmt == "json":
        echo_json([{"code": r.code, "name": r.name, "severity": r.severity, "scope": r.scope,
                    "fixable": r.fixable, "origin": r.origin, "summary": r.summary()} for r in reg])
        return 0
    width = max(len(r.name) + (6 if r.fixable else 0) for r in reg)
    for r in reg:
        name = r.name + (" (fix)" if r.fixable else "")
        sys.stdout.write(f"{r.code:<6} {name:<{width}}  {r.severity:<7}  {r.summary()}\n")
    return 0
