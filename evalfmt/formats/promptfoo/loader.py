"""YAML as promptfoo 0.123.1 reads it: ``js-yaml`` 5.4.1 with its core schema (YAML 1.2), merge keys applied.

promptfoo reads a config, its tests files, a ``file://`` defaultTest and YAML vars files with the same call
(``loadYaml``). libyaml (evalfmt's fast loader) refuses some texts that YAML 1.2 and js-yaml accept, the
common one being a ``:`` inside a plain scalar of a flow collection: ``providers: [anthropic:claude-agent-sdk]``,
``vars: {question: Why is the sky blue?}``, ``[http://x.y]``. Where libyaml refuses a text, the model of the
``yaml`` npm package (:mod:`evalfmt.npmyaml`, YAML 1.2 like js-yaml) reads it; where the model refuses it too,
libyaml's error stands, unless libyaml stopped at such a ``:`` (then the model's error, at the model's
position, says what a YAML 1.2 parser finds wrong). ``tests/formats/test_promptfoo_yaml.py`` compares this
loader with the real js-yaml on a corpus of such texts.

JSON files are read as JSON (promptfoo's YAML parser reads them the same way: JSON is YAML 1.2).

A plain (unquoted) scalar js-yaml's timestamp tag resolves (``2024-05-01``, ``2024-05-01 10:00:00``) is a
JavaScript ``Date`` in promptfoo, where evalfmt's loaders keep the text: such a value is a :class:`YamlDate`,
the text marked, so that the expansion can say it does not render it as promptfoo would.
"""

from __future__ import annotations

import re

from ...errors import LoadError, Pos
from ...fsview import DISK, View
from ...load import Duplicate, Loaded, YMap, YSeq, check_expanded_size, kind_of, max_bytes_default, read_text
from ...load import load_text as _libyaml_load_text
from ...npmyaml import YamlError, load
from ...npmyaml.tojs import _js_key
from ..agentv.loader import resolve_merges
from datetime import UTC, datetime, timedelta

#: libyaml refusals the model is not asked about: evalfmt's own limits and findings, not YAML syntax
_OWN = ("tab character", "unknown alias", "unknown tag", "is not a valid !!", "is too large", "deeper than",
        "aliases expand", "one YAML document")


def load_file(path: str, kind: str | None = None, *, fs: View = DISK) -> Loaded:
    """Load a promptfoo YAML or JSON file (read through ``fs``) as promptfoo's parser reads it (see the
    module docstring)."""
    return load_text(read_text(path, fs=fs), path, kind or kind_of(path))


def load_text(text: str, path: str = "<string>", kind: str = "yaml") -> Loaded:
    try:
        loaded = _libyaml_load_text(text, path, kind)
    except LoadError as err:
        msg = err.message
        if kind != "yaml" or not msg.startswith("invalid YAML") or any(own in msg for own in _OWN):
            raise
        loaded = _model(text, path, err)
    if kind == "yaml" and "<<" in text:
        resolve_merges(loaded.data)
    if kind == "yaml" and _DATE_HINT.search(text):
        _mark_dates(loaded)
    return loaded


class YamlDate(str):
    """A plain YAML scalar js-yaml reads as a ``Date`` (its text, as evalfmt reads it)."""

    def iso(self) -> str:
        """``date.toJSON()`` of the Date js-yaml makes (UTC unless the text gives an offset)."""
        m = _TIMESTAMP_PARTS.fullmatch(self)
        if m is None:
            return f"{self}T00:00:00.000Z"
        year, month, day, hour, minute, second, fraction, sign, tzh, tzm = m.groups()
        ms = int((fraction or "0")[:3].ljust(3, "0"))
        when = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second), ms * 1000,
                        tzinfo=UTC)
        if sign:
            offset = timedelta(hours=int(tzh), minutes=int(tzm or 0))
            when = when - offset if sign == "+" else when + offset
        return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms:03d}Z"


_DATE_HINT = re.compile(r"[0-9]{4}-[0-9]")
#: js-yaml's YAML_DATE_REGEXP and YAML_TIMESTAMP_REGEXP
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
                        r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?")


_TIMESTAMP_PARTS = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})"
                              r"(?:\.([0-9]*))?(?:[ \t]*(?:Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?")


def _mark_dates(loaded: Loaded) -> None:
    """Each string value of ``loaded`` written as a plain timestamp becomes a :class:`YamlDate`."""
    lines = loaded.text.split("\n")
    stack = [loaded.data]
    while stack:
        node = stack.pop()
        if isinstance(node, YMap):
            slots = [(k, node.vpos.get(k)) for k in node]
        elif isinstance(node, YSeq):
            slots = [(i, node.ipos[i] if i < len(node.ipos) else None) for i in range(len(node))]
        else:
            continue
        for slot, pos in slots:
            value = node[slot]
            if isinstance(value, (YMap, YSeq)):
                stack.append(value)
            elif isinstance(value, str) and (_DATE.fullmatch(value) or _TIMESTAMP.fullmatch(value)) and \
                    pos is not None and _plain_at(lines, pos, value):
                node[slot] = YamlDate(value)


def _plain_at(lines: list[str], pos: tuple[int, int], value: str) -> bool:
    """Whether ``value`` is written at ``pos`` (1-based line, column) as it is: not quoted, not tagged."""
    line, column = pos
    return 0 < line <= len(lines) and lines[line - 1].startswith(value, column - 1)


def _model(text: str, path: str, refusal: LoadError) -> Loaded:
    """The text as the YAML 1.2 model reads it; ``refusal`` (libyaml's) when the model refuses it too."""
    try:
        data, dups = load(text)
    except YamlError as err:
        if "found unexpected ':'" not in refusal.message or err.line is None:
            raise refusal from None
        # libyaml stopped at a ':' YAML 1.2 reads: the model says where a YAML 1.2 parser stops
        raise LoadError(f"invalid YAML: {err.message[0].lower()}{err.message[1:]}", path, err.line,
                        err.column) from None
    except RecursionError:  # pragma: no cover - the model's depth limit comes first
        raise refusal from None
    if "*" in text:  # aliases: the expanded document must fit the size limit too
        check_expanded_size(data, path, max_bytes_default())
    duplicates = [Duplicate((), _js_key(d.key, None), Pos(*d.first_pos), Pos(d.line, d.column)) for d in dups]
    return Loaded(path, "yaml", text, data, _located=data, _duplicates=duplicates)
