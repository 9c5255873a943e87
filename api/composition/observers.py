"""Who sees a run's events: several observers at once, and the run log's recorder."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from quorum.application.ports.observer import RunObserver
from quorum.composition.paths import workspace_of
from quorum.domain.events import RunEvent

if TYPE_CHECKING:
    from quorum.application.ports.run_store import RunStore
    from quorum.infrastructure.config.schema import Settings


class FanOut:
    """A RunObserver passing each event to several observers, in order (None entries are skipped)."""

    def __init__(self, observers: Sequence[RunObserver | None]) -> None:
        self._observers = [o for o in observers if o is not None]

    def on_event(self, event: RunEvent) -> None:
        for observer in self._observers:
            observer.on_event(event)


def build_recorder(
    store: RunStore | None, settings: Settings, parent_run_id: str | None, subagent: str | None = None
) -> RunObserver | None:
    """Records the run's events in the store (``subagent``: a delegation's); a failing store is reported."""
    if store is None:
        return None
    from quorum.infrastructure.storage.digest import config_digest
    from quorum.infrastructure.storage.recorder import RunRecorder

    def warn(error: Exception) -> None:
        print(f"quorum: warning: the run log could not be written: {error}", file=sys.stderr)

    return RunRecorder(
        store,
        workspace=str(workspace_of(settings)),
        config_digest=config_digest(settings),
        parent_run_id=parent_run_id,
        subagent=subagent,
        on_error=warn,
    )
