"""JavaScript value semantics the original engines apply to loaded YAML (they are written in TypeScript).

terum coerces many fields with ``String(value)``; reproducing that exactly keeps evalfmt's reading of
a file identical to the engine's.
"""

from __future__ import annotations

import math
from typing import Any


def js_string(value: Any) -> str:
    """``String(value)`` as JavaScript computes it for values loaded from YAML/JSON."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return js_number(value)
    if isinstance(value, list):
        return ",".join("" if v is None else js_string(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def js_number(x: float) -> str:
    """Number.prototype.toString() for a double (ECMAScript Number::toString, radix 10)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    mant, _, exp = repr(abs(x)).partition("e")  # shortest round-trip digits, as JavaScript uses
    whole, _, frac = mant.partition(".")
    if frac == "0":
        frac = ""
    digits = (whole + frac).lstrip("0")
    # value = 0.digits * 10**n
    n = len(whole.lstrip("0")) if whole.strip("0") else -(len(frac) - len(frac.lstrip("0")))
    n += int(exp or 0)
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        esign = "+" if e >= 0 else "-"
        out = (digits[0] + ("." + digits[1:] if k > 1 else "")) + f"e{esign}{abs(e)}"
    return sign + out


def is_js_number(value: Any) -> bool:
    """``typeof value === 'number'`` for a loaded value (booleans are not numbers)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_js_integer(value: Any) -> bool:
    """``Number.isInteger(value)``."""
    if not is_js_number(value):
        return False
    return isinstance(value, int) or (math.isfinite(value) and value == int(value))
