"""JavaScript value semantics, where evalfmt must reproduce what a Node.js engine computes.

The engines evalfmt follows are JavaScript programs: terum coerces fields with ``String(value)`` and
puts tool inputs into the transcript as ``JSON.stringify(input)``; ``agentv transpile`` builds its
evals.json with template strings, ``String.prototype.trim`` and ``JSON.stringify``. Python's
equivalents differ in ways that show in output bytes and in what a check matches: ``1.0`` vs ``1``,
``1e+21``, integer-like object keys ordered first, which characters ``trim`` removes, how control
characters and lone surrogates are escaped. One module holds them all: readers, the transpiler and
the executor import it.

``UNDEFINED`` stands for JavaScript's ``undefined`` (a key that is absent); YAML ``null`` is ``None``.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

import orjson


class _Undefined:
    __slots__ = ()

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return "undefined"

    def __bool__(self) -> bool:
        return False


UNDEFINED: Any = _Undefined()

#: Integers JavaScript represents exactly (larger ones are rounded to a double when parsed).
MAX_SAFE = 2**53


class JSTypeError(Exception):
    """What JavaScript throws when a property of ``null`` is read."""

    def __init__(self, key: str):
        super().__init__(f"Cannot read properties of null (reading '{key}')")


def get(obj: Any, key: str) -> Any:
    """``obj.key``: the value of a mapping's key, ``undefined`` for anything else, a TypeError on null."""
    if obj is None:
        raise JSTypeError(key)
    if isinstance(obj, dict):
        return obj.get(key, UNDEFINED)
    return UNDEFINED


def nullish(value: Any) -> bool:
    """True for ``null`` and ``undefined`` (the left side of ``??`` is skipped)."""
    return value is None or value is UNDEFINED


def coalesce(*values: Any) -> Any:
    """``a ?? b ?? c``: the first value that is not null or undefined (else the last)."""
    for v in values:
        if not nullish(v):
            return v
    return values[-1]


def is_number(value: Any) -> bool:
    """``typeof value === "number"``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_integer(value: Any) -> bool:
    """``Number.isInteger(value)``."""
    if not is_number(value):
        return False
    return isinstance(value, int) or (math.isfinite(value) and value == int(value))


def truthy(value: Any) -> bool:
    """JavaScript truthiness (objects and arrays are truthy even when empty)."""
    if value is None or value is UNDEFINED or value is False:
        return False
    if value is True:
        return True
    if isinstance(value, str):
        return value != ""
    if isinstance(value, float):
        return not (value == 0 or math.isnan(value))
    if isinstance(value, int):
        return value != 0
    return True


def number_string(x: int | float) -> str:
    """``Number.prototype.toString()`` (ECMAScript Number::toString, radix 10)."""
    if isinstance(x, int):
        if -MAX_SAFE <= x <= MAX_SAFE:
            return str(x)
        try:
            x = float(x)
        except OverflowError:
            x = math.inf if x > 0 else -math.inf
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    # repr gives the shortest digits that round-trip, which is what ECMAScript asks for.
    _, digits_t, exp = Decimal(repr(abs(x))).as_tuple()
    assert isinstance(exp, int)  # x is finite: not 'n', 'N' or 'F'
    digits = "".join(map(str, digits_t)).rstrip("0")
    exp += len("".join(map(str, digits_t))) - len(digits)
    k = len(digits)
    n = exp + k  # value = 0.digits * 10**n
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        es = f"e+{e}" if e >= 0 else f"e-{-e}"
        out = (digits if k == 1 else digits[0] + "." + digits[1:]) + es
    return sign + out


def string(value: Any) -> str:
    """``String(value)`` / a template-string substitution ``${value}``."""
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return number_string(value)
    if isinstance(value, list):
        return join(value, ",")
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, bytes):  # a !!binary value is a Buffer: its text, as UTF-8
        return value.decode("utf-8", "replace")
    return str(value)  # pragma: no cover - nothing else comes out of YAML


def join(items: list, sep: str) -> str:
    """``Array.prototype.join``: null and undefined become empty strings."""
    return sep.join("" if nullish(v) else string(v) for v in items)


#: The characters ``String.prototype.trim`` removes: WhiteSpace and LineTerminator.
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000\ufeff"


def trim(text: str) -> str:
    return text.strip(_JS_SPACE)


def utf16_len(ch: str) -> int:
    return 2 if ord(ch) > 0xFFFF else 1


# -------------------------------------------------------------------------------- JSON.stringify

_ESC = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def quote(text: str) -> str:
    """A JSON string literal as ``JSON.stringify`` writes it (well-formed: lone surrogates escaped)."""
    out = ['"']
    for ch in text:
        esc = _ESC.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch < " " or "\ud800" <= ch <= "\udfff":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _array_index(key: str) -> int | None:
    """The integer value of a key JavaScript orders first in an object (a canonical array index)."""
    if key.isdigit() and key.isascii() and (key == "0" or not key.startswith("0")):
        n = int(key)
        if n < 2**32 - 1:
            return n
    return None


def own_keys(mapping: dict) -> list:
    """``Object.keys`` order: integer-like keys ascending, then the others in insertion order."""
    ints = []
    rest = []
    for key in mapping:
        idx = _array_index(key) if isinstance(key, str) else None
        if idx is None:
            rest.append(key)
        else:
            ints.append((idx, key))
    return [k for _, k in sorted(ints)] + rest


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads(data: bytes | str) -> Any:
    """``JSON.parse``: orjson, falling back to the standard library for what orjson refuses but
    JavaScript accepts (lone surrogates, escaped or in the text). ``NaN`` and ``Infinity``, which the
    standard library would accept, are refused as ``JSON.parse`` refuses them. Raises ``ValueError``
    for text that is not JSON."""
    try:
        return orjson.loads(data)
    except ValueError:  # JSONDecodeError, or a str holding a lone surrogate (UnicodeEncodeError)
        text = data.decode("utf-8", "surrogatepass") if isinstance(data, (bytes, bytearray)) else data
        try:
            return json.loads(text, parse_constant=_refuse_constant)
        except RecursionError:  # deeper than orjson's 1024 levels
            raise ValueError("JSON nested too deeply") from None


def json_numbers(value: Any) -> Any:
    """``value`` with every integer outside the 64-bit range orjson writes turned into the float a
    JavaScript number would hold (infinity past a double): the last guard of JSON output."""
    if isinstance(value, bool) or value is None or isinstance(value, (str, float)):
        return value
    if isinstance(value, int):
        if -(2 ** 63) <= value < 2 ** 64:
            return value
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    if isinstance(value, dict):
        return {k: json_numbers(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_numbers(v) for v in value]
    return value


def stringify(value: Any, indent: int | None = None) -> str:
    """``JSON.stringify(value, null, indent)`` for data loaded from YAML/JSON.

    The common compact case (no floats, no integer-like keys, no big integers, no lone surrogates)
    goes through orjson, whose output is then byte-identical; everything else is written here."""
    if indent is None and _plain(value):
        try:
            return orjson.dumps(value).decode("utf-8")
        except (orjson.JSONEncodeError, TypeError):  # lone surrogates: the slow path escapes them
            pass
    out: list[str] = []
    _emit(value, out, indent, 0)
    return "".join(out)


def _plain(v: Any) -> bool:
    """True when orjson writes ``v`` exactly as ``JSON.stringify`` does (iterative: any depth)."""
    stack = [v]
    while stack:
        v = stack.pop()
        if isinstance(v, str) or v is None or v is True or v is False:
            continue
        if isinstance(v, int):
            if not -MAX_SAFE <= v <= MAX_SAFE:
                return False
        elif isinstance(v, dict):
            for k, x in v.items():
                if not isinstance(k, str) or (k[:1].isdigit() and _array_index(k) is not None):
                    return False
                stack.append(x)
        elif isinstance(v, list):
            stack.extend(v)
        else:
            return False
    return True


def _emit(value: Any, out: list[str], indent: int | None, level: int) -> None:
    """Write ``value`` into ``out``; iterative (a work list of text and (value, level) pairs), so
    that data nested as deep as a JSON parser allows is written too."""
    work: list = [(value, level)]
    while work:
        item = work.pop()
        if type(item) is str:
            out.append(item)
            continue
        value, level = item
        if isinstance(value, list) and value:
            work.extend(reversed(_list_parts(value, indent, level)))
        elif isinstance(value, dict) and any(value[k] is not UNDEFINED for k in own_keys(value)):
            work.extend(reversed(_dict_parts(value, indent, level)))
        elif isinstance(value, bytes):  # a Buffer (!!binary): its toJSON()
            work.append(({"type": "Buffer", "data": list(value)}, level))
        else:
            out.append(_scalar(value))


def _scalar(value: Any) -> str:
    """A value with no parts of its own (an empty list or object included), as JSON.stringify writes it."""
    if value is None or value is UNDEFINED:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, (int, float)):
        if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
            return "null"
        return number_string(value)
    if isinstance(value, list):
        return "[]"
    if isinstance(value, dict):
        return "{}"
    return quote(str(value))  # pragma: no cover


def _list_parts(value: list, indent: int | None, level: int) -> list:
    parts: list = ["["]
    pad = None if indent is None else "\n" + " " * (indent * (level + 1))
    for i, x in enumerate(value):
        if pad is None:
            if i:
                parts.append(",")
        else:
            parts.append(("," if i else "") + pad)
        parts.append((x, level + 1))
    parts.append("]" if indent is None else "\n" + " " * (indent * level) + "]")
    return parts


def _dict_parts(value: dict, indent: int | None, level: int) -> list:
    keys = [k for k in own_keys(value) if value[k] is not UNDEFINED]
    sep = ":" if indent is None else ": "
    pad = "" if indent is None else "\n" + " " * (indent * (level + 1))
    parts: list = ["{"]
    for i, key in enumerate(keys):
        parts.append(("," if i else "") + pad + quote(str(key)) + sep)
        parts.append((value[key], level + 1))
    parts.append("}" if indent is None else "\n" + " " * (indent * level) + "}")
    return parts
