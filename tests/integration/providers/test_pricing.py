"""Token prices: the genai-prices table for models it knows, ``[providers.NAME] prices`` otherwise."""

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
from quorum.infrastructure.providers.openai.settings import OpenAISettings

USAGE = Usage(input_tokens=12_000, output_tokens=3_000)


def test_a_model_the_table_knows_is_priced_from_genai_prices() -> None:
    usage = PriceUsage(input_tokens=12_000, output_tokens=3_000)
    expected = float(calc_price(usage, "gpt-4o", provider_id="openai").total_price)
    assert expected > 0
    assert ProviderPrices({}).cost("openai:gpt-4o", USAGE) == pytest.approx(expected)
    configured = ProviderInstance("openai", "openai", OpenAISettings())
    assert ProviderPrices({"openai": configured}).cost("openai:gpt-4o", USAGE) == pytest.approx(expected)


def test_prices_set_a_custom_instance_and_override_the_table() -> None:
    prices = TokenPrices(input_per_mtok=0.5, output_per_mtok=2.0)
    local = ProviderInstance("local", "openai", OpenAISettings(base_url="http://localhost:11434/v1", prices=prices))
    openai = ProviderInstance("openai", "openai", OpenAISettings(prices=prices))
    table = ProviderPrices({"local": local, "openai": openai})
    assert table.cost("local:llama3.1", USAGE) == pytest.approx((12_000 * 0.5 + 3_000 * 2.0) / 1e6)
    assert table.cost("openai:gpt-4o", USAGE) == pytest.approx((12_000 * 0.5 + 3_000 * 2.0) / 1e6)


@pytest.mark.parametrize("model_id", ["openai:no-such-model-xyz", "local:llama3.1", "scripted:demo", "test", "nope:x"])
def test_unknown_prices_are_none(model_id: str) -> None:
    local = ProviderInstance("local", "openai", OpenAISettings(base_url="http://localhost:11434/v1"))
    assert ProviderPrices({"local": local}).cost(model_id, USAGE) is None


def test_the_container_prices_from_the_providers_prices_key(tmp_path: Path) -> None:
    config = tmp_path / "quorum.toml"
    config.write_text(
        '[providers.local]\ntype = "openai"\nbase_url = "http://localhost:8080/v1"\n'
        "prices = { input_per_mtok = 1.0, output_per_mtok = 4.0 }\n"
    )
    container = build_container(AppOptions(config_path=config), env={}, config_dir=None)
    assert container.prices().cost("local:m", USAGE) == pytest.approx((12_000 + 3_000 * 4.0) / 1e6)


def test_a_prices_table_with_an_unknown_key_names_it(tmp_path: Path) -> None:
    config = tmp_path / "quorum.toml"
    config.write_text('[providers.local]\ntype = "openai"\nprices = { input_per_mtok = 1.0, per_request = 2 }\n')
    with pytest.raises(ConfigurationError, match="prices"):
        build_container(AppOptions(config_path=config), env={}, config_dir=None).settings()
