"""promptfoo's templates: nunjucks, rendered with Jinja2 (sandboxed) made to behave as nunjucks does.

nunjucks is a port of Jinja2; what differs, and is handled here:

- an undefined variable, an attribute of one, ``null`` and ``undefined`` render as nothing (``ChainableUndefined``,
  and ``finalize``); values print as JavaScript prints them (``true``, ``1`` for ``1.0``, a list as
  ``a,b``, a mapping as ``[object Object]``);
- a template keeps its trailing line break (``keep_trailing_newline``); whitespace control (``{{- x -}}``,
  ``{%- -%}``) is the same syntax;
- an empty list or mapping is true in ``{% if %}`` (JavaScript truthiness);
- the filters are nunjucks' built-in ones (the JavaScript meaning where Jinja2's differs: ``title``,
  ``dump``, ``default`` with its second argument, ...) plus ``load``, which promptfoo adds; any other
  filter (a config's ``nunjucksFilters``, Jinja2's own such as ``tojson``) is not rendered;
- ``env`` is the config's ``env`` mapping (promptfoo also reads the process environment: a variable the
  config does not set is not rendered).

What cannot be rendered statically raises :class:`Unrenderable`, whose text names the feature. Jinja2 is
imported only when a template needs more than ``{{ name }}`` substitutions (:func:`render`'s fast path),
so that validating a plain config never loads it.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from ...js import string


class Unrenderable(Exception):
    """A template (or a value it needs) evalfmt cannot render as promptfoo would: ``str()`` names why."""


_SIMPLE = re.compile(r"\{\{-?\s*([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*-?\}\}")
_TAG = re.compile(r"\{[{%#]")


def js_string(value: Any) -> str:
    """``String(value)`` in JavaScript, for the values YAML and JSON give."""
    return string(value)


def output(value: Any) -> str:
    """What nunjucks prints for ``{{ value }}`` (autoescape off)."""
    if value is None or _is_undefined(value):
        return ""
    return js_string(value)


def _is_undefined(value: Any) -> bool:
    return type(value).__name__ == "ChainableUndefined"


def render(template: str, vars_: dict, env: dict | None = None) -> str:
    """``template`` rendered with ``vars_`` as promptfoo's nunjucks renders it; :class:`Unrenderable`
    when it cannot be (see the module docstring)."""
    if not _TAG.search(template):
        return template
    if not _TAG.search(_SIMPLE.sub("", template)) and not any(
            m.group(1).split(".")[0] == "env" for m in _SIMPLE.finditer(template)):
        return _render_simple(template, vars_)
    return _render_jinja(template, vars_, env)


def _render_simple(template: str, vars_: dict) -> str:
    if "{{-" in template or "-}}" in template:  # whitespace control: Jinja2 trims as nunjucks does
        return _render_jinja(template, vars_, None)

    def one(m: re.Match) -> str:
        value: Any = vars_
        for part in m.group(1).split("."):
            value = value.get(part) if isinstance(value, dict) else None
        return output(value)

    return _SIMPLE.sub(one, template)


# ------------------------------------------------------------------------------------------- Jinja2

_ENV: Any = None


#: what one rendering may build (characters of a string or items of a list made by '*', loop rounds)
LIMIT = 1_000_000


def _environment() -> Any:
    global _ENV
    if _ENV is None:
        from jinja2 import ChainableUndefined
        from jinja2.sandbox import SandboxedEnvironment

        class _Bounded(SandboxedEnvironment):
            """No '*' or '**' that builds more than :data:`LIMIT`, no range beyond it (a template is data)."""

            intercepted_binops = frozenset(("*", "**"))

            def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
                if operator == "**" and isinstance(right, (int, float)) and abs(right) > 64:
                    raise Unrenderable("a power too large to compute")
                if operator == "*":
                    for seq, n in ((left, right), (right, left)):
                        if isinstance(seq, (str, list)) and isinstance(n, int) and len(seq) * n > LIMIT:
                            raise Unrenderable("a repetition too large to build")
                return super().call_binop(context, operator, left, right)

        env = _Bounded(autoescape=False, undefined=ChainableUndefined, keep_trailing_newline=True, finalize=output)
        env.globals["range"] = _range
        env.filters = {name: f for name, f in env.filters.items() if name in _JINJA_SAME}
        env.filters.update(_FILTERS)
        env.tests = dict(env.tests)
        _ENV = env
    return _ENV


def _render_jinja(template: str, vars_: dict, env: dict | None) -> str:
    from jinja2 import TemplateError, TemplateSyntaxError

    e = _environment()
    try:
        compiled = e.from_string(template)
    except TemplateSyntaxError as exc:
        msg = str(exc.message or "")
        m = re.search(r"No filter named '([^']+)'", msg)
        if m:
            raise Unrenderable(f"the filter '{m.group(1)}' (not one of nunjucks' built-in filters)") from None
        raise Unrenderable(f"a template evalfmt cannot parse ({msg.splitlines()[0] if msg else 'syntax'})") from None
    context = {k: _js(v) for k, v in vars_.items()}
    context["env"] = _Env(env or {})
    try:
        return compiled.render(context)
    except Unrenderable:
        raise
    except (TemplateError, ArithmeticError, LookupError, TypeError, ValueError, AttributeError,
            RecursionError) as exc:
        raise Unrenderable(f"an expression evalfmt does not evaluate as nunjucks does ({type(exc).__name__})") \
            from None


def _range(*args: Any) -> range:
    r = range(*args)
    if len(r) > LIMIT:
        raise Unrenderable("a range too large to loop over")
    return r


class _JsArray(list):
    """A JavaScript array: true even when empty."""

    def __bool__(self) -> bool:
        return True


class _JsObject(dict):
    """A JavaScript object: true even when empty; iterating one in a ``for`` is not rendered (nunjucks
    gives key/value pairs where Jinja2 gives keys)."""

    def __bool__(self) -> bool:
        return True

    def __iter__(self):
        raise Unrenderable("a '{% for %}' over a mapping")


def _js(value: Any) -> Any:
    if isinstance(value, list):
        return _JsArray(_js(v) for v in value)
    if isinstance(value, dict):
        return _JsObject({k: _js(v) for k, v in value.items()})
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in dict.items(value)}
    return None if _is_undefined(value) else value


class _Env(dict):
    """``env``: the config's ``env`` mapping; any other name is the process environment, not rendered."""

    def __getitem__(self, key: str) -> Any:
        if key in self.keys():
            return dict.__getitem__(self, key)
        raise Unrenderable(f"the environment variable 'env.{key}' (promptfoo reads the process environment)")

    def __getattr__(self, key: str) -> Any:
        return self[key]

    def __bool__(self) -> bool:
        return True


# -------------------------------------------------------------------------------- nunjucks' filters

#: Jinja2 filters whose meaning on the values of a config is nunjucks' own
_JINJA_SAME = frozenset((
    "abs", "batch", "first", "last", "length", "list", "lower", "upper", "reverse", "safe", "sum", "wordcount",
    "center", "string", "urlencode", "select", "reject", "selectattr", "rejectattr", "groupby", "dictsort",
    "striptags", "sort",
))


def _default(value: Any, default: Any = "", boolean: bool = False) -> Any:
    if boolean:
        return value if value and not _is_undefined(value) else default
    return default if value is None or _is_undefined(value) else value


def _title(value: Any) -> str:
    return " ".join(w[:1].upper() + w[1:].lower() for w in output(value).split(" "))


def _capitalize(value: Any) -> str:
    s = output(value)
    return s[:1].upper() + s[1:].lower()


def _trim(value: Any) -> str:
    return output(value).strip()


def _join(value: Any, sep: str = "", attr: Any = None) -> str:
    if not isinstance(value, list):
        raise Unrenderable("the filter 'join' on a value that is not a list (nunjucks stops with an error)")
    items = list(value)
    if attr is not None:
        items = [v.get(attr) if isinstance(v, dict) else None for v in items]
    return sep.join("" if v is None or _is_undefined(v) else js_string(_plain(v)) for v in items)


def _replace(value: Any, old: Any, new: Any, maxcount: Any = -1) -> str:
    s = output(value)
    if not isinstance(old, str):
        raise Unrenderable("the filter 'replace' with a regular expression")
    count = int(maxcount) if isinstance(maxcount, (int, float)) else -1
    return s.replace(old, js_string(new), count)


def _dump(value: Any, indent: Any = None) -> str:
    plain = _plain(value)
    if isinstance(indent, int) and indent > 0:
        return json.dumps(plain, ensure_ascii=False, indent=indent)
    return json.dumps(plain, ensure_ascii=False, separators=(",", ":"))


def _load(value: Any) -> Any:
    try:
        return _js(json.loads(output(value)))
    except ValueError:
        raise Unrenderable("the filter 'load' on text that is not JSON") from None


def _int(value: Any, default: int = 0) -> int:
    try:
        return int(float(output(value)))
    except ValueError:
        return default


def _float(value: Any, default: float = 0.0) -> float:
    try:
        return float(output(value))
    except ValueError:
        return default


def _round(value: Any, precision: int = 0, method: str = "common") -> Any:
    factor = 10 ** precision
    x = float(value) * factor
    r = math.floor(x) if method == "floor" else math.ceil(x) if method == "ceil" else math.floor(x + 0.5)
    return r / factor if precision else r


def _truncate(value: Any, length: int = 255, killwords: bool = False, end: str = "...") -> str:
    s = output(value)
    if len(s) <= length:
        return s
    if killwords:
        return s[:length] + end
    cut = s.rfind(" ", 0, length)
    return (s[:cut] if cut >= 0 else s[:length]) + end


def _indent(value: Any, width: int = 4, first: bool = False) -> str:
    lines = output(value).split("\n")
    pad = " " * width
    return "\n".join((pad + line if (i or first) and line else line) for i, line in enumerate(lines))


def _escape(value: Any) -> str:
    return (output(value).replace("&", "&amp;").replace('"', "&quot;").replace("'", "&#39;")
            .replace("<", "&lt;").replace(">", "&gt;"))


def _nl2br(value: Any) -> str:
    return re.sub(r"\r\n|\n", "<br />\n", output(value))


def _not_rendered(name: str) -> Any:
    def f(*_a: Any, **_k: Any) -> Any:
        raise Unrenderable(f"the filter '{name}' (its result is not the same on each run)")
    return f


_FILTERS = {
    "default": _default, "d": _default, "title": _title, "capitalize": _capitalize, "trim": _trim, "join": _join,
    "replace": _replace, "dump": _dump, "load": _load, "int": _int, "float": _float, "round": _round,
    "truncate": _truncate, "indent": _indent, "escape": _escape, "e": _escape, "nl2br": _nl2br,
    "random": _not_rendered("random"),
}
