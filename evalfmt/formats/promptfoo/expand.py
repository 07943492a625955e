"""A config expanded as promptfoo 0.123.1 expands it before running: its prompts, its tests, and the
rendered input of each (test, prompt) pair.

The steps follow promptfoo's own (``readPrompts``, ``readTests``, ``resolveConfigs``, the evaluator's
``buildTestsFromSuite`` / ``prepareTestCaseForEval`` / ``generateVarCombinations``, ``renderPrompt``):

- prompts: a string, a list of strings and prompt objects (``raw``/``id``/``label``) or a ``{path: label}``
  mapping; a string is a file reference when promptfoo's ``maybeFilePath`` says so (``file://``, a known
  extension, ``*``, ``/``, ...), a glob is expanded (sorted), ``.txt`` files split at ``---`` lines and
  trimmed, ``.md``/``.j2`` read whole, ``.json``/``.yaml`` read as chat prompts (JSON), ``.jsonl`` one prompt
  a line; identical prompt strings count once. JavaScript and Python prompt functions, executables and
  CSV prompts are :class:`Prompt` objects with ``why`` set (never rendered);
- tests: inline, ``file://`` YAML/JSON/JSONL files and globs (each test read as it is), ``tests:`` naming one
  CSV/JSON/JSONL file (rows, ``Row #N`` descriptions, CSV's ``__expected``/``__description``/... columns),
  ``vars`` read from files, ``defaultTest`` inline or ``file://``, ``scenarios`` (each ``config`` entry
  times each of its tests), a test with no tests at all (one empty test);
- each test's vars are ``defaultTest.vars`` under its own, its assertions ``defaultTest.assert`` (unless
  ``options.disableDefaultAsserts``) then its own; a list var gives one run per value (unless
  ``disableVarExpansion``), a ``file://`` var one per file its glob names;
- rendering: ``file://`` vars loaded (text trimmed, YAML as JSON), one trailing line break cut from each
  string var, ``{{ var }}`` references between vars resolved, a JSON prompt rendered string by string (a
  chat prompt), any other rendered with its vars rendered first (nunjucks, :mod:`.template`); a test's
  ``options.prefix``/``suffix`` around the prompt.

What promptfoo computes at run time (JavaScript or Python prompts, vars and tests, ``transformVars``, the
process environment, remote datasets) is reported, never guessed.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterator

from ... import js
from .files import Files, FilesError, Outside
from .loader import YamlDate
from .template import LIMIT, Budget, Unrenderable, js_string, render

if TYPE_CHECKING:  # pragma: no cover
    from ... import ir
    from .. import Reporter

_JS_EXT = (".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".jsx", ".tsx")
_PROMPT_EXT = (".cjs", ".cts", ".j2", ".js", ".json", ".jsonl", ".md", ".mjs", ".mts", ".py", ".ts", ".txt",
               ".yml", ".yaml")
_EXEC_EXT = (".sh", ".bash", ".exe", ".bat", ".cmd", ".ps1", ".rb", ".pl")
_RESOLVE = re.compile(r"\{\{\s*(\w+)\s*\}\}")

#: a place in a document: the keys and indices from its root (as a reporter takes it)
Where = tuple[str | int, ...]


class TestUnrenderable(Unrenderable):
    """What the test (its options, a var's file) keeps from being rendered, not the prompt."""


#: the most runs (tests x var combinations x prompts) a config is read into
MAX_RUNS = 100_000


class ConfigError(Exception):
    """What makes promptfoo stop before running (a missing prompt file, a tests file it cannot read):
    ``where`` is the config path of the offending value."""

    def __init__(self, message: str, where: Where = ()):
        super().__init__(message)
        self.where = where


@dataclass
class Prompt:
    """One prompt as promptfoo processed it: its text, label and id; ``why`` names what evalfmt does not
    render (a prompt function, an executable)."""

    raw: str
    label: str
    id: str | None = None
    why: str | None = None
    #: the index of the config's ``prompts`` entry it comes from
    entry: int = 0
    #: the label or id the config gives it (None: promptfoo's default label, the text)
    named: str | None = None


@dataclass
class Test:
    """One test before expansion: its mapping as promptfoo holds it after reading, and where it was read."""

    data: dict[str, Any]
    #: the reporter of the file it was read from, and the path to it there
    where: Where = ()
    reporter: Reporter | None = None
    #: 'inline', 'file' (a YAML/JSON tests file), 'rows' (a CSV/JSON/JSONL table), 'scenario', 'empty'
    origin: str = "inline"
    #: the config's tests entry it comes from (index), or the scenario's
    entry: int | None = None
    #: the file it was read from (relative to the config's folder)
    file: str | None = None
    #: not a test promptfoo can run (not a mapping): one case, never rendered (the reader reports it)
    invalid: bool = False
    #: the IR case the reader made of the test, inline or a tests file's (absent until the reader sets it)
    case: ir.Case = field(init=False, repr=False, compare=False)
    #: a scenario's test only, absent until the reader sets it: the scenario's number, the test's number in it, where
    #: the scenario's config entry is, the reporter of its file, that entry and the scenario's own test
    scenario: tuple[int, int, Where, Reporter, dict[str, Any], Test] = field(init=False, repr=False, compare=False)


@dataclass
class Run:
    """One (test, var combination, prompt) pair: what promptfoo sends to the provider."""

    test: Test
    prompt: Prompt
    prompt_index: int
    vars: dict[str, Any]
    combo: int
    combos: int
    #: the assertions promptfoo checks (defaultTest's then the test's)
    asserts: list[Any]
    defaults: bool
    rendered: str | None = None
    why: str | None = None
    #: the test (not the prompt) is why it is not rendered
    at_test: bool = False


@dataclass
class Config:
    """A config's expansion (see the module docstring)."""

    path: str
    prompts: list[Prompt] = field(default_factory=list)
    tests: list[Test] = field(default_factory=list)
    default: dict[str, Any] = field(default_factory=dict)
    env: dict[str, Any] = field(default_factory=dict)
    #: what every rendering of the config draws from (a hostile config's templates stop, not the reader)
    budget: Budget = field(default_factory=lambda: Budget(20_000_000, 20 * LIMIT))
    #: the prompts some provider runs, by the providers' own ``prompts`` (None: every prompt)
    provider_prompts: list[Any] | None = None


# ------------------------------------------------------------------------------------------ prompts


def has_magic(path: str) -> bool:
    """Whether promptfoo's ``hasMagic`` (glob 13, ``magicalBraces`` off) takes ``path`` for a pattern: a ``*`` or
    ``?``, a ``[...]`` class, an extglob ``@(...)``/``!(...)``/``+(...)``. Braces alone are not magic there: a
    prompt ``file://p/{a,b}.txt`` is read as that one file (promptfoo stops: no such file)."""
    if any(x in path for x in ("*", "?", "@(", "!(", "+(")):
        return True
    opened = -1
    for k, ch in enumerate(path):
        if ch == "[" and opened < 0:
            opened = k  # (the first '[' since the last ']')
        elif ch == "]":
            if 0 <= opened < k - 1:
                return True
            opened = -1
    return False


def maybe_file_path(s: str) -> bool:
    """promptfoo's ``maybeFilePath``: whether a prompt string names a file."""
    return file_path_reason(s) is not None


def file_path_reason(s: str) -> str | None:
    """Why promptfoo's ``maybeFilePath`` takes a prompt string for a file path (None: it does not)."""
    if any(x in s for x in ("\n", "portkey://", "langfuse://", "helicone://")):
        return None
    if s.startswith("file://"):
        return "file://"
    tokens = s.split(":")
    last = tokens[-1]
    before = tokens[-2] if len(tokens) > 1 else None
    if any(last.endswith(e) or (before is not None and before.endswith(e)) for e in _PROMPT_EXT):
        return "a file extension"
    if (len(s) >= 3 and s[-3] == ".") or (len(s) >= 4 and s[-4] == "."):
        return "a '.' three or four characters from its end"
    for ch, what in (("*", "a '*'"), ("/", "a '/'"), ("\\", "a backslash")):
        if ch in s:
            return what
    return None


def read_prompts(value: Any, base: str, files: Files) -> list[Prompt]:
    """The prompts of a config's ``prompts`` value (see the module docstring); :class:`ConfigError` where
    promptfoo stops."""
    if value is None:
        value = ["{{prompt}}"]
    entries = _prompt_entries(value)
    out: list[Prompt] = []
    for i, entry in enumerate(entries):
        got = _process(entry, base, files, 1)
        if not got:
            why = file_path_reason(entry["raw"]) or "a file path"
            raise ConfigError(f"there are no prompts in '{entry['raw']}' ({why} makes promptfoo read it as a file "
                              "path, and no such file exists)", ("prompts", i) if isinstance(value, list) else
                              ("prompts",))
        for p in got:
            p.entry = i
            named = entry.get("label") if isinstance(entry.get("label"), str) else entry.get("id")
            p.named = named if isinstance(named, str) and (len(got) == 1) else None
        out.extend(got)
    return out


def _prompt_entries(value: Any) -> list[dict[str, Any]]:
    """The entries of a ``prompts`` value, each ``{raw, label?, id?}``."""
    if isinstance(value, str):
        return [{"raw": value}]
    if isinstance(value, list):
        return _listed_prompts(value)
    if isinstance(value, dict) and value:
        return [{"raw": k, "label": v} for k, v in value.items()]
    raise ConfigError(f"'prompts' must be a string, a list or a mapping of prompts, not {_js(value)}", ("prompts",))


def _listed_prompts(value: list[Any]) -> list[dict[str, Any]]:
    """A list of prompts: strings (each once) and objects with ``raw`` or ``id`` (and ``label`` or ``id``)."""
    entries: list[dict[str, Any]] = []
    seen: set[str] = set()
    for item in value:
        if isinstance(item, str):
            if item not in seen:
                seen.add(item)
                entries.append({"raw": item})
        elif isinstance(item, dict) and isinstance(item.get("raw") or item.get("id"), str):
            if not isinstance(item.get("id"), str) and not isinstance(item.get("label"), str):
                raise ConfigError("a prompt object needs a 'label' or an 'id' (promptfoo refuses this one)",
                                  ("prompts", len(entries)))
            entries.append({**item, "raw": item.get("raw") or item.get("id")})
        else:
            raise ConfigError(f"a prompt must be a string or an object with 'raw' or 'id', not {_js(item)}",
                              ("prompts",))
    return entries


def _process(entry: dict[str, Any], base: str, files: Files, depth: int) -> list[Prompt]:
    raw: str = entry["raw"]
    label = entry.get("label") if isinstance(entry.get("label"), str) else None
    pid = entry.get("id") if isinstance(entry.get("id"), str) else None
    if raw.startswith("exec:"):
        return [Prompt(raw, label or raw, pid, why="an executable prompt (exec:)")]
    if not maybe_file_path(raw):
        return [Prompt(raw, label if label is not None else raw, pid)]
    rel, func = _function_of(raw[len("file://"):] if raw.startswith("file://") else raw)
    path = os.path.normpath(os.path.join(base, rel))
    if files.isdir(path):
        return [Prompt(raw, label if label is not None else raw, pid,
                       why=f"a prompt that names a folder ('{rel}': promptfoo sends its name or path as the prompt)")]
    if has_magic(rel) and depth > 0:
        out: list[Prompt] = []
        for match in files.glob(path):
            found = os.path.relpath(match, base or ".")
            out.extend(_process({"raw": found + (f":{func}" if func else "")}, base, files, 0))
        # (none found: promptfoo sends the text, a file:// path made absolute as its config loader makes it)
        text = "file://" + os.path.abspath(path) if raw.startswith("file://") else raw
        return out or [Prompt(text, label if label is not None else text, pid)]
    return _from_file(raw, rel, path, label, pid, files)


def _function_of(rel: str) -> tuple[str, str | None]:
    """A prompt path and the function it names after its last ``:`` (a JavaScript, Python, Go or Ruby file's)."""
    at = rel.rfind(":")
    head = rel[:at]
    if at > 1 and (head.endswith(_JS_EXT) or head.endswith((".py", ".go", ".rb"))):
        return head, rel[at + 1:]
    return rel, None


def _from_file(raw: str, rel: str, path: str, label: str | None, pid: str | None,
               files: Files) -> list[Prompt]:
    """The prompts of one prompt file, by its extension (promptfoo's processors)."""
    ext = os.path.splitext(path)[1]
    shown = label or path
    why = _not_read(ext, rel)
    if why is not None:
        return [Prompt(raw, shown, pid, why=why)]
    if ext not in (".txt", ".md", ".j2", ".json", ".jsonl", ".yaml", ".yml"):
        return []
    try:
        text = files.text(path)
    except Outside as exc:
        return [Prompt(raw, shown, pid, why=str(exc))]
    except Exception:
        raise ConfigError(f"prompt file '{rel}' does not exist (promptfoo stops here)", ("prompts",)) from None
    return _file_prompts(ext, text, path, label, pid, files)


def _not_read(ext: str, rel: str) -> str | None:
    """Why a prompt file of extension ``ext`` is not rendered (a program or a table), None for a text one."""
    if ext.endswith(_JS_EXT) or ext in (".py",):
        kind = "a Python prompt function" if ext == ".py" else "a JavaScript prompt function"
        return f"{kind} ('{rel}')"
    if ext in _EXEC_EXT:
        return f"an executable prompt ('{rel}')"
    if ext == ".csv":
        return f"prompts from a CSV file ('{rel}')"
    return None


def _file_prompts(ext: str, text: str, path: str, label: str | None, pid: str | None, files: Files) -> list[Prompt]:
    """The prompts a text prompt file holds, by its extension (``.txt`` parts, the whole text, JSON lines, the
    JSON or YAML value)."""
    shown = label or path
    if ext == ".txt":
        return [Prompt(p, f"{label}: {path}: {p}" if label else f"{path}: {p}", pid) for p in _txt_prompts(text)]
    if ext in (".md", ".j2"):
        return [Prompt(text, shown, pid)]
    if ext == ".jsonl":
        return [Prompt(line, shown, pid) for line in re.split(r"\r?\n", text) if line]
    if ext == ".json":
        try:
            return [Prompt(_js_json(json.loads(text)), shown, pid)]
        except ValueError:
            return [Prompt(text, shown, pid)]
    try:
        return [Prompt(_js_json(files.load(path)), shown, pid)]
    except Exception:
        return [Prompt(text, shown, pid)]


def _txt_prompts(text: str) -> list[str]:
    """A ``.txt`` prompt file's prompts: its parts between ``---`` lines, trimmed, empty ones left out."""
    parts: list[str] = []
    buf: list[str] = []
    for line in re.split(r"\r?\n", text) + ["---"]:
        if line.strip() == "---":
            chunk = "\n".join(buf).strip()
            if chunk:
                parts.append(chunk)
            buf = []
        else:
            buf.append(line)
    return parts


def _js_json(value: Any, indent: int | None = None) -> str:
    """``JSON.stringify(value)`` (with ``indent``: ``JSON.stringify(value, null, indent)``; a YAML date as the
    Date's ``toJSON()``)."""
    value = _dates_as_json(value)
    if indent:
        return js.stringify(value, indent)
    return js.stringify(value)


def _dates_as_json(value: Any) -> Any:
    if isinstance(value, YamlDate):
        return value.iso()
    if isinstance(value, list):
        return [_dates_as_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _dates_as_json(v) for k, v in value.items()}
    return value


def _js(value: Any) -> str:
    try:
        return _js_json(value)
    except (TypeError, ValueError):
        return repr(value)


# -------------------------------------------------------------------------------------------- tests


def is_standalone(entry: str) -> bool:
    """A tests list entry promptfoo reads as a table (``readStandaloneTestsFile``), not a glob of test files."""
    at = entry.rfind(":")
    head = entry[:at] if at > 1 else entry
    return head.endswith(_JS_EXT) or head.endswith(".py") or entry.split("#")[0].endswith((".xlsx", ".xls")) \
        or ":" in re.sub(r"^file://", "", entry)


def runtime_source(entry: str) -> str | None:
    """What a tests path promptfoo computes at run time is (None: a file evalfmt reads)."""
    at = entry.rfind(":")
    head = entry[:at] if at > 1 else entry
    if entry.startswith(("huggingface://", "az://", "https://")):
        return "a remote dataset"
    if head.endswith(_JS_EXT):
        return "tests a JavaScript file generates"
    if head.endswith(".py"):
        return "tests a Python file generates"
    if entry.split("#")[0].endswith((".xlsx", ".xls")):
        return "a spreadsheet"
    return None


def csv_rows(text: str) -> list[dict[str, str]]:
    """A CSV file's rows as promptfoo's csv-parse gives them (the first line names the columns). A field may
    be as long as the file (which the size limit bounds): csv-parse has no limit of its own."""
    if text.startswith("\ufeff"):
        text = text[1:]
    before = csv.field_size_limit()
    csv.field_size_limit(max(before, len(text) + 1))
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        raise ConfigError(f"not CSV promptfoo reads: {exc}") from None
    finally:
        csv.field_size_limit(before)
    if not rows:
        return []
    head = rows[0]
    out = []
    for row in rows[1:]:
        if row == [] or row == [""] and len(head) > 1:
            continue
        if len(row) != len(head):
            raise ConfigError(f"a CSV row has {len(row)} fields where the header names {len(head)}")
        out.append(dict(zip(head, row)))
    return out


def test_from_row(row: dict[str, Any]) -> dict[str, Any]:
    """promptfoo's ``testCaseFromCsvRow``: a CSV row as a test."""
    test = _Row()
    for key, value in ((k.strip(), v) for k, v in row.items()):
        test.column(key, value)
    return test.test()


@dataclass
class _Row:
    """A CSV row being read as a test: its vars, assertions, options, metadata and test keys."""

    vars: dict[str, Any] = field(default_factory=dict)
    asserts: list[dict[str, Any]] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    out: dict[str, Any] = field(default_factory=dict)
    metric: str | None = None
    threshold: float | int | None = None

    def column(self, key: str, value: str) -> None:
        """One column: an ``__expected`` assertion, a ``__`` setting, ``__metadata:`` or a var."""
        if key.startswith("__expected"):
            if value.strip():
                self.asserts.append(assertion_from_string(value.strip()))
        elif key in _ROW_SETTINGS:
            _ROW_SETTINGS[key](self, value)
        elif key.startswith("__metadata:"):
            self.meta(key[len("__metadata:"):], value)
        elif key.startswith("__config:") or key == "__metadata":
            raise ConfigError(f"the CSV column '{key}' is not read by evalfmt")
        else:
            self.vars[key] = value

    def meta(self, mkey: str, value: str) -> None:
        """``__metadata:key`` (``key[]``: a list split at unescaped commas)."""
        if mkey.endswith("[]") and value.strip():
            self.metadata[mkey[:-2]] = [v.strip().replace("\\,", ",") for v in re.split(r"(?<!\\),", value)]
        elif value.strip():
            self.metadata[mkey] = value

    def test(self) -> dict[str, Any]:
        for a in self.asserts:
            if self.metric is not None:
                a["metric"] = self.metric
        test: dict[str, Any] = {"vars": self.vars, "assert": self.asserts, "options": self.options}
        if self.out.get("description"):
            test["description"] = self.out["description"]
        if self.out.get("providerOutput"):
            test["providerOutput"] = self.out["providerOutput"]
        if self.threshold is not None:
            test["threshold"] = self.threshold
        if self.metadata:
            test["metadata"] = self.metadata
        return test


def _set(where: str, key: str) -> Callable[[_Row, str], None]:
    return lambda row, value: getattr(row, where).__setitem__(key, value)


#: a CSV row's setting columns -> what each sets
_ROW_SETTINGS: dict[str, Callable[[_Row, str], None]] = {
    "__prefix": _set("options", "prefix"), "__suffix": _set("options", "suffix"),
    "__description": _set("out", "description"), "__providerOutput": _set("out", "providerOutput"),
    "__metric": lambda row, value: setattr(row, "metric", value),
    "__threshold": lambda row, value: setattr(row, "threshold", _finite(value)),
}


def _finite(value: str | None) -> float | int | None:
    text = (value or "").strip()
    if not re.fullmatch(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", text):
        return None
    number = float(text)
    return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number


#: promptfoo's base assertion types (``BaseAssertionTypesSchema``), for ``__expected`` cells
BASE_TYPES = (
    "answer-relevance", "bleu", "classifier", "contains", "contains-all", "contains-any", "contains-html",
    "contains-json", "contains-sql", "contains-xml", "context-faithfulness", "context-recall",
    "context-relevance", "conversation-relevance", "cost", "equals", "factuality", "finish-reason", "g-eval",
    "gleu", "guardrails", "icontains", "icontains-all", "icontains-any", "is-html", "is-json", "is-refusal",
    "is-sql", "is-valid-function-call", "is-valid-openai-function-call", "is-valid-openai-tools-call",
    "is-xml", "javascript", "latency", "levenshtein", "llm-rubric", "meteor", "model-graded-closedqa",
    "model-graded-factuality", "moderation", "perplexity", "perplexity-score", "pi", "python", "regex",
    "rouge-n", "ruby", "search-rubric", "similar", "similar:cosine", "similar:dot", "similar:euclidean",
    "skill-used", "starts-with", "tool-call-f1", "trace-error-spans", "trace-span-count",
    "trace-span-duration", "trajectory:goal-success", "trajectory:step-count", "trajectory:tool-args-match",
    "trajectory:tool-sequence", "trajectory:tool-used", "webhook", "word-count",
)
_THRESHOLD_TYPES = ("answer-relevance", "classifier", "context-faithfulness", "context-recall", "context-relevance",
                    "cost", "latency", "levenshtein", "perplexity-score", "perplexity", "rouge-n", "similar",
                    "starts-with")


#: an ``__expected`` cell's prefix -> the assertion type, and whether its value is trimmed
_PREFIXES = {"javascript:": ("javascript", True), "fn:": ("javascript", True), "eval:": ("javascript", True),
             "grade:": ("llm-rubric", False), "llm-rubric:": ("llm-rubric", False), "python:": ("python", True)}
#: a typed cell: ``not-``, a base type, a threshold in parentheses, ``:`` and the value
_TYPED = re.compile(rf"(not-)?({'|'.join(re.escape(t) for t in BASE_TYPES)})"
                    r"(?:\((\d+(?:\.\d+)?)\))?(?::([\s\S]*))?")


def assertion_from_string(expected: str) -> dict[str, Any]:
    """promptfoo's ``assertionFromString``: an ``__expected`` cell as an assertion."""
    code = _code_file(expected) if expected.startswith("file://") else _prefixed(expected)
    if code is not None:
        return code
    m = _TYPED.fullmatch(expected)
    if m is None:
        return {"type": "equals", "value": expected}
    neg, typ, thr, value = m.groups()
    out: dict[str, Any] = {"type": ("not-" if neg else "") + typ, **_cell_value(typ, value)}
    if typ in _THRESHOLD_TYPES:
        t = _finite(thr)
        out["threshold"] = t if t is not None else (0.8 if typ == "similar" else 0.75)
    return out


def _code_file(expected: str) -> dict[str, str] | None:
    """``file://`` a JavaScript file (the whole cell its value) or a Python one (its path, function too)."""
    if expected[7:].endswith(_JS_EXT):
        return {"type": "javascript", "value": expected.strip()}
    if expected.endswith(".py") or ".py:" in expected:
        return {"type": "python", "value": expected[7:].strip()}
    return None


def _prefixed(expected: str) -> dict[str, str] | None:
    """A cell starting ``javascript:``, ``fn:``, ``eval:``, ``grade:``, ``llm-rubric:`` or ``python:``."""
    for prefix, (typ, trim) in _PREFIXES.items():
        if expected.startswith(prefix):
            value = expected[len(prefix):]
            return {"type": typ, "value": value.strip() if trim else value}
    return None


def _cell_value(typ: str, value: str | None) -> dict[str, Any]:
    """The ``value`` of a typed cell: a list type's comma-separated values, a JSON type's text as written,
    another's trimmed (none without ``:``)."""
    if value is None:
        return {}
    if typ in ("contains-all", "contains-any", "icontains-all", "icontains-any"):
        return {"value": _comma_values(value) if value else value}
    if typ in ("contains-json", "is-json"):
        return {"value": value}
    return {"value": value.strip()}


def _comma_values(value: str) -> list[str]:
    out: list[str] = []
    i = 0
    n = len(value)
    while i < n:
        while i < n and (value[i] == "," or value[i].isspace()):
            i += 1
        if i >= n:
            break
        if value[i] == '"':
            j = i + 1
            field_ = []
            while j < n:
                if value[j] == '"' and j + 1 < n and value[j + 1] == '"':
                    field_.append('"')
                    j += 2
                elif value[j] == '"':
                    j += 1
                    break
                else:
                    field_.append(value[j])
                    j += 1
            out.append("".join(field_))
            while j < n and value[j].isspace():
                j += 1
            i = j
        else:
            j = value.find(",", i)
            j = n if j < 0 else j
            out.append(value[i:j].strip())
            i = j
    return out


# ---------------------------------------------------------------------------------------- expansion


def combinations(vars_: dict[str, Any], base: str, files: Files, limit: int = MAX_RUNS) -> list[dict[str, Any]]:
    """promptfoo's ``generateVarCombinations``: one mapping per choice of a value of each list var (a list
    whose first item is not a string, an empty one too, is one value) and of each file a ``file://`` var's
    glob names; :class:`ConfigError` past ``limit`` combinations."""
    combos: list[dict[str, Any]] = [{}]
    for key, value in vars_.items():
        if isinstance(value, str) and value.startswith("file://"):
            pattern = value[len("file://"):]
            try:
                found = sorted(os.path.relpath(p, base or ".") for p in files.glob(os.path.join(base, pattern)))
            except FilesError as exc:
                raise ConfigError(f"the var '{key}': {exc}") from None
            if not found:
                raise ConfigError(f"no file found for var '{key}' at '{pattern}' (promptfoo stops here)")
            values: list[Any] = [f"file://{p}" for p in found]
        elif isinstance(value, list) and value and isinstance(value[0], str) and not isinstance(value[0], YamlDate):
            values = value
        else:
            values = [value]
        if len(combos) * len(values) > limit:
            raise ConfigError(f"more than {limit} combinations of the vars' values (tests x values x prompts "
                              "past evalfmt's bound)")
        combos = [{**c, key: v} for c in combos for v in values]
    return combos


def resolve_between(vars_: dict[str, Any]) -> None:
    """promptfoo's ``resolveVariables``: a ``{{ name }}`` in a string var replaced by that var (the first
    one of each var per pass, at most 5 passes)."""
    for _ in range(5):
        done = True
        for key in list(vars_):
            value = vars_[key]
            if not isinstance(value, str):
                continue
            m = _RESOLVE.search(value)
            if m and m.group(1) in vars_:
                vars_[key] = value[:m.start()] + _js_replacement(js_string(vars_[m.group(1)]), value, m) + \
                    value[m.end():]
                if len(vars_[key]) > LIMIT:
                    raise Unrenderable(f"the var '{key}', which grows past {LIMIT} characters as the vars it names "
                                       "are put in")
                done = False
        if done:
            return


def _js_replacement(rep: str, subject: str, m: re.Match[str]) -> str:
    """``String.prototype.replace``'s replacement patterns (``$$``, ``$&``, ``$```, ``$'``)."""
    if "$" not in rep:
        return rep
    return re.sub(r"\$([$&`'])", lambda x: {"$": "$", "&": m.group(0), "`": subject[:m.start()],
                                            "'": subject[m.end():]}[x.group(1)], rep)


def load_var_files(vars_: dict[str, Any], base: str, files: Files) -> None:
    """``file://`` vars as ``renderPrompt`` loads them: text trimmed, YAML as its JSON; :class:`Unrenderable`
    for what promptfoo computes (scripts) or encodes (images, PDFs)."""
    for key, value in list(vars_.items()):
        if isinstance(value, str) and value.startswith("package:"):
            raise TestUnrenderable(f"the var '{key}', which a package's function computes ('{value}')")
        if not (isinstance(value, str) and value.startswith("file://")):
            continue
        rel = value[len("file://"):]
        path = os.path.join(base, rel)
        ext = rel.rsplit(".", 1)[-1].lower() if "." in rel else ""
        if rel.split(":")[0].endswith(_JS_EXT) or ext == "py":
            raise TestUnrenderable(f"the var '{key}', which a script computes ('{rel}')")
        if ext in ("pdf", "png", "jpg", "jpeg", "gif", "webp", "bmp", "svg", "mp3", "wav", "mp4", "m4a", "ogg",
                   "webm", "mov", "flac", "tiff", "ico", "avif", "heic"):
            raise TestUnrenderable(f"the var '{key}', a binary file promptfoo encodes ('{rel}')")
        try:
            if ext in ("yaml", "yml"):
                vars_[key] = _js_json(files.load(path))
            else:
                vars_[key] = files.text(path).strip()
        except Outside as exc:
            raise TestUnrenderable(f"the var '{key}': {exc}") from None
        except Exception:
            raise TestUnrenderable(f"the var '{key}': its file '{rel}' cannot be read") from None


def render_prompt(prompt: Prompt, vars_: dict[str, Any], base: str, files: Files, env: dict[str, Any],
                  prefix: str = "", suffix: str = "", budget: Budget | None = None) -> str:
    """The text promptfoo sends for ``prompt`` with ``vars_`` (``renderPrompt``); :class:`Unrenderable`."""
    if prompt.why:
        raise Unrenderable(prompt.why)
    vars_ = {k: _without_dates(v) for k, v in vars_.items()}
    load_var_files(vars_, base, files)
    for key, value in vars_.items():
        if isinstance(value, str) and value.endswith("\n"):
            vars_[key] = value[:-1]
    resolve_between(vars_)
    raw = prefix + prompt.raw + suffix
    try:
        parsed = js.loads(raw)
    except ValueError:
        parsed = _NOT_JSON
    if parsed is not _NOT_JSON:
        return _js_json(_render_object(parsed, vars_, env, budget), indent=2)
    rendered = {}
    for key, value in vars_.items():
        if isinstance(value, str) and not _refers_undefined(value, vars_):
            rendered[key] = render(_wrap_partial(value), vars_, env, budget)
        else:
            rendered[key] = value
    return render(_wrap_partial(raw), rendered, env, budget)


_NOT_JSON = object()


def _without_dates(value: Any) -> Any:
    """``value`` with each unquoted YAML date as promptfoo has it when it renders: an empty object (promptfoo's
    parser makes it a JavaScript Date, which its merging of the vars copies as an object with no keys:
    ``{{ day }}`` sends ``[object Object]``, ``{{ day | dump }}`` ``{}``)."""
    if isinstance(value, YamlDate):
        return {}
    if isinstance(value, list) and any(not isinstance(v, (str, int, float, bool)) or isinstance(v, YamlDate)
                                       for v in value):
        return [_without_dates(v) for v in value]
    if isinstance(value, dict):
        return {k: _without_dates(v) for k, v in value.items()}
    return value


def _render_object(obj: Any, vars_: dict[str, Any], env: dict[str, Any], budget: Budget | None) -> Any:
    if isinstance(obj, str):
        return render(obj, vars_, env, budget)
    if isinstance(obj, list):
        return [_render_object(v, vars_, env, budget) for v in obj]
    if isinstance(obj, dict):
        return {k: _render_object(v, vars_, env, budget) for k, v in obj.items()}
    return obj


def _wrap_partial(text: str) -> str:
    """promptfoo's ``autoWrapRawIfPartialNunjucks``: a text with a tag left open on a line is not a template.
    (Scans, not its regexes: linear on any text.)"""
    partial = False
    for line in text.split("\n"):
        for opener, closer in (("{%", "%"), ("{{", "}"), ("{#", "#")):
            k = line.rfind(opener)
            if k >= 0 and closer not in line[k + 2:]:
                partial = True
    wrapped = _has_tag(text, "raw") and _has_tag(text, "endraw")
    return "{% raw %}" + text + "{% endraw %}" if partial and not wrapped else text


def _has_tag(text: str, name: str) -> bool:
    """Whether ``text`` holds ``{% name %}`` (blanks around the name)."""
    i = text.find("{%")
    while i >= 0:
        j = _skip_blanks(text, i + 2)
        if text.startswith(name, j) and text.startswith("%}", _skip_blanks(text, j + len(name))):
            return True
        i = text.find("{%", i + 1)
    return False


_FOR = re.compile(r"\{%[\s]*for[\s]+(\w+)[\s]+in[\s]+(\w+)[\s]*%\}")


def template_vars(template: str) -> list[str]:
    """promptfoo's ``extractVariablesFromTemplate``: the variables a template names (``{{ name }}``,
    ``{{ name | filter }}``, ``{% if name %}``, ``{% for x in name %}``), found by a scan that gives what its
    regexes give (tests/hostile/limits), in linear time."""
    template = _without_comments(template)
    names: list[str] = []
    for name in _outputs_and_tags(template):
        if name not in names:
            names.append(name)
    for m in _FOR.finditer(template):
        if m.group(1) in names:
            names.remove(m.group(1))
        if m.group(2) not in names:
            names.append(m.group(2))
    return names


def _without_comments(text: str) -> str:
    """The text without its ``{# ... #}`` comments."""
    out = []
    at = 0
    i = text.find("{#")
    while i >= 0:
        j = text.find("#}", i + 2)
        if j < 0:
            break
        out.append(text[at:i])
        at = j + 2
        i = text.find("{#", at)
    out.append(text[at:])
    return "".join(out)


def _skip_blanks(text: str, j: int) -> int:
    while j < len(text) and text[j].isspace():
        j += 1
    return j


def _name_at(text: str, j: int, stop: str) -> tuple[str, int]:
    """The run of characters from ``j`` that are neither blank nor in ``stop``, and where it ends."""
    k = j
    while k < len(text) and not text[k].isspace() and text[k] not in stop:
        k += 1
    return text[j:k], k


def _output_name(text: str, i: int, close: int) -> str | None:
    """The name of ``{{ name }}`` / ``{{ name | ... }}`` at ``i`` (``close``: the first ``}`` after it)."""
    name, k = _name_at(text, _skip_blanks(text, i + 2), "{}|")
    k = _skip_blanks(text, k)
    if name and close >= 0 and text.startswith("}}", close) and (k == close or (text[k] == "|" and close > k + 1)):
        return name
    return None


def _tag_name(text: str, i: int) -> tuple[str, int] | None:
    """The name of ``{% if name ... %}`` / ``{% for name ... %}`` at ``i`` and where the tag ends (what is
    between the name and ``%}`` may hold line breaks only in the blanks right after the name)."""
    j = _skip_blanks(text, i + 2)
    word = "if" if text.startswith("if", j) else "for" if text.startswith("for", j) else None
    if word is None or j + len(word) >= len(text) or not text[j + len(word)].isspace():
        return None
    name, k = _name_at(text, _skip_blanks(text, j + len(word)), "{}")
    end = text.find("%}", k)
    last_break = text.rfind("\n", k, end) if end >= 0 else -1
    if name and end >= 0 and not (last_break >= 0 and text[k:last_break].strip()):
        return name, end + 2
    if len(name) > 1 and name.endswith("%") and text.startswith("}", k):  # (the regex gives the '%' back)
        return name[:-1], k + 1
    return None


def _outputs_and_tags(text: str) -> list[str]:
    """The names promptfoo's ``{{ name }}`` / ``{% if|for name %}`` regex finds, in order."""
    names = []
    i = 0
    close = -1  # the first '}' at or after the attempt (reused while it is ahead: no rescans)
    while i < len(text) - 1:
        if text.startswith("{{", i):
            if close < i:
                close = text.find("}", i)
            name = _output_name(text, i, close)
            if name is not None:
                names.append(name)
                i = close + 2
                continue
        elif text.startswith("{%", i):
            found = _tag_name(text, i)
            if found is not None:
                names.append(found[0])
                i = found[1]
                continue
        i += 1
    return names


def _refers_undefined(template: str, vars_: dict[str, Any]) -> bool:
    for name in template_vars(template):
        m = re.match(r"[A-Za-z_]\w*", name)
        if m and m.group(0) != "env" and m.group(0) not in vars_:
            return True
    return False


def prompt_ref_matches(ref: Any, prompt: Prompt) -> bool:
    """promptfoo's ``doesPromptRefMatch``: a label or id, a ``Group:*`` wildcard, or ``Group`` for ``Group:x``."""
    if not isinstance(ref, str):
        return False
    names = [n for n in (prompt.label, prompt.id) if isinstance(n, str)]
    if ref in names:
        return True
    if ref.endswith("*") and any(n.startswith(ref[:-1]) for n in names):
        return True
    return any(n.startswith(f"{ref}:") for n in names)


def _allowed(prompt: Prompt, refs: Any) -> bool:
    """promptfoo's ``isPromptAllowed``: no list allows every prompt, an empty one none."""
    return not isinstance(refs, list) or any(prompt_ref_matches(r, prompt) for r in refs)


def provider_prompts(providers: Any) -> list[Any] | None:
    """The prompts some provider runs (``prompts`` of each provider; None when one runs every prompt)."""
    if not isinstance(providers, list) or not providers:
        return None
    refs: list[Any] = []
    for p in providers:
        if not (isinstance(p, dict) and isinstance(p.get("prompts"), list)):
            return None
        refs.extend(p["prompts"])
    return refs


class TooManyRuns(ConfigError):
    """A config that expands past :data:`MAX_RUNS` runs."""


def runs(config: Config, base: str, files: Files) -> Iterator[Run]:
    """Every (test, var combination, prompt) pair in promptfoo's order, rendered where evalfmt can;
    :class:`TooManyRuns` after :data:`MAX_RUNS` of them."""
    prompts = [(j, p) for j, p in enumerate(config.prompts) if _allowed(p, config.provider_prompts)]
    count = 0
    for test in config.tests:
        if test.invalid:
            yield Run(test, Prompt("", ""), 0, {}, 0, 1, [], True, why="")
            continue
        for run in _test_runs(config, test, prompts, base, files, MAX_RUNS - count):
            count += 1
            if count > MAX_RUNS:
                raise TooManyRuns(f"the config expands into more than {MAX_RUNS} runs (tests x var combinations x "
                                  "prompts): the rest are not read")
            yield run


def _test_runs(config: Config, test: Test, prompts: list[tuple[int, Prompt]], base: str, files: Files,
               room: int) -> Iterator[Run]:
    """The runs of one test: each var combination times each prompt it allows."""
    default = config.default
    data = test.data
    vars_ = {**_dict(default.get("vars")), **_dict(data.get("vars"))}
    options = {**_dict(default.get("options")), **_dict(data.get("options"))}
    defaults = options.get("disableDefaultAsserts") is not True
    asserts = [*(_list(default.get("assert")) if defaults else []), *_list(data.get("assert"))]
    why = None
    if options.get("transformVars") is not None:
        why = "options.transformVars (a transform promptfoo runs on the vars)"
    try:
        combos = [vars_] if options.get("disableVarExpansion") else \
            combinations(vars_, base, files, max(1, room // max(1, len(prompts))))
    except (ConfigError, FilesError) as exc:
        combos, why = [vars_], str(exc)
    allowed = data.get("prompts") if isinstance(data.get("prompts"), list) else None
    prefix, suffix = _str(options.get("prefix")), _str(options.get("suffix"))
    for k, combo in enumerate(combos):
        for j, prompt in prompts:
            if not _allowed(prompt, allowed):
                continue
            run = Run(test, prompt, j, combo, k, len(combos), asserts, defaults)
            if why is not None:
                run.why, run.at_test = why, True
            else:
                try:
                    run.rendered = render_prompt(prompt, combo, base, files, config.env, prefix, suffix,
                                                 config.budget)
                except Unrenderable as exc:
                    run.why, run.at_test = str(exc), isinstance(exc, TestUnrenderable)
            yield run


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _str(v: Any) -> str:
    return v if isinstance(v, str) else ""
