"""Fail on an import cycle between the modules of `optimizer_core` and `studio`.

Usage: python scripts/check_import_cycles.py [PACKAGE ...] [--root DIR]

Every ``.py`` file under each package (default: ``optimizer_core`` and
``studio``, found in ``--root``, default the repository) is parsed with `ast`,
never imported. Each ``import`` statement that names a module of those packages
is an edge of the import graph, wherever it stands: at module level, inside a
function or a method, or under ``try``. An import moved into a function only to
dodge a cycle is still that cycle, so the checker sees it.

What counts as an edge:

- ``import a.b.c`` and ``from a.b.c import name`` import the module ``a.b.c``
  (its file, or its package's ``__init__.py``); ``from a.b import c`` imports the
  submodule ``a.b.c`` when there is one, else the names ``__init__`` defines, so
  ``a.b`` itself: importing a package counts as importing its ``__init__``.
- The parent packages that Python also runs on the way (``a``, ``a.b``) do not
  count: every submodule of a package whose ``__init__`` re-exports it would
  otherwise sit in one cycle with it.
- Imports under ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``) do not count:
  they never execute, and a type annotation that names a class is no dependency
  at run time (the ``else:`` branch of such an ``if`` does run, and counts).
- Imports by name at run time (``importlib.import_module``, Celery's
  ``send_task``) are invisible here, by design.

A cycle is a strongly connected component of more than one module (or a module
that imports itself). The parts of each package are also checked as wholes
(``--apps``; by default the subpackages of ``optimizer_core`` and the Django apps
of ``studio``): ``studio.runs.events -> studio.realtime.groups`` and
``studio.realtime.consumers -> studio.runs.models`` are no cycle between modules,
but one between the apps ``runs`` and ``realtime``. Each cycle is printed with
every import inside it, as ``file:line``, and the script exits 1; it exits 0
when there is none.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PACKAGES = ("optimizer_core", "studio")
DEFAULT_APPS = DEFAULT_PACKAGES
SKIPPED_FOLDERS = {"__pycache__", "node_modules"}


@dataclass(frozen=True)
class Edge:
    """``source`` imports ``target`` at ``path:line``."""

    source: str
    target: str
    path: Path
    line: int


def module_files(root: Path, packages: Sequence[str]) -> dict[str, Path]:
    """Every module of ``packages`` under ``root``, by dotted name (a package by its own name)."""
    modules: dict[str, Path] = {}
    for package in packages:
        folder = root / package
        if not (folder / "__init__.py").is_file():
            raise SystemExit(f"{folder} is not a package (no __init__.py)")
        for path in sorted(folder.rglob("*.py")):
            relative = path.relative_to(root)
            if SKIPPED_FOLDERS.intersection(relative.parts):
                continue
            parts = list(relative.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _executed_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements of ``tree`` except those under ``if TYPE_CHECKING:``."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _resolve_from(module: str, is_package: bool, node: ast.ImportFrom) -> str | None:
    """The absolute module a ``from`` import reads from (relative levels resolved)."""
    if node.level == 0:
        return node.module
    parts = module.split(".")
    if not is_package:
        parts.pop()
    if node.level > 1:
        parts = parts[: len(parts) - (node.level - 1)]
    if not parts:
        return None
    return ".".join([*parts, node.module] if node.module else parts)


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """``name`` if it is one of ``modules``, else the closest known package above it."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def import_edges(modules: dict[str, Path]) -> list[Edge]:
    """Every executed import from one of ``modules`` to another."""
    edges: set[Edge] = set()
    for source, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        for node in _executed_imports(tree):
            targets: list[str | None] = []
            if isinstance(node, ast.Import):
                targets = [_known(alias.name, modules) for alias in node.names]
            else:
                base = _resolve_from(source, is_package, node)
                if base is None:
                    continue
                for alias in node.names:
                    submodule = f"{base}.{alias.name}"
                    targets.append(submodule if submodule in modules else _known(base, modules))
            for target in targets:
                if target is not None:
                    edges.add(Edge(source, target, path, node.lineno))
    return sorted(edges, key=lambda e: (e.source, e.line, e.target))


def strongly_connected(nodes: Iterable[str], edges: Iterable[Edge]) -> list[list[str]]:
    """Tarjan's algorithm (iterative): the components that hold a cycle, each sorted."""
    successors: dict[str, list[str]] = {node: [] for node in nodes}
    self_loops: set[str] = set()
    for edge in edges:
        successors[edge.source].append(edge.target)
        if edge.source == edge.target:
            self_loops.add(edge.source)
    index: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in successors:
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(successors[start]))]
        index[start] = lowlink[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = lowlink[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors[child])))
                elif child in on_stack:
                    lowlink[node] = min(lowlink[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                lowlink[parent] = min(lowlink[parent], lowlink[node])
            if lowlink[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in self_loops:
                    found.append(sorted(component))
    return sorted(found)


def _cycles(nodes: Iterable[str], edges: list[Edge]) -> list[tuple[list[str], list[Edge]]]:
    cycles = []
    for component in strongly_connected(nodes, edges):
        members = set(component)
        inside = [e for e in edges if e.source in members and e.target in members]
        cycles.append((component, sorted(inside, key=lambda e: (e.source, e.line, e.target))))
    return cycles


def _app_of(module: str, package: str) -> str:
    """``studio.runs.services`` -> ``studio.runs``: the package's part a module belongs to."""
    parts = module.split(".")
    depth = len(package.split(".")) + 1
    return ".".join(parts[:depth])


def find_cycles(
    root: Path, packages: Sequence[str], *, apps: Sequence[str] = ()
) -> list[tuple[list[str], list[Edge]]]:
    """Each import cycle of ``packages``: its members and the imports between them.

    Args:
        root: the folder that holds the packages.
        packages: top-level packages whose modules are checked.
        apps: packages whose direct subpackages (Django apps) must not import
            each other in a cycle either, whatever modules the imports join.
    """
    modules = module_files(root, packages)
    edges = import_edges(modules)
    cycles = _cycles(modules, edges)
    for package in apps:
        inside = [m for m in modules if m == package or m.startswith(package + ".")]
        between = [
            e
            for e in edges
            if e.source in inside
            and e.target in inside
            and _app_of(e.source, package) != _app_of(e.target, package)
        ]
        app_edges = [
            Edge(_app_of(e.source, package), _app_of(e.target, package), e.path, e.line)
            for e in between
        ]
        nodes = sorted({_app_of(m, package) for m in inside})
        for component, _ in _cycles(nodes, app_edges):
            members = set(component)
            cycles.append(
                (
                    component,
                    [
                        e
                        for e in between
                        if _app_of(e.source, package) in members
                        and _app_of(e.target, package) in members
                    ],
                )
            )
    return cycles


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packages", nargs="*", default=list(DEFAULT_PACKAGES))
    parser.add_argument(
        "--apps",
        action="append",
        help="also check cycles between this package's subpackages and top modules "
        f"(default: those of {DEFAULT_APPS} that are checked)",
    )
    parser.add_argument(
        "--root", type=Path, default=Path(__file__).resolve().parent.parent, help="their folder"
    )
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    apps = args.apps if args.apps is not None else [p for p in DEFAULT_APPS if p in args.packages]
    cycles = find_cycles(root, args.packages, apps=apps)
    for number, (component, edges) in enumerate(cycles, start=1):
        print(f"import cycle {number}: {', '.join(component)}")
        for edge in edges:
            where = edge.path.relative_to(root) if edge.path.is_relative_to(root) else edge.path
            print(f"  {where}:{edge.line}: {edge.source} -> {edge.target}")
    if cycles:
        print(
            f"{len(cycles)} import cycle(s) in {', '.join(args.packages)}: move the shared code "
            "into a module both can import, or enqueue/look up by name (see this script's "
            "docstring for what counts)"
        )
        return 1
    print(f"no import cycle in {', '.join(args.packages)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
