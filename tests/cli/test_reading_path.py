"""The wall the result cache stands on, read from the source: the code that reads eval files (discovery,
the readers, the configuration, the lint engine and its rules) looks at the disk only through the
:class:`evalfmt.fsview.View` it is given, so everything it reads is an input of a cached result.

- no module of that reading path calls ``open``, ``os.stat``, ``os.listdir``, ``os.path.isfile``,
  ``glob.glob`` and the like: only the view does;
- every call there of a function that takes a view passes one on (a default, the plain disk, is for
  callers outside the reading path: the executor, ``convert``, a library user);
- nothing in evalfmt replaces a built-in or an ``os`` function (no recording by patching), and the
  cache keeps to JSON: no marshal, pickle, HMAC or CPython's private modules.
"""

from __future__ import annotations

import ast
import pathlib

from conftest import ROOT

PKG = ROOT / "evalfmt"
#: the reading path: every module of these folders and these modules
READING = ["formats", "lint", "discover.py", "paths.py", "load.py", "frontmatter.py", "globs.py"]
#: writers of the reading path's folders (never part of a cached run): ``lint --fix`` rewrites files
WRITERS = {"lint/fix.py"}
#: calls that look at the disk, as (object, attribute) or a plain name
DISK_CALLS = {("os", "stat"), ("os", "lstat"), ("os", "listdir"), ("os", "scandir"), ("os", "walk"),
              ("os", "readlink"), ("os", "open"), ("path", "isfile"), ("path", "isdir"), ("path", "exists"),
              ("path", "lexists"), ("path", "islink"), ("path", "getsize"), ("path", "getmtime"),
              ("path", "realpath"), ("path", "samefile"), ("glob", "glob"), ("glob", "iglob"), ("io", "open")}
DISK_NAMES = {"open", "Path"}


def reading_modules() -> list[pathlib.Path]:
    out: list[pathlib.Path] = []
    for entry in READING:
        path = PKG / entry
        out.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return [p for p in out if str(p.relative_to(PKG)) not in WRITERS]


def _callee(node: ast.Call) -> tuple[str | None, str | None]:
    """(object name, attribute) of ``obj.attr(...)`` (``os.path.isfile`` -> ``("path", "isfile")``), or
    (None, name) for a plain call."""
    func = node.func
    if isinstance(func, ast.Name):
        return None, func.id
    if isinstance(func, ast.Attribute):
        base = func.value
        name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None
        return name, func.attr
    return None, None


def test_the_reading_path_looks_at_the_disk_only_through_its_view():
    found = []
    for path in reading_modules():
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call):
                obj, attr = _callee(node)
                if (obj, attr) in DISK_CALLS or (obj is None and attr in DISK_NAMES):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {obj + '.' if obj else ''}{attr}(...)")
    assert found == [], "read through the View given (evalfmt/fsview.py), not the disk:\n" + "\n".join(found)


def _module(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(path: pathlib.Path, node: ast.ImportFrom) -> str:
    """The absolute module an ``from ... import`` in ``path`` imports from."""
    if not node.level:
        return node.module or ""
    package = _module(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[:len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def taking_a_view() -> dict[str, set[str]]:
    """module -> the names of its functions (and methods) with a parameter ``fs``."""
    out: dict[str, set[str]] = {}
    for path in PKG.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                params = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                if any(a.arg == "fs" for a in params):
                    out.setdefault(_module(path), set()).add(node.name)
    return out


def _passes_a_view(node: ast.Call) -> bool:
    def is_view(expr: ast.expr) -> bool:
        return (isinstance(expr, ast.Name) and expr.id in ("fs", "view", "DISK")) or (
            isinstance(expr, ast.Attribute) and expr.attr == "fs")

    return any(k.arg == "fs" for k in node.keywords) or any(is_view(a) for a in node.args)


def test_every_call_on_the_reading_path_passes_its_view_on():
    defs = taking_a_view()
    assert {"read_text", "load_file"} <= defs["evalfmt.load"] and "discover" in defs["evalfmt.discover"]
    missing = []
    checked = 0
    for path in reading_modules():
        tree = ast.parse(path.read_text("utf-8"))
        names = set(defs.get(_module(path), set()))  # called by name: this module's own, and those imported
        modules: dict[str, str] = {}  # a name bound to an evalfmt module -> that module
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _resolve(path, node)
                for a in node.names:
                    if a.name in defs.get(source, set()):
                        names.add(a.asname or a.name)
                    elif f"{source}.{a.name}" in defs or (PKG.parent / f"{source}.{a.name}".replace(".", "/")).exists():
                        modules[a.asname or a.name] = f"{source}.{a.name}"
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        modules[a.asname] = a.name
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            obj, attr = _callee(node)
            func = node.func
            if isinstance(func, ast.Name):
                wanted = attr in names
            else:
                base = func.value if isinstance(func, ast.Attribute) else None
                wanted = isinstance(base, ast.Name) and attr in defs.get(modules.get(base.id, ""), set())
            if wanted:
                checked += 1
                if not _passes_a_view(node):
                    missing.append(f"{path.relative_to(ROOT)}:{node.lineno}: {attr}(...)")
    assert checked > 100  # (the check sees the calls it is about)
    assert missing == [], "pass the view on (fs=fs), or what it reads is no input of a cached result:\n" + \
        "\n".join(missing)


def test_no_module_patches_builtins_or_os():
    found = []
    for path in PKG.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
                targets = node.args[:1]
            for t in targets:
                base = t.value if isinstance(t, ast.Attribute) else t
                if isinstance(base, ast.Name) and base.id in ("builtins", "io", "os") and (
                        isinstance(t, ast.Attribute) or isinstance(node, ast.Call)):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []


def test_the_cache_keeps_to_json():
    for name in ("cache.py", "fsview.py"):
        tree = ast.parse((PKG / name).read_text("utf-8"))
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names} | {
            n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and not n.level}
        assert not imported & {"marshal", "pickle", "hmac", "shelve"}, name
        assert not [m for m in imported if m.startswith("_") and m != "__future__"], name
