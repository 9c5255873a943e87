"""Port of token prices: what a model's tokens cost."""

from __future__ import annotations

from typing import Protocol

from quorum.domain.responses import Usage


class PriceList(Protocol):
    """Prices of the configured models (``[providers.NAME] prices``, else a maintained price table)."""

    def cost(self, model_id: str, usage: Usage) -> float | None:
        """What ``usage`` on ``model_id`` (``provider:model``) costs in USD.

        Returns None when the model's prices are unknown. Synchronous, quick, never raises.
        """
        ...
