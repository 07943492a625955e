"""Directives of a YAML stream as the ``yaml`` npm package keeps them (``%YAML``, ``%TAG``; a
``%YAML 1.1`` document switches to the 1.1 schema) and how it resolves a tag to its full name."""

from __future__ import annotations

import re

CORE_TAG = "tag:yaml.org,2002:"
#: what JavaScript's String.prototype.trim() strips (the package trims a directive's line so): not
#: Python's whitespace, which also holds NEL (U+0085) and U+001C-U+001F, and lacks the BOM
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000\ufeff"


class Directives:
    def __init__(self, version: str = "1.2", explicit: bool = False, tags: dict | None = None):
        self.version = version
        self.explicit = explicit
        self.tags = dict(tags) if tags is not None else {"!!": CORE_TAG}
        self.doc_start = False
        self.at_next_document = False

    def at_document(self) -> Directives:
        res = Directives(self.version, self.explicit, self.tags)
        if self.version == "1.1":
            self.at_next_document = True
        else:
            self.at_next_document = False
            self.explicit = False
            self.version = "1.2"
            self.tags = {"!!": CORE_TAG}
        return res

    def add(self, line: str, on_error) -> None:
        if self.at_next_document:
            self.explicit, self.version = False, "1.1"
            self.tags = {"!!": CORE_TAG}
            self.at_next_document = False
        parts = _split_blank(line.strip(_JS_SPACE))
        name = parts.pop(0) if parts else ""
        if name == "%TAG":
            if len(parts) != 2:
                on_error(0, "%TAG directive should contain exactly two parts", False)
                if len(parts) < 2:
                    return
            self.tags[parts[0]] = parts[1]
        elif name == "%YAML":
            self.explicit = True
            if len(parts) != 1:
                on_error(0, "%YAML directive should contain exactly one part", False)
                return
            version = parts[0]
            if version in ("1.1", "1.2"):
                self.version = version
            else:
                on_error(6, f"Unsupported YAML version {version}", bool(re.fullmatch(r"\d+\.\d+", version, re.A)))
        else:
            on_error(0, f"Unknown directive {name}", True)

    def tag_name(self, source: str, on_error) -> str | None:
        if source == "!":
            return "!"
        if source[:1] != "!":  # pragma: no cover - tag tokens start with '!'
            on_error(f"Not a valid tag: {source}")
            return None
        if source[1:2] == "<":
            verbatim = source[2:-1]
            if verbatim in ("!", "!!"):
                on_error(f"Verbatim tags aren't resolved, so {source} is invalid.")
                return None
            if source[-1] != ">":
                on_error("Verbatim tags must end with a >")
            return verbatim
        cut = source.rfind("!") + 1
        handle, suffix = source[:cut], source[cut:]
        if not suffix:
            on_error(f"The {source} tag has no suffix")
        prefix = self.tags.get(handle)
        if prefix:
            from urllib.parse import unquote  # 3 ms to import (python -X importtime): only for a tag such as !!str

            try:
                return prefix + unquote(suffix, errors="strict")
            except UnicodeDecodeError:
                on_error("URIError: URI malformed")
                return None
        if handle == "!":
            return source
        on_error(f"Could not resolve tag: {source}")
        return None


def _split_blank(text: str) -> list[str]:
    return re.split(r"[ \t]+", text) if text else [""]


# -- the composer ------------------------------------------------------------------------------------
