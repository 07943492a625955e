"""nunjucks' run-time meaning (nunjucks 3.2.4, which promptfoo 0.123.1 renders with) on the values of a
promptfoo config: member lookup (``a.b``, ``a[0]``, ``s.length``), what a ``{% for %}`` iterates, what
``{{ }}`` prints, the built-in filters and tests and the globals ``range``, ``cycler`` and ``joiner``, each as
nunjucks' JavaScript computes it. :mod:`.template` runs templates with Jinja2 and puts these in place of
Jinja2's Python meanings.

Where nunjucks' JavaScript stops with an error (``upper`` of a number: ``str.toUpperCase is not a function``)
or where evalfmt does not compute what it would (a JavaScript method such as ``name.toUpperCase()``), the
value raises :class:`Unrenderable`, whose text names why: promptfoo would fail that run, or evalfmt cannot
say what it sends, and either way the run is reported rather than guessed.

:class:`Budget` bounds the work of one rendering (steps and characters) and of one config; every filter,
lookup, loop and value built here charges it, so no template renders forever or builds a value past
:data:`LIMIT` characters or items.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import math
import re
from typing import Any, TypeVar
from collections.abc import Callable

from ... import js
from ...js import UNDEFINED
from . import jsops
from .jsops import NAN


class Unrenderable(Exception):
    """A template (or a value it needs) evalfmt cannot render as promptfoo would: ``str()`` names why."""


#: the most characters (or items) one value may hold (the size limit of a file, by default)
LIMIT = 10_000_000
#: the most steps (lookups, operations, calls, loop rounds) one rendering may take
STEPS = 2_000_000
#: the most characters one rendering may build (every value made and printed counts)
CHARS = 5 * LIMIT


class Budget:
    """What renderings may still spend: steps and characters built (a config's budget is shared by its
    renderings; each rendering also has its own, :meth:`child`)."""

    def __init__(self, steps: int = STEPS, chars: int = CHARS, parent: Budget | None = None):
        self.steps = steps
        self.chars = chars
        self.parent = parent

    def child(self) -> Budget:
        return Budget(min(STEPS, self.steps), min(CHARS, self.chars), self)

    def spend(self, steps: int = 1, chars: int = 0) -> None:
        b: Budget | None = self
        while b is not None:
            b.steps -= steps
            b.chars -= chars
            if b.steps < 0 or b.chars < 0:
                raise Unrenderable(f"a template that runs past evalfmt's bounds (more than {STEPS} steps or "
                                   f"{CHARS} characters built: a loop or recursion too large)")
            b = b.parent


#: the budget of the rendering under way
CURRENT: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("nunjucks_budget", default=None)


def spend(steps: int = 1, chars: int = 0) -> None:
    budget = CURRENT.get()
    if budget is not None:
        budget.spend(steps, chars)


_T = TypeVar("_T")


def sized(value: _T) -> _T:
    """``value``, a value just built, when it is within :data:`LIMIT` characters or items (charged to the
    budget); Unrenderable otherwise."""
    if isinstance(value, (str, list, dict)):
        if len(value) > LIMIT:
            raise Unrenderable(f"a value too large to build (more than {LIMIT} characters or items)")
        spend(0, len(value))
    return value


# ------------------------------------------------------------------------------------------- values


class JsArray(list[Any]):
    """A JavaScript array: true even when empty."""

    def __bool__(self) -> bool:
        return True


class JsObject(dict[str, Any]):
    """A JavaScript object: true even when empty."""

    def __bool__(self) -> bool:
        return True


class SafeString:
    """nunjucks' ``SafeString`` (what ``escape`` and ``safe`` return): an object holding text (``val``), true even
    when empty, with a ``length`` and String's methods but no indexed characters; it prints as its text."""

    __slots__ = ("val",)

    def __init__(self, val: str):
        self.val = val

    def __bool__(self) -> bool:
        return True

    def js_primitive(self) -> str:
        return self.val


def undefined(v: Any) -> bool:
    """``v === undefined`` (evalfmt's :data:`~evalfmt.js.UNDEFINED`, or a Jinja2 undefined value)."""
    return v is UNDEFINED or (type(v).__module__.startswith("jinja2") and "Undefined" in type(v).__name__)


def norm(v: Any) -> Any:
    """A value as the JavaScript operators take it (a Jinja2 undefined value is ``undefined``)."""
    return UNDEFINED if undefined(v) else v


def js_value(value: Any) -> Any:
    """A config's value as a template sees it (arrays and objects true when empty)."""
    if isinstance(value, list) and not isinstance(value, JsArray):
        return JsArray(js_value(v) for v in value)
    if isinstance(value, dict) and not isinstance(value, JsObject):
        return JsObject({k: js_value(v) for k, v in value.items()})
    return value


def plain(value: Any) -> Any:
    """A template value as data (undefined as None in lists, left out of objects, as JSON.stringify does)."""
    if isinstance(value, SafeString):
        return {"val": value.val, "length": sum(js.utf16_len(c) for c in value.val)}
    if isinstance(value, list):
        return [None if undefined(v) else plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in dict.items(value) if not undefined(v)}
    return UNDEFINED if undefined(value) else value


def is_data(v: Any) -> bool:
    return v is None or undefined(v) or isinstance(v, (bool, int, float, str, list, dict, SafeString))


class JsMethod:
    """A JavaScript method of a value (``s.toUpperCase``): evalfmt does not run it."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self, *_a: Any, **_k: Any) -> Any:
        raise Unrenderable(f"a JavaScript method ('.{self.name}()')")


_STRING_METHODS = frozenset(
    "at charAt charCodeAt codePointAt concat endsWith includes indexOf lastIndexOf localeCompare match matchAll "
    "normalize padEnd padStart repeat replace replaceAll search slice split startsWith substr substring "
    "toLocaleLowerCase toLocaleUpperCase toLowerCase toString toUpperCase trim trimEnd trimStart valueOf".split())
_ARRAY_METHODS = frozenset(
    "at concat copyWithin entries every fill filter find findIndex findLast findLastIndex flat flatMap forEach "
    "includes indexOf join keys lastIndexOf map pop push reduce reduceRight reverse shift slice some sort splice "
    "toLocaleString toReversed toSorted toSpliced toString unshift values with".split())
_NUMBER_METHODS = frozenset("toExponential toFixed toLocaleString toPrecision toString valueOf".split())
_OBJECT_METHODS = frozenset(
    "constructor hasOwnProperty isPrototypeOf propertyIsEnumerable toLocaleString toString valueOf __proto__ "
    "__defineGetter__ __defineSetter__ __lookupGetter__ __lookupSetter__".split())


def _index(key: Any) -> int | None:
    """The array index a property key names (``0``, ``"1"``, ``2.0``), or None."""
    if isinstance(key, bool):
        return None
    if isinstance(key, int) or (isinstance(key, float) and key.is_integer()):
        return int(key) if 0 <= key < 2**32 - 1 else None
    if isinstance(key, str) and key.isdigit() and key.isascii() and (key == "0" or key[0] != "0"):
        return int(key) if int(key) < 2**32 - 1 else None
    return None


def _key(key: Any) -> str:
    """A property key as JavaScript makes it (``o[1]`` is ``o["1"]``)."""
    return key if isinstance(key, str) else jsops.to_string(norm(key))


#: what :func:`member` gives for a value that is not data (a macro, a loop, a cycler): Jinja2 looks it up
NOT_DATA = object()


def member(obj: Any, key: Any) -> Any:
    """``runtime.memberLookup(obj, key)``: ``undefined`` on null or undefined, ``length`` and indices of
    strings and arrays, an object's own keys; a JavaScript method is a :class:`JsMethod`."""
    spend()
    obj, key = norm(obj), norm(key)
    if obj is None or obj is UNDEFINED:
        return UNDEFINED
    if isinstance(obj, str):
        return _string_member(obj, key)
    if isinstance(obj, SafeString):
        k = _key(key)
        if k in ("val", "length"):
            return obj.val if k == "val" else _string_member(obj.val, "length")
        return JsMethod(k) if k in _STRING_METHODS | _OBJECT_METHODS else UNDEFINED
    if isinstance(obj, list):
        i = _index(key)
        if i is not None:
            return obj[i] if i < len(obj) else UNDEFINED
        k = _key(key)
        return len(obj) if k == "length" else JsMethod(k) if k in _ARRAY_METHODS | _OBJECT_METHODS else UNDEFINED
    if isinstance(obj, dict):
        k = _key(key)
        if k in obj:
            return obj[k]
        return JsMethod(k) if k in _OBJECT_METHODS else UNDEFINED
    if isinstance(obj, (bool, int, float)):
        k = _key(key)
        methods = _NUMBER_METHODS if not isinstance(obj, bool) else frozenset(("toString", "valueOf"))
        return JsMethod(k) if k in methods | _OBJECT_METHODS else UNDEFINED
    return NOT_DATA


def _string_member(s: str, key: Any) -> Any:
    i = _index(key)
    if i is not None:
        if not all(ord(c) < 0x10000 for c in s):
            raise Unrenderable("indexing text that holds characters outside the Basic Multilingual Plane")
        return s[i] if i < len(s) else UNDEFINED
    k = _key(key)
    if k == "length":
        return sum(js.utf16_len(c) for c in s)
    return JsMethod(k) if k in _STRING_METHODS | _OBJECT_METHODS else UNDEFINED


def iterate(value: Any, names: int, body: int = 0) -> list[Any]:
    """What ``{% for a in value %}`` (``names`` 1) or ``{% for a, b in value %}`` iterates (nunjucks' compiled
    loop): the items of an array, the characters of a string; with several names, each item's ``[0]``,
    ``[1]``... or an object's keys and values; nothing for anything else. ``body``: the characters of text the
    loop's body prints each round (charged to the budget with the rounds)."""
    v = norm(value)
    if not jsops.to_boolean(v):
        return []
    if isinstance(v, SafeString):  # (fromIterator: Array.from, through String's iterator)
        v = list(v.val)
    if isinstance(v, str):
        items: list[Any] = list(v) if names == 1 else [(str(i), c, *[UNDEFINED] * (names - 2)) for i, c in enumerate(v)]
    elif isinstance(v, list):
        if names > 1 and any(x is None or undefined(x) for x in v):
            raise Unrenderable("a '{% for a, b %}' over a list holding null (nunjucks stops with an error)")
        items = list(v) if names == 1 else [tuple(member(x, u) for u in range(names)) for x in v]
    elif isinstance(v, dict) and names > 1:
        items = [(k, v[k], *[UNDEFINED] * (names - 2)) for k in js.own_keys(v)]
    else:
        items = []
    spend(len(items) * (1 + names), len(items) * body)
    return items


def output(value: Any) -> str:
    """What ``{{ value }}`` prints (``suppressValue``, then string concatenation)."""
    v = norm(value)
    if v is None or v is UNDEFINED:
        return ""
    if isinstance(v, SafeString):
        v = v.val
    if isinstance(v, JsMethod) or (callable(v) and not isinstance(v, (list, dict, str))):
        raise Unrenderable("printing a function (nunjucks prints its JavaScript source)")
    text = jsops.to_string(v) if is_data(v) else "[object Object]"
    spend(1, len(text))
    return text


# ------------------------------------------------------------------------------------------ filters


def _fail(name: str, value: Any) -> Unrenderable:
    return Unrenderable(f"the filter '{name}' on {_describe(value)} (nunjucks stops with an error)")


def _describe(v: Any) -> str:
    kind = jsops.kind(norm(v))
    if kind == "object":
        return "a list" if isinstance(v, list) else "a mapping" if isinstance(v, dict) else "an object"
    return {"undefined": "an undefined value", "null": "null", "boolean": "a boolean", "number": "a number",
            "string": "text"}[kind]


def _normalize(value: Any, default: Any) -> Any:
    return default if value is None or value is UNDEFINED or value is False else value


def _text(name: str, value: Any, default: Any = "") -> str:
    """A filter's string argument after nunjucks' ``normalize`` (a SafeString's text); Unrenderable when it is
    neither a string nor a SafeString (String's methods are not there)."""
    v = _normalize(value, default)
    if isinstance(v, SafeString):
        return v.val
    if not isinstance(v, str):
        raise _fail(name, value)
    return str(v)


def _kept(original: Any, text: str) -> str | SafeString:
    """``copySafeness(original, text)``: a SafeString when ``original`` is one, else the text."""
    return SafeString(text) if isinstance(original, SafeString) else text


def _repeat(ch: str, n: Any) -> str:
    count = math.ceil(jsops.to_number(n)) if not math.isnan(jsops.to_number(n)) else 0
    return sized(ch * max(0, min(count, LIMIT + 1)))


def _abs(v: Any) -> Any:
    return jsops.number(abs(jsops.to_number(v)))


def _batch(arr: Any, linecount: Any = UNDEFINED, fill: Any = UNDEFINED) -> list[list[Any]]:
    if arr is None or arr is UNDEFINED:
        raise _fail("batch", arr)
    items = _indexed(arr)
    res: list[list[Any]] = []
    tmp: list[Any] = []
    for i, x in enumerate(items):
        if tmp and jsops.strict_equals(jsops.arith("%", i, linecount), 0):
            res.append(tmp)
            tmp = []
        tmp.append(x)
    if tmp:
        if jsops.to_boolean(fill):
            n = jsops.to_number(linecount)
            while not math.isnan(n) and len(tmp) < min(n, LIMIT + 1):
                spend()
                tmp.append(fill)
        res.append(tmp)
    return res


def _indexed(arr: Any) -> list[Any]:
    """``arr[0] .. arr[arr.length - 1]`` (a loop up to a length, as nunjucks' filters loop)."""
    n = member(arr, "length")
    if not isinstance(n, int) or isinstance(n, bool):
        return []
    return list(arr) if isinstance(arr, (list, str)) else [member(arr, i) for i in range(min(n, LIMIT + 1))]


def _capitalize(s: Any) -> Any:
    t = _text("capitalize", s).lower()
    return _kept(_normalize(s, ""), t[:1].upper() + t[1:])


def _center(s: Any, width: Any = UNDEFINED) -> Any:
    v = _normalize(s, "")
    w = width if jsops.to_boolean(width) else 80
    n = member(v, "length")
    if jsops.compare(">=", n, w):
        return v
    spaces = jsops.arith("-", w, n)
    return _kept(v, _repeat(" ", jsops.arith("-", jsops.arith("/", spaces, 2), jsops.arith("%", spaces, 2))) +
                 _string_method("center", v) + _repeat(" ", jsops.arith("/", spaces, 2)))


def _default(value: Any, default: Any = UNDEFINED, boolean: Any = False) -> Any:
    if jsops.to_boolean(boolean):
        return value if jsops.to_boolean(value) else default
    return default if value is UNDEFINED else value


def _sort_key(cmp: Callable[[Any, Any], int]) -> Any:
    return functools.cmp_to_key(cmp)


def _dictsort(val: Any, case_sensitive: Any = False, by: Any = UNDEFINED) -> list[JsArray]:
    if not isinstance(val, dict):
        raise _fail("dictsort", val)
    if by is UNDEFINED or by == "key":
        si = 0
    elif by == "value":
        si = 1
    else:
        raise Unrenderable("the filter 'dictsort' sorting by something other than 'key' or 'value' (nunjucks "
                           "stops with an error)")
    pairs = [JsArray([k, val[k]]) for k in js.own_keys(val)]

    def cmp(t1: Any, t2: Any) -> int:
        a, b = t1[si], t2[si]
        if not jsops.to_boolean(case_sensitive):
            a = a.upper() if isinstance(a, str) else a
            b = b.upper() if isinstance(b, str) else b
        return 1 if jsops.less_than(b, a) else 0 if jsops.strict_equals(a, b) else -1
    spend(len(pairs) * max(1, int(math.log2(len(pairs) + 1))))
    return sorted(pairs, key=_sort_key(cmp))


def _dump(value: Any, spaces: Any = UNDEFINED) -> Any:
    v = plain(value)
    if v is UNDEFINED or isinstance(v, JsMethod):
        return UNDEFINED
    if isinstance(spaces, str) and spaces:
        raise Unrenderable("the filter 'dump' indented with text")
    n = jsops.to_number(spaces) if spaces is not UNDEFINED and spaces is not None else 0
    indent = min(10, int(n)) if not math.isnan(n) and n >= 1 else None
    return sized(js.stringify(v, indent))


_ESCAPES = {"&": "&amp;", '"': "&quot;", "'": "&#39;", "<": "&lt;", ">": "&gt;", "\\": "&#92;"}


def _escape(s: Any) -> Any:
    if isinstance(s, SafeString):
        return s
    return _forceescape(s)


def _forceescape(s: Any) -> Any:
    text = "" if s is None or s is UNDEFINED else _string_method("escape", s)
    return SafeString(re.sub(r"[&\"'<>\\]", lambda m: _ESCAPES[m.group(0)], text))


def _safe(s: Any) -> Any:
    if isinstance(s, SafeString):
        return s
    return SafeString("" if s is None or s is UNDEFINED else _string_method("safe", s))


def _string_method(name: str, v: Any) -> str:
    """``v.toString()`` (a TypeError on null and undefined)."""
    if v is None or v is UNDEFINED:
        raise _fail(name, v)
    if isinstance(v, JsMethod):
        raise Unrenderable(f"the filter '{name}' on a JavaScript function")
    if isinstance(v, SafeString):
        return v.val
    return jsops.to_string(v) if is_data(v) else "[object Object]"


def _first(arr: Any) -> Any:
    if arr is None or arr is UNDEFINED:
        raise _fail("first", arr)
    return member(arr, 0)


def _last(arr: Any) -> Any:
    if arr is None or arr is UNDEFINED:
        raise _fail("last", arr)
    return member(arr, jsops.arith("-", member(arr, "length"), 1))


def _attr_getter(attr: Any) -> Callable[[Any], Any]:
    parts = attr.split(".") if isinstance(attr, str) else [attr]

    def get(item: Any) -> Any:
        for p in parts:
            item = member(item, p)
        return item
    return get


def _groupby(arr: Any, attr: Any) -> dict[str, Any]:
    if arr is None or arr is UNDEFINED:
        raise _fail("groupby", arr)
    get = _attr_getter(attr)
    out: dict[str, JsArray] = {}
    for x in (list(arr) if isinstance(arr, (list, str)) else []):
        out.setdefault(jsops.to_string(norm(get(x))), JsArray()).append(x)
    return JsObject(out)


def _indent(s: Any, width: Any = UNDEFINED, indentfirst: Any = False) -> str | SafeString:
    if _normalize(s, "") == "":
        return ""
    t = _text("indent", s)
    sp = _repeat(" ", width if jsops.to_boolean(width) else 4)
    lines = t.split("\n")
    return _kept(_normalize(s, ""), sized("\n".join(line if i == 0 and not jsops.to_boolean(indentfirst) else
                                                     sp + line for i, line in enumerate(lines))))


def _join(arr: Any, sep: Any = UNDEFINED, attr: Any = UNDEFINED) -> str:
    if jsops.to_boolean(attr):
        if arr is None or arr is UNDEFINED:
            return ""
        arr = [member(v, attr) for v in (list(arr) if isinstance(arr, (list, str)) else [])]
    if not isinstance(arr, list):
        raise _fail("join", arr)
    d = jsops.to_string(sep) if jsops.to_boolean(sep) else ""
    spend(len(arr))
    return sized(d.join("" if v is None or undefined(v) else jsops.to_string(norm(v)) for v in arr))


def _length(val: Any) -> Any:
    v = _normalize(val, "")
    if isinstance(v, SafeString):
        return member(v, "length")
    if isinstance(v, dict):
        return len(v)
    if isinstance(v, (str, list)):
        return member(v, "length")
    return UNDEFINED


def _list(val: Any) -> list[Any]:
    if isinstance(val, str):
        return JsArray(val)
    if isinstance(val, dict):
        return JsArray(JsObject({"key": k, "value": val[k]}) for k in js.own_keys(val))
    if isinstance(val, list):
        return val
    if isinstance(val, SafeString):
        return JsArray(JsObject({"key": k, "value": v}) for k, v in plain(val).items())
    raise _fail("list", val)


def _lower(s: Any) -> str:
    return _text("lower", s).lower()


def _upper(s: Any) -> str:
    return _text("upper", s).upper()


def _nl2br(s: Any) -> Any:
    if s is None or s is UNDEFINED:
        return ""
    if not isinstance(s, (str, SafeString)):
        raise _fail("nl2br", s)
    return _kept(s, re.sub(r"\r\n|\n", "<br />\n", _text("nl2br", s)))


def _select(expected: bool) -> Callable[..., list[Any]]:
    def f(arr: Any, test: Any = "truthy", second: Any = UNDEFINED) -> list[Any]:
        fn = TESTS.get(test) if isinstance(test, str) else None
        if fn is None:
            raise Unrenderable(f"the test '{jsops.to_string(norm(test))}' (not one of nunjucks' tests)")
        if arr is None or arr is UNDEFINED:
            raise _fail("select" if expected else "reject", arr)
        items = list(arr) if isinstance(arr, (list, str)) else []
        spend(len(items))
        return JsArray(x for x in items if fn(x, second) is expected)
    return f


def _selectattr(expected: bool) -> Callable[..., list[Any]]:
    def f(arr: Any, attr: Any = UNDEFINED) -> list[Any]:
        if not isinstance(arr, list):
            raise _fail("selectattr" if expected else "rejectattr", arr)
        spend(len(arr))
        return JsArray(x for x in arr if jsops.to_boolean(member(x, attr)) is expected)
    return f


def _replace(s: Any, old: Any = UNDEFINED, new: Any = UNDEFINED, maxcount: Any = UNDEFINED) -> Any:
    if isinstance(old, (int, float)) and not isinstance(old, bool):
        old = jsops.to_string(old)
    elif not isinstance(old, str):
        return s
    original = s
    if isinstance(s, (int, float)) and not isinstance(s, bool):
        s = jsops.to_string(s)
    if isinstance(s, SafeString):
        s = s.val
    if not isinstance(s, str):
        return s
    new_text = jsops.to_string(norm(new))
    if old == "":
        sep = "," if new is UNDEFINED else new_text
        return _kept(original, sized(new_text + sep.join(s) + new_text))
    limit = -1 if maxcount is UNDEFINED else maxcount
    if jsops.strict_equals(limit, 0) or old not in s:
        return original if isinstance(original, SafeString) else s
    out, pos, count = [], 0, 0
    at = s.find(old)
    while at > -1 and (jsops.strict_equals(limit, -1) or jsops.less_than(count, limit)):
        out.append(s[pos:at] + new_text)
        pos, count = at + len(old), count + 1
        spend(1, len(new_text))
        at = s.find(old, pos)
    return _kept(original, sized("".join(out) + s[pos:]))


def _reverse(val: Any) -> Any:
    if isinstance(val, str):
        return val[::-1]
    return JsArray(reversed(_indexed(val) if val is not None and val is not UNDEFINED else []))


def _round(val: Any, precision: Any = 0, method: Any = "common") -> Any:
    p = precision if jsops.to_boolean(precision) else 0
    factor = jsops.arith("**", 10, p)
    x = jsops.arith("*", val, factor)
    if math.isnan(x) or math.isinf(x):
        return x
    r = math.ceil(x) if method == "ceil" else math.floor(x) if method == "floor" else math.floor(x + 0.5)
    return jsops.arith("/", r, factor)


def _slice(arr: Any, slices: Any = UNDEFINED, fill: Any = UNDEFINED) -> list[Any]:
    if not isinstance(arr, list):
        raise Unrenderable("the filter 'slice' on something other than a list")
    n = jsops.to_number(slices)
    if math.isnan(n) or n < 1 or n > LIMIT:
        raise Unrenderable("the filter 'slice' into a number of parts evalfmt does not compute")
    count = int(math.ceil(n))
    size, extra = len(arr) // count, len(arr) % count
    res, offset = [], 0
    for i in range(count):
        start = offset + i * size
        if i < extra:
            offset += 1
        part = JsArray(arr[start:offset + (i + 1) * size])
        if jsops.to_boolean(fill) and i >= extra:
            part.append(fill)
        res.append(part)
    return JsArray(res)


def _sort(arr: Any, reverse: Any = False, case_sensitive: Any = False, attribute: Any = UNDEFINED) -> list[Any]:
    items = _indexed(arr) if arr is not None and arr is not UNDEFINED else []
    get = _attr_getter(attribute) if jsops.to_boolean(attribute) else (lambda v: v)
    rev = jsops.to_boolean(reverse)

    def cmp(a: Any, b: Any) -> int:
        x, y = norm(get(a)), norm(get(b))
        if not jsops.to_boolean(case_sensitive) and isinstance(x, str) and isinstance(y, str):
            x, y = x.lower(), y.lower()
        if jsops.less_than(x, y):
            return 1 if rev else -1
        if jsops.less_than(y, x):
            return -1 if rev else 1
        return 0
    spend(len(items) * max(1, int(math.log2(len(items) + 1))))
    return JsArray(sorted(items, key=_sort_key(cmp)))


def _string(v: Any) -> Any:
    v = norm(v)
    return v if isinstance(v, SafeString) else _string_method("string", v)


_JS_SPACE_CLASS = "[" + re.escape(js._JS_SPACE) + "]"


def _striptags(s: Any, preserve: Any = False) -> Any:
    return _kept(_normalize(s, ""), _stripped(_text("striptags", s), preserve))


def _stripped(t: str, preserve: Any) -> str:
    """nunjucks' ``striptags`` after its ``normalize`` (its regexes, as linear scans)."""
    t = js.trim(_without_tags(t))
    if jsops.to_boolean(preserve):
        parts = re.split(r"([\n\r\u2028\u2029])", t)  # (lines, and each line terminator on its own)
        t = "".join(p if k % 2 else p.strip(" ") for k, p in enumerate(parts))
        t = re.sub(r" +", " ", t).replace("\r\n", "\n")
        return re.sub(r"\n\n\n+", "\n\n", t)
    return re.sub(_JS_SPACE_CLASS + "+", " ", t)


def _without_tags(t: str) -> str:
    """``t.replace(/<\\/?([a-z][a-z0-9]*)\\b[^>]*>|<!--[\\s\\S]*?-->/gi, '')``, scanning each character once or
    twice (where no '>' or '-->' is left, no later start can match either)."""
    out, at, i = [], 0, t.find("<")
    no_gt = no_comment = False
    while i >= 0:
        end = -1
        if not no_comment and t.startswith("<!--", i):
            close = t.find("-->", i + 4)
            no_comment, end = close < 0, close + 3 if close >= 0 else -1
        if end < 0 and not no_gt:
            end, no_gt = _tag_end(t, i)
        if end >= 0:
            out.append(t[at:i])
            at = end
            i = t.find("<", end)
        else:
            i = t.find("<", i + 1)
    out.append(t[at:])
    return "".join(out)


def _tag_end(t: str, i: int) -> tuple[int, bool]:
    """Where a tag starting at ``i`` ends (-1: none here) and whether no '>' is left after ``i``."""
    j = i + 1 + (t.startswith("/", i + 1))
    if j >= len(t) or not (t[j].isascii() and t[j].isalpha()):
        return -1, False
    while j < len(t) and t[j].isascii() and t[j].isalnum():
        j += 1
    if j < len(t) and (t[j] == "_" or (t[j].isascii() and t[j].isalnum())):
        return -1, False
    gt = t.find(">", j)
    return (gt + 1 if gt >= 0 else -1), gt < 0


def _sum(arr: Any, attr: Any = UNDEFINED, start: Any = 0) -> Any:
    if not isinstance(arr, list):
        raise _fail("sum", arr)
    items = [member(v, attr) for v in arr] if jsops.to_boolean(attr) else list(arr)
    total: Any = 0
    for v in items:
        total = sized(jsops.add(total, norm(v)))
    spend(len(items))
    return jsops.add(start, total)


def _title(s: Any) -> Any:
    return _kept(_normalize(s, ""), " ".join(_capitalize(w) for w in _text("title", s).split(" ")))


def _trim(s: Any) -> Any:
    if not isinstance(s, (str, SafeString)):
        raise _fail("trim", s)
    return _kept(s, js.trim(_text("trim", s)))


def _truncate(s: Any, length: Any = UNDEFINED, killwords: Any = False, end: Any = UNDEFINED) -> Any:
    v = _normalize(s, "")
    n = length if jsops.to_boolean(length) else 255
    if jsops.compare("<=", member(v, "length"), n):
        return v
    t = _text("truncate", v)
    return _kept(v, _truncated(t, n, killwords, end))


def _truncated(t: str, n: Any, killwords: Any, end: Any) -> str:
    cut = max(0, int(jsops.to_number(n)))
    if jsops.to_boolean(killwords):
        t = t[:cut]
    else:
        at = t.rfind(" ", 0, cut + 1)
        t = t[:cut if at < 0 else at]
    return t + ("..." if end is UNDEFINED or end is None else jsops.to_string(end))


def _urlencode(obj: Any) -> str:
    # 3 ms to import (python -X importtime, an installed wheel): Jinja2 loads it when a filter runs, but a plain
    # config's '{{ name }}' loads this module without Jinja2
    from urllib.parse import quote

    def enc(v: Any) -> str:
        text = jsops.to_string(norm(v))
        try:
            return quote(text, safe="-_.!~*'()")
        except UnicodeEncodeError:
            raise Unrenderable("the filter 'urlencode' on text with a lone surrogate") from None
    if isinstance(obj, str):
        return enc(obj)
    if isinstance(obj, SafeString):
        obj = plain(obj)
    if isinstance(obj, dict):
        return "&".join(enc(k) + "=" + enc(obj[k]) for k in js.own_keys(obj))
    if isinstance(obj, list) and all(isinstance(p, list) for p in obj):
        return "&".join(enc(member(p, 0)) + "=" + enc(member(p, 1)) for p in obj)
    raise _fail("urlencode", obj)


def _wordcount(s: Any) -> Any:
    v = _normalize(s, "")
    if not jsops.to_boolean(v):
        return None
    n = len(re.findall(r"[A-Za-z0-9_]+", _text("wordcount", v)))
    return n or None


def _float(val: Any, default: Any = UNDEFINED) -> Any:
    res = jsops.parse_float(val)
    return default if math.isnan(res) else res


def _int(value: Any, default: Any = UNDEFINED, base: Any = 10) -> Any:
    res = jsops.parse_int(value, base)
    return default if math.isnan(res) else res


def _load(s: Any) -> Any:
    try:
        return js_value(js.loads(jsops.to_string(norm(s))))
    except ValueError:
        raise Unrenderable("the filter 'load' on text that is not JSON (promptfoo stops with an error)") from None


def _not_rendered(name: str, why: str) -> Callable[..., Any]:
    def f(*_a: Any, **_k: Any) -> Any:
        raise Unrenderable(f"the filter '{name}' ({why})")
    return f


def _filter(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A nunjucks filter as Jinja2 calls it: undefined arguments as ``undefined``, a step charged, the result
    bounded and, when it is a list or mapping, a JavaScript array or object."""
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        spend()
        out = fn(*(norm(a) for a in args), **{k: norm(v) for k, v in kwargs.items()})
        out = sized(out)
        if isinstance(out, list) and not isinstance(out, JsArray):
            return JsArray(out)
        if isinstance(out, dict) and not isinstance(out, JsObject):
            return JsObject(out)
        return out
    return run


_FILTER_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "abs": _abs, "batch": _batch, "capitalize": _capitalize, "center": _center, "default": _default,
    "d": _default, "dictsort": _dictsort, "dump": _dump, "escape": _escape, "e": _escape, "first": _first,
    "forceescape": _forceescape, "groupby": _groupby, "indent": _indent, "join": _join, "last": _last,
    "length": _length, "list": _list, "lower": _lower, "nl2br": _nl2br,
    "random": _not_rendered("random", "its result is not the same on each run"),
    "reject": _select(False), "rejectattr": _selectattr(False), "replace": _replace, "reverse": _reverse,
    "round": _round, "safe": _safe, "select": _select(True), "selectattr": _selectattr(True), "slice": _slice,
    "sort": _sort, "string": _string, "striptags": _striptags, "sum": _sum, "title": _title, "trim": _trim,
    "truncate": _truncate, "upper": _upper, "urlencode": _urlencode,
    "urlize": _not_rendered("urlize", "evalfmt does not compute the links it makes"), "wordcount": _wordcount,
    "float": _float, "int": _int, "load": _load,
}
FILTERS: dict[str, Callable[..., Any]] = {name: _filter(fn) for name, fn in _FILTER_FUNCTIONS.items()}


# -------------------------------------------------------------------------------------------- tests


def _test(fn: Callable[..., Any]) -> Callable[..., bool]:
    """A nunjucks test as Jinja2 calls it (JavaScript ignores arguments a function does not take)."""
    params = inspect.signature(fn).parameters.values()
    arity = None if any(p.kind == p.VAR_POSITIONAL for p in params) else len(params)

    @functools.wraps(fn)
    def run(*args: Any) -> bool:
        spend()
        return fn(*(norm(a) for a in args[:arity])) is True
    return run


def _case_test(name: str, upper: bool) -> Callable[[Any], bool]:
    def f(v: Any) -> bool:
        if isinstance(v, SafeString):
            return False  # (v.toLowerCase() is a string, never the object itself)
        if not isinstance(v, str):
            raise Unrenderable(f"the test '{name}' on {_describe(v)} (nunjucks stops with an error)")
        return (v.upper() if upper else v.lower()) == v
    return f


def _iterable(v: Any) -> bool:
    if v is None or v is UNDEFINED:
        raise Unrenderable(f"the test 'iterable' on {_describe(v)} (nunjucks stops with an error)")
    return isinstance(v, (str, list, SafeString))


def _mapping(v: Any) -> bool:
    return v is not None and v is not UNDEFINED and jsops.kind(v) == "object" and not isinstance(v, list)


_TEST_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "callable": lambda v: callable(v) and not is_data(v),
    "defined": lambda v: v is not UNDEFINED,
    "undefined": lambda v: v is UNDEFINED,
    "null": lambda v: v is None, "none": lambda v: v is None,  # ('x is none': nunjucks' literal none is null)
    "divisibleby": lambda a, b=UNDEFINED: jsops.strict_equals(jsops.arith("%", a, b), 0),
    "escaped": lambda v: isinstance(v, SafeString),
    "equalto": jsops.strict_equals, "eq": jsops.strict_equals, "sameas": jsops.strict_equals,
    "even": lambda v: jsops.strict_equals(jsops.arith("%", v, 2), 0),
    "odd": lambda v: jsops.strict_equals(jsops.arith("%", v, 2), 1),
    "falsy": lambda v: not jsops.to_boolean(v), "truthy": jsops.to_boolean,
    "ge": lambda a, b=UNDEFINED: jsops.compare(">=", a, b),
    "greaterthan": lambda a, b=UNDEFINED: jsops.compare(">", a, b),
    "gt": lambda a, b=UNDEFINED: jsops.compare(">", a, b),
    "le": lambda a, b=UNDEFINED: jsops.compare("<=", a, b),
    "lessthan": lambda a, b=UNDEFINED: jsops.compare("<", a, b),
    "lt": lambda a, b=UNDEFINED: jsops.compare("<", a, b),
    "ne": lambda a, b=UNDEFINED: not jsops.strict_equals(a, b),
    "lower": _case_test("lower", False), "upper": _case_test("upper", True),
    "number": lambda v: jsops.kind(v) == "number", "string": lambda v: isinstance(v, str),
    "iterable": _iterable, "mapping": _mapping,
}
TESTS: dict[str, Callable[..., bool]] = {name: _test(fn) for name, fn in _TEST_FUNCTIONS.items()}


# ------------------------------------------------------------------------------------------ globals


def js_range(start: Any = UNDEFINED, stop: Any = UNDEFINED, step: Any = UNDEFINED) -> list[Any]:
    """nunjucks' ``range(start, stop, step)``: an array (at most :data:`LIMIT` numbers)."""
    start, stop, step = norm(start), norm(stop), norm(step)
    if stop is UNDEFINED:
        start, stop, step = 0, start, 1
    elif not jsops.to_boolean(step):
        step = 1
    if all(type(x) is int for x in (start, stop, step)):  # (the common case, counted before it is built)
        n = len(range(start, stop, step))
        if n > LIMIT:
            raise Unrenderable("a range too large to loop over")
        spend(n)
        return JsArray(range(start, stop, step))
    out = JsArray()
    i = start
    up = jsops.less_than(0, step) is True
    while (jsops.less_than(i, stop) if up else jsops.less_than(stop, i)) is True:
        if len(out) >= LIMIT:
            raise Unrenderable("a range too large to loop over")
        spend()
        out.append(i)
        i = jsops.add(i, step)
    return out


class Cycler:
    """nunjucks' ``cycler(...)``: ``next()``, ``reset()``, ``current``."""

    def __init__(self, *items: Any):
        self.items = items
        self.index = -1
        self.current: Any = None

    def next(self) -> Any:
        self.index = 0 if self.index + 1 >= len(self.items) else self.index + 1
        self.current = self.items[self.index] if self.items else UNDEFINED
        return self.current

    def reset(self) -> None:
        self.index, self.current = -1, None


class Joiner:
    """nunjucks' ``joiner(sep)``: '' the first time it is called, then the separator."""

    def __init__(self, sep: Any = UNDEFINED):
        self.sep = jsops.to_string(sep) if jsops.to_boolean(sep) else ","
        self.first = True

    def __call__(self) -> str:
        was, self.first = self.first, False
        return "" if was else self.sep


GLOBALS = {"range": js_range, "cycler": Cycler, "joiner": Joiner}


def in_operator(key: Any, val: Any) -> bool:
    """``runtime.inOperator(key, val)``: an array's item (===), a substring, an object's key."""
    key, val = norm(key), norm(val)
    if isinstance(val, list):
        return any(jsops.strict_equals(key, v) for v in val)
    if isinstance(val, str):
        return jsops.to_string(key) in val
    if isinstance(val, SafeString):
        k = _key(key)
        return k in ("val", "length") or k in _STRING_METHODS | _OBJECT_METHODS
    if isinstance(val, dict):
        k = _key(key)
        return k in val or k in _OBJECT_METHODS
    raise Unrenderable("the operator 'in' on something that is not a list, text or a mapping (nunjucks stops "
                       "with an error)")


__all__ = ["NAN", "Unrenderable"]
