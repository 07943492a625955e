"""From the concrete syntax tree to YAML nodes, with every error the ``yaml`` npm package raises while
composing (indentation of mapping items, implicit keys on one line, flow collections cut off by
indentation, comments glued to a token, duplicate keys by value, tabs used as indentation, ...), in
the order it raises them: ``parse`` throws the first one.

Nodes carry what the later steps need: their range (offsets of start, value end, node end; the
package places several errors relative to these), anchors, tags, and scalar values.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from ..load import MAX_DEPTH
from . import scalars as sc
from .cst import Parser
from .directives import CORE_TAG, Directives
from .error import YamlError
from .props import Props, Token, contains_newline, empty_position, resolve_end, resolve_props

MAP_TAG = CORE_TAG + "map"
SEQ_TAG = CORE_TAG + "seq"
STR_TAG = CORE_TAG + "str"
_KNOWN_SCALAR = {CORE_TAG + "binary": "binary", CORE_TAG + "merge": "merge", CORE_TAG + "timestamp": "timestamp"}
_KNOWN_COLLECTION = {CORE_TAG + "omap": ("omap", "seq"), CORE_TAG + "pairs": ("pairs", "seq"),
                     CORE_TAG + "set": ("set", "map")}


class Node:
    """kind: ``scalar`` (value, style), ``alias`` (value: the anchor name), ``map`` (items: (key,
    value or None) pairs) or ``seq`` (items: nodes)."""

    __slots__ = ("kind", "range", "anchor", "tag", "value", "items", "style", "merge", "cls", "offset")
    kind: str
    range: list[int]  # [start, value end, node end]
    anchor: str | None
    tag: str | None
    value: Any  # a scalar's JavaScript value (sc.MERGE for a merge key), an alias's anchor name
    #: a map's [(key, value or None)], a seq's [node] (a tagged !!omap/!!pairs seq holds pairs, like a map)
    items: Any
    style: str | None
    merge: bool
    cls: str | None
    offset: int  # of a scalar's or an alias's token

    def __init__(self, kind: str, value=None, items=None):
        self.kind = kind
        self.value = value
        self.items = items
        self.range = [0, 0, 0]
        self.anchor = None
        self.tag = None
        self.style = None
        self.merge = False
        self.cls = None  # "set", "omap", "pairs" for those tagged collections

    def __repr__(self) -> str:  # pragma: no cover - debugging
        return f"Node({self.kind}, {self.value!r}, {self.items!r})"


# -- directives ------------------------------------------------------------------------------------


class Doc:
    def __init__(self, directives: Directives):
        self.directives = directives
        self.errors: list[YamlError] = []
        self.contents: Node | None = None
        self.range = [0, 0, 0]


def compose(text: str) -> tuple[Doc, list[int]]:
    """The first document of ``text`` (its ``errors`` in the package's order) and the line starts."""
    parser = Parser()
    tokens = parser.parse(text)
    composer = _Composer()
    first: Doc | None = None
    try:
        for doc in composer.run(tokens, len(text)):
            if first is None:
                first = doc
            else:
                first.errors.append(YamlError(doc.range[0], "MULTIPLE_DOCS",
                                              "Source contains multiple documents; please use YAML.parseAllDocuments()",
                                              doc.range[1]))
                break
    except YamlError as err:  # nesting deeper than MAX_DEPTH: composing stops there
        if first is None:
            first = Doc(Directives())
            first.errors = composer.errors + [err]
        else:
            first.errors.append(err)
    assert first is not None  # run() yields at least one document
    return first, parser.line_starts


def _span(source) -> tuple[int, int | None]:
    """Where an error is, as the package computes it from what it was given (an offset, a range or a
    token)."""
    if isinstance(source, int):
        return source, None  # one UTF-16 unit past it: a caret under one column
    if isinstance(source, list):
        return source[0], source[1]
    text = source.get("source")
    return source["offset"], source["offset"] + (len(text) if isinstance(text, str) else 1)


class _Composer:
    def __init__(self):
        self.doc: Doc | None = None
        self.at_directives = False
        self.errors: list[YamlError] = []
        self.directives = Directives()

    def on_error(self, source, code: str, message: str, warning: bool = False) -> None:
        if not warning:
            start, end = _span(source)
            self.errors.append(YamlError(start, code, message, end))

    def _decorate(self, doc: Doc, after: bool) -> None:
        if after:
            doc.errors.extend(self.errors)
        else:
            doc.errors = self.errors
        self.errors = []

    def run(self, tokens: list[dict], end_offset: int):
        for token in tokens:
            kind = token["type"]
            if kind == "directive":
                start = token["offset"]

                def bad(offset, message, warning, start=start, end=start + len(token["source"])):  # noqa: B008 - binds this token's end
                    # the package's range: from the offset to the end of the directive's token
                    self.on_error([start + offset, end], "BAD_DIRECTIVE", message, warning)

                self.directives.add(token["source"], bad)
                self.at_directives = True
            elif kind == "document":
                doc = _DocComposer(self.directives, self).compose(token)
                if self.at_directives and not doc.directives.doc_start:
                    self.on_error(token, "MISSING_CHAR", "Missing directives-end/doc-start indicator line")
                self._decorate(doc, False)
                if self.doc is not None:
                    yield self.doc
                self.doc = doc
                self.at_directives = False
            elif kind in ("byte-order-mark", "space", "comment", "newline"):
                pass
            elif kind == "error":
                message = token["message"]
                if token.get("source"):
                    message += ": " + _json_string(token["source"])
                err = YamlError(*_span(token)[:1], "UNEXPECTED_TOKEN", message, _span(token)[1])
                if self.at_directives or self.doc is None:
                    self.errors.append(err)
                else:
                    self.doc.errors.append(err)
            elif kind == "doc-end":
                if self.doc is None:
                    self.errors.append(YamlError(token["offset"], "UNEXPECTED_TOKEN",
                                                 "Unexpected doc-end without preceding document", _span(token)[1]))
                    continue
                resolve_end(token.get("end"), token["offset"] + len(token["source"]), True, self.on_error)
                self._decorate(self.doc, True)
            else:  # pragma: no cover
                self.errors.append(YamlError(token["offset"], "UNEXPECTED_TOKEN", f"Unsupported token {kind}"))
        if self.doc is not None:
            self._decorate(self.doc, True)
            yield self.doc
            self.doc = None
        else:
            doc = Doc(self.directives.at_document())
            if self.at_directives:
                self.on_error(end_offset, "MISSING_CHAR", "Missing directives-end indicator line")
            doc.range = [0, end_offset, end_offset]
            self._decorate(doc, False)
            yield doc


def _same_key(a: Node, b: Node) -> bool:
    """The package's unique-key test: the same node, or two scalars with strictly equal values."""
    if a is b:
        return True
    if a.kind != "scalar" or b.kind != "scalar":
        return False
    x, y = a.value, b.value
    if x is sc.MERGE or y is sc.MERGE:
        return False
    if x is None or y is None:
        return x is None and y is None
    if isinstance(x, bool) or isinstance(y, bool):
        return isinstance(x, bool) and isinstance(y, bool) and x == y
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        return x == y
    if isinstance(x, str) and isinstance(y, str):
        return x == y
    return False


_BLOCK = ("block-map", "block-seq")
_BLOCK_IN_FLOW = "Block collections are not allowed within flow collections"
_START_COL = "All mapping items must start at the same column"


class _DocComposer:
    def __init__(self, directives: Directives, composer: _Composer):
        self.stream_directives = directives
        self.composer = composer
        self.on_error = composer.on_error
        self.at_key = False
        self.at_root = True
        self.strict = True
        self.depth = 0

    def compose(self, token: dict) -> Doc:
        doc = Doc(self.stream_directives.at_document())
        self.directives = doc.directives
        self.version = doc.directives.version if doc.directives.explicit else "1.2"
        start, value, end = token["start"], token.get("value"), token.get("end")
        nxt = value if value is not None else (end[0] if end else None)
        props = resolve_props(start, None, "doc-start", nxt, token["offset"], self.on_error, 0, True)
        if props.found is not None:
            doc.directives.doc_start = True
            if value is not None and value["type"] in _BLOCK and not props.has_newline:
                self.on_error(props.end, "MISSING_CHAR", "Block collection cannot start on same line with "
                                                         "directives-end marker")
        if value is not None:
            contents = self.node(value, props)
        else:
            contents = self.empty(props.end, start, props)
        doc.contents = contents
        content_end = contents.range[2]
        re_offset, _ = resolve_end(end, content_end, False, self.on_error)
        doc.range = [token["offset"], content_end, re_offset]
        return doc

    # -- nodes ------------------------------------------------------------------------------------

    def node(self, token: dict, props: Props) -> Node:
        anchor, tag = props.anchor, props.tag
        kind = token["type"]
        node = None
        if kind == "alias":
            node = self.alias(token)
            if anchor is not None or tag is not None:
                self.on_error(token, "ALIAS_PROPS", "An alias node must not specify any properties")
        elif kind in ("scalar", "single-quoted-scalar", "double-quoted-scalar", "block-scalar"):
            node = self.scalar(token, tag)
            if anchor is not None:
                node.anchor = anchor["source"][1:]
        elif kind in ("block-map", "block-seq", "flow-collection"):
            node = self.collection(token, props)
            if anchor is not None:
                node.anchor = anchor["source"][1:]
        else:
            message = token["message"] if kind == "error" else f"Unsupported token (type: {kind})"
            self.on_error(token, "UNEXPECTED_TOKEN", message)
        if node is None:
            node = self.empty(token["offset"], None, props)
        if anchor is not None and node.anchor == "":
            self.on_error(anchor, "BAD_ALIAS", "Anchor cannot be an empty string")
        return node

    def empty(self, offset: int, before: list | None, props: Props) -> Node:
        token = {"type": "scalar", "offset": empty_position(offset, before), "indent": -1, "source": ""}
        node = self.scalar(token, props.tag)
        if props.anchor is not None:
            node.anchor = props.anchor["source"][1:]
            if node.anchor == "":
                self.on_error(props.anchor, "BAD_ALIAS", "Anchor cannot be an empty string")
        if props.comment:
            node.range[2] = props.end
        return node

    def alias(self, token: dict) -> Node:
        source = token["source"]
        node = Node("alias", source[1:])
        node.offset = token["offset"]
        if node.value == "":
            self.on_error(token["offset"], "BAD_ALIAS", "Alias cannot be an empty string")
        value_end = token["offset"] + len(source)
        end, _ = resolve_end(token.get("end"), value_end, self.strict, self.on_error)
        node.range = [token["offset"], value_end, end]
        return node

    def scalar(self, token: dict, tag_token: dict | None) -> Node:
        on_error = self.on_error
        kind = token["type"]
        if kind == "block-scalar":
            start = token["offset"]
            header = sc.block_header(token, self.strict, on_error)
            if header is None:  # pragma: no cover
                value, style, rng = "", None, [start, start, start]
            else:
                value, end = sc.block_value(token, header, self.at_root, on_error)
                style = sc.BLOCK_FOLDED if header[0] == ">" else sc.BLOCK_LITERAL
                rng = [start, end, end]
        else:
            offset, source = token["offset"], token["source"]

            def rel(at, code, message):
                on_error(offset + at, code, message)

            if kind == "scalar":
                style, value = sc.PLAIN, sc.plain_value(source, rel)
            elif kind == "single-quoted-scalar":
                style, value = sc.QUOTE_SINGLE, sc.single_quoted_value(source, rel)
            else:
                style, value = sc.QUOTE_DOUBLE, sc.double_quoted_value(source, rel)
            value_end = offset + len(source)
            end, _ = resolve_end(token.get("end"), value_end, self.strict, on_error)
            rng = [offset, value_end, end]
        tag_name: str | None = None
        if tag_token is not None:
            tag_name = self.directives.tag_name(
                tag_token["source"], lambda m: on_error(tag_token, "TAG_RESOLVE_FAILED", m))
        node = Node("scalar")
        node.style = style
        node.range = rng
        node.offset = token["offset"]
        if tag_name and tag_token is not None:  # tag_name is only set with a tag_token
            self._tagged_scalar(node, value, tag_name, tag_token)
            node.tag = tag_name
        elif kind == "scalar":
            tag, resolved = sc.resolve_plain(value, self.at_key, self.version)
            node.value = resolved
            node.merge = tag == "merge"
        else:
            node.value = value
        return node

    def _tagged_scalar(self, node: Node, value: str, tag_name: str, tag_token: dict) -> None:
        node.value = value
        if tag_name == "!" or tag_name == STR_TAG:
            return
        table = sc.YAML11 if self.version == "1.1" else sc.CORE
        short = tag_name[len(CORE_TAG):] if tag_name.startswith(CORE_TAG) else None
        if short is not None:
            for tag, pattern, fn in table:
                if tag == short and pattern.match(value):
                    if tag == "merge":
                        node.value, node.merge = sc.MERGE, True
                    elif tag == "timestamp":
                        node.value = value
                    else:
                        node.value = fn(value)
                    return
            if self.version == "1.1":
                if short == "binary":
                    node.value = _base64(value)
                # other 1.1 tags that do not match are left as strings (a warning in the package)
                return
            known = _KNOWN_SCALAR.get(tag_name)
            if known == "merge":
                node.value, node.merge = sc.MERGE, True
                return
            if known == "binary":
                node.value = _base64(value)
                return
            if known == "timestamp":
                if not sc.TIMESTAMP.match(value):
                    self.on_error(tag_token, "TAG_RESOLVE_FAILED", "!!timestamp expects a date, starting with "
                                                                   "yyyy-mm-dd")
                return
        # an unknown tag: a warning in the package, the value stays a string

    def collection(self, token: dict, props: Props) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise YamlError(token["offset"], "DEPTH", f"nesting is deeper than {MAX_DEPTH} levels")
        try:
            return self._collection(token, props)
        finally:
            self.depth -= 1

    def _collection(self, token: dict, props: Props) -> Node:
        tag_token = props.tag
        tag_name = None
        if tag_token is not None:
            tag_name = self.directives.tag_name(
                tag_token["source"], lambda m: self.on_error(tag_token, "TAG_RESOLVE_FAILED", m))
        kind = token["type"]
        if kind == "block-seq":
            anchor, nl = props.anchor, props.newline_after_prop
            last: Token | None
            if anchor is not None and tag_token is not None:
                last = anchor if anchor["offset"] > tag_token["offset"] else tag_token
            else:
                last = anchor if anchor is not None else tag_token
            if last is not None and (nl is None or nl["offset"] < last["offset"]):
                self.on_error(last, "MISSING_CHAR", "Missing newline after block sequence props")
        exp = "map" if kind == "block-map" else "seq" if kind == "block-seq" else (
            "map" if token["start"]["source"] == "{" else "seq")
        cls = None
        if tag_name and tag_name != "!" and not (tag_name == MAP_TAG and exp == "map") and not (
                tag_name == SEQ_TAG and exp == "seq"):
            known = _KNOWN_COLLECTION.get(tag_name)
            if known is not None and known[1] == exp:
                cls = known[0]
        if kind == "block-map":
            node = self.block_map(token)
        elif kind == "block-seq":
            node = self.block_seq(token)
        else:
            node = self.flow_collection(token)
        node.tag = tag_name
        if cls is not None and tag_token is not None:  # cls is only set with a tag_token
            self._tagged_collection(node, cls, tag_token)
        return node

    def _tagged_collection(self, node: Node, cls: str, tag_token: dict) -> None:
        def err(message):
            self.on_error(tag_token, "TAG_RESOLVE_FAILED", message)

        if cls == "set":
            if all(v is None or (v.kind == "scalar" and v.value is None) for _, v in node.items):
                node.cls = "set"
            else:
                err("Set items must all have null values")
            return
        pairs = []
        for item in node.items:
            if isinstance(item, tuple):
                pairs.append(item)
            elif item.kind == "map":
                if len(item.items) > 1:
                    err("Each pair must have its own sequence indicator")
                pairs.append(item.items[0] if item.items else (_null_node(), None))
            else:
                pairs.append((item, None))
        node.items = pairs
        node.cls = cls
        if cls == "omap":
            seen: list[Node] = []
            for key, _ in pairs:
                if key.kind == "scalar":
                    if any(_strict_equal(key.value, s.value) for s in seen):
                        err(f"Ordered maps must not include duplicate keys: {key.value}")
                    else:
                        seen.append(key)

    def _unique(self, node: Node, key_node: Node, key_start: int) -> None:
        for k, _ in node.items:
            if _same_key(k, key_node):
                self.on_error(key_start, "DUPLICATE_KEY", "Map keys must be unique")
                err = self.composer.errors[-1]
                err.first, err.key = k.range[0], key_node.value
                return

    # -- block collections ----------------------------------------------------------------------

    def block_map(self, bm: dict) -> Node:
        on_error = self.on_error
        node = Node("map", items=[])
        if self.at_root:
            self.at_root = False
        offset = bm["offset"]
        comment_end = None
        for item in bm["items"]:
            start, key, sep, value = item["start"], item.get("key"), item.get("sep"), item.get("value")
            key_props = resolve_props(start, None, "explicit-key-ind",
                                       key if key is not None else (sep[0] if sep else None),
                                       offset, on_error, bm["indent"], True)
            implicit = key_props.found is None
            if key_props.found is None:
                if key is not None:
                    if key["type"] == "block-seq":
                        on_error(offset, "BLOCK_AS_IMPLICIT_KEY", "A block sequence may not be used as an implicit map "
                                                                  "key")
                    elif "indent" in key and key["indent"] != bm["indent"]:
                        on_error(offset, "BAD_INDENT", _START_COL)
                if key_props.anchor is None and key_props.tag is None and sep is None:
                    comment_end = key_props.end
                    continue
                if key_props.newline_after_prop is not None or contains_newline(key):
                    on_error(key if key is not None else start[-1], "MULTILINE_IMPLICIT_KEY",
                             "Implicit keys need to be on a single line")
            elif key_props.found["indent"] != bm["indent"]:
                on_error(offset, "BAD_INDENT", _START_COL)
            self.at_key = True
            key_start = key_props.end
            key_node = self.node(key, key_props) if key is not None else self.empty(key_start, start, key_props)
            self.at_key = False
            self._unique(node, key_node, key_start)
            value_props = resolve_props(sep or [], None, "map-value-ind", value, key_node.range[2], on_error,
                                         bm["indent"], key is None or key["type"] == "block-scalar")
            offset = value_props.end
            if value_props.found is not None:
                if implicit:
                    if value is not None and value["type"] == "block-map" and not value_props.has_newline:
                        on_error(offset, "BLOCK_AS_IMPLICIT_KEY", "Nested mappings are not allowed in compact mappings")
                    if self.strict and key_props.start < value_props.found["offset"] - 1024:
                        on_error(key_node.range, "KEY_OVER_1024_CHARS",
                                 "The : indicator must be at most 1024 chars after the start of an implicit block "
                                 "mapping key")
                value_node = (self.node(value, value_props) if value is not None
                              else self.empty(offset, sep, value_props))
                offset = value_node.range[2]
                node.items.append((key_node, value_node))
            else:
                if implicit:
                    on_error(key_node.range, "MISSING_CHAR", "Implicit map keys need to be followed by map values")
                node.items.append((key_node, None))
        if comment_end and comment_end < offset:
            on_error(comment_end, "IMPOSSIBLE", "Map comment with trailing content")
        node.range = [bm["offset"], offset, comment_end if comment_end is not None else offset]
        return node

    def block_seq(self, bs: dict) -> Node:
        on_error = self.on_error
        node = Node("seq", items=[])
        if self.at_root:
            self.at_root = False
        if self.at_key:
            self.at_key = False
        offset = bs["offset"]
        comment_end = None
        for item in bs["items"]:
            start, value = item["start"], item.get("value")
            props = resolve_props(start, None, "seq-item-ind", value, offset, on_error, bs["indent"], True)
            if props.found is None:
                if props.anchor is not None or props.tag is not None or value is not None:
                    if value is not None and value["type"] == "block-seq":
                        on_error(props.end, "BAD_INDENT", "All sequence items must start at the same column")
                    else:
                        on_error(offset, "MISSING_CHAR", "Sequence item without - indicator")
                else:
                    comment_end = props.end
                    continue
            child = self.node(value, props) if value is not None else self.empty(props.end, start, props)
            offset = child.range[2]
            node.items.append(child)
        node.range = [bs["offset"], offset, comment_end if comment_end is not None else offset]
        return node

    # -- flow collections -------------------------------------------------------------------------

    def flow_collection(self, fc: dict) -> Node:
        on_error = self.on_error
        is_map = fc["start"]["source"] == "{"
        name = "flow map" if is_map else "flow sequence"
        node = Node("map" if is_map else "seq", items=[])
        at_root = self.at_root
        if at_root:
            self.at_root = False
        if self.at_key:
            self.at_key = False
        offset = fc["offset"] + len(fc["start"]["source"])
        items = fc["items"]
        for i, item in enumerate(items):
            start, key, sep, value = item["start"], item.get("key"), item.get("sep"), item.get("value")
            props = resolve_props(start, name, "explicit-key-ind",
                                   key if key is not None else (sep[0] if sep else None),
                                   offset, on_error, fc["indent"], False)
            if props.found is None:
                if props.anchor is None and props.tag is None and sep is None and value is None:
                    if i == 0 and props.comma is not None:
                        on_error(props.comma, "UNEXPECTED_TOKEN", f"Unexpected , in {name}")
                    elif i < len(items) - 1:
                        on_error(props.start, "UNEXPECTED_TOKEN", f"Unexpected empty item in {name}")
                    offset = props.end
                    continue
                if not is_map and self.strict and contains_newline(key):
                    on_error(key, "MULTILINE_IMPLICIT_KEY", "Implicit keys of flow sequence pairs need to be on a "
                                                            "single line")
            if i == 0:
                if props.comma is not None:
                    on_error(props.comma, "UNEXPECTED_TOKEN", f"Unexpected , in {name}")
            else:
                if props.comma is None:
                    on_error(props.start, "MISSING_CHAR", f"Missing , between {name} items")
                if props.comment:
                    prev_comment = ""
                    for st in start:
                        if st["type"] in ("comma", "space"):
                            continue
                        if st["type"] == "comment":
                            prev_comment = st["source"][1:]
                        break
                    if prev_comment:
                        props.comment = props.comment[len(prev_comment) + 1:]
            if not is_map and sep is None and props.found is None:
                child = self.node(value, props) if value is not None else self.empty(props.end, sep, props)
                node.items.append(child)
                offset = child.range[2]
                if value is not None and value["type"] in _BLOCK:
                    on_error(child.range, "BLOCK_IN_FLOW", _BLOCK_IN_FLOW)
                continue
            self.at_key = True
            key_start = props.end
            key_node = self.node(key, props) if key is not None else self.empty(key_start, start, props)
            if key is not None and key["type"] in _BLOCK:
                on_error(key_node.range, "BLOCK_IN_FLOW", _BLOCK_IN_FLOW)
            self.at_key = False
            value_props = resolve_props(sep or [], name, "map-value-ind", value, key_node.range[2], on_error,
                                         fc["indent"], False)
            if value_props.found is not None:
                if not is_map and props.found is None and self.strict:
                    for st in sep or ():
                        if st is value_props.found:
                            break
                        if st["type"] == "newline":
                            on_error(st, "MULTILINE_IMPLICIT_KEY",
                                     "Implicit keys of flow sequence pairs need to be on a single line")
                            break
                    if props.start < value_props.found["offset"] - 1024:
                        on_error(value_props.found, "KEY_OVER_1024_CHARS",
                                 "The : indicator must be at most 1024 chars after the start of an implicit flow "
                                 "sequence key")
            elif value is not None:
                if isinstance(value.get("source"), str) and value["source"][:1] == ":":
                    on_error(value, "MISSING_CHAR", f"Missing space after : in {name}")
                else:
                    on_error(value_props.start, "MISSING_CHAR", f"Missing , or : between {name} items")
            if value is not None:
                value_node = self.node(value, value_props)
            elif value_props.found is not None:
                value_node = self.empty(value_props.end, sep, value_props)
            else:
                value_node = None
            if value_node is not None and value is not None and value["type"] in _BLOCK:
                on_error(value_node.range, "BLOCK_IN_FLOW", _BLOCK_IN_FLOW)
            if is_map:
                self._unique(node, key_node, key_start)
                node.items.append((key_node, value_node))
            else:
                pair_map = Node("map", items=[(key_node, value_node)])
                end_range = (value_node or key_node).range
                pair_map.range = [key_node.range[0], end_range[1], end_range[2]]
                node.items.append(pair_map)
            offset = value_node.range[2] if value_node is not None else value_props.end
        expected = "}" if is_map else "]"
        ends = list(fc["end"])
        ce = ends.pop(0) if ends else None
        ce_pos = offset
        if ce is not None and ce["source"] == expected:
            ce_pos = ce["offset"] + len(ce["source"])
        else:
            title = name[0].upper() + name[1:]
            if at_root:
                on_error(offset, "MISSING_CHAR", f"{title} must end with a {expected}")
            else:
                on_error(offset, "BAD_INDENT",
                         f"{title} in block collection must be sufficiently indented and end with a {expected}")
            if ce is not None and len(ce["source"]) != 1:
                ends.insert(0, ce)
        if ends:
            end, _ = resolve_end(ends, ce_pos, self.strict, on_error)
            node.range = [fc["offset"], ce_pos, end]
        else:
            node.range = [fc["offset"], ce_pos, ce_pos]
        return node


def _json_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _null_node() -> Node:
    node = Node("scalar", None)
    node.style = sc.PLAIN
    return node


def _strict_equal(x, y) -> bool:
    a, b = Node("scalar", x), Node("scalar", y)
    return _same_key(a, b)


def _base64(text: str) -> bytes:
    """Node's ``Buffer.from(text, 'base64')``: the first ``=`` ends the data, any other character outside
    both base64 alphabets is skipped, a last lone character gives no byte."""
    clean = re.sub(r"[^A-Za-z0-9+/\-_]", "", text.split("=", 1)[0]).replace("-", "+").replace("_", "/")
    clean = clean[: len(clean) - len(clean) % 4] if len(clean) % 4 == 1 else clean
    return base64.b64decode(clean + "=" * (-len(clean) % 4))
