"""Token prices: ``[providers.NAME] prices``, else the ``genai-prices`` table, as a ``PriceList``.

``genai-prices`` (pydantic's package tracking providers' published prices) ships its data, so a
price is found offline; it is imported on the first price asked for, never by ``quorum --help``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from quorum.domain.errors import UsageError
from quorum.domain.model_id import ModelId
from quorum.domain.responses import Usage
from quorum.infrastructure.config.sections import Section

if TYPE_CHECKING:
    from quorum.infrastructure.config.loader import ProviderInstance

MTOK = 1_000_000


class TokenPrices(Section):
    """``prices = { input_per_mtok = 2.5, output_per_mtok = 10 }``: USD per million tokens.

    Attributes:
        input_per_mtok: price of a million input (prompt) tokens.
        output_per_mtok: price of a million output (completion) tokens.
    """

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)

    def cost(self, usage: Usage) -> float:
        """What ``usage`` costs at these prices, in USD."""
        return (usage.input_tokens * self.input_per_mtok + usage.output_tokens * self.output_per_mtok) / MTOK


class PricedSettings(Section):
    """Settings of an HTTP provider: its endpoint and a ``prices`` key setting or overriding its prices.

    Attributes:
        base_url: the provider's endpoint; unset means its public API.
        prices: USD per million tokens of every model of this provider instance; unset, prices come
            from the ``genai-prices`` table when it knows the model (for an instance with a custom
            ``base_url``, only when it knows that endpoint).
    """

    base_url: str | None = None
    prices: TokenPrices | None = None


class ProviderPrices:
    """A ``PriceList`` over the configured provider instances.

    ``NAME:model`` is priced by ``[providers.NAME] prices`` when set; otherwise by ``genai-prices``,
    asked for the instance's kind (``openai``, ``anthropic``), or, for an instance with a
    ``base_url``, for whatever provider serves that URL (a local server is unknown). Unknown models,
    providers and endpoints cost None. Never raises.
    """

    def __init__(self, instances: Mapping[str, ProviderInstance]) -> None:
        self._instances = dict(instances)

    def cost(self, model_id: str, usage: Usage) -> float | None:
        found = self._lookup(model_id)
        if found is None:
            return None
        model, kind, settings = found
        if settings is not None and settings.prices is not None:
            return settings.prices.cost(usage)
        base_url = settings.base_url if settings is not None else None
        return table_cost(model, kind, base_url, usage.input_tokens, usage.output_tokens)

    def context_window(self, model_id: str) -> int | None:
        """The model's context window from the ``genai-prices`` model data (a ``ContextWindows``)."""
        found = self._lookup(model_id)
        if found is None:
            return None
        model, kind, settings = found
        return table_window(model, kind, settings.base_url if settings is not None else None)

    def _lookup(self, model_id: str) -> tuple[str, str, PricedSettings | None] | None:
        """(model, provider kind, the instance's priced settings if any), or None for a malformed id."""
        try:
            parsed = ModelId.parse(model_id)
        except UsageError:
            return None
        instance = self._instances.get(parsed.provider)
        settings: BaseModel | None = instance.settings if instance is not None else None
        kind = instance.kind if instance is not None else parsed.provider
        return parsed.model, kind, settings if isinstance(settings, PricedSettings) else None


def table_window(model: str, provider: str, base_url: str | None) -> int | None:
    """The context window ``genai-prices`` gives for the model, or None when it does not know it."""
    if not model:
        return None
    try:
        from genai_prices import Usage as PriceUsage
        from genai_prices import calc_price

        one = PriceUsage(input_tokens=1, output_tokens=1)
        found = (
            calc_price(one, model, provider_api_url=base_url)
            if base_url
            else calc_price(one, model, provider_id=provider)
        )
        window = found.model.context_window
        return int(window) if window else None
    except Exception:  # unknown model, provider or endpoint, or a broken table
        return None


def table_cost(model: str, provider: str, base_url: str | None, input_tokens: int, output_tokens: int) -> float | None:
    """What ``genai-prices`` says one request of that many tokens costs, or None when it does not know.

    A custom ``base_url`` is matched against the providers' API URLs instead of ``provider``.
    """
    if not model:
        return None
    try:
        from genai_prices import Usage as PriceUsage
        from genai_prices import calc_price

        usage = PriceUsage(input_tokens=input_tokens, output_tokens=output_tokens)
        if base_url:
            found = calc_price(usage, model, provider_api_url=base_url)
        else:
            found = calc_price(usage, model, provider_id=provider)
        return float(found.total_price)
    except Exception:  # unknown model, provider or endpoint (LookupError), or a broken table
        return None
