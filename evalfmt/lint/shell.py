"""Just enough POSIX shell reading to find the programs a ``setup`` or ``command_succeeds`` calls.

Nothing here runs anything. :func:`commands` splits a script into simple commands (on ``;``, ``&``,
``|``, ``&&``, ``||``, newlines, parentheses) and yields each command's words with their offsets in the
script, taking quotes, comments, line continuations, redirections, heredoc bodies and command
substitutions (``$(...)`` and backquotes, whose commands are read too) into account. The result is
conservative rather than complete: anything unusual simply yields fewer command words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

RESERVED = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "in", "esac", "{", "}", "!",
            "function", "select"}
#: Commands whose arguments start another command.
WRAPPERS = {"sudo", "env", "command", "exec", "nohup", "time", "nice", "xargs", "timeout", "stdbuf", "doas"}
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_OPS = set(";&|()")


@dataclass
class Word:
    text: str  # after quote removal (substitutions kept as written)
    start: int  # offset of the word in the script
    quoted: bool = False


@dataclass
class Command:
    words: list[Word] = field(default_factory=list)

    def name_words(self) -> list[Word]:
        """The word(s) naming the program: after assignments and reserved words; for wrappers such as
        ``sudo`` or ``env`` also the program they run."""
        out: list[Word] = []
        i = 0
        ws = self.words
        while i < len(ws):
            w = ws[i]
            if not w.quoted and (_ASSIGN.match(w.text) or w.text in RESERVED):
                i += 1
                continue
            if w.text in ("for", "case"):
                return out  # loop/case headers name no program
            out.append(w)
            if w.text in WRAPPERS and not w.quoted:
                i += 1
                while i < len(ws) and (ws[i].text.startswith("-") or _ASSIGN.match(ws[i].text)
                                       or (w.text == "timeout" and re.fullmatch(r"[0-9.]+[smhd]?", ws[i].text))):
                    i += 1
                continue
            return out
        return out


def commands(script: str, base: int = 0) -> list[Command]:
    """Every simple command of ``script`` (offsets shifted by ``base``), in order of appearance;
    commands inside ``$(...)`` and backquotes are listed too. Cached: several rules read one script."""
    if base:
        return _Reader(script, base).run()
    found = _CACHE.get(script)
    if found is None:
        if len(_CACHE) > 4096:
            _CACHE.clear()
        found = _CACHE[script] = _Reader(script, 0).run()
    return found


_CACHE: dict[str, list[Command]] = {}
_PLAIN_RUN = re.compile(r"[^\s\\'\"`$<>;&|()#]+")


class _Reader:
    """One pass over a script: the word being read (``word``, from ``start``; ``quoted`` once a quote is
    in it), the command it belongs to, and the heredocs whose bodies follow the current line. Each
    ``_at_*`` method reads what starts at index ``i`` and returns the index after it."""

    def __init__(self, text: str, base: int):
        self.text = text
        self.base = base
        self.out: list[Command] = []
        self.cmd = Command()
        self.word: list[str] = []
        self.start = -1
        self.quoted = False
        self.skip_next = False  # the next word is a redirection target
        self.heredocs: list[tuple[str, bool]] = []

    def run(self) -> list[Command]:
        text, n, i = self.text, len(self.text), 0
        while i < n:
            c = text[i]
            if c == "\\" and i + 1 < n:
                i = self._at_backslash(i)
            elif c in " \t":
                self._end_word()
                i += 1
            elif c == "\n":
                i = self._at_newline(i)
            elif c == "#" and self.start < 0:
                j = text.find("\n", i)
                i = n if j < 0 else j
            elif c in "'\"`" or (c == "$" and text.startswith("$(", i) and not text.startswith("$((", i)):
                i = self._at_quote(i, c)
            elif c in "<>":
                i = self._at_redirection(i)
            elif c in _OPS:
                self._end_cmd()
                i += 1
            else:
                i = self._at_plain(i)
        self._end_cmd()
        return self.out

    def _begin(self, i: int) -> None:
        if self.start < 0:
            self.start = i

    def _end_word(self) -> None:
        if self.start >= 0:
            if self.skip_next:
                self.skip_next = False
            else:
                self.cmd.words.append(Word("".join(self.word), self.base + self.start, self.quoted))
        self.word, self.start, self.quoted = [], -1, False

    def _end_cmd(self) -> None:
        self._end_word()
        if self.cmd.words:
            self.out.append(self.cmd)
        self.cmd = Command()

    def _at_backslash(self, i: int) -> int:
        if self.text[i + 1] == "\n":  # a line continuation
            return i + 2
        self._begin(i)
        self.word.append(self.text[i + 1])
        return i + 2

    def _at_newline(self, i: int) -> int:
        self._end_cmd()
        i += 1
        if self.heredocs:
            i = self._skip_heredocs(i, self.heredocs)
            self.heredocs = []
        return i

    def _at_quote(self, i: int, c: str) -> int:
        """A single- or double-quoted string, a backquoted or ``$(...)`` substitution (its commands are
        read too)."""
        text, n = self.text, len(self.text)
        self._begin(i)
        if c == '"':
            self.quoted = True
            return self._double(i + 1, self.word)
        if c == "$":
            j = _matching_paren(text, i + 1)
            self.out.extend(commands(text[i + 2:j], self.base + i + 2))
            self.word.append(text[i:j + 1])
            return j + 1
        j = text.find(c, i + 1)
        j = n if j < 0 else j
        if c == "'":
            self.quoted = True
            self.word.append(text[i + 1:j])
        else:
            self.out.extend(commands(text[i + 1:j], self.base + i + 1))
            self.word.append(text[i:j + 1])
        return j + 1

    def _at_redirection(self, i: int) -> int:
        text, n = self.text, len(self.text)
        # a file descriptor number right before the operator is part of it
        if self.start >= 0 and "".join(self.word).isdigit():
            self.word, self.start, self.quoted = [], -1, False
        self._end_word()
        if text.startswith("<<", i):
            return self._at_heredoc(i + 2)
        j = i + 1
        while j < n and text[j] in "<>&|":
            j += 1
        if j < n and text[j - 1] == "&" and text[j:j + 1].isdigit():
            while j < n and text[j].isdigit():
                j += 1
            return j
        self.skip_next = True
        return j

    def _at_heredoc(self, j: int) -> int:
        """After ``<<``: the delimiter word; its body is skipped after the line ends."""
        text = self.text
        strip_tabs = j < len(text) and text[j] == "-"
        if strip_tabs:
            j += 1
        m = re.match(r"[ \t]*(['\"]?)([^\s'\"<>;&|()]+)\1", text[j:])
        if not m:
            return j
        self.heredocs.append((m.group(2), strip_tabs))
        return j + m.end()

    def _at_plain(self, i: int) -> int:
        self._begin(i)
        m = _PLAIN_RUN.match(self.text, i)
        if m:
            self.word.append(m.group(0))
            return m.end()
        self.word.append(self.text[i])
        return i + 1

    def _double(self, i: int, word: list[str]) -> int:
        text = self.text
        n = len(text)
        while i < n:
            c = text[i]
            if c == "\\" and i + 1 < n:
                word.append(text[i + 1] if text[i + 1] in '$`"\\\n' else c + text[i + 1])
                i += 2
                continue
            if c == '"':
                return i + 1
            if c == "$" and text.startswith("$(", i) and not text.startswith("$((", i):
                j = _matching_paren(text, i + 1)
                self.out.extend(commands(text[i + 2:j], self.base + i + 2))
                word.append(text[i:j + 1])
                i = j + 1
                continue
            if c == "`":
                j = text.find("`", i + 1)
                j = n if j < 0 else j
                self.out.extend(commands(text[i + 1:j], self.base + i + 1))
                word.append(text[i:j + 1])
                i = j + 1
                continue
            word.append(c)
            i += 1
        return n

    def _skip_heredocs(self, i: int, heredocs: list[tuple[str, bool]]) -> int:
        text = self.text
        for delim, strip_tabs in heredocs:
            while i < len(text):
                j = text.find("\n", i)
                line = text[i: len(text) if j < 0 else j]
                i = len(text) if j < 0 else j + 1
                if (line.lstrip("\t") if strip_tabs else line) == delim:
                    break
        return i


def _matching_paren(text: str, open_index: int) -> int:
    """Index of the ``)`` closing the ``(`` at ``open_index`` (quotes respected), or len(text)."""
    depth = 0
    i = open_index
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            j = text.find("'", i + 1)
            i = n if j < 0 else j + 1
            continue
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return n
