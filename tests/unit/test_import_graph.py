"""No import cycle anywhere in the ``quorum`` package.

The module graph is read from the source with ``ast`` (the editable install hides the layer folders
from import-graph tools). Every import statement counts, in any form (``import a.b``, ``from a
import b`` of a module or a name, relative), at module level, inside a function, and under ``if
TYPE_CHECKING:``. A module that names another's types depends on that concept as much as one that
calls it: two modules that each need the other are one concept split in two, or one of them needs a
port of its own, whether or not Python would fail to import them. An import under ``TYPE_CHECKING``
executes nothing, though, so it is an edge to the module it names only, not to the packages whose
``__init__`` a real import would run first.

Not counted: modules named as strings to ``importlib.import_module``, which is late binding on
purpose (the plugin manager loading ``BUILTIN_PLUGINS`` as it loads third-party entry points, and
``quorum``'s lazy public names, PEP 562), never a module's way of reaching a concept it needs.

A cycle is a strongly connected component of more than one module (or a module importing itself);
the test names each one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FOLDERS = {"api": "quorum", "domain": "quorum.domain", "application": "quorum.application"}
FOLDERS |= {"infrastructure": "quorum.infrastructure", "cli": "quorum.cli"}


def module_files(root: Path = REPO) -> dict[str, Path]:
    """Dotted module name → source file, for every module of the package."""
    modules: dict[str, Path] = {}
    for folder, package in FOLDERS.items():
        for path in sorted((root / folder).rglob("*.py")):
            parts = path.relative_to(root / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            name = ".".join((package, *parts))
            if folder == "api" and parts and parts[0] in FOLDERS:
                continue  # not a layer folder inside api/
            modules[name] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement, and whether it is in the body of an ``if TYPE_CHECKING:`` (not its ``else``)."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, typing_only = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, typing_only
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend((child, True) for child in node.body)
            stack.extend((child, typing_only) for child in node.orelse)
            continue
        stack.extend((child, typing_only) for child in ast.iter_child_nodes(node))


def imported_modules(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that module ``name`` (its source at ``path``) imports."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node, typing_only in _imports(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base = name.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                prefix = ".".join([*base, node.module] if node.module else base)
            else:
                prefix = node.module or ""
            # ``from pkg import sub`` imports the submodule ``pkg.sub`` when there is one.
            targets = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in known else prefix for a in node.names]
        for target in targets:
            while target and target not in known:  # ``import a.b.c`` of a non-module name: its module
                target = target.rpartition(".")[0]
            if target:
                found.add(target)
                if not typing_only:  # a typing-only import runs nothing: no package ``__init__`` first
                    found |= _packages_run_first(target, name, known)
    return found


def _packages_run_first(target: str, importer: str, known: set[str]) -> set[str]:
    """The packages whose ``__init__`` importing ``target`` runs first, but for ``importer``'s own.

    ``import a.b.c`` executes ``a/__init__`` and ``a/b/__init__`` before ``c``: a cycle through a
    package's re-exports is a cycle. The importer's own packages are already being imported when it runs.
    """
    parts = target.split(".")
    ancestors = {".".join(parts[:i]) for i in range(1, len(parts))}
    own = {".".join(importer.split(".")[:i]) for i in range(1, importer.count(".") + 2)}
    return {package for package in ancestors - own if package in known}


def import_graph(root: Path = REPO) -> dict[str, set[str]]:
    """Module → the package's modules it imports."""
    files = module_files(root)
    known = set(files)
    return {name: imported_modules(name, path, known) for name, path in files.items()}


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components that are cycles, each sorted, found with Tarjan's algorithm.

    Iterative, so a deep graph cannot exhaust the recursion limit.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    found.append(sorted(component))
    return sorted(found)


def test_the_cycle_finder_names_each_cycle_of_a_fake_graph() -> None:
    graph = {
        "a": {"b"},
        "b": {"c"},
        "c": {"a", "d"},
        "d": {"e"},
        "e": set(),
        "f": {"f"},
        "g": {"h"},
        "h": {"g", "a"},
    }
    assert cycles(graph) == [["a", "b", "c"], ["f"], ["g", "h"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_the_graph_counts_function_and_type_checking_imports(tmp_path: Path) -> None:
    package = tmp_path / "infrastructure"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from . import leaf\n")
    (package / "sub" / "leaf.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from quorum.infrastructure import other\n"
        "def f():\n    from ..other import thing\n"
    )
    (package / "other.py").write_text("from quorum.infrastructure.sub import leaf\nimport quorum.infrastructure.sub\n")
    for folder in FOLDERS:
        (tmp_path / folder).mkdir(exist_ok=True)
    graph = import_graph(tmp_path)
    assert graph["quorum.infrastructure.sub"] == {"quorum.infrastructure.sub.leaf"}
    assert graph["quorum.infrastructure.sub.leaf"] == {"quorum.infrastructure.other"}
    assert graph["quorum.infrastructure.other"] == {"quorum.infrastructure.sub.leaf", "quorum.infrastructure.sub"}
    assert cycles(graph) == [
        ["quorum.infrastructure.other", "quorum.infrastructure.sub", "quorum.infrastructure.sub.leaf"]
    ]


def test_a_typing_only_import_is_an_edge_to_the_module_it_names(tmp_path: Path) -> None:
    typing_only = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from {} import Thing\n"
    infrastructure = tmp_path / "infrastructure"
    for folder in ("plugins", "review"):
        (infrastructure / folder).mkdir(parents=True)
    (infrastructure / "__init__.py").write_text("")
    (infrastructure / "secrets.py").write_text("")
    (infrastructure / "plugins" / "__init__.py").write_text("from .contracts import Thing\n")
    (infrastructure / "plugins" / "contracts.py").write_text(
        typing_only.format("quorum.infrastructure.review.human") + "else:\n    import quorum.infrastructure.secrets\n"
    )
    (infrastructure / "review" / "__init__.py").write_text("from .factory import build\n")
    (infrastructure / "review" / "factory.py").write_text(typing_only.format("quorum.infrastructure.plugins.contracts"))
    (infrastructure / "review" / "human.py").write_text("")
    for folder in FOLDERS:
        (tmp_path / folder).mkdir(exist_ok=True)
    graph = import_graph(tmp_path)
    contracts, human = "quorum.infrastructure.plugins.contracts", "quorum.infrastructure.review.human"
    assert graph[contracts] == {human, "quorum.infrastructure.secrets"}  # not the package ``review``
    assert graph["quorum.infrastructure.review.factory"] == {contracts}  # not the package ``plugins``
    assert cycles(graph) == []
    (infrastructure / "review" / "human.py").write_text(typing_only.format(contracts))
    assert cycles(import_graph(tmp_path)) == [[contracts, human]]


def test_a_cycle_through_a_package_init_counts(tmp_path: Path) -> None:
    package = tmp_path / "infrastructure"
    (package / "plugins").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "plugins" / "__init__.py").write_text("from .contracts import Thing\n")
    (package / "plugins" / "contracts.py").write_text("from quorum.infrastructure.secrets import Known\n")
    (package / "plugins" / "hookspecs.py").write_text("")
    (package / "secrets.py").write_text("from quorum.infrastructure.plugins.hookspecs import hookimpl\n")
    for folder in FOLDERS:
        (tmp_path / folder).mkdir(exist_ok=True)
    graph = import_graph(tmp_path)
    assert "quorum.infrastructure.plugins" in graph["quorum.infrastructure.secrets"]
    assert "quorum.infrastructure.plugins" not in graph["quorum.infrastructure.plugins.contracts"]
    assert cycles(graph) == [
        ["quorum.infrastructure.plugins", "quorum.infrastructure.plugins.contracts", "quorum.infrastructure.secrets"]
    ]


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph()
    assert len(graph) > 100, "the package's modules were not found"
    found = cycles(graph)
    assert not found, "import cycles (each line one strongly connected component):\n" + "\n".join(
        " ↔ ".join(component) for component in found
    )
