"""Display helpers shared by the renderers: making hostile text harmless to look at.

Every value taken from eval files or transcripts (case and check names, check details, prompts,
errors, skill names) goes through :func:`visible` before a renderer escapes it for its format:

- characters that are invisible or reorder text (bidi embeddings, overrides and isolates, zero-width
  characters, the BOM, C0/C1 controls other than newline and tab) are shown as ``[U+202E]``, so a
  right-to-left override in a check name cannot flip the rest of a line and a zero-width space cannot
  hide inside an identifier; right-to-left *letters* (Hebrew, Arabic) are kept as they are;
- a value longer than a renderer's limit is cut, saying how much was left out.
"""

from __future__ import annotations

import re

_INVISIBLE = re.compile(
    "[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]"
)


def visible(value: object) -> str:
    """``value`` as text, with invisible and reordering characters written as ``[U+XXXX]``."""
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    return _INVISIBLE.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


def cut(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters, ending ``… (N more characters)`` when cut."""
    if limit <= 0 or len(text) <= limit:
        return text
    return f"{text[:limit].rstrip()}… ({len(text) - limit:,} more characters)"


def one_line(text: str) -> str:
    """Newlines and tabs as single spaces (for table cells)."""
    return " ".join(text.split()) if ("\n" in text or "\r" in text or "\t" in text) else text


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def turns(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.1f}"


def seconds(ms: float | None) -> str:
    return "n/a" if ms is None else f"{ms / 1000:.1f}s"


def dollars(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"${x:.3f}" if 0 < abs(x) < 0.1 else f"${x:.2f}"
