"""Reviewer models on the panel resolved at start, through the real gateway and provider plugins."""

from __future__ import annotations

from pathlib import Path

from quorum.infrastructure.plugins.manager import PluginCatalog
from quorum.infrastructure.providers.gateway import PluginLlmGateway
from quorum.infrastructure.review.panel_check import check_panel
from quorum.infrastructure.review.settings import ReviewSettings
from tests.integration.review.conftest import model


def problems(catalog: PluginCatalog, gateway: PluginLlmGateway, *reviewers: str) -> dict[str, str]:
    found = check_panel(ReviewSettings(reviewers=list(reviewers)), catalog.reviewers, gateway)
    assert all(p.origin_key == "review.reviewers" for p in found)
    return {p.key: p.message for p in found}


def test_offline_reviewers_and_keyed_providers_pass(catalog: PluginCatalog, script: str) -> None:
    keyed = PluginLlmGateway(registry=catalog.providers, instances={}, env={"OPENAI_API_KEY": "sk-test"})
    # opening an OpenAI session makes no request: the client is made on the first one
    assert problems(catalog, keyed, "test", model(script, "approve"), "openai:gpt-4.1-mini") == {}


def test_unknown_provider_missing_key_and_missing_script_are_named(
    catalog: PluginCatalog, gateway: PluginLlmGateway, tmp_path: Path
) -> None:
    missing = tmp_path / "nope.toml"
    found = problems(
        catalog, gateway, "test", "nosuchprovider:model", "anthropic:claude-haiku-4-5", f"scripted:{missing}"
    )
    assert set(found) == {"review.reviewers[1]", "review.reviewers[2]", "review.reviewers[3]"}
    assert found["review.reviewers[1]"].startswith(
        "reviewer 'nosuchprovider:model' cannot be used: unknown provider 'nosuchprovider'"
    )
    assert found["review.reviewers[2]"].startswith(
        "reviewer 'anthropic:claude-haiku-4-5' cannot be used: no API key for provider 'anthropic': "
        "set the environment variable ANTHROPIC_API_KEY"
    )
    assert "cannot read script" in found["review.reviewers[3]"]


def test_plugin_reviewers_are_left_to_their_plugin(catalog: PluginCatalog, gateway: PluginLlmGateway) -> None:
    # "human" is registered by the built-in review plugin; seating it is refused when the panel is built
    assert problems(catalog, gateway, "human") == {}


def test_a_seat_fallback_that_cannot_be_opened_is_named(catalog: PluginCatalog, gateway: PluginLlmGateway) -> None:
    review = ReviewSettings.model_validate(
        {"reviewers": ["test", {"model": "openai:gpt-4.1-mini", "fallback": "nosuchprovider:model"}]}
    )
    keyed = PluginLlmGateway(registry=catalog.providers, instances={}, env={"OPENAI_API_KEY": "sk-test"})
    found = {p.key: p.message for p in check_panel(review, catalog.reviewers, keyed)}
    assert list(found) == ["review.reviewers[1]"]
    assert found["review.reviewers[1]"].startswith("fallback 'nosuchprovider:model' cannot be used: unknown provider")
    assert review.names() == ["test", "openai:gpt-4.1-mini"]


def test_a_seat_table_needs_model_ids() -> None:
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="fallback 'spare': expected 'provider:model'"):
        ReviewSettings.model_validate({"reviewers": [{"model": "openai:gpt-4.1", "fallback": "spare"}]})
    with pytest.raises(ValidationError, match="reviewer model 'my_plugin': expected 'provider:model'"):
        ReviewSettings.model_validate({"reviewers": [{"model": "my_plugin", "fallback": "openai:gpt-4.1"}]})
