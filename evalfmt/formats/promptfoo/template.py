"""promptfoo's templates: nunjucks, rendered with Jinja2 (sandboxed) made to mean what nunjucks means.

nunjucks is a port of Jinja2; its templates parse as Jinja2 templates, but it compiles each expression to
JavaScript. Jinja2 runs the template here with nunjucks' meanings put in (:mod:`.nunjucks`, :mod:`.jsops`):

- values are JavaScript's: ``undefined`` and ``null`` print nothing, ``1.0`` prints ``1``, a list ``a,b``, a
  mapping ``[object Object]``; ``[]`` and ``{}`` are true; ``s.length`` and ``xs.length`` are lengths, ``xs[-1]``
  is undefined; ``~`` and ``+`` join text as JavaScript's ``+`` does (``"a" ~ missing`` is ``aundefined``),
  ``==`` is JavaScript's loose equality (``1 == "1"``), ``<`` compares as JavaScript does, ``-7 % 3`` is ``-1``;
- ``true``/``false``/``none``/``null`` are the literals, ``True``/``False``/``None`` (names nunjucks reads as
  undefined variables) are not rendered; so are string escapes and number forms nunjucks reads otherwise
  (``'\\u00e9'``, ``0x1F``, ``1e3``);
- ``{% for %}`` iterates as nunjucks' compiled loop does (characters of a string, nothing for a number, key and
  value of an object with two names), ``{% else %}`` when it did not iterate;
- the filters, tests and globals are nunjucks' own (plus ``load``, which promptfoo adds), computed as
  nunjucks computes them;
- the template keeps its trailing line break; whitespace control (``{{- x -}}``) is the same syntax.

What Jinja2 reads and nunjucks does not (``{% with %}``, slices ``s[1:3]``, tuples, ``{% for x in xs if c %}``,
filters and tests nunjucks does not have, includes), a variable set inside a loop that is also set outside
it (nunjucks changes the outer one, Jinja2 does not), and what evalfmt cannot compute (a JavaScript method,
the process environment) raise :class:`Unrenderable`, whose text names the feature.

Every rendering is bounded (:class:`~.nunjucks.Budget`: steps, characters, values of at most a million
characters or items): a template that would loop or recurse past it, or print more, is not rendered.

Jinja2 is imported only when a template needs more than ``{{ name }}`` substitutions (:func:`render`'s fast
path), so that validating a plain config never loads it.
"""

from __future__ import annotations

import re
from typing import Any
from collections.abc import Callable

from ...js import UNDEFINED
from . import jsops
from . import nunjucks as nj
from .nunjucks import LIMIT, Budget, Unrenderable

__all__ = ["Budget", "LIMIT", "Unrenderable", "js_string", "output", "render"]

_SIMPLE = re.compile(r"\{\{-?\s*([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*-?\}\}")
_TAG = re.compile(r"\{[{%#]")
#: names the fast path leaves to Jinja2: the config's env, nunjucks' literals and Python's
_NOT_SIMPLE = frozenset(("env", "true", "false", "none", "null", "True", "False", "None"))


def js_string(value: Any) -> str:
    """``String(value)`` in JavaScript, for the values YAML and JSON give."""
    return jsops.to_string(value)


def output(value: Any) -> str:
    """What nunjucks prints for ``{{ value }}`` (autoescape off)."""
    return nj.output(value)


def render(template: str, vars_: dict[str, Any], env: dict[str, Any] | None = None,
           budget: Budget | None = None) -> str:
    """``template`` rendered with ``vars_`` as promptfoo's nunjucks renders it; :class:`Unrenderable` when it
    cannot be (see the module docstring). ``budget``: the config's, which every rendering draws from."""
    if not _TAG.search(template):
        return template
    mine = (budget or Budget()).child()
    token = nj.CURRENT.set(mine)
    try:
        if "{{-" not in template and "-}}" not in template and not _TAG.search(_SIMPLE.sub("", template)) \
                and not any(m.group(1).split(".")[0] in _NOT_SIMPLE for m in _SIMPLE.finditer(template)):
            return _render_simple(template, vars_)
        return _render_jinja(template, vars_, env)
    finally:
        nj.CURRENT.reset(token)


def _render_simple(template: str, vars_: dict[str, Any]) -> str:
    """``{{ name }}`` / ``{{ a.b }}`` substitutions only (every printed value charged to the budget)."""
    def one(m: re.Match[str]) -> str:
        parts = m.group(1).split(".")
        value: Any = vars_.get(parts[0], UNDEFINED)
        for part in parts[1:]:
            value = nj.member(value, part)
        return nj.output(value)

    return _SIMPLE.sub(one, template)


# ------------------------------------------------------------------------------------------- Jinja2

_ENV: Any = None
_COMPILED: dict[str, Any] = {}
_MISSING: Any = None


def _environment() -> Any:
    global _ENV, _MISSING
    if _ENV is None:
        from jinja2.utils import missing  # jinja2: only for a template beyond '{{ name }}' (see _build_environment)

        _MISSING = missing
        _ENV = _build_environment()
    return _ENV


def _build_environment() -> Any:
    # jinja2 (and template_ast, which needs it): 19 ms to import (python -X importtime), only for a template
    # beyond '{{ name }}' substitutions; validating a plain promptfoo config never loads it
    from jinja2 import ChainableUndefined, pass_context
    from jinja2.runtime import LoopContext
    from jinja2.sandbox import SandboxedEnvironment

    class _Nunjucks(SandboxedEnvironment):
        """Jinja2's sandbox with nunjucks' operators, member lookup and calls."""

        intercepted_binops = frozenset(("+", "-", "*", "/", "//", "%", "**"))
        intercepted_unops = frozenset(("+", "-"))

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            nj.spend()
            a, b = nj.norm(left), nj.norm(right)
            return nj.sized(jsops.add(a, b) if operator == "+" else jsops.arith(operator, a, b))

        def call_unop(self, context: Any, operator: str, arg: Any) -> Any:
            nj.spend()
            return jsops.negate(nj.norm(arg)) if operator == "-" else jsops.to_number(nj.norm(arg))

        def getattr(self, obj: Any, attribute: str) -> Any:
            return self._member(obj, attribute)

        def getitem(self, obj: Any, argument: Any) -> Any:
            return self._member(obj, argument)

        def _member(self, obj: Any, key: Any) -> Any:
            if isinstance(obj, _Env):
                return obj.lookup(key)
            value = nj.member(obj, key)
            if value is not nj.NOT_DATA:
                return value
            if isinstance(obj, LoopContext):
                return getattr(obj, key) if key in _LOOP else UNDEFINED
            return super().getattr(obj, key) if isinstance(key, str) else UNDEFINED

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
            nj.spend()
            if nj.undefined(__obj) or __obj is None or nj.is_data(__obj):
                raise Unrenderable("calling a value that is not a function (nunjucks stops with an error)")
            return nj.sized(super().call(__context, __obj, *args, **kwargs))

    env = _Nunjucks(autoescape=False, undefined=ChainableUndefined, keep_trailing_newline=True,
                    finalize=nj.output)
    env.globals.clear()
    env.globals.update(nj.GLOBALS)
    env.filters = dict(nj.FILTERS)
    env.tests = dict(nj.TESTS)
    for name, fn in _HIDDEN.items():
        env.filters[name] = pass_context(fn)
    return env


#: the names of nunjucks' loop object
_LOOP = frozenset(("index", "index0", "revindex", "revindex0", "first", "last", "length"))


class _Env(dict[str, Any]):
    """``env``: the config's ``env`` mapping; any other name is the process environment, not rendered."""

    def lookup(self, key: Any) -> Any:
        k = nj.norm(key)
        if isinstance(k, str) and k in self:
            return dict.__getitem__(self, k)
        raise Unrenderable(f"the environment variable 'env.{jsops.to_string(k)}' (promptfoo reads the process "
                           "environment)")

    def __bool__(self) -> bool:
        return True


def _concat(_ctx: Any, parts: list[Any]) -> str:
    nj.spend(len(parts))
    return nj.sized("".join(jsops.to_string(nj.norm(p)) for p in parts))


def _compare(_ctx: Any, items: list[Any]) -> Any:
    """``a op b op c ...`` as JavaScript evaluates it (left to right: ``1 < 2 < 3`` compares ``true < 3``)."""
    nj.spend(len(items))
    acc = nj.norm(items[0])
    for k in range(1, len(items), 2):
        op, right = items[k], nj.norm(items[k + 1])
        if op in ("in", "notin"):
            found = nj.in_operator(acc, right)
            acc = found if op == "in" else not found
        else:
            acc = jsops.compare(op, acc, right)
    return acc


def _iter(_ctx: Any, value: Any, names: int, body: int) -> list[Any]:
    return nj.iterate(value, names, body)


def _lookup(ctx: Any, value: Any, name: str) -> Any:
    """A name's value as nunjucks looks it up: where the frames give undefined, the context's (the vars)."""
    if not nj.undefined(value):
        return value
    found = ctx.resolve_or_missing(name)
    return UNDEFINED if found is _MISSING or nj.undefined(found) else found


_HIDDEN: dict[str, Callable[..., Any]] = {
    "__concat": _concat, "__compare": _compare, "__iter": _iter, "__lookup": _lookup,
    "__array": lambda _ctx, v: nj.JsArray(v), "__object": lambda _ctx, v: nj.JsObject(v)}


def _render_jinja(template: str, vars_: dict[str, Any], env: dict[str, Any] | None) -> str:
    from jinja2 import TemplateError  # jinja2: only for a template beyond '{{ name }}'

    compiled = _compiled(template)
    context = {k: nj.js_value(v) for k, v in vars_.items()}
    context["env"] = _Env(env or {})
    try:
        out = []
        size = 0
        for chunk in compiled.generate(context):
            size += len(chunk)
            if size > LIMIT:
                raise Unrenderable(f"a template that prints more than {LIMIT} characters")
            out.append(chunk)
        return "".join(out)
    except Unrenderable:
        raise
    except jsops.NotComputed as exc:
        raise Unrenderable(str(exc)) from None
    except (TemplateError, ArithmeticError, LookupError, TypeError, ValueError, AttributeError,
            RecursionError, MemoryError) as exc:
        raise Unrenderable(f"an expression evalfmt does not evaluate as nunjucks does ({type(exc).__name__})") \
            from None


def _compiled(template: str) -> Any:
    found = _COMPILED.get(template)
    if found is not None:
        return found
    if len(template) > LIMIT // 10:
        raise Unrenderable(f"a template of more than {LIMIT // 10} characters with tags (Jinja2 would compile it "
                           "whole)")
    from jinja2 import TemplateSyntaxError  # jinja2: only for a template beyond '{{ name }}'

    from .template_ast import check_tokens, parse, prepare  # imports jinja2: the same

    e = _environment()
    try:
        check_tokens(e, template)
        tree = parse(e, template)
        prepare(tree, e)
        compiled = e.from_string(tree)
    except TemplateSyntaxError as exc:
        msg = str(exc.message or "")
        raise Unrenderable(f"a template evalfmt cannot parse ({msg.splitlines()[0] if msg else 'syntax'})") from None
    except RecursionError:
        raise Unrenderable("a template nested too deeply to parse") from None
    if len(_COMPILED) >= 256:
        _COMPILED.clear()
    _COMPILED[template] = compiled
    return compiled
