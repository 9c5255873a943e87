"""The task of ``quorum run``/``ask``: the words given, with what is piped on stdin attached.

Piped input is waited for only briefly when the task is given as words: a CI step, an editor's task
runner or ``subprocess.Popen(stdin=PIPE)`` can leave stdin an open pipe nobody writes to, and reading
it to EOF would wait forever. ``-`` as the task (or no words at all) means "the task is stdin": then
it is read to EOF however long that takes.
"""

from __future__ import annotations

import re
import select
import sys
from typing import BinaryIO

import click

STDIN_WAIT_SECONDS = 3.0
"""How long a task given as words waits for the first byte of piped stdin (documented in docs/cli.md)."""


def read_task(words: tuple[str, ...], stdin: BinaryIO | None = None, *, wait: float = STDIN_WAIT_SECONDS) -> str:
    """The task from the arguments, with piped stdin attached (``-`` alone: the task is stdin).

    Raises:
        click.UsageError: no task in the words nor on stdin.
    """
    stream = stdin if stdin is not None else sys.stdin.buffer
    task = _text(" ".join(words).encode("utf-8", "surrogateescape")).strip()
    piped = ""
    if not stream.isatty():
        task_is_stdin = task in ("", "-")
        if task_is_stdin or _first_byte_arrives(stream, wait):
            piped = _text(stream.read()).strip("\n")
        else:
            click.echo(
                f"quorum: nothing arrived on stdin within {wait:g} s; going on without it "
                "(give - as the task to wait for stdin)",
                err=True,
            )
    if task == "-":
        task, piped = piped.strip(), ""
    if not task and piped.strip():
        task, piped = piped.strip(), ""
    if not task:
        raise click.UsageError("give the task as an argument (or on stdin)")
    return attach(task, piped) if piped.strip() else task


def attach(task: str, piped: str) -> str:
    """``task``, then the piped input in a fenced block (a fence longer than any run of backticks in it)."""
    longest = max((len(run) for run in re.findall(r"`+", piped)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{task}\n\n{fence}\n{piped}\n{fence}"


def _first_byte_arrives(stream: BinaryIO, wait: float) -> bool:
    """Whether ``stream`` has data or EOF within ``wait`` seconds (a file or /dev/null: at once)."""
    try:
        ready, _, _ = select.select([stream], [], [], wait)
    except (OSError, ValueError):  # not a selectable descriptor (an in-memory stream): read it
        return True
    return bool(ready)


def _text(data: bytes) -> str:
    # Bytes that are not UTF-8 (in argv as surrogate escapes, or on stdin) become U+FFFD: the
    # task goes into JSON events and provider requests, which take only valid text.
    return data.decode("utf-8", "replace")
