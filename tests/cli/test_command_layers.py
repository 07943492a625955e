"""The rules of thin commands and the walls between layers (docs/internals.md), read from the source:
commands never import each other, nothing below the CLI imports click, no process is started from
commands/, no module imports another in a cycle (counting imports inside functions), every module sits
in a layer of the import-linter contract (pyproject.toml), and the ``"module:attribute"`` strings that
plugin registries import by name (which import-linter cannot see) keep to those layers too.
``lint-imports`` itself (run by ``make test``) checks every import statement against the layers."""

from __future__ import annotations

import ast
import pathlib
import re
import tomllib

from conftest import ROOT

PKG = ROOT / "evalfmt"
COMMANDS = PKG / "commands"
#: the helper modules of commands/ (not commands: shared by several)
HELPERS = {"_common", "_arms", "_findings", "__init__"}


def imports(path: pathlib.Path) -> list[tuple[str, int]]:
    """Every module ``path`` imports (absolute dotted names), with its line, functions included."""
    tree = ast.parse(path.read_text("utf-8"))
    rel = path.relative_to(ROOT).with_suffix("")
    package = list(rel.parts[:-1])  # a module's package; for __init__.py the package itself
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((a.name, node.lineno) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.append((mod, node.lineno))
            out.extend((f"{mod}.{a.name}", node.lineno) for a in node.names)
    return out


def modules(folder: pathlib.Path) -> list[pathlib.Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def test_commands_never_import_each_other():
    names = {p.stem for p in COMMANDS.glob("*.py")} - HELPERS
    found = []
    for path in modules(COMMANDS):
        for mod, line in imports(path):
            parts = mod.split(".")
            if parts[:2] == ["evalfmt", "commands"] and len(parts) > 2 and parts[2] in names and parts[2] != path.stem:
                found.append(f"{path.relative_to(ROOT)}:{line}: {mod}")
    assert found == []


def test_click_only_in_the_cli_and_commands():
    found = [f"{p.relative_to(ROOT)}:{line}" for p in modules(PKG)
             if p != PKG / "cli.py" and COMMANDS not in p.parents
             for mod, line in imports(p) if mod == "click" or mod.startswith("click.")]
    assert found == []


def test_no_process_started_from_commands():
    found = [f"{p.relative_to(ROOT)}:{line}: {mod}" for p in modules(COMMANDS) for mod, line in imports(p)
             if mod.split(".")[0] in ("subprocess", "multiprocessing") or mod in ("os.system", "os.popen")]
    assert found == []


def module_names() -> dict[str, pathlib.Path]:
    """Every module of the package by dotted name (a package by its own name, not ``.__init__``)."""
    out = {}
    for path in modules(PKG):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


def import_graph() -> dict[str, set[str]]:
    """module -> the modules it imports, functions included; ``from pkg import sub`` counts as importing
    ``pkg.sub`` when that is a module. A package's ``__init__`` importing its own submodule inside a
    function is left out: that is the lazy facade (the package's light names load first, the heavy
    submodule, which uses them, only when asked for), not a cycle of dependencies."""
    names = module_names()
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        tree = ast.parse(path.read_text("utf-8"))
        lazy = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))}
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)] if node.level else []
                mod = ".".join(base + ([node.module] if node.module else []))
                targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in names else mod for a in node.names]
            else:
                continue
            for target in targets:
                facade = path.name == "__init__.py" and target.startswith(name + ".") and id(node) in lazy
                if target in names and target != name and not facade:
                    deps.add(target)
        graph[name] = deps
    return graph


def test_no_import_cycle_anywhere():
    graph = import_graph()
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                cycles.append(" -> ".join(trail[trail.index(dep):] + [dep]))
            elif dep not in state:
                visit(dep, trail + [dep])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def layers() -> list[list[str]]:
    """The layers of the import-linter contract, top first, each a list of module names."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    return [[m.strip() for m in re.split(r"[|:]", layer)] for layer in contract["layers"]]


def layer_of(module: str, table: list[list[str]]) -> int | None:
    for i, layer in enumerate(table):
        if any(module == m or module.startswith(m + ".") for m in layer):
            return i
    return None


def test_every_module_sits_in_a_layer():
    """A new top-level module or package must be placed in the contract (else import-linter ignores it)."""
    table = layers()
    top = {".".join(name.split(".")[:2]) for name in module_names() if name != "evalfmt"}
    assert sorted(m for m in top if layer_of(m, table) is None) == []


def test_modules_named_in_strings_keep_to_the_layers():
    """Built-in plugins are ``"evalfmt.x.y:attribute"`` strings imported by name: such a string may name
    only a module in its own layer or below (import-linter does not read strings)."""
    table = layers()
    names = module_names()
    found = []
    for name, path in names.items():
        here = layer_of(name, table)
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                m = re.fullmatch(r"(evalfmt(?:\.\w+)+):\w+", node.value)
                if m:
                    there = layer_of(m.group(1), table)
                    if m.group(1) not in names or here is None or there is None or there < here:
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value}")
    assert found == []
