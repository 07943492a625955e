"""YAML writing through ruamel.yaml's round-trip mode.

``dump(data)`` writes plain data as block YAML (multi-line strings as ``|`` blocks, no line folding).
``dump(data, existing=text)`` updates the document in ``text`` in place instead: values that did not
change keep their quoting and style, comments and key order survive, removed keys go, new keys are
appended. The YAML format writers use it (``lint --fix`` splices text instead: see lint/fix.py).

A writer marks with :class:`Coerced` the strings its format also takes from a bare number or boolean
(terum's engine reads a check's argument with ``String(value)``): over an existing ``25600`` such a
string ``"25600"`` is the same value, and the file keeps ``25600`` as it was written.
"""

from __future__ import annotations

import io
import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.emitter import RoundTripEmitter
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, LiteralScalarString, SingleQuotedScalarString

from .js import string as js_string


class Coerced(str):
    """A string the format reads from any scalar through JavaScript's ``String()``: an existing bare
    scalar it would read as this string is left as it is."""


def _yaml():
    y = YAML(typ="rt")
    y.Emitter = _emitter()
    y.indent(mapping=2, sequence=4, offset=2)
    y.width = 4096
    y.preserve_quotes = True
    y.allow_unicode = True
    y.brace_single_entry_mapping_in_flow_sequence = True
    return y


_EMITTER = None


def _emitter():
    """ruamel's round-trip emitter, except that a top-level list starts at column 0 (``- a: 1``).

    With ``indent(sequence=4, offset=2)`` ruamel indents a top-level list too (``  - a: 1``), so a
    promptfoo tests file written back over itself moved every line; nested lists keep the offset."""
    global _EMITTER
    if _EMITTER is None:
        class Emitter(RoundTripEmitter):
            _root_offset = None

            def increase_indent(self, flow=False, sequence=None, indentless=False):
                super().increase_indent(flow, sequence, indentless)
                v = self.indents.values
                if self._root_offset is not None and len(v) == 2 and v[0] == (None, True):
                    self.indent -= self._root_offset  # an item of the top-level list

            def expect_block_sequence_item(self, first=False):
                if len(self.indents) != 1:
                    return super().expect_block_sequence_item(first)
                self._root_offset = self.sequence_dash_offset
                self.sequence_dash_offset = 0
                try:
                    return super().expect_block_sequence_item(first)
                finally:
                    self.sequence_dash_offset = self._root_offset
                    self._root_offset = None

        _EMITTER = Emitter
    return _EMITTER


def _fresh(value: Any) -> Any:
    """Plain data -> ruamel nodes with readable styles (block strings for multi-line text)."""
    if isinstance(value, dict):
        m = CommentedMap()
        for k, v in value.items():
            m[k] = _fresh(v)
        return m
    if isinstance(value, list):
        s = CommentedSeq()
        s.extend(_fresh(v) for v in value)
        return s
    if isinstance(value, str):
        value = str(value)  # (a Coerced mark is for comparing only: ruamel writes plain strings)
        if _SPECIAL.search(value):
            return DoubleQuotedScalarString(value)  # escaped, so libyaml reads it back exactly
        if "\n" in value and _literal_ok(value):
            return LiteralScalarString(value)
        if _YAML11_NOT_A_STRING.fullmatch(value):
            return SingleQuotedScalarString(value)
    return value


#: Plain scalars a YAML 1.1 reader (PyYAML, yamllint's truthy rule, Go's yaml.v2) takes for no string though
#: YAML 1.2 (what ruamel writes, and what js-yaml, the yaml package and evalfmt read) takes for one: the 1.1
#: booleans (``no``, ``on``, ``y``), numbers with ``_``, sexagesimal numbers (``1:30``), the merge and value
#: keys. Written quoted, a value reads as the same string in both.
_YAML11_NOT_A_STRING = re.compile(
    r"y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF"
    r"|[-+]?(?:0b[01_]+|0[0-7_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?"
    r"|(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+][0-9]+)?|[0-9][0-9_]*)"
    r"|<<|=")

#: Characters a YAML reader does not take raw, or folds as line breaks: write them escaped.
_SPECIAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")


def _literal_ok(text: str) -> bool:
    """A ``|`` block can carry the string exactly (no trailing spaces on lines, no tabs or CRs,
    no leading blank/space-started first line)."""
    if any(line != line.rstrip(" \t\r") for line in text.split("\n")):
        return False
    return not (text.startswith((" ", "\n", "\t")) or "\t" in text or "\r" in text)


def _merge(old: Any, new: Any) -> Any:
    if isinstance(old, CommentedMap) and isinstance(new, dict):
        for key in [k for k in old if k not in new]:
            del old[key]
        for key, value in new.items():
            old[key] = _merge(old[key], value) if key in old else _fresh(value)
        return old
    if isinstance(old, CommentedSeq) and isinstance(new, list):
        for i, value in enumerate(new):
            if i < len(old):
                old[i] = _merge(old[i], value)
            else:
                old.append(_fresh(value))
        del old[len(new):]
        return old
    if (type(new) in (bool, int, float, type(None)) or isinstance(new, str)) and _same_scalar(old, new):
        return old
    return _fresh(new)


def _same_scalar(old: Any, new: Any) -> bool:
    if isinstance(new, Coerced) and isinstance(old, (bool, int, float)):
        return js_string(old) == new  # 25600, 1.50, true: the very string the reader takes from them
    if isinstance(new, bool) or isinstance(old, bool):
        return type(old) is type(new) and old == new
    if isinstance(new, str):
        return isinstance(old, str) and str(old) == new
    if new is None:
        return old is None
    return not isinstance(old, str) and old == new


def dump(data: Any, existing: str | None = None) -> str:
    """YAML text for ``data``; with ``existing``, that document updated in place."""
    y = _yaml()
    doc = _fresh(data)
    if existing is not None:
        try:
            old = y.load(existing)
        except Exception:  # noqa: BLE001 - an unreadable old file is simply replaced
            old = None
        if old is not None:
            doc = _merge(old, data)
    buf = io.StringIO()
    y.dump(doc, buf)
    return buf.getvalue()

