"""Rule documentation: ``evalfmt rules --explain CODE`` and the generated ``docs/rules.md``."""

from __future__ import annotations

import re

from .registry import FAMILIES, Registry, Rule

SCOPE_NOTE = {
    "reader": "emitted by the format readers while reading (also shown by `evalfmt validate`)",
    "set": "checks one eval set (a skill's evals/, one EVAL.yaml, ...)",
    "skill": "checks a skill folder",
    "meta": "about the lint run itself",
}


def example_blocks(body: str) -> list[tuple[str, str]]:
    """(file, content) pieces of a Fails/Passes example (``# file: path`` starts each file)."""
    files: list[tuple[str, list[str]]] = []
    for line in body.split("\n"):
        m = re.match(r"# file: (\S+)\s*$", line)
        if m:
            files.append((m.group(1), []))
        elif files:
            files[-1][1].append(line)
        elif line.strip():
            files.append(("", [line]))
    return [(name, "\n".join(lines).rstrip("\n") + "\n") for name, lines in files]


def _lang(name: str) -> str:
    if name.endswith((".yaml", ".yml")):
        return "yaml"
    if name.endswith(".json"):
        return "json"
    if name.endswith(".md"):
        return "markdown"
    if name.endswith(".sh"):
        return "sh"
    if name.endswith(".toml"):
        return "toml"
    return "text"


def _examples_md(body: str) -> str:
    out = []
    for name, content in example_blocks(body):
        if name:
            out.append(f"`{name}`:\n")
        out.append(f"```{_lang(name)}\n{content}```\n")
    return "\n".join(out)


def _options_md(rule: type[Rule]) -> str:
    if not rule.options:
        return ""
    text = rule.doc().options or ", ".join(f"`{k}` (default `{_toml(v)}`)" for k, v in rule.options.items())
    return f"Options, in `[tool.evalfmt.rules.{rule.code}]`: {text}\n"


def _toml(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        if len(value) > 6:
            return "[" + ", ".join(_toml(v) for v in value[:6]) + ", ...]"
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)


def rule_markdown(rule: type[Rule], level: int = 3) -> str:
    doc = rule.doc()
    h = "#" * level
    fix = " (fix)" if rule.fixable else ""
    lines = [f"{h} {rule.code} {rule.name}{fix}", ""]
    lines.append(f"Severity: **{rule.severity}**. Scope: {SCOPE_NOTE.get(rule.scope, rule.scope)}.")
    if rule.origin != "evalfmt":
        lines.append(f"From the plugin `{rule.origin}`.")
    lines += ["", doc.summary, ""]
    if doc.why:
        lines += [f"Why: {doc.why}", ""]
    if doc.note:
        lines += [doc.note, ""]
    opts = _options_md(rule)
    if opts:
        lines += [opts]
    if doc.fails:
        lines += ["Fails:", "", _examples_md(doc.fails)]
    if doc.passes:
        lines += ["Passes:", "", _examples_md(doc.passes)]
    if doc.fix:
        lines += [f"Fix: {doc.fix}", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def rules_markdown(reg: Registry) -> str:
    out = ["# evalfmt lint rules", "",
           "<!-- Generated from the rule docstrings by `evalfmt rules --markdown`; do not edit by hand. -->", "",
           "Codes are stable: use them in `--select`, `--ignore`, configuration and `# evalfmt: noqa: CODE`",
           "comments (see [lint.md](lint.md)). Rules marked (fix) are fixed by `evalfmt lint --fix`.", "",
           "| code | name | severity | finding |", "|---|---|---|---|"]
    builtin = [r for r in reg if r.origin == "evalfmt"]
    for r in builtin:
        fix = " (fix)" if r.fixable else ""
        out.append(f"| [{r.code}](#{_anchor(r)}) | {r.name}{fix} | {r.severity} | {_cell(r.summary())} |")
    out.append("")
    family = None
    for r in builtin:
        if r.family() != family:
            family = r.family()
            prefix = next((p for p, n in FAMILIES.items() if n == family), "")
            out += [f"## {prefix}: {family}", ""]
        out.append(rule_markdown(r))
    return "\n".join(out).rstrip("\n") + "\n"


def _anchor(rule: type[Rule]) -> str:
    text = f"{rule.code} {rule.name}{' (fix)' if rule.fixable else ''}".lower()
    return re.sub(r"[^a-z0-9 -]", "", text).replace(" ", "-")


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def explain_text(rule: type[Rule]) -> str:
    """``rules --explain``: the rule's documentation as plain text."""
    doc = rule.doc()
    fix = " (fix)" if rule.fixable else ""
    lines = [f"{rule.code} {rule.name}{fix}: {rule.severity}", "", doc.summary, ""]
    if doc.why:
        lines += [f"Why: {doc.why}", ""]
    if rule.options:
        text = doc.options or ", ".join(f"{k} = {_toml(v)}" for k, v in rule.options.items())
        lines += [f"Options, in [tool.evalfmt.rules.{rule.code}]: {text}", ""]
    for title, body in (("Fails", doc.fails), ("Passes", doc.passes)):
        if body:
            lines += [f"{title}:", ""]
            for name, content in example_blocks(body):
                if name:
                    lines.append(f"  {name}:")
                lines += ["    " + line if line else "" for line in content.rstrip("\n").split("\n")]
                lines.append("")
    if doc.fix:
        lines += [f"Fix: {doc.fix}", ""]
    return "\n".join(lines).rstrip("\n") + "\n"
