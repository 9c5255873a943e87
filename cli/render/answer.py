"""The model's text on stdout: as it streams, plain, or as markdown drawn by rich on a terminal.

Markdown is drawn a block at a time: text is held until a blank line outside a code fence closes
a block (or the response ends), then that block is drawn. A block is never drawn twice, so
nothing is rewritten and scrollback stays intact. Every string passes through ``printable``
first: only rich's own styling writes escape sequences.
"""

from __future__ import annotations

from typing import Any, Protocol, TextIO

from quorum.infrastructure.terminal_text import printable


class AnswerOut(Protocol):
    """Where a response's text goes."""

    def write(self, text: str) -> bool:
        """Take more of the response's text; True when something was written to the terminal now."""
        ...

    def end(self) -> None:
        """The response ended: write what is held, end the line."""
        ...


class PlainAnswer:
    """Text written as it arrives (for files and pipes: ``> answer.txt`` gets the text as sent)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._open = False

    def write(self, text: str) -> bool:
        if not text:
            return False
        self._stream.write(printable(text))
        self._stream.flush()
        self._open = not text.endswith("\n")
        return True

    def end(self) -> None:
        if self._open:
            self._stream.write("\n")
            self._stream.flush()
            self._open = False


class MarkdownAnswer:
    """Markdown drawn with rich, one finished block at a time."""

    def __init__(self, stream: TextIO, *, color: bool) -> None:
        self._stream = stream
        self._color = color
        self._held = ""
        self._console: Any = None

    def write(self, text: str) -> bool:
        self._held += text
        cut = _last_block_end(self._held)
        if cut <= 0:
            return False
        block, self._held = self._held[:cut], self._held[cut:]
        return self._draw(block)

    def end(self) -> None:
        block, self._held = self._held, ""
        self._draw(block)

    def _draw(self, block: str) -> bool:
        if not block.strip():
            return False
        if self._console is None:
            from rich.console import Console

            self._console = Console(file=self._stream, force_terminal=True, no_color=not self._color, highlight=False)
        from rich.markdown import Markdown

        self._console.print(Markdown(printable(block.strip("\n"))))
        self._stream.flush()
        return True


def _last_block_end(text: str) -> int:
    """The index just past the last blank line that ends a block outside a code fence, or 0."""
    cut = 0
    fenced = False
    position = 0
    lines = text.split("\n")
    for line in lines[:-1]:  # the last piece has no newline yet: it may still grow
        position += len(line) + 1
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            if not fenced:
                cut = position  # a closed fence ends a block
        elif not stripped and not fenced:
            cut = position
    return cut
