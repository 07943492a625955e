"""Splitting a YAML text into lexemes the way the ``yaml`` npm package (2.x, which agentv reads
EVAL.yaml with) splits it.

The package decides most of what it accepts in this first pass: where a quoted or plain scalar
ends (a continuation line must be indented more than the block around it, else the scalar stops at
the previous line break), where a flow collection is cut off (a line inside it indented less than
its parent), what counts as a comment or a tag. So this module follows its rules exactly, including
the odd ones; the lexemes are plain strings, three control characters mark a document start
(``DOC``), a flow collection cut off by indentation (``FLOW_END``) and "the next lexeme is a scalar"
(``SCALAR``), as in the package.

Positions are indexes into the Python string (code points).
"""

from __future__ import annotations

BOM = "\ufeff"
DOC = "\x02"
FLOW_END = "\x18"
SCALAR = "\x1f"

_EMPTY = frozenset((None, " ", "\n", "\r", "\t"))
_HEX = frozenset("0123456789ABCDEFabcdef")
_TAG_CHARS = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-#;/?:@&=+$_.!~*'()")
_FLOW_INDICATORS = frozenset(",[]{}")
_NOT_ANCHOR = frozenset((None, " ", ",", "[", "]", "{", "}", "\n", "\r", "\t"))


def lex(text: str) -> list[str]:
    """All lexemes of ``text``, in order."""
    return _Lexer(text).run()


class _Lexer:
    __slots__ = ("s", "n", "pos", "out", "flow_key", "flow_level", "indent_next", "indent_value",
                 "block_indent", "block_keep")

    def __init__(self, text: str):
        self.s = text
        self.n = len(text)
        self.pos = 0
        self.out: list[str] = []
        self.flow_key = False  # a ':' right after this token is a value indicator (flow context)
        self.flow_level = 0
        self.indent_next = 0  # continuation lines of a scalar need at least this indentation
        self.indent_value = 0  # indentation of the current line (indicators included)
        self.block_indent = -1  # explicit indentation of a block scalar header, minus one
        self.block_keep = False  # block scalar header with '+'

    # -- small helpers -------------------------------------------------------------------------

    def at(self, i: int) -> str | None:
        return self.s[i] if 0 <= i < self.n else None

    def line(self) -> str:
        """The rest of the current line (without its line break, nor a CR before it)."""
        s, pos = self.s, self.pos
        end = s.find("\n", pos)
        if end == -1:
            return s[pos:]
        if end > 0 and s[end - 1] == "\r":
            end -= 1
            if end < pos:  # JavaScript's substring swaps reversed bounds
                return s[end:pos]
        return s[pos:end]

    def push(self, count: int) -> int:
        if count > 0:
            self.out.append(self.s[self.pos:self.pos + count])
            self.pos += count
            return count
        return 0

    def push_to(self, index: int, allow_empty: bool) -> int:
        seg = self.s[self.pos:index] if index > self.pos else ""
        if seg:
            self.out.append(seg)
            self.pos += len(seg)
            return len(seg)
        if allow_empty:
            self.out.append("")
        return 0

    def push_spaces(self, tabs: bool) -> int:
        s, i, n = self.s, self.pos, self.n
        while i < n and (s[i] == " " or (tabs and s[i] == "\t")):
            i += 1
        count = i - self.pos
        if count:
            self.out.append(s[self.pos:i])
            self.pos = i
        return count

    def push_newline(self) -> int:
        ch = self.at(self.pos)
        if ch == "\n":
            return self.push(1)
        if ch == "\r" and self.at(self.pos + 1) == "\n":
            return self.push(2)
        return 0

    def push_until_anchor_end(self) -> int:
        i = self.pos
        while self.at(i) not in _NOT_ANCHOR:
            i += 1
        return self.push_to(i, False)

    def at_line_end(self) -> bool:
        i = self.pos
        ch = self.at(i)
        while ch == " " or ch == "\t":
            i += 1
            ch = self.at(i)
        if ch is None or ch == "#" or ch == "\n":
            return True
        if ch == "\r":
            return self.at(i + 1) == "\n"
        return False

    def continue_scalar(self, offset: int) -> int:
        """Where a scalar's next line starts, or -1 when that line ends it (too little indentation,
        or a document marker at the top level)."""
        ch = self.at(offset)
        if self.indent_next > 0:
            indent = 0
            while ch == " ":
                indent += 1
                ch = self.at(offset + indent)
            if ch == "\r" and self.at(offset + indent + 1) == "\n":
                return offset + indent + 1
            return offset + indent if ch == "\n" or indent >= self.indent_next else -1
        if ch in ("-", ".") and self.s[offset:offset + 3] in ("---", "...") and self.at(offset + 3) in _EMPTY:
            return -1
        return offset

    # -- states ---------------------------------------------------------------------------------

    def run(self) -> list[str]:
        state = "stream"
        while state and self.pos < self.n:
            if state == "stream":
                state = self.stream()
            elif state == "line-start":
                state = self.line_start()
            elif state == "block-start":
                state = self.block_start()
            elif state == "doc":
                state = self.document()
            elif state == "flow":
                state = self.flow()
            else:  # pragma: no cover - every state returns one of the above
                raise AssertionError(state)
        return self.out

    def stream(self) -> str:
        line = self.line()
        if line[:1] == BOM:
            self.push(1)
            line = line[1:]
        if line[:1] == "%":
            end = len(line)
            cs = line.find("#")
            while cs != -1:
                if line[cs - 1] in " \t":
                    end = cs - 1
                    break
                cs = line.find("#", cs + 1)
            while end > 0 and line[end - 1] in " \t":
                end -= 1
            n = self.push(end) + self.push_spaces(True)
            self.push(len(line) - n)  # a comment after the directive
            return "stream"
        if self.at_line_end():
            sp = self.push_spaces(True)
            self.push(len(line) - sp)
            self.push_newline()
            return "stream"
        self.out.append(DOC)
        return self.line_start()

    def line_start(self) -> str:
        ch = self.at(self.pos)
        if ch == "-" or ch == ".":
            marker = self.s[self.pos:self.pos + 3]
            if marker in ("---", "...") and self.at(self.pos + 3) in _EMPTY:
                self.push(3)
                self.indent_value = 0
                self.indent_next = 0
                return "doc" if marker == "---" else "stream"
        self.indent_value = self.push_spaces(False)
        if self.indent_next > self.indent_value and (self.at(self.pos + 1) not in _EMPTY or _astral(self.at(self.pos))):
            # (the package reads charAt(1) in UTF-16: after an astral first character it is its low
            # surrogate, never empty, so a line holding only that character can continue a plain scalar)
            self.indent_next = self.indent_value
        return self.block_start()

    def block_start(self) -> str:
        ch0, ch1 = self.at(self.pos), self.at(self.pos + 1)
        if ch0 in ("-", "?", ":") and ch1 in _EMPTY:
            n = self.push(1) + self.push_spaces(True)
            self.indent_next = self.indent_value + 1
            self.indent_value += n
            return "block-start"
        return "doc"

    def document(self) -> str:
        self.push_spaces(True)
        line = self.line()
        n = self.push_indicators()
        ch = line[n] if n < len(line) else None
        if ch == "#":
            self.push(len(line) - n)
            ch = None
        if ch is None:
            self.push_newline()
            return self.line_start()
        if ch == "{" or ch == "[":
            self.push(1)
            self.flow_key = False
            self.flow_level = 1
            return "flow"
        if ch == "}" or ch == "]":
            self.push(1)  # an error, reported by the parser
            return "doc"
        if ch == "*":
            self.push_until_anchor_end()
            return "doc"
        if ch == '"' or ch == "'":
            return self.quoted()
        if ch == "|" or ch == ">":
            n += self.block_header()
            n += self.push_spaces(True)
            self.push(len(line) - n)
            self.push_newline()
            return self.block_scalar()
        return self.plain()

    def flow(self) -> str:
        indent = -1
        while True:
            nl = self.push_newline()
            if nl > 0:
                sp = self.push_spaces(False)
                self.indent_value = indent = sp
            else:
                sp = 0
            sp += self.push_spaces(True)
            if nl + sp <= 0:
                break
        line = self.line()
        first = line[:1]
        if ((indent != -1 and indent < self.indent_next and first != "#")
                or (indent == 0 and line[:3] in ("---", "...") and len(line) >= 3
                    and (line[3] if len(line) > 3 else None) in _EMPTY)):
            # a line inside the flow collection indented less than its parent ends it (an error); a
            # closing bracket one column left of that is let through
            at_flow_end = indent == self.indent_next - 1 and self.flow_level == 1 and first in ("]", "}")
            if not at_flow_end:
                self.flow_level = 0
                self.out.append(FLOW_END)
                return self.line_start()
        n = 0
        while n < len(line) and line[n] == ",":
            n += self.push(1)
            n += self.push_spaces(True)
            self.flow_key = False
        n += self.push_indicators()
        ch = line[n] if n < len(line) else None
        if ch is None:
            return "flow"
        if ch == "#":
            self.push(len(line) - n)
            return "flow"
        if ch == "{" or ch == "[":
            self.push(1)
            self.flow_key = False
            self.flow_level += 1
            return "flow"
        if ch == "}" or ch == "]":
            self.push(1)
            self.flow_key = True
            self.flow_level -= 1
            return "flow" if self.flow_level else "doc"
        if ch == "*":
            self.push_until_anchor_end()
            return "flow"
        if ch == '"' or ch == "'":
            self.flow_key = True
            return self.quoted()
        if ch == ":":
            nxt = self.at(self.pos + 1)
            if self.flow_key or nxt in _EMPTY or nxt == ",":
                self.flow_key = False
                self.push(1)
                self.push_spaces(True)
                return "flow"
        self.flow_key = False
        return self.plain()

    def quoted(self) -> str:
        s = self.s
        quote = s[self.pos]
        end = s.find(quote, self.pos + 1)
        if quote == "'":
            while end != -1 and self.at(end + 1) == "'":
                end = s.find("'", end + 2)
        else:
            while end != -1:
                n = 0
                while end - 1 - n >= 0 and s[end - 1 - n] == "\\":
                    n += 1
                if n % 2 == 0:
                    break
                end = s.find('"', end + 1)
        # a line break inside the quotes followed by a line indented too little ends the scalar there
        # (before the break): the missing closing quote is then reported
        limit = end if end != -1 else 0
        nl = s.find("\n", self.pos, limit) if limit > self.pos else -1
        if nl != -1:
            while nl != -1:
                cs = self.continue_scalar(nl + 1)
                if cs == -1:
                    break
                nl = s.find("\n", cs, limit) if limit > cs else -1
            if nl != -1:
                end = nl - (2 if nl > 0 and s[nl - 1] == "\r" else 1)
        if end == -1:
            end = self.n
        self.push_to(end + 1, False)
        return "flow" if self.flow_level else "doc"

    def block_header(self) -> int:
        self.block_indent = -1
        self.block_keep = False
        i = self.pos
        while True:
            i += 1
            ch = self.at(i)
            if ch == "+":
                self.block_keep = True
            elif ch is not None and "0" < ch <= "9":
                self.block_indent = int(ch) - 1
            elif ch != "-":
                break
        i = self.pos
        while True:
            ch = self.at(i)
            if ch in _EMPTY or ch == "#":
                break
            i += 1
        return self.push_to(i, False)

    def block_scalar(self) -> str:
        s = self.s
        nl = self.pos - 1
        indent = 0
        i = self.pos
        while i < self.n:
            ch: str | None = s[i]  # self.at() below gives None past the end
            if ch == " ":
                indent += 1
            elif ch == "\n":
                nl = i
                indent = 0
            elif ch == "\r" and self.at(i + 1) == "\n":
                pass
            else:
                break
            i += 1
        if indent >= self.indent_next:
            if self.block_indent == -1:
                self.indent_next = indent
            else:
                self.indent_next = self.block_indent + (1 if self.indent_next == 0 else self.indent_next)
            while True:
                cs = self.continue_scalar(nl + 1)
                if cs == -1:
                    break
                nl = s.find("\n", cs)
                if nl == -1:
                    break
            if nl == -1:
                nl = self.n
        # trailing lines indented with tabs belong to the scalar (so that they are reported)
        i = nl + 1
        ch = self.at(i)
        while ch == " ":
            i += 1
            ch = self.at(i)
        if ch == "\t":
            while ch in ("\t", " ", "\r", "\n"):
                i += 1
                ch = self.at(i)
            nl = i - 1
        elif not self.block_keep:
            while True:
                i = nl - 1
                ch = self.at(i)
                if ch == "\r":
                    i -= 1
                    ch = self.at(i)
                last = i
                while ch == " ":
                    i -= 1
                    ch = self.at(i)
                if ch == "\n" and i >= self.pos and i + 1 + indent > last:
                    nl = i
                else:
                    break
        self.out.append(SCALAR)
        self.push_to(nl + 1, True)
        return self.line_start()

    def plain(self) -> str:
        s, n = self.s, self.n
        in_flow = self.flow_level > 0
        end = self.pos - 1
        i = self.pos - 1
        while True:
            i += 1
            if i >= n:
                break
            ch = s[i]
            if ch == ":":
                nxt = self.at(i + 1)
                if nxt in _EMPTY or (in_flow and nxt in _FLOW_INDICATORS):
                    break
                end = i
            elif ch in " \n\r\t":
                nxt = self.at(i + 1)
                if ch == "\r":
                    if nxt == "\n":
                        i += 1
                        ch = "\n"
                        nxt = self.at(i + 1)
                    else:
                        end = i
                if nxt == "#" or (in_flow and nxt in _FLOW_INDICATORS):
                    break
                if ch == "\n":
                    cs = self.continue_scalar(i + 1)
                    if cs == -1:
                        break
                    i = max(i, cs - 2)
            else:
                if in_flow and ch in _FLOW_INDICATORS:
                    break
                end = i
        self.out.append(SCALAR)
        self.push_to(end + 1, True)
        return "flow" if in_flow else "doc"

    def push_indicators(self) -> int:
        n = 0
        while True:
            ch = self.at(self.pos)
            if ch == "!":
                n += self.push_tag()
                n += self.push_spaces(True)
                continue
            if ch == "&":
                n += self.push_until_anchor_end()
                n += self.push_spaces(True)
                continue
            if ch == "-" or ch == "?" or ch == ":":
                in_flow = self.flow_level > 0
                ch1 = self.at(self.pos + 1)
                if ch1 in _EMPTY or (in_flow and ch1 in _FLOW_INDICATORS):
                    if not in_flow:
                        self.indent_next = self.indent_value + 1
                    elif self.flow_key:
                        self.flow_key = False
                    n += self.push(1)
                    n += self.push_spaces(True)
                    continue
            return n

    def push_tag(self) -> int:
        if self.at(self.pos + 1) == "<":
            i = self.pos + 2
            ch = self.at(i)
            while ch not in _EMPTY and ch != ">":
                i += 1
                ch = self.at(i)
            return self.push_to(i + 1 if ch == ">" else i, False)
        i = self.pos + 1
        ch = self.at(i)
        while ch is not None:
            if ch in _TAG_CHARS:
                i += 1
                ch = self.at(i)
            elif ch == "%" and self.at(i + 1) in _HEX and self.at(i + 2) in _HEX:
                i += 3
                ch = self.at(i)
            else:
                break
        return self.push_to(i, False)


def _astral(ch: str | None) -> bool:
    """A character outside the BMP: two UTF-16 code units in JavaScript."""
    return ch is not None and ord(ch) > 0xFFFF
