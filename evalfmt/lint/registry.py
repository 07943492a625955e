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
repository being linted. The built-in rule modules and the entry points are one
:class:`evalfmt.plugins.Registry` (:data:`PLUGINS`): the built-ins are known from a source checkout,
and a plugin that cannot be used (it fails to import, is neither a Rule subclass nor a module, or
holds a rule that is not valid) stops the command with one line naming its entry point (exit 2).
"""

from __future__ import annotations

import re
import types
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from .. import plugins as plugins_mod

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

    def check_skill(self, skill: SkillFolder, ctx: Context) -> None:  # pragma: no cover - overridden
        return None

    def finish(self, ctx: Context) -> None:
        """Called once after every set and skill was checked (for rules that compare across sets)."""
        return None

    # -------------------------------------------------------------------------------- docs

    @classmethod
    def doc(cls) -> RuleDoc:
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
    import textwrap  # 0.7 ms to import (python -X importtime): only to explain a rule (rules, sarif, hover)

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


def _is_rules(obj: object) -> bool:
    """What an ``evalfmt.rules`` entry point may point at: a Rule subclass, or a module of rules."""
    return isinstance(obj, types.ModuleType) or (isinstance(obj, type) and issubclass(obj, Rule))


#: The built-in rule modules and the ``evalfmt.rules`` entry points (a built-in is named by its module).
PLUGINS: plugins_mod.Registry[type[Rule] | types.ModuleType] = plugins_mod.Registry(
    ENTRY_POINT_GROUP, {name: name for name in BUILTIN_MODULES}, kind="rule plugin", accepts=_is_rules,
    scan_first=True)

_REGISTRY: Registry | None = None


def registry(plugins: bool = True) -> Registry:
    """The registry of built-in rules plus (unless ``plugins=False``) installed plugin rules. Raises
    :class:`evalfmt.plugins.PluginError` for a plugin that cannot be used."""
    global _REGISTRY
    if _REGISTRY is not None and plugins:
        return _REGISTRY
    reg = Registry()
    for name in BUILTIN_MODULES:
        for rule in rules_of(PLUGINS.require(name)):
            reg.add(rule)
    if not plugins:
        return reg
    for name, obj in PLUGINS.all().items():
        ep = PLUGINS.entry_point(name)
        if ep is None:
            continue  # a built-in (added above)
        origin = getattr(ep.dist, "name", None) or ep.value
        found = [obj] if isinstance(obj, type) else rules_of(obj)
        for rule in found:
            rule.origin = origin
            try:
                reg.add(rule)
            except ValueError as exc:
                raise plugins_mod.PluginError(f"rule plugin '{name}' is not usable: {exc} "
                                              f"{plugins_mod.where(ep)}") from None
    _REGISTRY = reg
    return reg


def reset() -> None:
    """Forget the cached registry and the entry points loaded (tests install plugins on the fly)."""
    global _REGISTRY
    _REGISTRY = None
    PLUGINS.reset()
