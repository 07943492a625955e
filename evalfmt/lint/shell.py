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
    def __init__(self, text: str, base: int):
        self.text = text
        self.base = base
        self.out: list[Command] = []

    def run(self) -> list[Command]:
        text = self.text
        n = len(text)
        cmd = Command()
        word: list[str] = []
        start = -1
        quoted = False
        skip_next = False  # the next word is a redirection target
        heredocs: list[tuple[str, bool]] = []
        i = 0

        def end_word() -> None:
            nonlocal word, start, quoted, skip_next
            if start >= 0:
                if skip_next:
                    skip_next = False
                else:
                    cmd.words.append(Word("".join(word), self.base + start, quoted))
            word, start, quoted = [], -1, False

        def end_cmd() -> None:
            nonlocal cmd
            end_word()
            if cmd.words:
                self.out.append(cmd)
            cmd = Command()

        while i < n:
            c = text[i]
            if c == "\\" and i + 1 < n:
                if text[i + 1] == "\n":
                    i += 2
                    continue
                if start < 0:
                    start = i
                word.append(text[i + 1])
                i += 2
                continue
            if c in " \t":
                end_word()
                i += 1
                continue
            if c == "\n":
                end_cmd()
                i += 1
                if heredocs:
                    i = self._skip_heredocs(i, heredocs)
                    heredocs = []
                continue
            if c == "#" and start < 0:
                j = text.find("\n", i)
                i = n if j < 0 else j
                continue
            if c == "'":
                if start < 0:
                    start = i
                quoted = True
                j = text.find("'", i + 1)
                j = n if j < 0 else j
                word.append(text[i + 1:j])
                i = j + 1
                continue
            if c == '"':
                if start < 0:
                    start = i
                quoted = True
                i = self._double(i + 1, word)
                continue
            if c == "`":
                if start < 0:
                    start = i
                j = text.find("`", i + 1)
                j = n if j < 0 else j
                self.out.extend(commands(text[i + 1:j], self.base + i + 1))
                word.append(text[i:j + 1])
                i = j + 1
                continue
            if c == "$" and text.startswith("$(", i) and not text.startswith("$((", i):
                if start < 0:
                    start = i
                j = _matching_paren(text, i + 1)
                self.out.extend(commands(text[i + 2:j], self.base + i + 2))
                word.append(text[i:j + 1])
                i = j + 1
                continue
            if c in "<>":
                # a file descriptor number right before the operator is part of it
                if start >= 0 and "".join(word).isdigit():
                    word, start, quoted = [], -1, False
                end_word()
                if text.startswith("<<", i):
                    j = i + 2
                    strip_tabs = j < n and text[j] == "-"
                    if strip_tabs:
                        j += 1
                    m = re.match(r"[ \t]*(['\"]?)([^\s'\"<>;&|()]+)\1", text[j:])
                    if m:
                        heredocs.append((m.group(2), strip_tabs))
                        i = j + m.end()
                        continue
                    i = j
                    continue
                j = i + 1
                while j < n and text[j] in "<>&|":
                    j += 1
                if j < n and text[j - 1] == "&" and text[j:j + 1].isdigit():
                    while j < n and text[j].isdigit():
                        j += 1
                    i = j
                    continue
                skip_next = True
                i = j
                continue
            if c in _OPS:
                end_cmd()
                i += 1
                continue
            if start < 0:
                start = i
            m = _PLAIN_RUN.match(text, i)
            if m:
                word.append(m.group(0))
                i = m.end()
            else:
                word.append(c)
                i += 1
        end_cmd()
        return self.out

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
