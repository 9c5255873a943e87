"""The eval's tasks: each writes a few files, asks one thing, and checks the workspace or the answer after.

The checks are not shown to the agent: a task passes when its effect is there (a file fixed, a row
appended) or its answer holds the fact. Ten small tasks of the kinds a weak model fails at: find a
value, fix an off-by-one, rename a function across two files, append a CSV row, fix a syntax error,
add an import, change a JSON constant, implement a function to its test, create a file, find where
something is defined.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Task:
    """One task: its files, what the agent is asked, and the hidden check (workspace, answer) -> passed."""

    name: str
    prompt: str
    files: dict[str, str]
    check: Callable[[Path, str], bool]
    tags: tuple[str, ...] = field(default_factory=tuple)


def _module(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"eval_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _calls(path: Path, name: str, *args: Any) -> Any:
    try:
        return getattr(_module(path), name)(*args)
    except Exception:  # a broken file fails its task, never the eval
        return None


def _compiles(path: Path) -> bool:
    try:
        compile(path.read_text(), str(path), "exec")
    except (SyntaxError, OSError, ValueError):
        return False
    return True


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


TASKS: tuple[Task, ...] = (
    Task(
        "find_value",
        "What port does the database use? Answer with the number only.",
        {"config/database.ini": "[database]\nhost = db.internal\nport = 6543\n", "README.md": "# Service\n"},
        lambda ws, answer: "6543" in answer,
    ),
    Task(
        "off_by_one",
        "The function last in items.py crashes. Fix it so that it returns the last element.",
        {"items.py": "def last(items):\n    return items[len(items)]\n"},
        lambda ws, answer: _calls(ws / "items.py", "last", [1, 2, 3]) == 3,
    ),
    Task(
        "rename",
        "Rename the function calc to compute everywhere (it is defined in mathx.py and used in app.py).",
        {
            "mathx.py": "def calc(a, b):\n    return a * b\n",
            "app.py": "from mathx import calc\n\n\ndef area(w, h):\n    return calc(w, h)\n",
        },
        lambda ws, answer: (
            "calc" not in (ws / "mathx.py").read_text() + (ws / "app.py").read_text()
            and "def compute" in (ws / "mathx.py").read_text()
            and "compute" in (ws / "app.py").read_text()
        ),
    ),
    Task(
        "append_csv",
        "Add a row for carol, aged 35, to people.csv.",
        {"people.csv": "name,age\nalice,30\nbob,41\n"},
        lambda ws, answer: (
            (ws / "people.csv").read_text().strip().splitlines()[-1].replace(" ", "") == "carol,35"
            and (ws / "people.csv").read_text().startswith("name,age\nalice,30\nbob,41\n")
        ),
    ),
    Task(
        "syntax_error",
        "greet.py has a syntax error. Fix it.",
        {"greet.py": 'def greet(name)\n    return "hello " + name\n'},
        lambda ws, answer: _compiles(ws / "greet.py") and _calls(ws / "greet.py", "greet", "x") == "hello x",
    ),
    Task(
        "add_import",
        "geometry.py uses math without importing it. Fix it.",
        {"geometry.py": "def hypot(a, b):\n    return math.sqrt(a * a + b * b)\n"},
        lambda ws, answer: _calls(ws / "geometry.py", "hypot", 3, 4) == 5.0,
    ),
    Task(
        "json_constant",
        "Set max_retries to 5 in settings.json.",
        {"settings.json": '{\n  "max_retries": 3,\n  "timeout": 10\n}\n'},
        lambda ws, answer: _json(ws / "settings.json") == {"max_retries": 5, "timeout": 10},
    ),
    Task(
        "implement",
        "Implement the function add in calc.py so that its test in test_calc.py passes.",
        {
            "calc.py": "def add(a, b):\n    pass\n",
            "test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
        },
        lambda ws, answer: _calls(ws / "calc.py", "add", 2, 3) == 5,
    ),
    Task(
        "create_file",
        "Create a file named hello.txt containing the text: hello world",
        {},
        lambda ws, answer: (ws / "hello.txt").is_file() and "hello world" in (ws / "hello.txt").read_text().lower(),
    ),
    Task(
        "where_defined",
        "Which file defines the function parse_date? Answer with the file name.",
        {
            "utils/strings.py": "def slug(text):\n    return text.lower().replace(' ', '-')\n",
            "utils/dates.py": "def parse_date(text):\n    return text.split('-')\n",
            "main.py": "from utils.dates import parse_date\n",
        },
        lambda ws, answer: "dates.py" in answer,
    ),
)
