"""Port of model data: what Quorum knows about a model beyond its prices."""

from __future__ import annotations

from typing import Protocol


class ContextWindows(Protocol):
    """The context windows of models (a maintained model table)."""

    def context_window(self, model_id: str) -> int | None:
        """The context window of ``model_id`` (``provider:model``) in tokens; None when unknown.

        Synchronous, quick, never raises.
        """
        ...
