"""The package's import graph, read from the source with ast (nothing is imported), so a
test can hold the layers to their direction: the rules import nothing above them, devices
know pins and bytes but not the game, and no two modules import each other at run time.

Run it from the checkout to print every runtime import cycle (exit 1 if there is one):

    python scripts/import_graph.py

"Runtime" means any import statement that runs: at module level, inside functions and
classes, inside try/except; only imports under ``if TYPE_CHECKING:`` are left out, since
they never run. ``import_graph(typing=True)`` counts those too, for a rule that holds for
the type checker as well (a folder entered only through its face).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

PACKAGE = "table_controller"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE
# Imports made by name at run time: the command line loads each command group's module
# with importlib.import_module, by the names listed in commands.GROUPS.
BY_NAME = {f"{PACKAGE}.cli": f"{PACKAGE}.commands"}


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package by dotted name (a package is its ``__init__.py``)."""
    modules: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(tree: ast.AST, typing: bool = False) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements that can run: everything but the body of ``if TYPE_CHECKING``
    (with ``typing``, that body too)."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
            continue
        if not typing and isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def imports_of(name: str, path: Path, modules: dict[str, Path], typing: bool = False) -> set[str]:
    """The package's modules that module ``name`` imports at run time (with ``typing``,
    under ``if TYPE_CHECKING:`` too).

    ``from pkg import sub`` counts as importing ``pkg.sub`` when that is a module, else
    ``pkg``; importing ``a.b.c`` also runs the ``__init__`` of ``a.b`` unless the
    importer sits inside ``a.b`` already (then that package is already loading).
    """
    is_package = path.name == "__init__.py"
    here = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in _runtime_imports(tree, typing):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base_parts = here.split(".")
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.append(sub if sub in modules else base)
        for target in targets:
            for candidate in [*_ancestors(target), target]:
                if candidate not in modules or candidate == name:
                    continue
                if candidate != target and (name == candidate or name.startswith(candidate + ".")):
                    continue  # the importer's own package is already loading
                found.add(candidate)
    return found


def outside_imports(path: Path, package: str = PACKAGE) -> set[str]:
    """The top-level names of what a module imports from outside the package at run time
    (``json``, ``numpy``...), to hold the rules core to the standard library."""
    found: set[str] = set()
    for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif node.level == 0 and node.module:
            names = [node.module]
        else:
            names = []  # relative: inside the package
        found.update(n.split(".")[0] for n in names if n.split(".")[0] != package)
    return found


def named_modules(path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules named by a string in ``path`` (a table of modules to load)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in modules
    }


def import_graph(root: Path = ROOT, typing: bool = False) -> dict[str, set[str]]:
    """Module -> the package's modules it imports at run time (``BY_NAME`` included); with
    ``typing``, also those it imports only for the type checker."""
    modules = module_files(root)
    graph = {name: imports_of(name, path, modules, typing) for name, path in modules.items()}
    for importer, table in BY_NAME.items():
        if importer in graph and table in modules:
            graph[importer] |= named_modules(modules[table], modules)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:
        nonlocal counter
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return sorted(found)


def cycle_path(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """One shortest loop through a component, a -> b -> ... -> a, to show a person."""
    members = set(component)
    start = component[0]
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for child in sorted(graph[node] & members):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [*reversed(path), start]
                if child not in previous:
                    previous[child] = node
                    following.append(child)
        frontier = following
    return component


def main() -> int:
    graph = import_graph()
    found = cycles(graph)
    for component in found:
        print(" -> ".join(cycle_path(graph, component)))
    if found:
        print(f"{len(found)} runtime import cycle(s)", file=sys.stderr)
        return 1
    print("no runtime import cycle")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
