"""Lint configuration: ``[tool.evalfmt]`` in ``pyproject.toml``, or an ``evalfmt.toml`` (same keys at
its top level), found by walking up from the linted path. In one folder ``evalfmt.toml`` wins over
``pyproject.toml``; a ``pyproject.toml`` without a ``[tool.evalfmt]`` table is skipped.

Keys (all optional)::

    select = ["EV", "HYG"]          # codes or prefixes to enable ("ALL" for every rule)
    ignore = ["EV211"]              # codes or prefixes to disable
    severity = { EV204 = "error" }  # per code or prefix: error | warning | info
    [per-file-ignores]              # glob (relative to the config file) -> codes or prefixes
    "fixtures/**" = ["EV2"]
    [rules.HYG5]                    # rule options, by code
    policy-license = "MIT"
    [rules.HYG7]
    categories = ["writing", "engineering"]
    exclude = ["legacy/**"]         # globs (relative to the config file) of files and folders to skip
    extend-exclude = ["*.draft.yaml"]  # more of them (both add to the folders always skipped)

Selection works as in ruff: within one layer the more specific prefix wins (``select = ["EV2"]``,
``ignore = ["EV204"]`` keeps EV2xx but EV204), and the command line is a later layer whose
``--select`` starts again from its own list, so ``--select`` and ``--ignore`` always win.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Iterable

from ..errors import EvalfmtError, Severity
from ..fsview import TooLarge, View
from ..globs import glob_regex, relative
from ..suggest import near

CONFIG_NAMES = ("evalfmt.toml", "pyproject.toml")
SEVERITIES = ("error", "warning", "info")
_KNOWN_KEYS = {"select", "ignore", "severity", "per-file-ignores", "rules", "extend-select", "extend-ignore",
               "exclude", "extend-exclude"}
_PREFIX = re.compile(r"(?:ALL|[A-Z]{1,5}[0-9]{0,4})\Z")


@dataclass
class Layer:
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)


@dataclass
class Config:
    path: str | None = None  # the file it came from (None: defaults)
    root: str = "."  # the folder per-file-ignores are relative to
    layers: list[Layer] = field(default_factory=list)
    severity: dict[str, Severity] = field(default_factory=dict)
    per_file_ignores: list[tuple[str, Any, list[str]]] = field(default_factory=list)  # (glob, regex, codes)
    rule_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: every code the file names, as (setting, code as written, normalised code), for check_codes
    named: list[tuple[str, str, str]] = field(default_factory=list)
    #: glob patterns of files and folders to skip (exclude + extend-exclude), relative to ``root``
    exclude: list[str] = field(default_factory=list)
    #: the file's text (where an error points into it; what it means is in the fields above)
    text: str | None = field(default=None, repr=False, compare=False)

    def with_cli(self, select: list[str] | None, ignore: list[str] | None) -> Config:
        if select is None and not ignore:
            return self
        out = Config(self.path, self.root, list(self.layers), dict(self.severity), list(self.per_file_ignores),
                     dict(self.rule_options), list(self.named), list(self.exclude), self.text)
        out.layers.append(Layer(select, list(ignore or [])))
        return out

    # --------------------------------------------------------------------------------- queries

    def enabled(self, code: str) -> bool:
        on = True
        for layer in self.layers:
            best_sel = _best(code, layer.select or [])
            best_ign = _best(code, layer.ignore)
            if layer.select is not None:
                on = best_sel >= 0
            if best_ign >= 0 and best_ign >= best_sel:
                on = False
            elif best_sel >= 0:
                on = True
        return on

    def severity_of(self, code: str, default: Severity) -> Severity:
        best, value = -1, default
        for prefix, sev in self.severity.items():
            n = _match_len(code, prefix)
            if n > best:
                best, value = n, sev
        return value

    def ignored_for_file(self, path: str, code: str) -> bool:
        if not self.per_file_ignores:
            return False
        rel = relative(path, self.root)
        for _glob, regex, codes in self.per_file_ignores:
            if regex.match(rel) and any(_match_len(code, c) >= 0 for c in codes):
                return True
        return False


def _match_len(code: str, prefix: str) -> int:
    if prefix == "ALL":
        return 0
    return len(prefix) if code.startswith(prefix) else -1


def _best(code: str, prefixes: Iterable[str]) -> int:
    return max((_match_len(code, p) for p in prefixes), default=-1)


# ----------------------------------------------------------------------------------------- loading


def parse_codes(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        value = [v for v in re.split(r"[,\s]+", value) if v]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise EvalfmtError(f"{where}: expected a list of rule codes, like [\"EV2\", \"HYG3\"]")
    out = []
    for v in value:
        code = v.strip().upper()
        if not _PREFIX.match(code):
            raise EvalfmtError(f"{where}: '{v}' is not a rule code or prefix (like EV204, EV2, HYG or ALL)")
        out.append(code)
    return out


def from_table(table: dict, path: str | None, text: str | None = None) -> Config:
    """The configuration a settings table holds (``path``: the file it was read from, ``text``: that
    file's text, where errors point)."""
    cfg = Config(path=path, root=os.path.dirname(os.path.abspath(path)) if path else os.getcwd(), text=text)
    unknown = [k for k in table if k not in _KNOWN_KEYS]
    if unknown:
        raise _at(cfg, unknown[0], unknown[0], _unknown_key(unknown[0]), as_key=True)
    reader = _TableReader(cfg, path or "configuration")
    for key in ("exclude", "extend-exclude"):
        reader.exclude(key, table.get(key, []))
    reader.selection(table)
    reader.severity(table.get("severity", {}))
    reader.per_file_ignores(table.get("per-file-ignores", {}))
    reader.rules(table.get("rules", {}))
    return cfg


@dataclass
class _TableReader:
    """Reads the settings of a table into ``cfg``; ``where`` names the file in error messages."""

    cfg: Config
    where: str

    def exclude(self, key: str, value: Any) -> None:
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise _at(self.cfg, key, key, f"{key} must be a list of glob patterns, like [\"legacy/**\"]",
                      as_key=True)
        self.cfg.exclude.extend(value)

    def codes(self, setting: str, value: Any, label: str | None = None) -> list[str]:
        """The codes of one setting, each recorded as named (for check_codes); an error points at the
        code that is not one."""
        if isinstance(value, list):
            for v in value:
                if isinstance(v, str) and not _PREFIX.match(v.strip().upper()):
                    raise _at(self.cfg, setting, v.strip(), f"{label or setting}: '{v}' is not a rule code or "
                              "prefix (like EV204, EV2, HYG or ALL)", as_key=setting == "severity")
        out = parse_codes(value, f"{self.where}: {label or setting}")
        written = [v for v in re.split(r"[,\s]+", value) if v] if isinstance(value, str) else value
        self.cfg.named.extend((setting, w.strip(), c) for w, c in zip(written, out))
        return out

    def selection(self, table: dict) -> None:
        """select, extend-select, ignore and extend-ignore: the file's layer."""
        select = self.codes("select", table["select"]) if "select" in table else None
        if "extend-select" in table:
            select = (select if select is not None else ["ALL"]) + self.codes("extend-select", table["extend-select"])
        ignore = self.codes("ignore", table.get("ignore", []))
        ignore += self.codes("extend-ignore", table.get("extend-ignore", []))
        self.cfg.layers.append(Layer(select, ignore))

    def severity(self, sev: Any) -> None:
        if not isinstance(sev, dict):
            raise EvalfmtError(f"{self.where}: severity must be a table like {{ EV204 = \"error\" }}")
        for key, value in sev.items():
            code = self.codes("severity", [key])[0]
            if value not in SEVERITIES:
                raise EvalfmtError(f"{self.where}: severity of {key} must be one of error, warning, info "
                                   f"(not {value!r})")
            self.cfg.severity[code] = value

    def per_file_ignores(self, pfi: Any) -> None:
        if not isinstance(pfi, dict):
            raise EvalfmtError(f"{self.where}: per-file-ignores must be a table of glob = [codes]")
        for glob, value in pfi.items():
            codes = self.codes("per-file-ignores", value, f"per-file-ignores '{glob}'")
            self.cfg.per_file_ignores.append((glob, glob_regex(glob), codes))

    def rules(self, rules: Any) -> None:
        if not isinstance(rules, dict):
            raise EvalfmtError(f"{self.where}: rules must be a table of rule code -> options")
        for key, opts in rules.items():
            if not isinstance(opts, dict):
                raise EvalfmtError(f"{self.where}: rules.{key} must be a table of options")
            self.cfg.rule_options[key.upper()] = {k.replace("_", "-"): v for k, v in opts.items()}


def load_file(path: str, *, fs: View) -> Config | None:
    """The config in ``path``, read through ``fs`` (None for a pyproject.toml without ``[tool.evalfmt]``)."""
    try:
        raw = fs.read_bytes(path, 1 << 62)
    except (OSError, TooLarge) as exc:
        raise EvalfmtError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    if os.path.basename(path) == "pyproject.toml" and b"evalfmt" not in raw:
        return None  # no [tool.evalfmt]: no need to parse (validate runs this on every commit)
    import tomllib  # 2 ms to import (python -X importtime), paid only for a file that names evalfmt

    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError:
        raise EvalfmtError(f"{path}: invalid TOML: not UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise EvalfmtError(f"{path}: invalid TOML: {exc}") from None
    if os.path.basename(path) == "pyproject.toml":
        tool = data.get("tool")
        table = tool.get("evalfmt") if isinstance(tool, dict) else None
        if table is None:
            return None
    else:
        table = data
    if not isinstance(table, dict):
        raise EvalfmtError(f"{path}: the evalfmt settings must be a table")
    return from_table(table, path, text)


def unknown_code(code: str, setting: str, known: Iterable[str]) -> str | None:
    """The message for a code or prefix that names no rule (None when it names one): the same words
    for the command line (``--select``) and every setting of a configuration file."""
    known = list(known)
    if code == "ALL" or any(c.startswith(code) for c in known):
        return None
    pool = sorted(set(known) | {c[:len(code)] for c in known})
    close = [c for c in pool if sorted(c) == sorted(code)] or [c for c in [near(code, pool, 0.8)] if c]
    hint = f"did you mean '{close[0]}'?" if close else "see 'evalfmt rules' for the codes"
    return f"unknown rule code '{code}' in {setting} ({hint})"


def check_codes(cfg: Config, rules: dict[str, Any]) -> None:
    """Refuse a configuration that names a code or prefix no rule has, anywhere (select,
    extend-select, ignore, extend-ignore, severity, per-file-ignores): a typo there would otherwise
    turn a rule, or the whole linter, off without a word. Raises with the file, line and column."""
    for setting, written, code in cfg.named:
        message = unknown_code(code, setting, rules)
        if message is not None:
            raise _at(cfg, setting, written, message, as_key=setting == "severity")


def check_rule_options(cfg: Config, rules: dict[str, Any]) -> None:
    """Refuse a ``[rules.CODE]`` table that names no rule, an option the rule does not have, or a
    value of another type than the option's default (the rule would crash or silently ignore it)."""
    where = cfg.path or "configuration"
    for code, opts in cfg.rule_options.items():
        rule = rules.get(code)
        if rule is None:
            raise _at(cfg, "rules", code, f"[rules.{code}]: no rule has this code (see 'evalfmt rules')",
                      as_key=True)
        for key, value in opts.items():
            if key not in rule.options:
                known = ", ".join(rule.options) or "none"
                raise EvalfmtError(f"{where}: [rules.{code}]: unknown option '{key}' (options of {code}: {known})")
            expected = _expected_type(rule.options[key], value)
            if expected is not None:
                raise EvalfmtError(f"{where}: [rules.{code}] {key} must be {expected}, not {value!r}")


def _unknown_key(key: str) -> str:
    """The message for a settings key evalfmt does not know: a did-you-mean when one is close, and
    every known key."""
    close = near(key, sorted(_KNOWN_KEYS))
    hint = f"did you mean '{close}'? " if close else ""
    return f"unknown key '{key}' in the evalfmt settings ({hint}known: {', '.join(sorted(_KNOWN_KEYS))})"


def _at(cfg: Config, setting: str, written: str, message: str, as_key: bool = False) -> EvalfmtError:
    """An error at the place ``written`` stands in the file, under ``setting`` (path:line:col)."""
    if cfg.path is None:
        return EvalfmtError(f"configuration: {message}")
    pos = locate(cfg.path, cfg.text or "", setting, written, as_key)
    if pos is None and not as_key:  # a code inside a comma-separated string: "EV1, EV2"
        pos = locate(cfg.path, cfg.text or "", setting, written, True)
    if pos is None:
        return EvalfmtError(message, cfg.path)
    return EvalfmtError(message, cfg.path, *pos)


_TOML_KEY = re.compile(r"[ \t]*((?:[A-Za-z0-9_-]+|\"[^\"\n]*\"|'[^'\n]*')(?:[ \t]*\.[ "
                       r"\t]*(?:[A-Za-z0-9_-]+|\"[^\"\n]*\"|'[^'\n]*'))*)[ \t]*=")
_WORD = re.compile(r"[A-Za-z0-9_-]+")


def locate(path: str, text: str, setting: str, written: str, as_key: bool = False) -> tuple[int, int] | None:
    """Line and column (1-based) of ``written`` (a code as a TOML string, or as a bare key when
    ``as_key``) under the setting ``setting`` of the evalfmt settings in ``path`` (whose text is
    ``text``); None if not found.

    A line-based look, not a TOML parser (tomllib keeps no positions; the file has already parsed,
    so only positions are at stake): it follows table headers, the key of the statement being read
    and the brackets of a multi-line array, so the same code under two settings is told apart."""
    lines = text.split("\n")
    pyproject = os.path.basename(path) == "pyproject.toml"
    token = re.compile(rf"(?<![A-Za-z0-9_-]){re.escape(written)}(?![A-Za-z0-9_-])" if as_key
                       else rf"([\"']){re.escape(written)}\1", re.I)
    section: list[str] = []
    key: list[str] = []
    depth = 0  # open brackets of the value being read (a multi-line array)
    for n, line in enumerate(lines, 1):
        code = _strip_comment(line)
        start = 0
        if depth == 0:
            stripped = code.lstrip()
            if stripped.startswith("["):
                end = stripped.find("]")
                section, key = _WORD.findall(stripped[:end if end > 0 else None]), []
            else:
                m = _TOML_KEY.match(code)
                if m:
                    key = _WORD.findall(m.group(1))
                    start = m.end()
        depth = max(0, depth + _brackets(code[start:]))
        where = section + key
        if pyproject and where[:2] != ["tool", "evalfmt"]:
            continue
        for hit in token.finditer(code):
            if setting in where + _WORD.findall(code[:hit.start()]):
                return n, hit.start() + 1
    return None


def _unquoted(text: str):
    """(index, character) of the characters of a TOML line that are outside its strings."""
    quote = ""
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        else:
            yield i, c


def _brackets(text: str) -> int:
    """Opening minus closing square brackets outside strings."""
    return sum(1 if c == "[" else -1 for _i, c in _unquoted(text) if c in "[]")


def _strip_comment(line: str) -> str:
    """``line`` without a trailing TOML comment (a ``#`` outside quotes)."""
    return next((line[:i] for i, c in _unquoted(line) if c == "#"), line)


def _expected_type(default: Any, value: Any) -> str | None:
    """What ``value`` should be, judged by the option's default; None when it fits."""
    if isinstance(default, bool):
        return None if isinstance(value, bool) else "true or false"
    if isinstance(default, int):
        return None if isinstance(value, int) and not isinstance(value, bool) else "an integer"
    if isinstance(default, float):
        return None if isinstance(value, (int, float)) and not isinstance(value, bool) else "a number"
    if isinstance(default, list):
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        return None if ok else "a list of strings"
    if default is None or isinstance(default, str):
        return None if isinstance(value, str) else "a string"
    return None  # a plugin's option of another kind: the plugin checks it


def find(start: str, *, fs: View, memo: dict[str, Config] | None = None) -> Config:
    """The config that applies to ``start`` (a file or folder): the nearest one upward, else defaults,
    looked for through ``fs``. ``memo`` (folder -> config) spares a run of several paths looking twice:
    one run's, never the process's (a file may change between runs)."""
    folder = os.path.abspath(start)
    if not fs.isdir(folder):
        folder = os.path.dirname(folder)
    return _find_from(folder, fs, {} if memo is None else memo)


def _find_from(folder: str, fs: View, memo: dict[str, Config]) -> Config:
    seen: list[str] = []
    cur = folder
    found: Config | None = None
    while True:
        if cur in memo:
            found = memo[cur]
            break
        seen.append(cur)
        for name in CONFIG_NAMES:
            candidate = os.path.join(cur, name)
            if fs.isfile(candidate):
                cfg = load_file(candidate, fs=fs)
                if cfg is not None:
                    found = cfg
                    break
        if found is not None:
            break
        parent = os.path.dirname(cur)
        if parent == cur:
            found = Config(layers=[Layer()])
            break
        cur = parent
    for s in seen:
        memo[s] = found
    return found
