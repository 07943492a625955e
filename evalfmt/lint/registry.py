"""The rule registry: every lint code evalfmt knows, built-in or from an installed plugin.

A rule is a small class with a ``code`` (``EV204``), a kebab-case ``name`` (``short-anchor``), a
default ``severity``, its ``options`` (name -> default) and a docstring in this shape::

    One line: what it finds.

    Why: why it matters (one or more paragraphs).

    Fails:

        # evals/cases/a.yaml
        task: ...

    Passes:

        # evals/cases/a.yaml
        task: ...

    Fix: what to do (``--fix`` when the rule is fixable).

``evalfmt rules --explain CODE`` and ``docs/rules.md`` are generated from these docstrings.

Scopes: ``reader`` rules are emitted by the format readers while reading (EV1xx and some EV5xx);
they are registered here so that ``rules``, ``--select``/``--ignore``, severity overrides and SARIF
metadata cover them, but have no ``check``. ``set`` rules look at one eval set (the IR and the
documents it was read from), ``skill`` rules at one skill folder (hygiene), ``meta`` rules are the
engine's own findings (an unused suppression).

Third-party rules load only from installed entry points in the group ``evalfmt.rules`` (each
pointing at a Rule subclass, or a module whose ``RULES`` lists them), never from files in the
repository being linted.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import types
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Iterable

if TYPE_CHECKING:  # pragma: no cover
    from ..errors import Severity
    from ..ir import EvalSet
    from .context import Context, SkillFolder

FAMILIES = {
    "EV0": "suppression",
    "EV1": "structure",
    "EV2": "eval quality",
    "EV3": "triggers",
    "EV4": "generated assets",
    "EV5": "AgentV specifics",
    "HYG": "terum hygiene",
}

#: Built-in rule modules, in catalogue order.
BUILTIN_MODULES = (
    "evalfmt.lint.rules.meta",
    "evalfmt.lint.rules.structure",
    "evalfmt.lint.rules.quality",
    "evalfmt.lint.rules.triggers",
    "evalfmt.lint.rules.generated",
    "evalfmt.lint.rules.agentv",
    "evalfmt.lint.rules.hygiene",
)

ENTRY_POINT_GROUP = "evalfmt.rules"
_CODE = re.compile(r"[A-Z]{2,5}[0-9]{1,4}\Z")
_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")


class Rule:
    """Base class of every rule. Subclasses set the class attributes and override one ``check_*``."""

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    severity: ClassVar[Severity] = "warning"
    scope: ClassVar[str] = "set"  # reader | set | skill | meta
    fixable: ClassVar[bool] = False
    #: option name -> default value (documented in the docstring's "Options:" section)
    options: ClassVar[dict[str, Any]] = {}
    #: formats a ``set`` rule applies to (None: every format)
    formats: ClassVar[tuple[str, ...] | None] = None
    #: where the rule comes from: "evalfmt" or the distribution of a plugin
    origin: ClassVar[str] = "evalfmt"

    def check_set(self, evalset: EvalSet, ctx: Context) -> None:  # pragma: no cover - overridden
        return None

    def check_skill(self, skill: "SkillFolder", ctx: "Context") -> None:  # pragma: no cover - overridden
        return None

    def finish(self, ctx: "Context") -> None:
        """Called once after every set and skill was checked (for rules that compare across sets)."""
        return None

    # -------------------------------------------------------------------------------- docs

    @classmethod
    def doc(cls) -> "RuleDoc":
        return parse_doc(cls.__doc__ or "")

    @classmethod
    def summary(cls) -> str:
        return cls.doc().summary

    @classmethod
    def family(cls) -> str:
        for prefix, name in FAMILIES.items():
            if cls.code.startswith(prefix):
                return name
        return "plugin"


@dataclass
class RuleDoc:
    summary: str = ""
    why: str = ""
    fails: str = ""
    passes: str = ""
    fix: str = ""
    options: str = ""
    note: str = ""
    sections: dict[str, str] = field(default_factory=dict)


_SECTION = re.compile(r"^(Why|Fails|Passes|Fix|Options|Note):[ \t]*+(.*)$")


def _cleandoc(doc: str) -> str:
    """inspect.cleandoc without importing inspect (the linter's start-up path stays light)."""
    lines = doc.expandtabs().split("\n")
    indent = min((len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()), default=0)
    out = [lines[0].strip()] + [line[indent:].rstrip() for line in lines[1:]]
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)


def parse_doc(docstring: str) -> RuleDoc:
    """Split a rule docstring into its summary and sections (Why, Fails, Passes, Fix, Options, Note)."""
    text = _cleandoc(docstring)
    lines = text.split("\n")
    summary_lines: list[str] = []
    i = 0
    while i < len(lines) and lines[i].strip():
        summary_lines.append(lines[i].strip())
        i += 1
    doc = RuleDoc(summary=" ".join(summary_lines))
    current = None
    buf: dict[str, list[str]] = {}
    for line in lines[i:]:
        m = _SECTION.match(line)
        if m:
            current = m.group(1).lower()
            buf[current] = [m.group(2)] if m.group(2) else []
            continue
        if current is not None:
            buf[current].append(line)
    import textwrap

    doc.summary = doc.summary.replace("``", "`")
    for key, chunk in buf.items():
        body = "\n".join(chunk).strip("\n")
        body = textwrap.dedent(body).strip()
        if key not in ("fails", "passes"):
            body = body.replace("``", "`")
        doc.sections[key] = body
        if hasattr(doc, key):
            setattr(doc, key, body)
    return doc


# ------------------------------------------------------------------------------------- registry


class Registry:
    def __init__(self) -> None:
        self.rules: dict[str, type[Rule]] = {}
        self.by_name: dict[str, type[Rule]] = {}
        self.problems: list[str] = []

    def add(self, rule: type[Rule]) -> None:
        if not _CODE.match(rule.code or ""):
            raise ValueError(f"rule {rule.__name__}: code {rule.code!r} is not like 'EV204'")
        if not _NAME.match(rule.name or ""):
            raise ValueError(f"rule {rule.code}: name {rule.name!r} is not kebab-case")
        if rule.severity not in ("error", "warning", "info"):
            raise ValueError(f"rule {rule.code}: severity {rule.severity!r}")
        if rule.code in self.rules:
            raise ValueError(f"rule {rule.code} is defined twice ({self.rules[rule.code].__name__}, {rule.__name__})")
        self.rules[rule.code] = rule
        self.by_name[rule.name] = rule

    def get(self, code_or_name: str) -> type[Rule] | None:
        return self.rules.get(code_or_name.upper()) or self.by_name.get(code_or_name.lower())

    def __iter__(self):
        return iter(self.rules.values())

    def codes(self) -> list[str]:
        return list(self.rules)


def rules_of(module) -> list[type[Rule]]:
    """The rules a module defines: its ``RULES`` list, or every Rule subclass defined in it."""
    found = getattr(module, "RULES", None)
    if found is not None:
        return list(found)
    return [obj for obj in vars(module).values()
            if isinstance(obj, type) and issubclass(obj, Rule) and obj is not Rule and obj.code
            and obj.__module__ == module.__name__]


_REGISTRY: Registry | None = None


def registry(plugins: bool = True) -> Registry:
    """The registry of built-in rules plus (unless ``plugins=False``) installed plugin rules."""
    global _REGISTRY
    if _REGISTRY is not None and plugins:
        return _REGISTRY
    reg = Registry()
    for name in BUILTIN_MODULES:
        for rule in rules_of(importlib.import_module(name)):
            reg.add(rule)
    if not plugins:
        return reg
    for rule, origin, problem in _plugin_rules():
        if problem:
            reg.problems.append(problem)
            continue
        try:
            rule.origin = origin  # type: ignore[misc]
            reg.add(rule)
        except ValueError as exc:
            reg.problems.append(f"plugin {origin}: {exc}")
    _REGISTRY = reg
    return reg


def _declares_plugins() -> bool:
    """True when some installed distribution declares an ``evalfmt.rules`` entry point. A direct look
    at the ``entry_points.txt`` files on sys.path: importing importlib.metadata costs more than a
    pre-commit hook's whole lint of one file, so it is imported only when there is a plugin to load."""
    marker = "[" + ENTRY_POINT_GROUP + "]"
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.endswith((".dist-info", ".egg-info")):
                try:
                    with open(os.path.join(entry or ".", name, "entry_points.txt"), encoding="utf-8") as fh:
                        if marker in fh.read():
                            return True
                except OSError:
                    continue
    return False


def _plugin_rules() -> Iterable[tuple[Any, str, str | None]]:
    """(rule class, origin, problem) for every rule an installed ``evalfmt.rules`` entry point gives."""
    if not _declares_plugins():
        return
    from importlib.metadata import entry_points

    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        origin = getattr(getattr(ep, "dist", None), "name", None) or ep.value
        try:
            obj = ep.load()
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not break the linter
            yield None, origin, f"plugin {origin}: cannot load entry point '{ep.name}': {type(exc).__name__}: {exc}"
            continue
        if isinstance(obj, type) and issubclass(obj, Rule):
            yield obj, origin, None
        elif isinstance(obj, types.ModuleType):
            for rule in rules_of(obj):
                yield rule, origin, None
        else:
            yield None, origin, f"plugin {origin}: entry point '{ep.name}' is neither a Rule subclass nor a module"


def reset() -> None:
    """Forget the cached registry (tests install plugins on the fly)."""
    global _REGISTRY
    _REGISTRY = None
