"""The task of ``quorum run``: words, piped stdin, and an open pipe nobody writes to."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import click
import pytest

from quorum.cli.task_input import read_task


@pytest.fixture
def pipe() -> Iterator[tuple[object, int]]:
    """A pipe: the read end as a binary stream (stdin), the write end's descriptor (the producer)."""
    read_fd, write_fd = os.pipe()
    stream = os.fdopen(read_fd, "rb")
    try:
        yield stream, write_fd
    finally:
        stream.close()
        with contextlib.suppress(OSError):
            os.close(write_fd)


def test_an_open_pipe_nobody_writes_to_is_not_waited_for(pipe, capsys) -> None:
    stream, _writer = pipe  # the write end stays open: a read to EOF would never return
    assert read_task(("fix", "it"), stream, wait=0.01) == "fix it"
    assert "nothing arrived on stdin" in capsys.readouterr().err


def test_piped_text_is_attached_in_a_fence(pipe) -> None:
    stream, writer = pipe
    os.write(writer, b"diff --git a b\n")
    os.close(writer)
    assert read_task(("review",), stream, wait=0.01) == "review\n\n```\ndiff --git a b\n```"


def test_a_closed_empty_pipe_is_no_input(pipe, capsys) -> None:
    stream, writer = pipe
    os.close(writer)
    assert read_task(("task",), stream, wait=0.01) == "task"
    assert "nothing arrived" not in capsys.readouterr().err


def test_dash_waits_for_stdin_as_the_task(pipe) -> None:
    stream, writer = pipe
    os.write(writer, b"the task\n")
    os.close(writer)
    # wait=0 would give up at once were the dash not "wait for it"
    assert read_task(("-",), stream, wait=0) == "the task"


def test_no_task_anywhere_is_a_usage_error(pipe) -> None:
    stream, writer = pipe
    os.close(writer)
    with pytest.raises(click.UsageError):
        read_task((), stream, wait=0)
