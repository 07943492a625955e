"""JavaScript's operators on the values a promptfoo template sees, as nunjucks compiles them (``a + b``,
``a == b``, ``a < b``, ``Math.floor(a / b)``, ``parseInt``): nunjucks turns each template expression into the
same JavaScript expression, so ``"3" + 1`` is ``"31"``, ``1 == "1"`` is true and ``"ab" * 2`` is ``NaN``.

Values: ``None`` is ``null``, :data:`evalfmt.js.UNDEFINED` is ``undefined``, ``bool``/``int``/``float`` are
booleans and numbers (one number type: ``2.0`` is ``2``), ``str`` a string, ``list`` an array, ``dict`` an
object; anything else is an object too (compared by identity). ``NaN`` results are :data:`NAN`, which is
false as JavaScript's ``NaN`` is.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ... import js
from ...js import UNDEFINED, MAX_SAFE


class NotComputed(ValueError):
    """What evalfmt does not compute as JavaScript does (``str()`` says what)."""


class _NaN(float):
    """JavaScript's ``NaN``: a float that is false."""

    def __bool__(self) -> bool:
        return False


NAN: float = _NaN("nan")

_DECIMAL = re.compile(r"[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|Infinity)")
_BASED = re.compile(r"0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+")


def kind(v: Any) -> str:
    """``typeof v`` (``null`` is ``"null"`` here, arrays and mappings ``"object"``)."""
    if v is UNDEFINED:
        return "undefined"
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    return "object"


def number(x: int | float) -> int | float:
    """A Python number as the double JavaScript holds (an integer past 2**53 rounded, past a double infinite;
    NaN as :data:`NAN`)."""
    if isinstance(x, int) and not -MAX_SAFE <= x <= MAX_SAFE:
        try:
            return float(x)
        except OverflowError:
            return math.inf if x > 0 else -math.inf
    if isinstance(x, float) and math.isnan(x):
        return NAN
    return x


def string_to_number(s: str) -> int | float:
    """``Number(s)`` for a string: blanks trimmed, empty is 0, decimal, ``0x``/``0o``/``0b``, ``Infinity``."""
    t = js.trim(s)
    if t == "":
        return 0
    if _BASED.fullmatch(t):
        return number(int(t[2:], {"x": 16, "o": 8, "b": 2}[t[1].lower()]))
    if not _DECIMAL.fullmatch(t):
        return NAN
    if t.endswith("Infinity"):
        return -math.inf if t.startswith("-") else math.inf
    value = float(t)
    return number(int(value)) if value.is_integer() and abs(value) <= MAX_SAFE else value


def primitive(v: Any) -> Any:
    """``ToPrimitive(v)`` (hint default): an array is its ``join(",")``, any other object ``[object Object]``."""
    if isinstance(v, list):
        return js.join(v, ",")
    if kind(v) == "object":
        to_primitive = getattr(v, "js_primitive", None)  # (a value with its own valueOf)
        return to_primitive() if to_primitive is not None else "[object Object]"
    return v


def to_number(v: Any) -> int | float:
    """``ToNumber(v)``."""
    if v is UNDEFINED:
        return NAN
    if v is None or v is False:
        return 0
    if v is True:
        return 1
    if isinstance(v, (int, float)):
        return number(v)
    if isinstance(v, str):
        return string_to_number(v)
    p = primitive(v)
    return string_to_number(p) if isinstance(p, str) else NAN


def to_string(v: Any) -> str:
    """``String(v)`` of a primitive or an object (``ToString(ToPrimitive(v))``), a plain ``str``."""
    return str(js.string(primitive(v)))


def add(a: Any, b: Any) -> Any:
    """``a + b``: text when either side is text once made primitive, else numbers added."""
    pa, pb = primitive(a), primitive(b)
    if isinstance(pa, str) or isinstance(pb, str):
        return str(js.string(pa)) + str(js.string(pb))
    return arith("+", to_number(pa), to_number(pb))


def arith(op: str, a: Any, b: Any) -> int | float:
    """``a op b`` for ``- * / % **`` and nunjucks' ``//`` (``Math.floor(a / b)``), numbers as doubles."""
    x, y = to_number(a), to_number(b)
    if op == "**" and y == 0:
        return 1  # (Math.pow(x, 0) is 1 for every x, NaN too)
    if math.isnan(x) or math.isnan(y):
        return NAN
    if op in ("+", "-", "*") and isinstance(x, int) and isinstance(y, int):
        return number(x + y if op == "+" else x - y if op == "-" else x * y)
    if op == "/" or op == "//":
        q = _divide(float(x), float(y))
        return q if op == "/" or math.isinf(q) or math.isnan(q) else number(math.floor(q))
    if op == "%":
        return _remainder(x, y)
    if op == "**":
        return _power(x, y)
    return number(float(x) + float(y) if op == "+" else float(x) - float(y) if op == "-" else float(x) * float(y))


def _divide(x: float, y: float) -> float:
    if y == 0:
        if x == 0 or math.isnan(x):
            return NAN
        return math.copysign(math.inf, x) * math.copysign(1.0, y)
    return x / y


def _remainder(x: int | float, y: int | float) -> int | float:
    if y == 0 or math.isinf(x):
        return NAN
    if math.isinf(y):
        return x
    if isinstance(x, int) and isinstance(y, int):
        r = abs(x) % abs(y)
        return -r if x < 0 else r
    return math.fmod(x, y)


def _power(x: int | float, y: int | float) -> int | float:
    if math.isnan(y) or (abs(x) == 1 and math.isinf(y)):
        return NAN
    if isinstance(x, int) and isinstance(y, int) and 0 <= y <= 64:
        return number(x ** y)
    if x == 0 and y < 0:
        return -math.inf if _odd(y) and math.copysign(1.0, x) < 0 else math.inf
    if not float(y).is_integer() and not math.isinf(y) and not math.isinf(x):
        raise NotComputed("a power with a fractional exponent (JavaScript's Math.pow rounds some otherwise)")
    return _pow(x, y)


def _odd(y: int | float) -> bool:
    """Whether ``y`` is an odd integer."""
    return float(y).is_integer() and not math.isinf(y) and int(y) % 2 == 1


def _pow(x: int | float, y: int | float) -> int | float:
    """``Math.pow(x, y)`` of an integer exponent (or an infinite base or exponent), as a double."""
    try:
        return number(math.pow(x, y))
    except OverflowError:
        return -math.inf if x < 0 and _odd(y) else math.inf
    except ValueError:  # a negative base to a fractional power
        return NAN


def negate(v: Any) -> int | float:
    x = to_number(v)
    return NAN if math.isnan(x) else -float(x) if x == 0 else -x


def strict_equals(a: Any, b: Any) -> bool:
    """``a === b``."""
    ka, kb = kind(a), kind(b)
    if ka != kb:
        return False
    if ka == "number":
        return not (math.isnan(a) or math.isnan(b)) and a == b
    if ka == "object":
        return a is b
    return bool(a == b) if ka in ("string", "boolean") else True


def loose_equals(a: Any, b: Any) -> bool:
    """``a == b`` (IsLooselyEqual)."""
    ka, kb = kind(a), kind(b)
    if ka == kb:
        return strict_equals(a, b)
    if {ka, kb} <= {"null", "undefined"}:
        return True
    if "null" in (ka, kb) or "undefined" in (ka, kb):
        return False
    if ka == "boolean" or kb == "boolean":
        return loose_equals(to_number(a) if ka == "boolean" else a, to_number(b) if kb == "boolean" else b)
    if ka == "object" or kb == "object":
        return loose_equals(primitive(a), primitive(b))
    return strict_equals(to_number(a), to_number(b))  # a number and a string


def less_than(a: Any, b: Any) -> bool | None:
    """``a < b`` as the abstract relational comparison gives it (None: undefined, a NaN was involved)."""
    pa, pb = primitive(a), primitive(b)
    if isinstance(pa, str) and isinstance(pb, str):
        return _utf16(pa) < _utf16(pb)
    x, y = to_number(pa), to_number(pb)
    if math.isnan(x) or math.isnan(y):
        return None
    return x < y


def compare(op: str, a: Any, b: Any) -> bool:
    """``a op b`` for ``== != === !== < > <= >=``."""
    if op in ("==", "eq"):
        return loose_equals(a, b)
    if op in ("!=", "ne"):
        return not loose_equals(a, b)
    if op == "===":
        return strict_equals(a, b)
    if op == "!==":
        return not strict_equals(a, b)
    if op in ("<", "lt"):
        return less_than(a, b) is True
    if op in (">", "gt"):
        return less_than(b, a) is True
    if op in ("<=", "lteq"):
        return less_than(b, a) is False
    if op in (">=", "gteq"):
        return less_than(a, b) is False
    raise ValueError(f"unknown comparison {op!r}")


def _utf16(s: str) -> list[int]:
    """A string's UTF-16 code units (what JavaScript compares strings by)."""
    if s.isascii() or all(ord(c) < 0x10000 for c in s):
        return [ord(c) for c in s]
    out: list[int] = []
    for c in s:
        o = ord(c)
        if o < 0x10000:
            out.append(o)
        else:
            o -= 0x10000
            out.extend((0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)))
    return out


_FLOAT_PREFIX = re.compile(r"[+-]?(?:Infinity|(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)")


def parse_int(v: Any, radix: Any = 10) -> int | float:
    """``parseInt(v, radix)``."""
    s = js.trim(to_string(v)) if not isinstance(v, str) else js.trim(v)
    r = int(to_number(radix)) if not math.isnan(to_number(radix)) else 0
    sign = -1 if s.startswith("-") else 1
    s = s[1:] if s[:1] in "+-" else s
    if r == 0:
        r = 10
        if s[:2].lower() == "0x":
            r, s = 16, s[2:]
    elif r == 16 and s[:2].lower() == "0x":
        s = s[2:]
    if not 2 <= r <= 36:
        return NAN
    digits = ""
    for ch in s:
        if ch.isascii() and ch.isalnum() and int(ch, 36) < r:
            digits += ch
        else:
            break
    return NAN if not digits else number(sign * int(digits, r))


def parse_float(v: Any) -> int | float:
    """``parseFloat(v)``."""
    s = js.trim(v if isinstance(v, str) else to_string(v))
    m = _FLOAT_PREFIX.match(s)
    if not m:
        return NAN
    t = m.group(0)
    if t.lstrip("+-") == "Infinity":
        return -math.inf if t.startswith("-") else math.inf
    return string_to_number(t)


def to_boolean(v: Any) -> bool:
    """``Boolean(v)``: objects and arrays are true, ``NaN``, ``0``, ``""``, null and undefined false."""
    return js.truthy(v)
