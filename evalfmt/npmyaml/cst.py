"""Building the concrete syntax tree of the ``yaml`` npm package from the lexemes of :mod:`.lexer`.

The tree decides which tokens belong to which key, value or collection item, and so which of the
package's later checks fire; it is built by the same stack machine as the package's parser, quirks
included (a flow collection on a key line, comments indented under a previous value, ...).

Tokens and nodes are dicts, as the package's are plain objects: ``type``, ``offset``, ``indent``,
``source``; collections have ``items``, each a dict with ``start`` (a list of tokens) and optionally
``key``, ``sep`` (a list, present once a key or ':' was seen), ``value`` and ``explicit_key``; a
scalar may get ``end`` (the tokens after it on its line). The parser also records where each line
starts, as the package does: that is what its error positions are counted against.
"""

from __future__ import annotations

from .lexer import BOM, DOC, FLOW_END, SCALAR, lex

_FIXED = {
    BOM: "byte-order-mark", DOC: "doc-mode", FLOW_END: "flow-error-end", SCALAR: "scalar",
    "---": "doc-start", "...": "doc-end", "": "newline", "\n": "newline", "\r\n": "newline",
    "-": "seq-item-ind", "?": "explicit-key-ind", ":": "map-value-ind", "{": "flow-map-start",
    "}": "flow-map-end", "[": "flow-seq-start", "]": "flow-seq-end", ",": "comma",
}
_BY_FIRST = {
    " ": "space", "\t": "space", "#": "comment", "%": "directive-line", "*": "alias", "&": "anchor",
    "!": "tag", "'": "single-quoted-scalar", '"': "double-quoted-scalar", "|": "block-scalar-header",
    ">": "block-scalar-header",
}
FLOW_SCALARS = frozenset(("alias", "scalar", "single-quoted-scalar", "double-quoted-scalar"))
_KEY_START_STOP = frozenset(("doc-start", "explicit-key-ind", "map-value-ind", "seq-item-ind", "newline"))


def token_type(source: str) -> str | None:
    kind = _FIXED.get(source)
    if kind is None and source:
        kind = _BY_FIRST.get(source[0])
    return kind


def includes(tokens: list, kind: str) -> bool:
    return any(t["type"] == kind for t in tokens)


def first_non_empty(tokens: list) -> int:
    for i, t in enumerate(tokens):
        if t["type"] not in ("space", "comment", "newline"):
            return i
    return -1


_FLOW_TOKENS = FLOW_SCALARS | {"flow-collection"}


def is_flow_token(token) -> bool:
    return token is not None and token["type"] in _FLOW_TOKENS


def _prev_props(parent: dict) -> list:
    kind = parent["type"]
    if kind == "document":
        return parent["start"]
    if kind == "block-map":
        it = parent["items"][-1]
        return it["sep"] if it.get("sep") is not None else it["start"]
    if kind == "block-seq":
        return parent["items"][-1]["start"]
    return []


def _first_key_start_props(prev: list) -> list:
    """Cut from ``prev`` (in place) the tokens that belong to the next key: after the last line
    break or indicator, leading spaces skipped."""
    if not prev:
        return []
    i = len(prev) - 1
    while i >= 0:
        if prev[i]["type"] in _KEY_START_STOP:
            break
        i -= 1
    i += 1
    while i < len(prev) and prev[i]["type"] == "space":
        i += 1
    cut = prev[i:]
    del prev[i:]
    return cut


def _fix_flow_seq_items(fc: dict) -> None:
    """In a flow sequence, an item parsed as a key without ':' is a plain value."""
    if fc["start"]["type"] != "flow-seq-start":
        return
    for it in fc["items"]:
        sep = it.get("sep")
        if (sep is not None and it.get("value") is None and not includes(it["start"], "explicit-key-ind")
                and not includes(sep, "map-value-ind")):
            if it.get("key"):
                it["value"] = it["key"]
            it.pop("key", None)
            value = it.get("value")
            if is_flow_token(value):
                if value.get("end") is not None:
                    value["end"].extend(sep)
                else:
                    value["end"] = sep
            else:
                it["start"].extend(sep)
            it.pop("sep", None)


class Parser:
    """The package's CST parser, fed all lexemes at once; ``parse`` returns the top-level tokens
    (documents, directives, errors, ...) and fills ``line_starts``."""

    def __init__(self):
        self.at_new_line = True
        self.at_scalar = False
        self.indent = 0
        self.offset = 0
        self.on_key_line = False
        self.stack: list[dict] = []
        self.source = ""
        self.type = ""
        self.out: list[dict] = []
        self.line_starts: list[int] = []

    def parse(self, text: str) -> list[dict]:
        self.line_starts.append(0)
        for lexeme in lex(text):
            self.next(lexeme)
        while self.stack:
            self.pop()
        return self.out

    # -- driving --------------------------------------------------------------------------------

    def next(self, source: str) -> None:
        self.source = source
        if self.at_scalar:
            self.at_scalar = False
            self.step()
            self.offset += len(source)
            return
        kind = token_type(source)
        if kind is None:
            self.pop({"type": "error", "offset": self.offset, "message": f"Not a YAML token: {source}",
                      "source": source})
            self.offset += len(source)
        elif kind == "scalar":
            self.at_new_line = False
            self.at_scalar = True
            self.type = "scalar"
        else:
            self.type = kind
            self.step()
            if kind == "newline":
                self.at_new_line = True
                self.indent = 0
                self.line_starts.append(self.offset + len(source))
            elif kind == "space":
                if self.at_new_line and source[0] == " ":
                    self.indent += len(source)
            elif kind in ("explicit-key-ind", "map-value-ind", "seq-item-ind"):
                if self.at_new_line:
                    self.indent += len(source)
            elif kind in ("doc-mode", "flow-error-end"):
                return
            else:
                self.at_new_line = False
            self.offset += len(source)

    def token(self) -> dict:
        return {"type": self.type, "offset": self.offset, "indent": self.indent, "source": self.source}

    def step(self) -> None:
        top = self.stack[-1] if self.stack else None
        if self.type == "doc-end" and (top is None or top["type"] != "doc-end"):
            while self.stack:
                self.pop()
            self.stack.append({"type": "doc-end", "offset": self.offset, "source": self.source})
            return
        if top is None:
            return self.stream()
        kind = top["type"]
        if kind == "document":
            return self.document(top)
        if kind in FLOW_SCALARS:
            return self.scalar(top)
        if kind == "block-scalar":
            return self.block_scalar(top)
        if kind == "block-map":
            return self.block_map(top)
        if kind == "block-seq":
            return self.block_seq(top)
        if kind == "flow-collection":
            return self.flow_collection(top)
        if kind == "doc-end":
            return self.document_end(top)
        self.pop()  # pragma: no cover

    def pop(self, error: dict | None = None) -> None:
        token = error if error is not None else (self.stack.pop() if self.stack else None)
        if token is None:  # pragma: no cover - the package's own "should not happen"
            self.out.append({"type": "error", "offset": self.offset, "source": "",
                             "message": "Tried to pop an empty stack"})
            return
        if not self.stack:
            self.out.append(token)
            return
        top = self.stack[-1]
        kind = token["type"]
        if kind == "block-scalar":
            token["indent"] = top.get("indent", 0)
        elif kind == "flow-collection" and top["type"] == "document":
            token["indent"] = 0
        if kind == "flow-collection":
            _fix_flow_seq_items(token)
        tt = top["type"]
        if tt == "document":
            top["value"] = token
        elif tt == "block-scalar":
            top["props"].append(token)
        elif tt == "block-map":
            it = top["items"][-1]
            if it.get("value") is not None:
                top["items"].append({"start": [], "key": token, "sep": []})
                self.on_key_line = True
                return
            if it.get("sep") is not None:
                it["value"] = token
            else:
                it["key"] = token
                it["sep"] = []
                self.on_key_line = not it.get("explicit_key")
                return
        elif tt == "block-seq":
            it = top["items"][-1]
            if it.get("value") is not None:
                top["items"].append({"start": [], "value": token})
            else:
                it["value"] = token
        elif tt == "flow-collection":
            it = top["items"][-1] if top["items"] else None
            if it is None or it.get("value") is not None:
                top["items"].append({"start": [], "key": token, "sep": []})
            elif it.get("sep") is not None:
                it["value"] = token
            else:
                it["key"] = token
                it["sep"] = []
            return
        else:  # pragma: no cover
            self.pop()
            self.pop(token)
        if tt in ("document", "block-map", "block-seq") and kind in ("block-map", "block-seq"):
            items = token["items"]
            last = items[-1] if items else None
            if (last is not None and last.get("sep") is None and last.get("value") is None and last["start"]
                    and first_non_empty(last["start"]) == -1
                    and (token["indent"] == 0
                         or all(st["type"] != "comment" or st["indent"] < token["indent"] for st in last["start"]))):
                if tt == "document":
                    top["end"] = last["start"]
                else:
                    top["items"].append({"start": last["start"]})
                items.pop()

    # -- states -------------------------------------------------------------------------------

    def stream(self) -> None:
        kind = self.type
        if kind == "directive-line":
            self.out.append({"type": "directive", "offset": self.offset, "source": self.source})
            return
        if kind in ("byte-order-mark", "space", "comment", "newline"):
            self.out.append(self.token())
            return
        if kind in ("doc-mode", "doc-start"):
            doc = {"type": "document", "offset": self.offset, "start": []}
            if kind == "doc-start":
                doc["start"].append(self.token())
            self.stack.append(doc)
            return
        self.out.append({"type": "error", "offset": self.offset, "source": self.source,
                         "message": f"Unexpected {kind} token in YAML stream"})

    def document(self, doc: dict) -> None:
        if doc.get("value") is not None:
            return self.line_end(doc)
        kind = self.type
        if kind == "doc-start":
            if first_non_empty(doc["start"]) != -1:
                self.pop()
                self.step()
            else:
                doc["start"].append(self.token())
            return
        if kind in ("anchor", "tag", "space", "comment", "newline"):
            doc["start"].append(self.token())
            return
        bv = self.start_block_value(doc)
        if bv is not None:
            self.stack.append(bv)
        else:
            self.out.append({"type": "error", "offset": self.offset, "source": self.source,
                             "message": f"Unexpected {kind} token in YAML document"})

    def scalar(self, scalar: dict) -> None:
        if self.type == "map-value-ind":
            start = _first_key_start_props(_prev_props(self.stack[-2]))
            if scalar.get("end") is not None:
                sep = scalar.pop("end")
                sep.append(self.token())
            else:
                sep = [self.token()]
            self.on_key_line = True
            self.stack[-1] = {"type": "block-map", "offset": scalar["offset"], "indent": scalar["indent"],
                              "items": [{"start": start, "key": scalar, "sep": sep}]}
        else:
            self.line_end(scalar)

    def block_scalar(self, scalar: dict) -> None:
        kind = self.type
        if kind in ("space", "comment", "newline"):
            scalar["props"].append(self.token())
            return
        if kind == "scalar":
            scalar["source"] = self.source
            self.at_new_line = True
            self.indent = 0
            self._lines_in(self.source)
            self.pop()
            return
        self.pop()  # pragma: no cover - the lexer always gives a block scalar's body
        self.step()

    def _lines_in(self, source: str) -> None:
        nl = source.find("\n")
        while nl != -1:
            self.line_starts.append(self.offset + nl + 1)
            nl = source.find("\n", nl + 1)

    def block_map(self, bmap: dict) -> None:
        it = bmap["items"][-1]
        kind = self.type
        if kind == "newline":
            self.on_key_line = False
            if it.get("value") is not None:
                self._newline_after_value(bmap, it)
            elif it.get("sep") is not None:
                it["sep"].append(self.token())
            else:
                it["start"].append(self.token())
            return
        if kind in ("space", "comment"):
            if it.get("value") is not None:
                bmap["items"].append({"start": [self.token()]})
            elif it.get("sep") is not None:
                it["sep"].append(self.token())
            elif not self._comment_of_previous_value(bmap, it):
                it["start"].append(self.token())
            return
        if self.indent >= bmap["indent"]:
            at_map_indent = not self.on_key_line and self.indent == bmap["indent"]
            at_next_item = (at_map_indent and (it.get("sep") is not None or bool(it.get("explicit_key")))
                            and kind != "seq-item-ind")
            start: list = []
            if at_next_item and it.get("sep") is not None and it.get("value") is None:
                nl: list[int] = []
                for i, st in enumerate(it["sep"]):
                    st_kind = st["type"]
                    if st_kind == "newline":
                        nl.append(i)
                    elif st_kind == "space":
                        pass
                    elif st_kind == "comment":
                        if st["indent"] > bmap["indent"]:
                            nl = []
                    else:
                        nl = []
                if len(nl) >= 2:
                    start = it["sep"][nl[1]:]
                    del it["sep"][nl[1]:]
            if kind in ("anchor", "tag"):
                if at_next_item or it.get("value") is not None:
                    start.append(self.token())
                    bmap["items"].append({"start": start})
                    self.on_key_line = True
                elif it.get("sep") is not None:
                    it["sep"].append(self.token())
                else:
                    it["start"].append(self.token())
                return
            if kind == "explicit-key-ind":
                if it.get("sep") is None and not it.get("explicit_key"):
                    it["start"].append(self.token())
                    it["explicit_key"] = True
                elif at_next_item or it.get("value") is not None:
                    start.append(self.token())
                    bmap["items"].append({"start": start, "explicit_key": True})
                else:
                    self.stack.append({"type": "block-map", "offset": self.offset, "indent": self.indent,
                                       "items": [{"start": [self.token()], "explicit_key": True}]})
                self.on_key_line = True
                return
            if kind == "map-value-ind":
                self._map_value(bmap, it, start, at_next_item)
                self.on_key_line = True
                return
            if kind in FLOW_SCALARS:
                fs = self.flow_scalar(kind)
                if at_next_item or it.get("value") is not None:
                    bmap["items"].append({"start": start, "key": fs, "sep": []})
                    self.on_key_line = True
                elif it.get("sep") is not None:
                    self.stack.append(fs)
                else:
                    it["key"] = fs
                    it["sep"] = []
                    self.on_key_line = True
                return
            bv = self.start_block_value(bmap)
            if bv is not None:
                if bv["type"] == "block-seq":
                    if not it.get("explicit_key") and it.get("sep") is not None and not includes(it["sep"], "newline"):
                        self.pop({"type": "error", "offset": self.offset, "source": self.source,
                                  "message": "Unexpected block-seq-ind on same line with key"})
                        return
                elif at_map_indent:
                    bmap["items"].append({"start": start})
                self.stack.append(bv)
                return
        self.pop()
        self.step()

    def _map_value(self, bmap: dict, it: dict, start: list, at_next_item: bool) -> None:
        sep = it.get("sep")
        if it.get("explicit_key"):
            if sep is None:
                if includes(it["start"], "newline"):
                    it["key"] = None
                    it["sep"] = [self.token()]
                else:
                    cut = _first_key_start_props(it["start"])
                    self.stack.append({"type": "block-map", "offset": self.offset, "indent": self.indent,
                                       "items": [{"start": cut, "key": None, "sep": [self.token()]}]})
            elif it.get("value") is not None:
                bmap["items"].append({"start": [], "key": None, "sep": [self.token()]})
            elif includes(sep, "map-value-ind"):
                self.stack.append({"type": "block-map", "offset": self.offset, "indent": self.indent,
                                   "items": [{"start": start, "key": None, "sep": [self.token()]}]})
            elif is_flow_token(it.get("key")) and not includes(sep, "newline"):
                cut = _first_key_start_props(it["start"])
                key = it.pop("key")
                sep.append(self.token())
                it.pop("sep")
                self.stack.append({"type": "block-map", "offset": self.offset, "indent": self.indent,
                                   "items": [{"start": cut, "key": key, "sep": sep}]})
            elif start:
                it["sep"] = sep + start + [self.token()]
            else:
                sep.append(self.token())
        else:
            if sep is None:
                it["key"] = None
                it["sep"] = [self.token()]
            elif it.get("value") is not None or at_next_item:
                bmap["items"].append({"start": start, "key": None, "sep": [self.token()]})
            elif includes(sep, "map-value-ind"):
                self.stack.append({"type": "block-map", "offset": self.offset, "indent": self.indent,
                                   "items": [{"start": [], "key": None, "sep": [self.token()]}]})
            else:
                sep.append(self.token())

    def block_seq(self, seq: dict) -> None:
        it = seq["items"][-1]
        kind = self.type
        if kind == "newline":
            if it.get("value") is not None:
                self._newline_after_value(seq, it)
            else:
                it["start"].append(self.token())
            return
        if kind in ("space", "comment"):
            if it.get("value") is not None:
                seq["items"].append({"start": [self.token()]})
            elif not self._comment_of_previous_value(seq, it):
                it["start"].append(self.token())
            return
        if kind in ("anchor", "tag"):
            if not (it.get("value") is not None or self.indent <= seq["indent"]):
                it["start"].append(self.token())
                return
        elif kind == "seq-item-ind" and self.indent == seq["indent"]:
            if it.get("value") is not None or includes(it["start"], "seq-item-ind"):
                seq["items"].append({"start": [self.token()]})
            else:
                it["start"].append(self.token())
            return
        if self.indent > seq["indent"]:
            bv = self.start_block_value(seq)
            if bv is not None:
                self.stack.append(bv)
                return
        self.pop()
        self.step()

    def flow_collection(self, fc: dict) -> None:
        items = fc["items"]
        it = items[-1] if items else None
        kind = self.type
        if kind == "flow-error-end":
            while True:
                self.pop()
                top = self.stack[-1] if self.stack else None
                if top is None or top["type"] != "flow-collection":
                    break
            return
        if not fc["end"]:
            if kind in ("comma", "explicit-key-ind"):
                if it is None or it.get("sep") is not None:
                    items.append({"start": [self.token()]})
                else:
                    it["start"].append(self.token())
                return
            if kind == "map-value-ind":
                if it is None or it.get("value") is not None:
                    items.append({"start": [], "key": None, "sep": [self.token()]})
                elif it.get("sep") is not None:
                    it["sep"].append(self.token())
                else:
                    it["key"] = None
                    it["sep"] = [self.token()]
                return
            if kind in ("space", "comment", "newline", "anchor", "tag"):
                if it is None or it.get("value") is not None:
                    items.append({"start": [self.token()]})
                elif it.get("sep") is not None:
                    it["sep"].append(self.token())
                else:
                    it["start"].append(self.token())
                return
            if kind in FLOW_SCALARS:
                fs = self.flow_scalar(kind)
                if it is None or it.get("value") is not None:
                    items.append({"start": [], "key": fs, "sep": []})
                elif it.get("sep") is not None:
                    self.stack.append(fs)
                else:
                    it["key"] = fs
                    it["sep"] = []
                return
            if kind in ("flow-map-end", "flow-seq-end"):
                fc["end"].append(self.token())
                return
            bv = self.start_block_value(fc)
            if bv is not None:
                self.stack.append(bv)
            else:  # pragma: no cover
                self.pop()
                self.step()
            return
        parent = self.stack[-2]
        if parent["type"] == "block-map" and (
                (kind == "map-value-ind" and parent["indent"] == fc["indent"])
                or (kind == "newline" and parent["items"][-1].get("sep") is None)):
            self.pop()
            self.step()
        elif kind == "map-value-ind" and parent["type"] != "flow-collection":
            start = _first_key_start_props(_prev_props(parent))
            _fix_flow_seq_items(fc)
            sep = fc["end"][1:]
            del fc["end"][1:]
            sep.append(self.token())
            self.on_key_line = True
            self.stack[-1] = {"type": "block-map", "offset": fc["offset"], "indent": fc["indent"],
                              "items": [{"start": start, "key": fc, "sep": sep}]}
        else:
            self.line_end(fc)

    def flow_scalar(self, kind: str) -> dict:
        self._lines_in(self.source)
        return {"type": kind, "offset": self.offset, "indent": self.indent, "source": self.source}

    def start_block_value(self, parent: dict) -> dict | None:
        kind = self.type
        if kind in FLOW_SCALARS:
            return self.flow_scalar(kind)
        if kind == "block-scalar-header":
            return {"type": "block-scalar", "offset": self.offset, "indent": self.indent,
                    "props": [self.token()], "source": ""}
        if kind in ("flow-map-start", "flow-seq-start"):
            return {"type": "flow-collection", "offset": self.offset, "indent": self.indent,
                    "start": self.token(), "items": [], "end": []}
        if kind == "seq-item-ind":
            return {"type": "block-seq", "offset": self.offset, "indent": self.indent,
                    "items": [{"start": [self.token()]}]}
        if kind == "explicit-key-ind":
            self.on_key_line = True
            start = _first_key_start_props(_prev_props(parent))
            start.append(self.token())
            return {"type": "block-map", "offset": self.offset, "indent": self.indent,
                    "items": [{"start": start, "explicit_key": True}]}
        if kind == "map-value-ind":
            self.on_key_line = True
            start = _first_key_start_props(_prev_props(parent))
            return {"type": "block-map", "offset": self.offset, "indent": self.indent,
                    "items": [{"start": start, "key": None, "sep": [self.token()]}]}
        return None

    def _newline_after_value(self, coll: dict, it: dict) -> None:
        """A line break after an item's value: the value's own when its line ended in a comment,
        else the start of the next item."""
        end = it["value"].get("end")
        last = end[-1] if isinstance(end, list) and end else None
        if last is not None and last["type"] == "comment":
            end.append(self.token())
        else:
            coll["items"].append({"start": [self.token()]})

    def _comment_of_previous_value(self, coll: dict, it: dict) -> bool:
        """A comment indented past the collection, alone on its line after an item's value, belongs
        to that value (moved there with the blank lines before it); True when it was moved."""
        if (self.type != "comment" or self.indent <= coll["indent"]
                or not all(st["type"] in ("newline", "space") for st in it["start"])):
            return False
        items = coll["items"]
        prev = items[-2] if len(items) >= 2 else None
        end = prev["value"].get("end") if prev is not None and prev.get("value") is not None else None
        if not isinstance(end, list):
            return False
        end.extend(it["start"])
        end.append(self.token())
        items.pop()
        return True

    def document_end(self, doc_end: dict) -> None:
        if self.type == "doc-mode":
            return
        if doc_end.get("end") is not None:
            doc_end["end"].append(self.token())
        else:
            doc_end["end"] = [self.token()]
        if self.type == "newline":
            self.pop()

    def line_end(self, token: dict) -> None:
        kind = self.type
        if kind in ("comma", "doc-start", "doc-end", "flow-seq-end", "flow-map-end", "map-value-ind"):
            self.pop()
            self.step()
            return
        if kind == "newline":
            self.on_key_line = False
        if token.get("end") is not None:
            token["end"].append(self.token())
        else:
            token["end"] = [self.token()]
        if kind == "newline":
            self.pop()
