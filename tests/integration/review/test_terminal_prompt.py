"""TerminalPrompt over real file descriptors: pipes, a pseudo-terminal, a regular file.

The pseudo-terminal tests drive the prompt as a person would: the prompt writes to the terminal,
the test reads what appeared on the controller side (including the terminal's echo of typed keys)
and types only after it has seen the question.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import pty
import select
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from quorum.domain.review import Verdict, Vote
from quorum.domain.tools import ToolCall
from quorum.infrastructure.review.human import HumanRequest, HumanReviewer
from quorum.infrastructure.review.scope import scope_for
from quorum.infrastructure.review.terminal import TerminalPrompt
from quorum.infrastructure.tools.workspace import Workspace
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
    return HumanRequest(
        call=call, context=context_for(call), why="the panel rejected it", votes=cast, always=scope_for(call, None)
    )


@pytest.mark.parametrize(
    ("typed", "choice", "reason"),
    [
        (b"y\n", "approve", ""),
        (b"YES\n", "approve", ""),
        (b"a\n", "always", ""),
        (b"n\nuse rm -r build/cache instead\n", "reject", "use rm -r build/cache instead"),
        (b"no\n\n", "reject", ""),
        (b"maybe\ny\n", "approve", ""),  # asked again after a bad answer
        (b"x\n" * 10 + b"y\n", "approve", ""),  # as many times as needed
        (b"x\nx\nx\n", "reject", "no answer from the terminal (input closed)"),
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
    assert "command:\n  rm -rf build\nin: the workspace\n" in shown
    assert "why you are asked: the panel rejected it" in shown
    assert "APPROVE openai:gpt (1.2 s): openai:gpt thinks so" in shown
    assert "REJECT  anthropic:claude (1.2 s): anthropic:claude thinks so" in shown
    assert 'Approve run_command? [y]es / [n]o / [a]lways approve "rm …" for this run: ' in shown


async def test_always_is_not_offered_without_a_scope(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    os.write(write_fd, b"a\ny\n")
    os.close(write_fd)
    out = io.StringIO()
    call = high_call(command="rm -rf build; ls")
    plain = HumanRequest(call=call, context=context_for(call), why="asked", always=scope_for(call, None))
    answer = await TerminalPrompt(read_fd, out).ask(plain)
    assert answer.choice == "approve"  # "a" was not a choice: asked again
    assert "Approve run_command? [y]es / [n]o: " in out.getvalue() and "Please answer y, n." in out.getvalue()


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


class Screen:
    """A pseudo-terminal: the prompt reads and writes the terminal side; the test reads what appears
    on the controller side (prompt output and the echo of typed keys) and types there."""

    def __init__(self) -> None:
        self.controller, self.terminal = pty.openpty()
        self.output = open(os.dup(self.terminal), "w", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self._seen = b""

    @property
    def text(self) -> str:
        return self._seen.decode("utf-8", errors="replace").replace("\r\n", "\n")

    def type(self, keys: bytes) -> None:
        os.write(self.controller, keys)

    async def wait_for(self, seen: str, count: int = 1) -> None:
        """Until ``seen`` has appeared ``count`` times on screen."""
        await self.wait_until(lambda text: text.count(seen) >= count)

    async def wait_for_question(self, count: int = 1) -> None:
        """Until the ``count``-th question is on screen, waiting for its answer."""
        await self.wait_until(lambda text: text.count("[y]es / [n]o") >= count and text.endswith(": "))

    async def wait_until(self, done: Callable[[str], bool], deadline: float = 30) -> None:
        """Read the controller side until ``done(text on screen)``."""
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(deadline):
            while not done(self.text):
                readable: asyncio.Future[None] = loop.create_future()
                loop.add_reader(self.controller, _wake, readable)
                try:
                    await readable
                finally:
                    loop.remove_reader(self.controller)
                self._seen += os.read(self.controller, 65536)

    def echoed(self, keys: str, deadline: float = 30) -> None:
        """Block, without yielding to the event loop, until the terminal has echoed ``keys``.

        Echoed keys sit in the terminal's input queue, so this orders "typed" before anything the
        prompt (on the same loop) does next.
        """
        seen = self.text.count(keys)
        end = time.monotonic() + deadline
        while self.text.count(keys) <= seen:
            ready, _, _ = select.select([self.controller], [], [], max(0.0, end - time.monotonic()))
            assert ready, f"no echo of {keys!r}: {self.text!r}"
            self._seen += os.read(self.controller, 65536)

    def close(self) -> None:
        self.output.close()
        os.close(self.controller)
        os.close(self.terminal)


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


@pytest.fixture
def screen() -> Iterator[Screen]:
    opened = Screen()
    yield opened
    opened.close()


def write_request(workspace: Workspace, path: str, content: str) -> HumanRequest:
    call = ToolCall(native_id="w", name="write_file", arguments={"path": path, "content": content})
    return HumanRequest(call=call, context=context_for(call), why="asked", always=scope_for(call, workspace))


async def test_keys_typed_before_the_question_are_discarded(screen: Screen) -> None:
    screen.type(b"y\n")  # typed while the model was thinking
    screen.echoed("y\n")
    task = asyncio.create_task(TerminalPrompt(screen.terminal, screen.output).ask(request()))
    await screen.wait_for_question()
    screen.type(b"n\n\n")
    answer = await asyncio.wait_for(task, 30)
    assert (answer.choice, answer.reason) == ("reject", "")


async def test_typeahead_is_discarded_before_asking_again(screen: Screen) -> None:
    prompt = TerminalPrompt(screen.terminal, screen.output)
    task = asyncio.create_task(prompt.ask(request()))
    await screen.wait_for_question()
    screen.type(b"maybe\ny\n")  # "y" is typed before the second question appears
    screen.echoed("maybe\ny\n")
    await screen.wait_for_question(2)
    screen.type(b"n\nno\n")
    answer = await asyncio.wait_for(task, 30)
    assert (answer.choice, answer.reason) == ("reject", "no")


async def test_a_write_over_an_existing_file_is_shown_as_a_diff_cut_until_show_all(
    screen: Screen, tmp_path: Path
) -> None:
    workspace = Workspace(tmp_path)
    (tmp_path / "notes.md").write_text("".join(f"note {i}\n" for i in range(1, 101)))
    new = "".join(f"line {i}\n" for i in range(1, 201))
    prompt = TerminalPrompt(screen.terminal, screen.output, workspace=workspace)
    task = asyncio.create_task(prompt.ask(write_request(workspace, "notes.md", new)))
    await screen.wait_for_question()
    first = screen.text
    assert "overwrites notes.md (100 lines → 200 lines)" in first
    assert "--- a/notes.md\n+++ b/notes.md\n@@ -1,100 +1,200 @@\n-note 1\n" in first
    assert "… 264 more lines hidden ([s] shows all)" in first  # 304 diff lines, 40 shown
    assert "+line 200" not in first
    assert "[s]how all / [a]lways approve write_file in ./ for this run: " in first
    screen.type(b"s\n")
    await screen.wait_for_question(2)
    assert "+line 200\n" in screen.text[len(first) :]
    screen.type(b"y\n")
    assert (await asyncio.wait_for(task, 30)).choice == "approve"


async def test_escape_sequences_in_arguments_are_shown_not_obeyed(screen: Screen) -> None:
    payload = "echo hi\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x9b31m\u202etxt.exe"
    call = high_call(command=payload)
    ask = HumanRequest(call=call, context=context_for(call), why="asked \x1b[31mred")
    task = asyncio.create_task(TerminalPrompt(screen.terminal, screen.output).ask(ask))
    await screen.wait_for_question()
    screen.type(b"n\n\n")
    await asyncio.wait_for(task, 30)
    raw = screen.text
    assert "echo hi\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J\\x9b31m\\u202etxt.exe" in raw
    assert "why you are asked: asked \\x1b[31mred" in raw
    assert not any(ch in raw for ch in "\x1b\x07\x9b\u202e")


async def test_a_scoped_always_on_a_terminal(screen: Screen) -> None:
    human = HumanReviewer("interactive", TerminalPrompt(screen.terminal, screen.output))

    async def decide(command: str) -> tuple[bool, str]:
        call = high_call(command=command)
        decision = await human.decide(call, context_for(call), why="asked")
        return decision.approved, decision.reason

    first = asyncio.create_task(decide("git commit -m x"))
    await screen.wait_for_question()
    assert '[a]lways approve "git commit …" for this run: ' in screen.text
    screen.type(b"a\n")
    assert await asyncio.wait_for(first, 30) == (
        True,
        'approved by the user; always approve "git commit …" for the rest of this run',
    )
    assert await decide("git commit -m y") == (
        True,
        'approved by the user for the rest of this run: always approve "git commit …"',
    )
    assert screen.text.count("review needed") == 1  # not asked for the second commit
    third = asyncio.create_task(decide("rm x"))
    await screen.wait_for_question(2)
    assert '[a]lways approve "rm x …" for this run: ' in screen.text.split("for this run: ", 1)[1]
    screen.type(b"n\nnot that\n")
    assert await asyncio.wait_for(third, 30) == (False, "not that")
    assert [scope.label for scope in human.always_approved] == ['"git commit …"']
