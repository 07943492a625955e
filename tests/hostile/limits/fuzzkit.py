"""The fuzzing harness of issue 11: seed documents of every format, hostile mutations of them
(hypothesis strategies), an in-process CLI run inside a scratch folder, and the promises every run
must keep whatever its input:

- the exit code is 0, 1 or 2;
- no traceback and no "internal error" anywhere in the output;
- every stderr line is an ``evalfmt: ...`` line or a diagnostic (``path:line:col: CODE message``);
- nothing is written outside the output folder (the scratch folder is compared before and after).

The number of examples is small in ``make test`` (``FUZZ_EXAMPLES``, default 12 per test, with a
fixed seed so that a run is repeatable); set ``EVALFMT_FUZZ_EXAMPLES`` for a longer campaign (and
``EVALFMT_FUZZ_RANDOM=1`` for fresh random draws).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import pathlib
import re
import shutil
import tempfile

import yaml
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from limitkit import SEEDS

FUZZ_EXAMPLES = int(os.environ.get("EVALFMT_FUZZ_EXAMPLES", "12"))
FUZZ = settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=os.environ.get("EVALFMT_FUZZ_RANDOM") != "1",
                suppress_health_check=list(HealthCheck), database=None)

#: Values that broke, or could break, a reader or a command (issue 11 and its neighbours).
HOSTILE_SCALARS = [
    "\0ab", "a\0", "../../escaped", "/etc/passwd", "C:\\evil", "", " ", "\t", "x" * 5000,
    "evil\n::error file=README.md::", "\u2028line\u2029para\x85nel\rcr", "\x1b[31mred", "\ufeffbom",
    "${{ secrets.X }}", "{{prompt}}", "file://../../x/tests.yaml", "file:///etc/passwd", ".claude/settings.json",
    r"^(\w+\s?)+$", "(", "[", "(?<n>a)\\k<n>", "*", "-1", "yes", "null", "~", "0x1F", "1e400",
    2 ** 64, 2 ** 70, -(2 ** 70), 10 ** 30, -1, 0, 1.5e308, -0.0, True, False, None,
]
#: Keys added to mappings: near-miss spellings, keys of other formats, hostile names.
HOSTILE_KEYS = ["chekcs", "checks", "assert", "assertions", "tests", "skill", "should_trigger", "fixture", "files",
                "file_name", "hints", "ext", "type", "value", "id", "name", "\0", "a\nb", "", "<<", "x" * 300]
#: Text spliced into a serialized file: YAML/JSON/TS syntax that parsers treat specially.
HOSTILE_SNIPPETS = ["\0", "\t", "&a [*a, *a]", "*nope", "!!binary AAAA", "!!python/object:os.system", "---\n",
                    "]]]", "{{{", "'", '"', "\\", "\u2028", "\r", "\ufeff", "#", ": :", "- - -", "<<: *a",
                    "`${", "/*", "*/", "//", "\n" * 3, " " * 50, "export default {}", "import x from 'y'",
                    "9" * 40, "\ud7ff", "\U0001f600"]


def deep(depth: int, leaf=1):
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


hostile_value = st.one_of(
    st.sampled_from(HOSTILE_SCALARS),
    st.text(max_size=20),
    st.integers(min_value=-(2 ** 80), max_value=2 ** 80),
    st.sampled_from([[], {}, deep(95), deep(120), {"a": deep(40)}, ["x"] * 50, {"k": None}]),
)


def paths(node, prefix=()):
    """Every path (tuple of keys / indexes) into a loaded document, the root included."""
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out.extend(paths(v, prefix + (k,)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(paths(v, prefix + (i,)))
    return out


def _get(node, path):
    for step in path:
        node = node[step]
    return node


@st.composite
def mutated(draw, data):
    """``data`` with a few hostile mutations: values replaced, keys added or removed, lists grown."""
    data = json.loads(json.dumps(data))
    for _ in range(draw(st.integers(1, 4))):
        all_paths = paths(data)
        path = draw(st.sampled_from(all_paths))
        op = draw(st.sampled_from(["replace", "replace", "add-key", "drop", "repeat"]))
        if not path:
            if op == "replace" and draw(st.booleans()):
                data = copy.deepcopy(draw(hostile_value))
            continue
        parent = _get(data, path[:-1])
        key = path[-1]
        if op == "replace":
            parent[key] = copy.deepcopy(draw(hostile_value))
        elif op == "add-key" and isinstance(parent, dict):
            parent[draw(st.sampled_from(HOSTILE_KEYS))] = copy.deepcopy(draw(hostile_value))
        elif op == "drop":
            del parent[key]
        elif op == "repeat" and isinstance(parent, list):
            parent.extend(copy.deepcopy([parent[key]] * draw(st.integers(1, 5))))
    return data


@st.composite
def spliced(draw, text: str):
    """``text`` with a hostile snippet spliced in at some offset, or cut short."""
    if not text or draw(st.booleans()):
        return text
    at = draw(st.integers(0, len(text)))
    if draw(st.integers(0, 4)) == 0:
        return text[:at]
    return text[:at] + draw(st.sampled_from(HOSTILE_SNIPPETS)) + text[at:]


def dump(data, kind: str) -> str:
    if kind == "json":
        return json.dumps(data, ensure_ascii=False, indent=1)
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=200)


def load_seed(rel: str):
    """A seed file's data (YAML or JSON), as plain Python values."""
    text = (SEEDS / rel).read_text(encoding="utf-8")
    return json.loads(text) if rel.endswith(".json") else yaml.safe_load(text)


# ------------------------------------------------------------------------------------- running

DIAGNOSTIC = re.compile(r".+:\d+:\d+: [A-Z]+\d+ .*")


class Scratch:
    """A scratch folder holding a copy of a seed tree; runs the CLI inside it."""

    def __init__(self):
        self.root = pathlib.Path(tempfile.mkdtemp(prefix="evalfmt-fuzz-"))
        self.out = self.root / "out"

    def copy(self, rel: str, dest: str | None = None) -> pathlib.Path:
        src = SEEDS / rel
        target = self.root / (dest or rel)
        if src.is_dir():
            shutil.copytree(src, target)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target)
        return target

    def write(self, rel: str, text: str) -> pathlib.Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        return path

    def snapshot(self) -> dict[str, str]:
        """Every path outside ``out/`` with a digest of its content (or its link target)."""
        found = {}
        for base, dirs, files in os.walk(self.root):
            rel_base = os.path.relpath(base, self.root)
            if rel_base == "out" or rel_base.startswith("out" + os.sep):
                continue
            for name in dirs + files:
                path = os.path.join(base, name)
                rel = os.path.normpath(os.path.join(rel_base, name))
                if rel == "out" or rel.split(os.sep)[0] == ".evalfmt_cache":  # lint's and validate's cache
                    continue
                if os.path.islink(path):
                    found[rel] = "link:" + os.readlink(path)
                elif os.path.isfile(path):
                    with open(path, "rb") as fh:
                        found[rel] = hashlib.sha256(fh.read()).hexdigest()
                else:
                    found[rel] = "dir"
        return found

    def run(self, *args: str, env: dict | None = None) -> tuple[int, str, str]:
        """``evalfmt ARGS`` in-process, in the scratch folder, checking the promises."""
        before = self.snapshot()
        code, out, err = run_cli(list(args), cwd=str(self.root), env=env)
        check_promises(args, code, out, err)
        after = self.snapshot()
        assert after == before, f"evalfmt {' '.join(args)} wrote outside the output folder: " \
                                f"{sorted(set(after.items()) ^ set(before.items()))[:5]}"
        return code, out, err

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def run_cli(args: list[str], cwd: str, env: dict | None = None) -> tuple[int, str, str]:
    """``evalfmt ARGS`` in-process (click's test runner, as the ``run_cli`` fixture), in ``cwd``."""
    import click
    from click.testing import CliRunner

    from evalfmt.cli import main

    @click.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                                     "help_option_names": []})
    @click.argument("argv", nargs=-1, type=click.UNPROCESSED)
    def entry(argv):
        main(list(argv))

    old = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(entry, args, env=env, catch_exceptions=False)
    finally:
        os.chdir(old)
    return result.exit_code, result.stdout, result.stderr


def check_promises(args, code: int, out: str, err: str) -> None:
    what = "evalfmt " + " ".join(args)
    assert code in (0, 1, 2), f"{what}: exit code {code}\n{err}"
    for text in (out, err):
        assert "Traceback (most recent call last)" not in text, f"{what}: a traceback\n{text[-3000:]}"
        assert "internal error" not in text, f"{what}: {text[-3000:]}"
    for line in err.splitlines():
        assert line.startswith("evalfmt: ") or DIAGNOSTIC.fullmatch(line), f"{what}: stray stderr line {line!r}"
