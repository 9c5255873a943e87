"""The input line of ``quorum chat``: prompt_toolkit on a terminal, plain lines from a pipe.

Keys: Enter sends; Alt+Enter (Esc then Enter) inserts a newline; a paste keeps its newlines
(bracketed paste); Ctrl+C clears a line with text, and on an empty line is reported as an
interrupt (the session exits on the second in a row); Ctrl+D on an empty line ends input.
prompt_toolkit is imported only here, when a chat starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any, Final

from quorum.cli.chat import slash

INTERRUPT: Final = "\x03"
"""What ``read`` returns for Ctrl+C on an empty line (never a message: control characters are not typed)."""

PROMPT = "› "


class PipedLines:
    """Messages read one per line from a non-terminal stdin (scripts, tests); no prompt is drawn."""

    def __init__(self, stream: Any = None) -> None:
        self._stream = stream if stream is not None else sys.stdin

    async def read(self) -> str | None:
        line = self._stream.readline()
        return None if line == "" else line.rstrip("\n")


class TerminalLine:
    """One prompt_toolkit session for the whole chat: its history file, keys and completion."""

    def __init__(
        self,
        history_file: Path | None,
        models: Callable[[], Iterable[str]],
        *,
        on_drawn: Callable[[], None] | None = None,
    ) -> None:
        """``on_drawn`` is called once, when the first prompt has been drawn."""
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory, History, InMemoryHistory

        history: History = InMemoryHistory()
        if history_file is not None:
            with contextlib.suppress(OSError):  # an unwritable data dir: history lasts this session
                _private_file(history_file)
                history = FileHistory(str(history_file))
        self._session: Any = PromptSession(
            history=history,
            key_bindings=_key_bindings(),
            completer=_slash_completer(models),
            complete_while_typing=True,
            multiline=False,
            prompt_continuation=lambda width, line_number, wrap_count: " " * width,
            enable_history_search=False,
        )
        self._on_drawn = on_drawn
        if on_drawn is not None:

            def drawn(_: Any) -> None:
                self._session.app.after_render -= drawn
                self._fire_drawn()

            self._session.app.after_render += drawn

    def _fire_drawn(self) -> None:
        on_drawn, self._on_drawn = self._on_drawn, None
        if on_drawn is not None:
            on_drawn()

    async def read(self) -> str | None:
        """The next message or slash command; ``INTERRUPT`` for Ctrl+C on an empty line; None at Ctrl+D."""
        from prompt_toolkit.utils import is_dumb_terminal

        if self._on_drawn is not None and is_dumb_terminal():
            # A dumb terminal gets prompt_toolkit's plain prompt, which renders no screen (so no
            # after-render event): its prompt is out as soon as the read has started.
            asyncio.get_running_loop().call_soon(self._fire_drawn)
        try:
            text: str = await self._session.prompt_async(PROMPT)
        except KeyboardInterrupt:
            return INTERRUPT
        except EOFError:
            return None
        return text


class FirstLineThen:
    """A line source whose first line is a read already under way, then ``rest``'s lines."""

    def __init__(self, first: Awaitable[str | None], rest: Any) -> None:
        self._first: Awaitable[str | None] | None = first
        self._rest = rest

    async def read(self) -> str | None:
        if self._first is not None:
            first, self._first = self._first, None
            return await first
        line: str | None = await self._rest.read()
        return line


def _private_file(path: Path) -> None:
    """Create ``path`` readable by its owner only (messages may hold secrets); keep an existing one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.close(fd)


def _key_bindings() -> Any:
    from prompt_toolkit.key_binding import KeyBindings

    bindings = KeyBindings()

    @bindings.add("escape", "enter")
    def _newline(event: Any) -> None:
        event.current_buffer.insert_text("\n")

    @bindings.add("c-c")
    def _interrupt(event: Any) -> None:
        buffer = event.current_buffer
        if buffer.text:
            buffer.reset()  # like a shell: Ctrl+C drops the line being typed
        else:
            event.app.exit(exception=KeyboardInterrupt())

    return bindings


def _slash_completer(models: Callable[[], Iterable[str]]) -> Any:
    """Completes slash command names, ``/review`` modes and ``/model`` names (``slash.completions``)."""
    from prompt_toolkit.completion import Completer, Completion

    class SlashCompleter(Completer):
        def get_completions(self, document: Any, complete_event: Any) -> Any:
            text = document.text_before_cursor
            word = text.rpartition(" ")[2]
            for candidate in slash.completions(text, sorted(models())):
                yield Completion(candidate, start_position=-len(word))

    return SlashCompleter()
