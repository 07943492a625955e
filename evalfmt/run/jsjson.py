"""``JSON.stringify`` and ``JSON.parse`` as JavaScript does them, for values read from a transcript.

terum puts each tool call's ``input`` into the transcript text as ``JSON.stringify(input)``. That
differs from ``orjson.dumps`` / ``json.dumps`` in four ways, all handled here:

- integer-like keys (``"0"``, ``"42"``) come first, in numeric order, then the other keys in order;
- numbers print as ``Number.prototype.toString`` does (``1.0`` -> ``1``, ``1e-7``, ``1e+21``), and
  integers beyond 2**53 lose precision as a double does;
- control characters are escaped ``\\u001f`` (lowercase hex), lone surrogates ``\\ud800``;
- nothing else is escaped (``/``, U+2028 and non-ASCII text stay as they are).

The common case (no floats, no integer-like keys, no big integers, no lone surrogates) goes straight
through orjson, whose output is then identical.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

import orjson

_MAX_SAFE = 2**53
_MAX_INDEX = 2**32 - 2


def loads(data: bytes | str) -> Any:
    """``JSON.parse``: orjson, falling back to the standard library for what orjson refuses but
    JavaScript accepts (lone surrogate escapes). Raises ``ValueError`` for text that is not JSON."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        text = data.decode("utf-8", "surrogatepass") if isinstance(data, (bytes, bytearray)) else data
        return json.loads(text)


def stringify(value: Any) -> str:
    """``JSON.stringify(value)`` (compact)."""
    if _plain(value):
        try:
            return orjson.dumps(value).decode("utf-8")
        except (orjson.JSONEncodeError, TypeError):  # lone surrogates: the slow path escapes them
            pass
    out: list[str] = []
    _write(value, out)
    return "".join(out)


def _plain(v: Any) -> bool:
    if isinstance(v, str) or v is None or v is True or v is False:
        return True
    if isinstance(v, int):
        return -_MAX_SAFE <= v <= _MAX_SAFE
    if isinstance(v, dict):
        for k, x in v.items():
            if not isinstance(k, str) or (k[:1].isdigit() and _is_index(k)) or not _plain(x):
                return False
        return True
    if isinstance(v, list):
        return all(_plain(x) for x in v)
    return False


def _is_index(k: str) -> bool:
    return k.isascii() and k.isdigit() and (k == "0" or k[0] != "0") and int(k) <= _MAX_INDEX


def _write(v: Any, out: list[str]) -> None:
    if v is None:
        out.append("null")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif isinstance(v, str):
        out.append(quote(v))
    elif isinstance(v, int):
        out.append(str(v) if -_MAX_SAFE <= v <= _MAX_SAFE else number(float(v)))
    elif isinstance(v, float):
        out.append(number(v) if math.isfinite(v) else "null")
    elif isinstance(v, dict):
        keys = [str(k) for k in v]
        index = sorted((k for k in keys if _is_index(k)), key=int)
        rest = [k for k in keys if not _is_index(k)]
        items = {str(k): x for k, x in v.items()}
        out.append("{")
        for n, k in enumerate(index + rest):
            if n:
                out.append(",")
            out.append(quote(k))
            out.append(":")
            _write(items[k], out)
        out.append("}")
    elif isinstance(v, (list, tuple)):
        out.append("[")
        for n, x in enumerate(v):
            if n:
                out.append(",")
            _write(x, out)
        out.append("]")
    else:
        out.append(quote(str(v)))


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def quote(s: str) -> str:
    """A JSON string literal as ``JSON.stringify`` writes it."""
    parts = ['"']
    for ch in s:
        esc = _ESCAPES.get(ch)
        if esc is not None:
            parts.append(esc)
        else:
            cp = ord(ch)
            if cp < 0x20 or 0xD800 <= cp <= 0xDFFF:
                parts.append(f"\\u{cp:04x}")
            else:
                parts.append(ch)
    parts.append('"')
    return "".join(parts)


def number(x: float) -> str:
    """``Number.prototype.toString()`` of a finite double."""
    if x == 0:
        return "0"
    if x.is_integer() and abs(x) < _MAX_SAFE:
        return str(int(x))
    sign = "-" if x < 0 else ""
    t = Decimal(repr(abs(x))).as_tuple()  # shortest round-trip digits, as ECMAScript requires
    digits = "".join(map(str, t.digits)).rstrip("0") or "0"
    k = len(digits)
    n = len(t.digits) + int(t.exponent)  # value = 0.<digits> x 10**n
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mant = digits if k == 1 else digits[0] + "." + digits[1:]
        body = f"{mant}e{'+' if e > 0 else '-'}{abs(e)}"
    return sign + body
