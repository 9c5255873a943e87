"""A small terminal spinner on stderr, driven by the run's event loop."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TextIO

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class Spinner:
    """Shows ``⠋ label…`` until stopped; only used when stderr is a terminal."""

    def __init__(self, stream: TextIO, interval: float = 0.1) -> None:
        self._stream = stream
        self._interval = interval
        self._task: asyncio.Task[None] | None = None

    def start(self, label: str) -> None:
        self.stop()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._task = loop.create_task(self._spin(label))

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
            self._stream.write("\r\x1b[2K")
            self._stream.flush()

    async def _spin(self, label: str) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            i = 0
            while True:
                self._stream.write(f"\r{FRAMES[i % len(FRAMES)]} {label}…")
                self._stream.flush()
                i += 1
                await asyncio.sleep(self._interval)
