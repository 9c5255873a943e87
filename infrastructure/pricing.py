"""Token prices: ``[providers.NAME] prices``, else the ``genai-prices`` table, as a ``PriceList``.

``genai-prices`` (pydantic's package tracking providers' published prices) ships its data, so a
price is found offline; it is imported on the first price asked for, never by ``quorum --help``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import BaseModel, Field

from quorum.domain.errors import UsageError
from quorum.domain.model_id import ModelId
from quorum.domain.responses import Usage
from quorum.infrastructure.config.sections import Section

if TYPE_CHECKING:
    from quorum.infrastructure.config.loader import ProviderInstance

MTOK = 1_000_000


class CacheRates(NamedTuple):
    """USD per million tokens read from and written to a prompt cache; None: priced as input."""

    read: float | None = None
    write: float | None = None


class TokenPrices(Section):
    """``prices = { input_per_mtok = 2.5, output_per_mtok = 10 }``: USD per million tokens.

    Attributes:
        input_per_mtok: price of a million input (prompt) tokens.
        output_per_mtok: price of a million output (completion) tokens.
        cache_read_per_mtok: price of a million input tokens read from the prompt cache; unset,
            the ``genai-prices`` table's price for the model, else ``input_per_mtok``.
        cache_write_per_mtok: price of a million input tokens written to the prompt cache; unset,
            the ``genai-prices`` table's price for the model (its one-hour price with
            ``cache_ttl = "1h"``), else ``input_per_mtok``.
    """

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)
    cache_read_per_mtok: float | None = Field(None, ge=0)
    cache_write_per_mtok: float | None = Field(None, ge=0)

    def cost(self, usage: Usage, table: CacheRates | None = None) -> float:
        """What ``usage`` costs at these prices, in USD.

        ``(input − cache_read − cache_write) × input + cache_read × cache_read + cache_write ×
        cache_write + output × output``, per million; a cache price not set here is ``table``'s,
        else the input price.
        """
        table = table or CacheRates()
        read = _first(self.cache_read_per_mtok, table.read, self.input_per_mtok)
        write = _first(self.cache_write_per_mtok, table.write, self.input_per_mtok)
        return (
            usage.uncached_input_tokens * self.input_per_mtok
            + usage.cache_read_input_tokens * read
            + usage.cache_write_input_tokens * write
            + usage.output_tokens * self.output_per_mtok
        ) / MTOK

    def prices_cache(self) -> bool:
        """Both cache prices are set here (the table is not needed)."""
        return self.cache_read_per_mtok is not None and self.cache_write_per_mtok is not None


def _first(*prices: float | None) -> float:
    return next(price for price in prices if price is not None)


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

    def long_cache_writes(self) -> bool:
        """Cache writes are kept an hour (billed at the one-hour write price); a kind with a TTL overrides."""
        return False


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
        base_url = settings.base_url if settings is not None else None
        long_writes = settings is not None and settings.long_cache_writes()
        if settings is not None and settings.prices is not None:
            prices = settings.prices
            cached = usage.cache_read_input_tokens or usage.cache_write_input_tokens
            table = (
                CacheRates()
                if prices.prices_cache() or not cached
                else table_cache_rates(model, kind, base_url, long_writes)
            )
            return prices.cost(usage, table)
        return table_cost(model, kind, base_url, usage, long_cache_writes=long_writes)

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


@lru_cache(maxsize=256)
def table_window(model: str, provider: str, base_url: str | None) -> int | None:
    """The context window ``genai-prices`` gives for the model, or None when it does not know it.

    Kept per model (the table does not change in a process): every run asks it, twice.
    """
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


def table_cost(
    model: str, provider: str, base_url: str | None, usage: Usage, *, long_cache_writes: bool = False
) -> float | None:
    """What ``genai-prices`` says one request of ``usage`` costs, or None when it does not know.

    A custom ``base_url`` is matched against the providers' API URLs instead of ``provider``. The
    cache reads and writes of ``usage`` are priced at the table's cache prices (its one-hour write
    price with ``long_cache_writes``); like ``Usage``, the table counts them inside the input.
    """
    if not model or not table_knows(model, provider, base_url):
        return None
    try:
        from genai_prices import Usage as PriceUsage

        counts = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
        if usage.cache_read_input_tokens:
            counts["cache_read_tokens"] = usage.cache_read_input_tokens
        if usage.cache_write_input_tokens:
            counts["cache_write_tokens"] = usage.cache_write_input_tokens
            if long_cache_writes:
                counts["cache_write_1h_tokens"] = usage.cache_write_input_tokens
        return float(_calc(PriceUsage(**counts), model, provider, base_url).total_price)
    except Exception:  # unknown model, provider or endpoint (LookupError), or a broken table
        return None


@lru_cache(maxsize=256)
def table_knows(model: str, provider: str, base_url: str | None) -> bool:
    """Whether ``genai-prices`` prices the model at all: an unknown one (a local server's) is not asked again."""
    try:
        from genai_prices import Usage as PriceUsage

        _calc(PriceUsage(input_tokens=1, output_tokens=1), model, provider, base_url)
    except Exception:  # unknown model, provider or endpoint (LookupError), or a broken table
        return False
    return True


@lru_cache(maxsize=256)
def table_cache_rates(model: str, provider: str, base_url: str | None, long_cache_writes: bool) -> CacheRates:
    """The table's cache prices for the model (USD per million; their first tier), for configured ``prices``.

    A price the table does not have (or a model it does not know) is None: priced as input.
    """
    if not model:
        return CacheRates()
    try:
        from genai_prices import Usage as PriceUsage

        prices = _calc(PriceUsage(input_tokens=1, output_tokens=1), model, provider, base_url).model_price
        write = getattr(prices, "cache_write_1h_mtok", None) if long_cache_writes else None
        return CacheRates(read=_rate(prices.cache_read_mtok), write=_rate(write or prices.cache_write_mtok))
    except Exception:  # unknown model, provider or endpoint, or a broken table
        return CacheRates()


def _calc(usage: Any, model: str, provider: str, base_url: str | None) -> Any:
    from genai_prices import calc_price

    if base_url:
        return calc_price(usage, model, provider_api_url=base_url)
    return calc_price(usage, model, provider_id=provider)


def _rate(price: Any) -> float | None:
    """A ``genai-prices`` price per million as a float: a flat ``Decimal``, or a tiered price's base."""
    if price is None:
        return None
    return float(getattr(price, "base", price))
