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
"""

from __future__ import annotations

from ...errors import LoadError, Pos
from ...fsview import DISK, View
from ...load import (Duplicate, Loaded, check_expanded_size, kind_of, load_text as _libyaml_load_text,
                     max_bytes_default, read_text)
from ...npmyaml import YamlError, load
from ...npmyaml.tojs import _js_key
from ..agentv.loader import resolve_merges

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
    return loaded


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
