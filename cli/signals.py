"""SIGTERM and SIGHUP end a run the way Ctrl+C does: cancelled, recorded, process groups killed.

Without handlers the default action kills Quorum at once, and the commands it started (each in
its own process group, so the signal does not reach them) keep running with nobody to reap them.
With them, the signal cancels the run's task: in-flight calls are cancelled (which kills their
process groups), the run ends ``cancelled`` with ``run_finished``, and the command exits
``128 + signal`` as a shell would report it.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from quorum.cli.errors import EXIT_HANGUP, EXIT_TERMINATED

EXIT_BY_SIGNAL = {signal.SIGTERM: EXIT_TERMINATED, signal.SIGHUP: EXIT_HANGUP}
"""The signals that end a run, and the exit code each gives."""


@dataclass
class Received:
    """The signal that ended the run, if one did."""

    signum: int | None = None
    armed: bool = True
    """Cleared when the run is over: a signal during the clean-up after it is ignored."""

    @property
    def exit_code(self) -> int:
        """143 for SIGTERM, 129 for SIGHUP (``128 + signum``, as a shell reports it)."""
        assert self.signum is not None
        return EXIT_BY_SIGNAL[signal.Signals(self.signum)]

    def cancelled_the_task(self) -> bool:
        """Called in ``except asyncio.CancelledError``: whether that cancellation was this signal's.

        If so the task is uncancelled, so the clean-up after it may await, and the caller goes on
        to end the command; if not (a cancellation from elsewhere) the caller re-raises.
        """
        if self.signum is None:
            return False
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        return True

    @property
    def name(self) -> str:
        assert self.signum is not None
        return signal.Signals(self.signum).name


@contextmanager
def signals_cancel_current_task() -> Iterator[Received]:
    """While inside, SIGTERM and SIGHUP cancel the current task (once) and are noted in the result.

    The caller catches the ``CancelledError`` and, when ``Received.cancelled_the_task()`` says it
    was the signal's, treats it as the end of the run; it clears ``armed`` once the run is
    over. Handlers are installed on the running event loop and removed on exit.
    """
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    received = Received()

    def on_signal(signum: int) -> None:
        if received.armed and received.signum is None:  # nor may a second one interrupt the clean-up
            received.signum = signum
            task.cancel()

    installed = []
    for signum in EXIT_BY_SIGNAL:
        try:
            loop.add_signal_handler(signum, on_signal, signum)
        except (NotImplementedError, RuntimeError, ValueError):  # no signal support here (Windows)
            continue
        installed.append(signum)
    try:
        yield received
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)
