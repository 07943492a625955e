"""The tokens around a node, as the ``yaml`` npm package reads them: its properties (anchor, tag, the
``-``/``?``/``:`` indicator, comments, the spaces and line breaks before it) and what ends it, with the
errors it raises there (a tab as indentation, a comment glued to a token, a tag or anchor glued to the
next token, two anchors, ...)."""

from __future__ import annotations

from typing import Any

#: a token of the concrete syntax tree (cst.py): a dict with "type", "offset", "source", ...
Token = dict[str, Any]


def resolve_end(end: list | None, offset: int, req_space: bool, on_error) -> tuple[int, bool]:
    """(offset after the tokens that end a node, whether they hold a comment)."""
    comment = False
    if end:
        has_space = False
        for token in end:
            kind = token["type"]
            if kind == "space":
                has_space = True
            elif kind == "comment":
                if req_space and not has_space:
                    on_error(token, "MISSING_CHAR", "Comments must be separated from other tokens by white space "
                                                    "characters")
                comment = True
            elif kind == "newline":
                has_space = True
            else:
                on_error(token, "UNEXPECTED_TOKEN", f"Unexpected {kind} at node end")
            offset += len(token["source"])
    return offset, comment


class Props:
    __slots__ = ("comma", "found", "comment", "has_newline", "anchor", "tag", "newline_after_prop", "end", "start")
    comma: Token | None
    found: Token | None  # the indicator token
    comment: str
    has_newline: bool
    anchor: Token | None
    tag: Token | None
    newline_after_prop: Token | None
    end: int
    start: int


def resolve_props(tokens: list, flow: str | None, indicator: str, nxt, offset: int, on_error, parent_indent: int,
                   start_on_newline: bool) -> Props:
    at_newline = start_on_newline
    has_space = start_on_newline
    comment = ""
    comment_sep = ""
    has_newline = False
    req_space = False
    tab = None
    anchor = None
    tag = None
    newline_after_prop = None
    comma = None
    found = None
    start = None
    for token in tokens:
        kind = token["type"]
        if req_space:
            if kind not in ("space", "newline", "comma"):
                on_error(token["offset"], "MISSING_CHAR", "Tags and anchors must be separated from the next token by "
                                                          "white space")
            req_space = False
        if tab is not None:
            if at_newline and kind not in ("comment", "newline"):
                on_error(tab, "TAB_AS_INDENT", "Tabs are not allowed as indentation")
            tab = None
        if kind == "space":
            if (not flow and (indicator != "doc-start" or nxt is None or nxt["type"] != "flow-collection")
                    and "\t" in token["source"]):
                tab = token
            has_space = True
        elif kind == "comment":
            if not has_space:
                on_error(token, "MISSING_CHAR", "Comments must be separated from other tokens by white space "
                                                "characters")
            cb = token["source"][1:] or " "
            comment = cb if not comment else comment + comment_sep + cb
            comment_sep = ""
            at_newline = False
        elif kind == "newline":
            if at_newline:
                if comment:
                    comment += token["source"]
            else:
                comment_sep += token["source"]
            at_newline = True
            has_newline = True
            if anchor is not None or tag is not None:
                newline_after_prop = token
            has_space = True
        elif kind == "anchor" or kind == "tag":
            if kind == "anchor":
                if anchor is not None:
                    on_error(token, "MULTIPLE_ANCHORS", "A node can have at most one anchor")
                anchor = token
            else:
                if tag is not None:
                    on_error(token, "MULTIPLE_TAGS", "A node can have at most one tag")
                tag = token
            if start is None:
                start = token["offset"]
            at_newline = False
            has_space = False
            req_space = True
        elif kind == indicator:
            if anchor is not None or tag is not None:
                on_error(token, "BAD_PROP_ORDER", f"Anchors and tags must be after the {token['source']} indicator")
            if found is not None:
                on_error(token, "UNEXPECTED_TOKEN", f"Unexpected {token['source']} in {flow or 'collection'}")
            found = token
            at_newline = indicator in ("seq-item-ind", "explicit-key-ind")
            has_space = False
        elif kind == "comma" and flow:
            if comma is not None:
                on_error(token, "UNEXPECTED_TOKEN", f"Unexpected , in {flow}")
            comma = token
            at_newline = False
            has_space = False
        else:
            on_error(token, "UNEXPECTED_TOKEN", f"Unexpected {kind} token")
            at_newline = False
            has_space = False
    last = tokens[-1] if tokens else None
    end = last["offset"] + len(last["source"]) if last is not None else offset
    if (req_space and nxt is not None and nxt["type"] not in ("space", "newline", "comma")
            and (nxt["type"] != "scalar" or nxt.get("source") != "")):
        on_error(nxt["offset"], "MISSING_CHAR", "Tags and anchors must be separated from the next token by white space")
    if tab is not None and ((at_newline and tab["indent"] <= parent_indent)
                            or (nxt is not None and nxt["type"] in ("block-map", "block-seq"))):
        on_error(tab, "TAB_AS_INDENT", "Tabs are not allowed as indentation")
    p = Props()
    p.comma, p.found, p.comment, p.has_newline = comma, found, comment, has_newline
    p.anchor, p.tag, p.newline_after_prop, p.end = anchor, tag, newline_after_prop, end
    p.start = start if start is not None else end
    return p


def contains_newline(key) -> bool:
    """Whether a key token spans lines (anything but a flow scalar or flow collection counts as so)."""
    stack = [key]
    while stack:
        tok = stack.pop()
        if tok is None:
            continue
        kind = tok["type"]
        if kind in ("alias", "scalar", "double-quoted-scalar", "single-quoted-scalar"):
            if "\n" in tok["source"]:
                return True
            if any(st["type"] == "newline" for st in tok.get("end") or ()):
                return True
        elif kind == "flow-collection":
            for it in tok["items"]:
                if any(st["type"] == "newline" for st in it["start"]):
                    return True
                if any(st["type"] == "newline" for st in it.get("sep") or ()):
                    return True
                stack.append(it.get("value"))
                stack.append(it.get("key"))
        else:
            return True
    return False


def empty_position(offset: int, before: list | None) -> int:
    if before:
        i = len(before) - 1
        while i >= 0:
            st = before[i]
            if st["type"] in ("space", "comment", "newline"):
                offset -= len(st["source"])
                i -= 1
                continue
            i += 1
            while i < len(before) and before[i]["type"] == "space":
                offset += len(before[i]["source"])
                i += 1
            break
    return offset
