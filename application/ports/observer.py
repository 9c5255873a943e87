"""Port receiving run events (the CLI, the run log and tests subscribe)."""

from __future__ import annotations

from typing import Protocol

from quorum.domain.events import RunEvent


class RunObserver(Protocol):
    """Receives every event of a run, in order, synchronously on the run's event loop.

    Must be quick and must not raise; slow sinks buffer on their own.
    """

    def on_event(self, event: RunEvent) -> None:
        """Handle one event."""
        ...
