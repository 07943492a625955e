"""Format ``promptfoo``: ``promptfooconfig.yaml`` (and promptfoo test files), as a conversion target
and, for what maps back, a source.

Reading. A config is expanded as promptfoo 0.123.1 expands it (:mod:`.expand`): one case per test, var
combination and prompt, its input the prompt rendered with the test's vars (nunjucks, :mod:`.template`);
tests come inline, from ``file://`` YAML/JSON/JSONL files and globs, CSV/JSON tables, ``scenarios``, with
``defaultTest`` (inline or ``file://``) merged in. ``defaultTest.assert`` becomes the set's ``checks``
(applied to every test, as agentv's suite-level assertions). YAML is read as promptfoo's parser reads it
(:mod:`.loader`). Assertions map onto IR checks:

| promptfoo | IR |
|---|---|
| ``contains`` / ``icontains`` / ``regex`` / ``starts-with`` / ``equals`` / ``is-json`` / ``contains-any|all`` / ``icontains-any|all`` (and ``not-`` forms) | the same agentv kinds (``negate`` for ``not-``) |
| ``skill-used`` / ``not-skill-used`` with a name or a list of names | one ``skill-trigger`` per name (a list's share its weight) |
| ``trajectory:step-count`` ``{type: command, pattern: "*text*", min: 1}`` / ``max: 0`` | ``command_matching`` / ``no_command_matching`` on the escaped text |
| ``llm-rubric`` | ``rubrics`` with one criterion |
| ``latency`` / ``cost`` with a threshold | ``latency`` / ``cost`` |
| anything else (``javascript``, ``python``, counts, patterns, ...) | ``opaque`` (origin ``promptfoo``), written back unchanged |

``weight`` is the check's weight; other assertion keys stay in ``extra``.

Writing. ``prompts: ['{{prompt}}']``, one test per case with ``vars.prompt`` and its assertions; every
field promptfoo cannot hold is a loss (see ``docs/promptfoo.md``). A config read from promptfoo is
written back over its existing text with comments and key order kept (ruamel round trip).

The package: :mod:`.kinds` (names both directions share), :mod:`.loader` (YAML as promptfoo reads it),
:mod:`.files` (the files a config names: inside its repository, globs as promptfoo's glob finds them,
bounded), :mod:`.template` (nunjucks on Jinja2, bounded), with :mod:`.template_ast` (a template's tree checked
and rewritten for nunjucks' meanings), :mod:`.nunjucks` (nunjucks' look-ups, filters, tests and globals) and
:mod:`.jsops` (JavaScript's operators), :mod:`.expand` (promptfoo's expansion of a config: prompts, tests,
rendering), :mod:`.reader` (config and tests files -> IR, one function per assertion type) and
:mod:`.writer` (IR -> config, one function per IR check kind).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...fsview import DISK, View
from .. import Format, ReadResult, WriteResult, basename, head, peek_keys
from .kinds import DEFAULT_NAME, NAME

if TYPE_CHECKING:  # pragma: no cover
    from ... import ir


def detect(path: str, *, fs: View = DISK) -> bool:
    name = basename(path).lower()
    if re.fullmatch(r"promptfooconfig(\.[\w-]+)?\.(ya?ml|json)", name):
        return True
    if not name.endswith((".yaml", ".yml")):
        return False
    text = head(path, fs=fs)
    if "promptfoo.dev/config-schema" in text:
        return True
    keys = peek_keys(path, fs=fs)
    if ("prompts" in keys or "providers" in keys) and ("tests" in keys or "defaultTest" in keys):
        return True
    # a promptfoo test file: a YAML list of tests with vars / assert
    # (line-start patterns take blanks only up to the line's end: \s there would rescan blank runs)
    body = re.sub(r"(?m)^[^\S\n]*#.*\n", "", text).lstrip()
    return body.startswith("-") and bool(re.search(r"(?m)^[^\S\n]+(vars|assert):", text)) and \
        bool(re.search(r"(?m)^[^\S\n]*-\s+(description|vars|assert):", text)) and "should_trigger" not in keys


def read(path: str, *, fs: View = DISK) -> ReadResult:
    from .reader import read as _read  # lazy facade: the reader (45 ms to import) only when a file is read

    return _read(path, fs=fs)


def write(evalset: ir.EvalSet, existing: dict[str, str] | None = None) -> WriteResult:
    from .writer import write as _write  # lazy facade: the writer (12 ms to import) only to write

    return _write(evalset, existing)


FORMAT = Format(
    name=NAME,
    module=__name__,
    description="promptfoo promptfooconfig.yaml (tests with vars.prompt and assertions)",
    detect=detect,
    read=read,
    write=write,
    single_file=True,
    default_name=DEFAULT_NAME,
)
