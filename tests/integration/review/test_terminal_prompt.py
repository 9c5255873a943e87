"""TerminalPrompt over real file descriptors: pipes, a pseudo-terminal, a regular file."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import pty
from collections.abc import Iterator
from pathlib import Path

import pytest

from quorum.domain.review import Verdict, Vote
from quorum.infrastructure.review.human import HumanRequest
from quorum.infrastructure.review.terminal import TerminalPrompt
from tests.integration.review.conftest import context_for, high_call


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read_fd, write_fd = os.pipe()
    yield read_fd, write_fd
    for fd in (read_fd, write_fd):
        with contextlib.suppress(OSError):
            os.close(fd)


def request(**votes: str) -> HumanRequest:
    call = high_call(command="rm -rf build")
    cast = tuple(
        Vote(reviewer=name, verdict=Verdict(v), reason=f"{name} thinks so", latency=1.25) for name, v in votes.items()
    )
    return HumanRequest(call=call, context=context_for(call), why="the panel rejected it", votes=cast)


@pytest.mark.parametrize(
    ("typed", "choice", "reason"),
    [
        (b"y\n", "approve", ""),
        (b"YES\n", "approve", ""),
        (b"a\n", "always", ""),
        (b"n\nuse rm -r build/cache instead\n", "reject", "use rm -r build/cache instead"),
        (b"no\n\n", "reject", ""),
        (b"maybe\ny\n", "approve", ""),  # asked again after a bad answer
        (b"x\nx\nx\n", "reject", "no valid answer after 3 attempts"),
        (b"", "reject", "no answer from the terminal (input closed)"),
        (b"y", "approve", ""),  # a last line without newline before end of input still counts
    ],
)
async def test_answers(pipe: tuple[int, int], typed: bytes, choice: str, reason: str) -> None:
    read_fd, write_fd = pipe
    os.write(write_fd, typed)
    os.close(write_fd)
    out = io.StringIO()
    answer = await TerminalPrompt(read_fd, out).ask(request())
    assert (answer.choice, answer.reason) == (choice, reason)


async def test_shows_the_call_its_arguments_and_the_votes(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    os.write(write_fd, b"n\n")
    os.close(write_fd)
    out = io.StringIO()
    await TerminalPrompt(read_fd, out).ask(request(**{"openai:gpt": "approve", "anthropic:claude": "reject"}))
    shown = out.getvalue()
    assert "review needed: run_command (high risk: the command may modify files)" in shown
    assert '"command": "rm -rf build"' in shown
    assert "why you are asked: the panel rejected it" in shown
    assert "APPROVE openai:gpt (1.2 s): openai:gpt thinks so" in shown
    assert "REJECT  anthropic:claude (1.2 s): anthropic:claude thinks so" in shown
    assert "[a]lways approve run_command for this run" in shown


async def test_a_pending_question_is_cancellable(pipe: tuple[int, int]) -> None:
    read_fd, _ = pipe
    prompt = TerminalPrompt(read_fd, io.StringIO())
    task = asyncio.create_task(prompt.ask(request()))
    for _ in range(5):
        await asyncio.sleep(0)
    assert not task.done()  # nothing typed yet: still waiting, without blocking the loop
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    loop = asyncio.get_running_loop()
    assert not loop.remove_reader(read_fd)  # the reader was removed on the way out


async def test_answers_typed_on_a_pseudo_terminal() -> None:
    controller, terminal = pty.openpty()
    try:
        prompt = TerminalPrompt(terminal, io.StringIO())
        task = asyncio.create_task(prompt.ask(request()))
        await asyncio.sleep(0)
        os.write(controller, b"n\nnot the build dir\n")
        answer = await asyncio.wait_for(task, 10)
        assert (answer.choice, answer.reason) == ("reject", "not the build dir")
    finally:
        os.close(controller)
        os.close(terminal)


async def test_a_regular_file_as_input(tmp_path: Path) -> None:
    answers = tmp_path / "answers"
    answers.write_bytes(b"a\n")
    with answers.open("rb") as handle:
        answer = await TerminalPrompt(handle.fileno(), io.StringIO()).ask(request())
    assert answer.choice == "always"
