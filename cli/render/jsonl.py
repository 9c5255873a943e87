"""``--json``: one JSON object per run event on stdout, nothing else."""

from __future__ import annotations

from typing import TextIO

from quorum.domain.events import RunEvent


class JsonLinesRenderer:
    """Writes each event as one line of JSON (the public ``--json`` contract) and flushes."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def on_event(self, event: RunEvent) -> None:
        self._stream.write(event.model_dump_json() + "\n")
        self._stream.flush()

    def close(self) -> None:
        """Nothing to release (every line is flushed as written)."""
