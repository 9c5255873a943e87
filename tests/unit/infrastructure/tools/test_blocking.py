"""run_blocking: results and errors come back; cancellation sets the stop flag; the thread is a daemon."""

from __future__ import annotations

import asyncio
import threading

import pytest

from quorum.infrastructure.tools.blocking import StopFlag, Stopped, run_blocking


async def test_the_result_and_the_error_of_the_work_come_back() -> None:
    assert await run_blocking(lambda stop: 6 * 7) == 42

    def fail(stop: StopFlag) -> None:
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        await run_blocking(fail)


async def test_cancelling_the_call_stops_the_work_in_its_daemon_thread() -> None:
    started, finished = threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def work(stop: StopFlag) -> None:
        seen["daemon"] = threading.current_thread().daemon
        started.set()
        try:
            while True:  # a search that would never end on its own
                stop.check()
                threading.Event().wait(0.01)
        except Stopped:
            seen["stopped"] = True
            finished.set()
            raise

    task = asyncio.create_task(run_blocking(work))
    assert await asyncio.to_thread(started.wait, 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(finished.wait, 30)
    assert seen == {"daemon": True, "stopped": True}
