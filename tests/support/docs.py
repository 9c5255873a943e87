"""Reading the documentation as tests do: its pages, its fenced blocks, its marked examples.

Marker convention (see docs/development.md, "Docs"):

- ``<!-- example -->`` on the line before a fenced Python block: the block runs as written, offline,
  in ``tests/unit/test_docs.py``.
- ``<!-- NAME-example -->`` … ``<!-- /NAME-example -->`` around one fenced block: a dedicated test
  reads it with ``marked_block(page, NAME)`` (it may need local wire servers, or be TOML).
- ``<!-- not-an-example -->`` before a Python block that is shown, not run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

_FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)")


def pages() -> list[Path]:
    """The README and every Markdown page under ``docs/``, in a stable order."""
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


@dataclass(frozen=True)
class Block:
    """One fenced block of a page."""

    page: Path
    line: int
    """The 1-based line of the opening fence."""
    language: str
    code: str
    marker: str | None
    """The HTML comment on the nearest non-blank line before the fence (``example``,
    ``api-example``, ``not-an-example``…), or None."""

    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """Every fenced block of ``page``, with its language and marker."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        fence, language = opening.group(1), opening.group(2)
        end = index + 1
        while end < len(lines) and not lines[end].startswith(fence[0] * len(fence)):
            end += 1
        before = next((lines[i].strip() for i in range(index - 1, -1, -1) if lines[i].strip()), "")
        marker = before[4:-3].strip() if before.startswith("<!--") and before.endswith("-->") else None
        found.append(Block(page, index + 1, language, "\n".join(lines[index + 1 : end]) + "\n", marker))
        index = end + 1
    return found


def _unfenced(page: Path) -> list[tuple[int, str]]:
    """The page's lines outside fenced blocks, numbered from 1."""
    lines: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        opening = _FENCE.match(line)
        if fence is None and opening is not None:
            fence = opening.group(1)
        elif fence is not None and line.startswith(fence):
            fence = None
        elif fence is None:
            lines.append((number, line))
    return lines


def outside_code(page: Path) -> list[tuple[int, str]]:
    """The page's lines that are prose (not inside fenced blocks), numbered from 1, inline code removed."""
    return [(number, re.sub(r"`+[^`]*`+", "", line)) for number, line in _unfenced(page)]


def marked_block(page: Path, name: str) -> str:
    """The code of the one fenced block between ``<!-- NAME-example -->`` and ``<!-- /NAME-example -->``.

    Raises:
        AssertionError: the markers are missing, or do not hold exactly one fenced block.
    """
    text = page.read_text(encoding="utf-8")
    opening, closing = f"<!-- {name}-example -->", f"<!-- /{name}-example -->"
    assert text.count(opening) == 1 and text.count(closing) == 1, f"{page}: one {opening} … {closing} pair expected"
    inside = text.split(opening, 1)[1].split(closing, 1)[0].strip()
    first, _, rest = inside.partition("\n")
    assert _FENCE.match(first) and rest.rstrip().endswith(first[:3]), f"{page}: {opening} must hold one fenced block"
    return rest.rstrip()[:-3].rstrip("`").rstrip() + "\n"


def heading_anchors(page: Path) -> set[str]:
    """The anchors GitHub derives from the page's headings (lowercase, punctuation dropped, spaces to ``-``)."""
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in _headings(page):
        slug = re.sub(r"[^\w\- ]", "", line.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def _headings(page: Path) -> list[tuple[int, str]]:
    return [
        (number, line.lstrip("#").strip().replace("`", ""))
        for number, line in _unfenced(page)
        if re.match(r"^#{1,6} ", line)
    ]
