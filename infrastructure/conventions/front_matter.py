"""YAML front matter: a Markdown file's leading ``---`` block, as commands and skills write it."""

from __future__ import annotations

from typing import Any


class FrontMatterError(ValueError):
    """The front matter is not closed, not YAML, or not a mapping; the message says which."""


def split(text: str) -> tuple[dict[str, Any], str]:
    """The front matter of ``text`` (a mapping; empty without one) and the body after it.

    Front matter starts on the first line with ``---`` and ends at the next line holding only
    ``---``; it is read with ``yaml.safe_load`` (no tags that build objects).

    Raises:
        FrontMatterError: an unclosed block, invalid YAML, or YAML that is not a mapping.
    """
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        return {}, text
    end = next((index for index, line in enumerate(lines[1:], 1) if line.rstrip() == "---"), None)
    if end is None:
        raise FrontMatterError("front matter opened with '---' is never closed")
    import yaml  # lazily: only when a file has front matter

    try:
        data = yaml.safe_load("".join(lines[1:end]))
    except yaml.YAMLError as error:
        raise FrontMatterError(f"front matter is not valid YAML ({str(error).splitlines()[0]})") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontMatterError("front matter is not a mapping of keys to values")
    return data, "".join(lines[end + 1 :])


def one_line(value: Any, limit: int) -> str:
    """``value`` as one line of printable text, at most ``limit`` characters (cut with ``…``)."""
    text = " ".join("".join(ch if ch.isprintable() or ch.isspace() else " " for ch in str(value)).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
