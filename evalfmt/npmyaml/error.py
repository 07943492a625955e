"""The error of :mod:`evalfmt.npmyaml` (kept apart so that importing it stays light)."""

from __future__ import annotations


class YamlError(Exception):
    """An error as the package reports it: ``offset`` into the text, its ``code`` and ``message``."""

    def __init__(self, offset: int | None, code: str | None, message: str, end: int | None = None):
        super().__init__(message)
        self.offset = offset
        self.end = end  # where it ends (None: one column)
        self.code = code
        self.message = message
        self.first: int | None = None  # DUPLICATE_KEY: where the first of the two keys starts
        self.key = None  # DUPLICATE_KEY: the key's value
        self.first_pos: tuple[int, int] | None = None  # DUPLICATE_KEY: (line, column) of the first key
        self.line: int | None = None  # as the package counts lines (see ``starts``)
        self.column: int | None = None  # in characters
        self.starts: list[int] = []  # where each line starts, as the package counts lines
