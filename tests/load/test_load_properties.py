"""Properties of the loader: it never raises anything but LoadError, and positions point at values."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from evalfmt.errors import LoadError
from evalfmt.load import YMap, YSeq, load_bytes, load_text

YAML_ALPHABET = string.ascii_letters + string.digits + " \t\n:-[]{},&*!|>'\"#%@`?~.\\\x00\x07\u00e9\u2028\ufeff"


def _only_load_errors(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except LoadError as exc:
        assert exc.line is not None and exc.column is not None
        assert "\n" not in str(exc)
        return None


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_crash_the_yaml_loader(data):
    _only_load_errors(load_bytes, data, "x.yaml", "yaml")


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_crash_the_json_loader(data):
    loaded = _only_load_errors(load_bytes, data, "x.json", "json")
    if loaded is not None:
        _ = loaded.located  # the position index must cope with whatever orjson accepted
        _ = loaded.duplicates


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=YAML_ALPHABET, max_size=200))
def test_arbitrary_yaml_like_text_never_crashes(text):
    _only_load_errors(load_text, text, "x.yaml", "yaml")


_scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                     st.text(alphabet=string.ascii_letters + " _-", min_size=1, max_size=12))
_keys = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=8)
_docs = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(_keys, inner, max_size=4)), max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_keys, _docs, min_size=1, max_size=5))
def test_json_documents_load_identically_as_yaml_and_json(doc):
    import json

    text = json.dumps(doc)
    assert load_text(text, "x.json", "json").data == doc
    assert load_text(text, "x.yaml", "yaml").data == doc


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_keys, _docs, min_size=1, max_size=5))
def test_every_value_position_points_at_its_text(doc):
    import json

    text = json.dumps(doc, indent=1)
    lines = text.split("\n")
    for kind in ("json", "yaml"):
        loaded = load_text(text, "x", kind)

        def walk(node, path, loaded=loaded):
            if isinstance(node, YMap):
                for k, v in node.items():
                    kp = loaded.key_pos(*path, k)
                    assert lines[kp.line - 1][kp.column - 1:].startswith(json.dumps(k))
                    walk(v, path + (k,))
            elif isinstance(node, YSeq):
                for i, v in enumerate(node):
                    walk(v, path + (i,))
            if path:
                p = loaded.pos(*path)
                first = lines[p.line - 1][p.column - 1]
                expected = json.dumps(node)[0] if not isinstance(node, (YMap, YSeq)) else ("{" if isinstance(node, YMap) else "[")
                assert first == expected

        walk(loaded.located, ())
