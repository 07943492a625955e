"""Generated YAML edge cases for the differential test against agentv's parser (the ``yaml`` npm
package): EVAL.yaml-like documents rendered with varied styles, then edited with one or more of the
constructs where YAML parsers disagree: multi-line quoted and plain scalars in and out of flow
collections with continuation lines at every indentation, flow collections spanning lines, tabs
(indentation, separators, inside values), anchors and aliases (before and after their anchor, as keys,
a hundred times), merge keys (maps, lists of maps, scalars, sequences, quoted ``"<<"``), duplicate keys
(same text, same value: ``1``/``1.0``/``0x1``, ``~``/``null``/empty, ``true``/``True``, quoted and
plain), odd indentation, comments glued to a token, document markers and directives, long implicit
keys, control and line-separator characters, CRLF.

Every generator takes ``r``, a ``random.Random``: the tests draw it with hypothesis (``st.randoms()``,
so examples are reproducible and recorded), a by-hand run seeds its own.
"""

from __future__ import annotations

WORDS = ["deploy", "review the diff", "a", "it's fine", "50% done", "x: y", "say \"hi\"", "back\\slash",
         "caf\u00e9", "\U0001F600", "- dash", "#hash", "{{ var }}", "1.0", "yes", "null", "", " ", "a  b",
         "trailing ", "line one\nline two", "tab\there", "ends:"]
KEYS = ["id", "name", "criteria", "input", "type", "value", "skill", "description", "tags", "metadata",
        "expected_output", "should_trigger", "command", "rubrics"]
SAME_VALUE_KEYS = [("1", "1.0"), ("1", "0x1"), ("1", '"1"'), ("1", "+1"), ("10", "1e1"), ("~", "null"),
                   ("~", ""), ("null", "NULL"), ("true", "True"), ("false", "FALSE"), ("a", '"a"'),
                   ("a", "'a'"), ("0o7", "7"), (".inf", "+.inf"), (".nan", ".NaN"), ("-0", "0"),
                   ("9007199254740993", "9007199254740992"), ("<<", '"<<"')]


# -- scalars -------------------------------------------------------------------------------------------


def _dq(text: str) -> str:
    out = []
    for ch in text:
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _multiline_quoted(r, words: list[str], cont_indent: int, quote: str) -> str:
    """A quoted scalar broken over lines whose continuation lines sit at ``cont_indent``."""
    parts = [w.replace(quote, "") or "w" for w in words]
    sep = "\n" + " " * cont_indent
    body = sep.join(parts)
    if r.randint(0, 4) == 0:
        body = body.replace(sep, "\n" + sep, 1)  # an empty line inside
    return quote + body + quote


def scalar(r, indent: int, flow: bool = False) -> str:
    """One scalar value written somewhere at ``indent`` (the owning key's or item's column)."""
    word = r.choice(WORDS)
    kind = r.randint(0, 9)
    if kind <= 2:
        safe = word.replace("\n", " ").replace("\t", " ").strip()
        if not safe or safe[0] in "-?:,[]{}#&*!|>'\"%@`" or ": " in safe or " #" in safe or safe.endswith(":") \
                or (flow and any(c in safe for c in ",[]{}")):
            return _dq(word)
        return safe
    if kind <= 4:
        return _dq(word)
    if kind == 5:
        return "'" + word.replace("'", "''").replace("\n", " ") + "'"
    if kind <= 7:
        words = [r.choice(WORDS[:12]) for _ in range(r.randint(2, 3))]
        cont = r.choice([0, max(indent - 1, 0), indent, indent + 1, indent + 2, indent + 4])
        return _multiline_quoted(r, words, cont, r.choice(['"', "'"]))
    if kind == 8 and not flow:
        head = r.choice(["|", ">", "|-", ">-", "|+", ">+", "|2", "|1-"])
        body_indent = indent + r.choice([2, 2, 2, 1, 3, 0, 4])
        lines = [r.choice(["text", "  more", "", "* item", "# not a comment", "\ttab", "x"])
                 for _ in range(r.randint(1, 4))]
        return head + "".join("\n" + (" " * body_indent + ln if ln else "") for ln in lines)
    # multi-line plain scalar
    cont = r.choice([indent, indent + 1, indent + 2, max(indent - 1, 0)])
    return "plain start" + "\n" + " " * cont + r.choice(["continued", "- dash", "key: v", "# c", "more text"])


def flow_seq(r, indent: int) -> str:
    items = [scalar(r, indent, flow=True) for _ in range(r.randint(0, 4))]
    if r.randint(0, 2) == 0:
        return "[" + ", ".join(items) + "]"
    # spanning lines: items and the closing bracket at chosen columns
    item_indent = r.choice([0, max(indent - 1, 0), indent, indent + 1, indent + 2, indent + 4])
    close_indent = r.choice([0, max(indent - 1, 0), indent, indent + 2, -1])
    sep = ",\n" + " " * item_indent
    text = "[" + ("\n" + " " * item_indent if r.randint(0, 1) else "") + sep.join(items)
    if r.randint(0, 3) == 0:
        text += ","
    if close_indent < 0:
        return text + "]"
    return text + "\n" + " " * close_indent + "]"


def flow_map(r, indent: int) -> str:
    pairs = [f"{r.choice(KEYS)}: {scalar(r, indent, flow=True)}" for _ in range(r.randint(0, 3))]
    joiner = r.choice([", ", ",\n" + " " * r.choice([0, indent, indent + 2]), ",", " , "])
    return "{" + joiner.join(pairs) + r.choice(["}", "\n" + " " * r.choice([0, indent, indent + 1]) + "}"])


def value(r, indent: int) -> str:
    k = r.randint(0, 9)
    if k <= 6:
        return scalar(r, indent)
    if k <= 8:
        return flow_seq(r, indent)
    return flow_map(r, indent)


# -- documents -----------------------------------------------------------------------------------------


def test_block(r, indent: int, n: int) -> list[str]:
    pad = " " * indent
    lines = [f"{pad}- id: case-{n}"]
    for key in ("criteria", "input"):
        if r.randint(0, 3):
            lines.append(f"{pad}  {key}: {value(r, indent + 2)}")
    if r.randint(0, 2):
        lines.append(f"{pad}  assertions:")
        for _ in range(r.randint(1, 3)):
            lines.append(f"{pad}    - type: {r.choice(['contains', 'skill-trigger', 'regex'])}")
            lines.append(f"{pad}      value: {value(r, indent + 6)}")
    return lines


def document(r, edits: int = 3) -> str:
    """An EVAL.yaml-like document with up to ``edits`` edge cases injected."""
    lines = []
    if r.randint(0, 5) == 0:
        lines.append(r.choice(["---", "%YAML 1.2\n---", "%YAML 1.1\n---", "# header", "--- # c", "%TAG !e! tag:e,2024:\n---"]))
    lines.append(f"name: {scalar(r, 0)}")
    if r.randint(0, 1):
        lines.append(f"tags: {flow_seq(r, 0)}")
    if r.randint(0, 2) == 0:
        lines.append(f"description: {value(r, 0)}")
    lines.append("tests:")
    indent = r.choice([2, 2, 0, 4])
    for n in range(r.randint(1, 3)):
        lines.extend(test_block(r, indent, n))
    text = "\n".join(lines) + "\n"
    for _ in range(r.randint(0, edits)):
        text = r.choice(EDITS)(r, text)
    if r.randint(0, 15) == 0:
        text = text.replace("\n", "\r\n")
    return text


# -- edits -----------------------------------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    return text.split("\n")


def edit_tab(r, text: str) -> str:
    """A tab as indentation, as a separator after an indicator, before a comment, or in a value."""
    lines = _lines(text)
    i = r.randint(0, max(len(lines) - 2, 0))
    line = lines[i]
    how = r.randint(0, 4)
    if how == 0 and line.startswith(" "):
        lines[i] = "\t" + line[1:]
    elif how == 1:
        lines[i] = line.replace(": ", ":\t", 1)
    elif how == 2:
        lines[i] = line.replace("- ", "-\t", 1)
    elif how == 3:
        lines[i] = line + "\t# note"
    else:
        lines[i] = line.replace(" ", " \t", 1)
    return "\n".join(lines)


def edit_indent(r, text: str) -> str:
    lines = _lines(text)
    i = r.randint(0, max(len(lines) - 2, 0))
    if r.randint(0, 1) and lines[i].startswith(" "):
        lines[i] = lines[i][r.randint(1, 2):] if lines[i].startswith("  ") else lines[i][1:]
    else:
        lines[i] = " " * r.randint(1, 2) + lines[i]
    return "\n".join(lines)


def edit_glued_comment(r, text: str) -> str:
    lines = _lines(text)
    ends = [i for i, ln in enumerate(lines) if ln.rstrip()[-1:] in ("\"", "'", "]", "}")]
    if ends:
        i = r.choice(ends)
        lines[i] = lines[i].rstrip() + r.choice(["#glued", " #spaced", "\t#tab"])
    return "\n".join(lines)


def edit_duplicate(r, text: str) -> str:
    a, b = r.choice(SAME_VALUE_KEYS)
    lines = _lines(text)
    i = r.randint(0, max(len(lines) - 2, 0))
    pad = " " * (len(lines[i]) - len(lines[i].lstrip(" ")))
    if lines[i].lstrip().startswith("- "):
        pad += "  "
    if r.randint(0, 3) == 0:
        lines.insert(i + 1, f"{pad}dup: {{{a}: 1, {b}: 2}}")
    else:
        lines[i + 1:i + 1] = [f"{pad}{a}: one", f"{pad}{b}: two"]
    return "\n".join(lines)


def edit_anchors(r, text: str) -> str:
    """An anchor and aliases: before or after it, as keys, many of them, inside a flow list."""
    lines = _lines(text)
    n = r.choice([1, 2, 3, 50, 99, 100, 101])
    anchored = r.choice(["&a x", "&a [1, 2]", "&a {k: v}", "&a", "&a\n  k: v", "&a []", "&a *a", "&ab c"])
    use = r.choice(["*a", "*b", "*a ", "*a:", "*a #c"])
    where = r.randint(0, 3)
    block = [f"anchor: {anchored}"]
    if where == 0:
        block.append("uses: [" + ", ".join([use] * n) + "]")
    elif where == 1:
        block.append("uses:")
        block.extend(f"  - {use}" for _ in range(min(n, 120)))
    elif where == 2:
        block.append(f"{use} : as key")
    else:
        block.append(f"nested: &b [*a, *a]\nmore: [{', '.join(['*b'] * min(n, 60))}]")
    pos = r.choice([0, 1, len(lines) - 1])
    if r.randint(0, 4) == 0:
        block.reverse()  # aliases before their anchor
    lines[pos:pos] = block
    return "\n".join(lines)


def edit_merge(r, text: str) -> str:
    base = r.choice(["base: &base {criteria: shared, input: hi}", "base: &base\n  criteria: shared",
                     "base: &base [x]", "base: &base plain", "base: &base {}"])
    merge = r.choice(["<<: *base", "<<: [*base]", "<<: [*base, {extra: 1}]", "<<: {inline: 1}", "<<: 1",
                      "<<: [1]", '"<<": *base', "<<: *nope", "<<:", "<<: *base\n    <<: *base",
                      "!!merge <<: *base", "? <<\n    : *base"])
    lines = _lines(text)
    where = [i for i, ln in enumerate(lines) if ln.lstrip().startswith("- id:")]
    if not where:
        return text
    i = r.choice(where)
    pad = " " * (len(lines[i]) - len(lines[i].lstrip()) + 2)
    lines.insert(i + 1, pad + merge.replace("\n    ", "\n" + pad))
    lines.insert(0, base)
    return "\n".join(lines)


def edit_markers(r, text: str) -> str:
    lines = _lines(text)
    i = r.randint(0, max(len(lines) - 1, 0))
    lines.insert(i, r.choice(["---", "...", "--- x", "%YAML 1.2", "... # end", "#no space", "# comment"]))
    return "\n".join(lines)


def edit_long_key(r, text: str) -> str:
    n = r.choice([1000, 1022, 1023, 1024, 1025, 1030])
    key = r.choice(["k" * n, '"' + "k" * (n - 2) + '"'])
    return text + f"{key}: long\n"


def edit_chars(r, text: str) -> str:
    ch = r.choice(["\x01", "\x1b", "\x7f", "\x85", "\u2028", "\u2029", "\ufeff", "\ufffe", "\r", "\x0c",
                   "\U0001F600", "\u00a0"])
    lines = _lines(text)
    i = r.randint(0, max(len(lines) - 2, 0))
    j = r.randint(0, len(lines[i]))
    lines[i] = lines[i][:j] + ch + lines[i][j:]
    return "\n".join(lines)


def edit_flow_scalar(r, text: str) -> str:
    """A key whose value is a multi-line quoted scalar or flow list at a chosen indentation."""
    lines = _lines(text)
    where = [i for i, ln in enumerate(lines) if ln.lstrip().startswith(("criteria:", "input:", "value:"))]
    if not where:
        return text
    i = r.choice(where)
    indent = len(lines[i]) - len(lines[i].lstrip())
    key = lines[i].lstrip().split(":")[0]
    lines[i] = " " * indent + key + ": " + r.choice([flow_seq(r, indent), _multiline_quoted(
        r, ["first part", "second", "third"], r.choice([0, indent, indent + 1, indent + 2]), r.choice(['"', "'"]))])
    return "\n".join(lines)


def edit_splice(r, text: str) -> str:
    """Raw YAML punctuation somewhere: what a hand edit leaves behind."""
    frag = r.choice(["- ", "? ", ": ", "[", "]", "{", "}", ",", "'", '"', "#", "&", "*", "!", "|", ">", "%", "@",
                     "`", "\\", "\n", "\n  ", "\n ", "---", "...", "<<: "])
    i = r.randint(0, len(text))
    return text[:i] + frag + text[i:]


EDITS = [edit_tab, edit_indent, edit_glued_comment, edit_duplicate, edit_anchors, edit_merge, edit_markers,
         edit_long_key, edit_chars, edit_flow_scalar, edit_splice]

FRAGMENTS = ["a", "b", ":", " ", " ", "\n", "\n", "- ", "-", "? ", "[", "]", "{", "}", ",", "'", '"', "#", " #",
             "&x ", "*x", "!t ", "!!str ", "|", ">", "|-", "|2", "\t", "\r\n", "---", "...", "%YAML 1.2\n", "\\",
             "  ", "    ", "<<", "1", "\x85", ": ", "a: ", "  - ", "\n  ", "\n ", '"x\n y"', "'x\n y'", "\\n",
             "~", "null", "1.0", "true"]


def soup(r) -> str:
    """YAML punctuation in random order: the parsers' corners nobody writes on purpose."""
    return "".join(r.choice(FRAGMENTS) for _ in range(r.randint(1, 30)))


# -- the plain subset --------------------------------------------------------------------------------------

PLAIN_WORDS = ["deploy", "Review the diff.", "it's done", "50% of it", "a-b", "x/y.z", "-1", "0.5", "1e3", "12",
               "true", "no", "~", "null", "caf\u00e9", "\U0001F600 ok", "say \"hi\"", "a # not a comment?", "a#b",
               "key:value", "http://example.com/x", "12345678901234567", "0x1F", ".inf", "C'est", "[x]", "{y}",
               "--full", "-x", "---", "...", "?x", ":x"]


def plain_scalar(r, flow: bool = False) -> str:
    word = r.choice(PLAIN_WORDS)
    k = r.randint(0, 5)
    if k <= 2 and not (flow and any(c in word for c in ",[]{}:#'\"")):
        return word
    if k <= 4:
        return _dq(word) if r.randint(0, 3) else _dq(word).replace("e", "\\x65", 1).replace("a", "\\u00e9", 1)
    return "'" + word.replace("'", "''") + "'"


def plain_block(r, depth: int, indent: int) -> list[str]:
    """A block mapping (at ``indent``) in the subset where libyaml and the package agree, mostly."""
    pad = " " * indent
    lines = []
    for key in r.choice([KEYS[:4], KEYS[3:9], KEYS[8:], ["tests"], ["a", "b"], ["0", "1", "10"],
                         ["1", '"1"'], ["2", "'02'", "b"], ['"true"', "x"]]):
        kind = r.randint(0, 9) if depth < 3 else r.randint(0, 5)
        if r.randint(0, 8) == 0:
            lines.append(pad + r.choice(["# comment", "", "  # indented comment"]))
        if kind <= 3:
            lines.append(f"{pad}{key}: {plain_scalar(r)}" + r.choice(["", "", " # trailing"]))
        elif kind == 4:
            items = [plain_scalar(r, flow=True) for _ in range(r.randint(0, 3))]
            open_, close = r.choice([("[", "]"), ("{", "}")])
            if open_ == "{":
                items = [f"{k}: {v}" for k, v in zip(r.choice([["a", "b", "c"], ["x", "1", "true"]]), items)]
            lines.append(f"{pad}{key}: {open_}{', '.join(items)}{close}")
        elif kind == 5:
            head = r.choice(["|", ">", "|-", ">-", "|+", ">+"])
            body = indent + r.choice([2, 2, 4, 1])
            lines.append(f"{pad}{key}: {head}")
            for _ in range(r.randint(0, 4)):
                lines.append(r.choice([" " * body + r.choice(["text", "more text", "- item", "# hash", "key: v"]),
                                       "", " " * (body + 2) + "indented", " " * r.randint(0, body + 3)]))
        elif kind <= 7:
            lines.append(f"{pad}{key}:")
            lines.extend(plain_block(r, depth + 1, indent + r.choice([2, 2, 4])))
        else:
            lines.append(f"{pad}{key}:")
            dash = pad + r.choice(["", "  "])
            for _ in range(r.randint(1, 3)):
                if r.randint(0, 1):
                    lines.append(f"{dash}- {plain_scalar(r)}")
                else:
                    sub = plain_block(r, depth + 1, len(dash) + 2)
                    sub[0] = dash + "- " + sub[0].lstrip(" ") if sub and sub[0].strip() else dash + "-"
                    lines.extend(sub)
    return lines


def plain_document(r, edits: int = 1) -> str:
    """A document mostly in the plain subset, with up to ``edits`` small edits (indentation, raw
    punctuation, a duplicate key, a tab) that may or may not leave it."""
    lines = (["---"] if r.randint(0, 6) == 0 else []) + plain_block(r, 0, 0)
    text = "\n".join(lines) + r.choice(["\n", "", "\n\n"])
    for _ in range(r.randint(0, edits)):
        text = r.choice([edit_indent, edit_splice, edit_duplicate, edit_tab, edit_glued_comment])(r, text)
    return text
