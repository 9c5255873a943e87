"""No function under ``application/`` is longer than ``MAX_LINES``.

The loop is read by everyone who changes it; a function that no longer fits on a screen is split
where it has a seam. A function's length counts from its ``def`` line to the last line of its body
(docstring included, decorators not); nested functions are counted on their own and within their
parent. The source is read with ``ast``, like the module-graph test.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MAX_LINES = 60
FOLDERS = ("application",)


def function_lengths(path: Path) -> Iterator[tuple[str, int, int]]:
    """``(qualified name, first line, length in lines)`` of every function in the module at ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, int, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                assert child.end_lineno is not None
                yield name, child.lineno, child.end_lineno - child.lineno + 1
                yield from walk(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")
            else:
                yield from walk(child, prefix)

    yield from walk(tree, "")


def long_functions(root: Path = REPO, limit: int = MAX_LINES) -> list[str]:
    """``path:line name (n lines)`` of every function over ``limit`` lines under ``FOLDERS``."""
    found: list[str] = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            for name, line, length in function_lengths(path):
                if length > limit:
                    found.append(f"{path.relative_to(root)}:{line} {name} ({length} lines)")
    return found


def test_no_function_under_application_is_over_the_limit() -> None:
    assert long_functions() == [], f"functions over {MAX_LINES} lines: split them"


def test_the_count_runs_from_def_to_the_body_end_without_decorators(tmp_path: Path) -> None:
    fits = ["@functools.cache", "def fits():", '    """A docstring counts."""', *[f"    x{i} = {i}" for i in range(58)]]
    over = ["class C:", "    async def over(self):", *[f"        x{i} = {i}" for i in range(60)]]
    (tmp_path / "application").mkdir()
    source = ["import functools", "", *fits, "", *over]
    (tmp_path / "application" / "m.py").write_text("\n".join(source) + "\n", encoding="utf-8")
    assert long_functions(tmp_path) == [f"application/m.py:{len(fits) + 5} C.over (61 lines)"]
