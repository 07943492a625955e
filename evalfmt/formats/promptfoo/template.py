"""promptfoo's prompt template: the single prompt of a config (a ``file://`` prompt read from its file) and
the subset of nunjucks evalfmt renders to know a test's task (``{{ variable }}``, ``{{ a.b }}``)."""

from __future__ import annotations

import os
import re
from typing import Any, Iterator

from ...js import stringify
from ...load import type_name

_TEMPLATE_VAR = re.compile(r"^\{\{\s*([A-Za-z_][\w]*)\s*\}\}$")
TEMPLATE_ANY = re.compile(r"\{\{")


def prompt_template(prompts: Any, config: str = "") -> tuple[str | None, str | None]:
    """(template, variable): the single prompt's text (a ``file://`` prompt read from its file), and the
    variable it consists of when it is exactly one ``{{ variable }}``."""
    if isinstance(prompts, list) and len(prompts) == 1 and isinstance(prompts[0], str):
        text: str = prompts[0]
        if text.startswith("file://"):
            read = _prompt_file(config, text[len("file://"):])
            if read is None:
                return None, None
            text = read
        m = _TEMPLATE_VAR.match(text.strip())
        if m:
            return text, m.group(1)
        return text, None
    return None, None


def _prompt_file(config: str, rel: str) -> str | None:
    """The text of a ``file://`` prompt (a .txt / .md / .j2 / .nunjucks file beside the config), else None."""
    if not rel.lower().endswith((".txt", ".md", ".j2", ".njk", ".nunjucks")):
        return None
    path = os.path.join(os.path.dirname(config), rel)
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        return None


def _outputs(template: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, expression) of each ``{{ ... }}``: what ``\\{\\{-?\\s*(.*?)\\s*-?\\}\\}`` (dot matching
    line breaks) finds, found with ``str.find`` (as a regex, a ``{{`` with no closing ``}}`` made
    every later ``{{`` rescan the rest of the template: quadratic)."""
    i = template.find("{{")
    while i >= 0:
        close = template.find("}}", i + 2)
        if close < 0:
            return
        inner = template[i + 2:close]
        expr = (inner[1:] if inner.startswith("-") else inner).lstrip()
        if expr.endswith("-"):
            expr = expr[:-1]
        yield i, close + 2, expr.rstrip()
        i = template.find("{{", close + 2)


_VAR_PATH = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\Z")


def render_template(template: str, vars_: dict) -> tuple[str | None, str | None]:
    """The template rendered as promptfoo's nunjucks renders it, for the subset evalfmt reads: ``{{ name }}``
    and ``{{ a.b }}`` with string, number, boolean or null values (an undefined variable renders as
    nothing, as in nunjucks). Anything else (tags ``{% %}``, comments ``{# #}``, filters, expressions,
    list or mapping values, ``file://`` values promptfoo loads) is not rendered: (None, what it is)."""
    for opener, what in (("{%", "a '{% %}' tag"), ("{#", "a '{# #}' comment")):
        if opener in template:
            return None, what
    out: list[str] = []
    at = 0
    for start, end, expr in _outputs(template):
        if not _VAR_PATH.match(expr):
            return None, f"the expression '{{{{ {expr} }}}}'"
        value: Any = vars_
        for part in expr.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if isinstance(value, str) and value.startswith("file://"):
            return None, f"'{expr}', a file:// value promptfoo loads"
        if isinstance(value, (dict, list)):
            return None, f"'{expr}', a {type_name(value)} value"
        text = "" if value is None else ("true" if value is True else "false" if value is False else
                                        value if isinstance(value, str) else _js_number(value))
        out.append(template[at:start])
        out.append(text)
        at = end
    out.append(template[at:])
    return "".join(out), None


def _js_number(value: Any) -> str:
    return stringify(value)
