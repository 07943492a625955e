"""The rules of thin commands (docs/internals.md), read from the source: commands never import each other,
nothing below the CLI imports click, no process is started from commands/, and the executor's modules
import each other without cycles, counting imports inside functions too (import-linter would not)."""

from __future__ import annotations

import ast
import pathlib

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


def test_the_executor_has_no_import_cycle():
    graph: dict[str, set[str]] = {}
    for path in modules(PKG / "run") + [PKG / "plugins.py", PKG / "receipt.py"]:
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        graph[name] = {m for m, _ in imports(path) if m.startswith("evalfmt.run.") or m in ("evalfmt.plugins",
                                                                                             "evalfmt.receipt")}
    graph = {k: {d for d in v if d in graph and d != k} for k, v in graph.items()}
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
