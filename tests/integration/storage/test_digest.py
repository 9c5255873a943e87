"""config_digest: stable for equal settings, blind to secrets, different for different settings."""

from __future__ import annotations

from quorum.infrastructure.config.schema import Settings
from quorum.infrastructure.providers.openai.settings import OpenAISettings
from quorum.infrastructure.storage.digest import config_digest


def test_equal_settings_give_equal_digests_and_keys_do_not_count() -> None:
    one = Settings(model="work:gpt", providers={"work": OpenAISettings(api_key="sk-fake-one")})
    two = Settings(model="work:gpt", providers={"work": OpenAISettings(api_key="sk-fake-two")})
    assert config_digest(one) == config_digest(two)
    assert config_digest(one).startswith("sha256:") and len(config_digest(one)) == 23
    assert "sk-fake" not in config_digest(one)


def test_different_settings_give_different_digests() -> None:
    assert config_digest(Settings(model="a:b")) != config_digest(Settings(model="a:c"))
