"""A small reader of Google-style docstrings: a tool's description and its arguments' descriptions.

Only what ``@tool`` needs: the first paragraph (the tool's description) and the ``Args:`` section
(one description per parameter). ``Returns:``, ``Raises:`` and the other sections are recognised
so they end ``Args:`` and are otherwise ignored. Anything it does not understand is left out,
never an error: a docstring is prose, not a contract.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

_ARGS_HEADERS = frozenset({"args", "arguments", "parameters", "params", "keyword args", "keyword arguments"})
_HEADER = re.compile(r"^([A-Za-z][A-Za-z ]*):\s*$")
_ENTRY = re.compile(r"^\*{0,2}(?P<name>\w+)\s*(?:\([^)]*\))?\s*:\s*(?P<text>.*)$")


@dataclass(frozen=True)
class DocstringParts:
    """What a docstring says about a function, for a tool definition.

    Attributes:
        summary: the first paragraph, its lines joined by spaces ("" without a docstring).
        arguments: each documented parameter's description, lines joined by spaces.
    """

    summary: str = ""
    arguments: dict[str, str] = field(default_factory=dict)


def parse_docstring(docstring: str | None) -> DocstringParts:
    """Read the summary paragraph and the ``Args:`` section of a Google-style docstring."""
    if not docstring or not docstring.strip():
        return DocstringParts()
    lines = inspect.cleandoc(docstring).splitlines()
    summary: list[str] = []
    arguments: dict[str, str] = {}
    index = 0
    while index < len(lines) and lines[index].strip() and not _HEADER.match(lines[index]):
        summary.append(lines[index].strip())
        index += 1
    while index < len(lines):
        header = _HEADER.match(lines[index])
        index += 1
        if header is None:
            continue
        body_end = _section_end(lines, index)
        if header.group(1).strip().lower() in _ARGS_HEADERS:
            arguments.update(_entries(lines[index:body_end]))
        index = body_end
    return DocstringParts(" ".join(summary), arguments)


def _section_end(lines: list[str], start: int) -> int:
    """The index of the next section header: a section runs until then.

    Not until the next unindented line: ``cleandoc`` strips the body's indentation when the
    docstring starts with the header on its first line.
    """
    end = start
    while end < len(lines) and not _HEADER.match(lines[end]):
        end += 1
    return end


def _entries(body: list[str]) -> dict[str, str]:
    """``name: text`` entries at the body's own indentation; deeper lines continue the entry above."""
    indents = [len(line) - len(line.lstrip()) for line in body if line.strip()]
    if not indents:
        return {}
    base = min(indents)
    entries: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in body:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        match = _ENTRY.match(line.strip()) if indent == base else None
        if match is not None:
            current = entries.setdefault(match.group("name"), [])
            if match.group("text"):
                current.append(match.group("text").strip())
        elif current is not None and indent > base:
            current.append(line.strip())
    return {name: " ".join(parts) for name, parts in entries.items()}
