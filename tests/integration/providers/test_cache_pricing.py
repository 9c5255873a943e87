"""Cache reads and writes priced apart: ``prices``' cache keys, else the genai-prices table, else as input."""

from __future__ import annotations

from pathlib import Path

import pytest
from genai_prices import Usage as PriceUsage
from genai_prices import calc_price

from quorum.composition.container import build_container
from quorum.composition.options import AppOptions
from quorum.domain.errors import ConfigurationError
from quorum.domain.responses import Usage
from quorum.infrastructure.config.loader import ProviderInstance
from quorum.infrastructure.pricing import ProviderPrices, TokenPrices
from quorum.infrastructure.providers.anthropic.settings import AnthropicSettings
from quorum.infrastructure.providers.openai.settings import OpenAISettings

CACHED = Usage(input_tokens=20_000, output_tokens=500, cache_read_input_tokens=15_000, cache_write_input_tokens=4_000)
"""1,000 tokens of plain input, 15,000 read from the cache, 4,000 written to it."""


def test_the_formula_prices_each_kind_of_token_at_its_own_price() -> None:
    prices = TokenPrices(input_per_mtok=3, output_per_mtok=15, cache_read_per_mtok=0.3, cache_write_per_mtok=3.75)

    expected = (1_000 * 3 + 15_000 * 0.3 + 4_000 * 3.75 + 500 * 15) / 1e6
    assert prices.cost(CACHED) == pytest.approx(expected, abs=1e-12)


def test_unset_cache_prices_come_from_the_table_for_a_model_it_knows() -> None:
    prices = TokenPrices(input_per_mtok=3, output_per_mtok=15)
    instance = ProviderInstance("claude", "anthropic", AnthropicSettings(prices=prices))

    cost = ProviderPrices({"claude": instance}).cost("claude:claude-sonnet-4-5", CACHED)

    table = calc_price(PriceUsage(input_tokens=1, output_tokens=1), "claude-sonnet-4-5", provider_id="anthropic")
    read, write = float(table.model_price.cache_read_mtok.base), float(table.model_price.cache_write_mtok.base)
    assert (read, write) == (0.3, 3.75)
    assert cost == pytest.approx((1_000 * 3 + 15_000 * read + 4_000 * write + 500 * 15) / 1e6, abs=1e-12)


def test_a_one_hour_cache_prices_writes_at_the_tables_one_hour_price() -> None:
    prices = TokenPrices(input_per_mtok=3, output_per_mtok=15)
    instance = ProviderInstance("claude", "anthropic", AnthropicSettings(prices=prices, cache_ttl="1h"))
    unpriced = ProviderInstance("bare", "anthropic", AnthropicSettings(cache_ttl="1h"))
    table = ProviderPrices({"claude": instance, "bare": unpriced})

    cost = table.cost("claude:claude-sonnet-4-5", CACHED)
    from_table = table.cost("bare:claude-sonnet-4-5", CACHED)

    assert cost == pytest.approx((1_000 * 3 + 15_000 * 0.3 + 4_000 * 6 + 500 * 15) / 1e6, abs=1e-12)
    assert from_table == pytest.approx(cost, abs=1e-12)  # the table's own input and output prices are the same


def test_cache_prices_unknown_to_the_table_are_the_input_price() -> None:
    prices = TokenPrices(input_per_mtok=1, output_per_mtok=2, cache_read_per_mtok=0.1)
    local = ProviderInstance("local", "openai", OpenAISettings(base_url="http://localhost:8080/v1", prices=prices))

    cost = ProviderPrices({"local": local}).cost("local:llama", CACHED)

    assert cost == pytest.approx((1_000 * 1 + 15_000 * 0.1 + 4_000 * 1 + 500 * 2) / 1e6, abs=1e-12)


def test_the_table_prices_cached_tokens_of_a_model_it_knows() -> None:
    usage = Usage(input_tokens=10_000, output_tokens=100, cache_read_input_tokens=8_000)
    expected = calc_price(
        PriceUsage(input_tokens=10_000, output_tokens=100, cache_read_tokens=8_000), "gpt-4.1", provider_id="openai"
    ).total_price

    cost = ProviderPrices({}).cost("openai:gpt-4.1", usage)

    assert cost == pytest.approx(float(expected))
    assert cost < ProviderPrices({}).cost("openai:gpt-4.1", Usage(input_tokens=10_000, output_tokens=100))


def test_the_container_reads_the_cache_keys(tmp_path: Path) -> None:
    config = tmp_path / "quorum.toml"
    config.write_text(
        '[providers.local]\ntype = "anthropic"\nbase_url = "http://localhost:8080"\ncache = "auto"\n'
        'cache_ttl = "1h"\nprices = { input_per_mtok = 1.0, output_per_mtok = 4.0, cache_read_per_mtok = 0.1,'
        " cache_write_per_mtok = 2.0 }\n"
    )
    container = build_container(AppOptions(config_path=config), env={}, config_dir=None)
    assert container.prices().cost("local:m", CACHED) == pytest.approx((1_000 + 1_500 + 8_000 + 2_000) / 1e6)


@pytest.mark.parametrize(
    "line",
    [
        'cache = "sometimes"',
        'cache_ttl = "2h"',
        "prices = { input_per_mtok = 1, output_per_mtok = 1, cache_read_per_mtok = -1 }",
    ],
)
def test_a_bad_cache_setting_names_its_key(tmp_path: Path, line: str) -> None:
    config = tmp_path / "quorum.toml"
    config.write_text(f'[providers.local]\ntype = "anthropic"\n{line}\n')
    with pytest.raises(ConfigurationError, match=line.split(" ")[0]):
        build_container(AppOptions(config_path=config), env={}, config_dir=None).settings()
