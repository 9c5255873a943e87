"""``--json``: one JSON object per run event on stdout, nothing else."""

from __future__ import annotations

import json
from typing import TextIO

from quorum.domain.events import RunEvent


class JsonLinesRenderer:
    """Writes each event as one line of JSON (the public ``--json`` contract) and flushes."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def on_event(self, event: RunEvent) -> None:
        self._stream.write(_line(event) + "\n")
        self._stream.flush()

    def close(self) -> None:
        """Nothing to release (every line is flushed as written)."""


def _line(event: RunEvent) -> str:
    """The event's JSON; an event that cannot be serialized still yields a line with its type.

    The loop keeps hostile data out of events (arguments too deep are replaced), so this is the
    last guard: one unserializable value must not end the run with a traceback.
    """
    try:
        return event.model_dump_json()
    except (ValueError, RecursionError) as error:  # pydantic's serialization errors are ValueErrors
        reason = str(error).splitlines()[0][:200]
        return json.dumps({"type": event.type, "unserializable": reason})
