"""Running blocking file work off the event loop without ever holding the process hostage.

``asyncio.to_thread`` uses the loop's default executor, whose threads ``asyncio.run`` joins at
shutdown: a read stuck on a named pipe or a regex that backtracks for minutes kept Quorum from
exiting long after the call had timed out. Here each call gets its own daemon thread (never
joined at exit) and a ``StopFlag`` that is set when the awaiting coroutine is cancelled or done;
the work checks it between files, lines and chunks and gives up with ``Stopped``.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class Stopped(Exception):
    """Raised inside blocking work once its ``StopFlag`` is set; the caller has gone away."""


class StopFlag:
    """Cooperative cancellation for work in a thread: set by the caller, checked by the work."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def set(self) -> None:
        """Ask the work to stop at its next check."""
        self._event.set()

    def is_set(self) -> bool:
        """Whether the work was asked to stop."""
        return self._event.is_set()

    def check(self) -> None:
        """Raise ``Stopped`` if the work was asked to stop."""
        if self._event.is_set():
            raise Stopped


NEVER = StopFlag()
"""A flag nobody sets, for calling blocking work directly (tests, benchmarks)."""


def _settle(future: asyncio.Future[T], result: T | None, error: BaseException | None) -> None:
    if future.done():  # the caller was cancelled: nobody wants the answer
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)  # type: ignore[arg-type]


async def run_blocking(work: Callable[[StopFlag], T]) -> T:
    """Run ``work(stop)`` in a daemon thread and await its result.

    When the awaiting task is cancelled (a tool timeout, Ctrl+C) the flag is set and the call
    returns at once; the thread ends at its next check, and as a daemon it never delays exit.

    Raises:
        Whatever ``work`` raises; ``asyncio.CancelledError`` when cancelled.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    stop = StopFlag()

    def target() -> None:
        try:
            result, error = work(stop), None
        except BaseException as caught:  # handed to the awaiting task, which decides
            result, error = None, caught
        with contextlib.suppress(RuntimeError):  # the loop closed while we ran: nobody is waiting
            loop.call_soon_threadsafe(_settle, future, result, error)

    threading.Thread(target=target, name="quorum-tool", daemon=True).start()
    try:
        return await future
    finally:
        stop.set()
