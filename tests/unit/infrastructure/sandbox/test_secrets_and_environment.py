"""Which secrets Quorum knows, and the environments children get."""

from __future__ import annotations

from pydantic import SecretStr

from quorum.infrastructure.config.loader import ProviderInstance
from quorum.infrastructure.config.schema import Settings
from quorum.infrastructure.mcp.settings import McpServerSettings, McpSettings
from quorum.infrastructure.providers.anthropic.settings import AnthropicSettings
from quorum.infrastructure.providers.openai.settings import OpenAISettings
from quorum.infrastructure.sandbox.environment import SANDBOX_HOME, SANDBOX_PATH, host_environment, minimal_environment
from quorum.infrastructure.secrets import SecretsSettings, collect_secrets
from quorum.infrastructure.tools.settings import CommandEnvSettings
from tests.support.config import settings_with

ENV = {
    "PATH": "/host/bin",
    "HOME": "/home/me",
    "LANG": "C.UTF-8",
    "LC_ALL": "C",
    "TERM": "xterm",
    "OPENAI_API_KEY": "sk-env-openai-1234",
    "ANTHROPIC_API_KEY": "sk-env-anthropic-1234",
    "MY_KEY": "sk-custom-variable-1234",
    "GITHUB_TOKEN": "ghp-token-123456",
    "DB_TOKEN": "db-token-from-env-99",
    "COPY_OF_KEY": "sk-config-key-5678",
    "EDITOR": "vi",
}


def settings() -> Settings:
    return settings_with(
        McpSettings(
            servers={"db": McpServerSettings(command="db", env={"PASS": "literal-pass-1", "TOK": "${DB_TOKEN}"})}
        ),
        SecretsSettings(redact_env=["GITHUB_TOKEN"]),
        providers={
            "openai": ProviderInstance("openai", "openai", OpenAISettings(api_key=SecretStr("sk-config-key-5678"))),
            "work": ProviderInstance(
                "work", "openai", OpenAISettings(api_key_env="MY_KEY", headers={"X-Org": "org-secret-header"})
            ),
        },
    )


def test_every_kind_of_secret_is_collected_with_its_name() -> None:
    known = collect_secrets(settings(), ENV, [OpenAISettings, AnthropicSettings])
    found = {s.name: s.value for s in known.secrets}
    assert found == {
        "providers.openai.api_key": "sk-config-key-5678",
        "providers.work.headers.X-Org": "org-secret-header",
        "mcp.servers.db.env.PASS": "literal-pass-1",
        "mcp.servers.db.env.TOK": "db-token-from-env-99",
        "ANTHROPIC_API_KEY": "sk-env-anthropic-1234",
        "DB_TOKEN": "db-token-from-env-99",
        "GITHUB_TOKEN": "ghp-token-123456",
        "MY_KEY": "sk-custom-variable-1234",
        "OPENAI_API_KEY": "sk-env-openai-1234",
    }
    redactor = known.redactor()
    assert redactor.text("sk-config-key-5678") == "[REDACTED:providers.openai.api_key]"


def test_approved_commands_get_the_environment_minus_every_secret() -> None:
    known = collect_secrets(settings(), ENV, [OpenAISettings, AnthropicSettings])
    env = host_environment(ENV, CommandEnvSettings(), known)
    assert env == {
        "PATH": "/host/bin",
        "HOME": "/home/me",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "TERM": "xterm",
        "EDITOR": "vi",
    }
    passed = host_environment(
        ENV, CommandEnvSettings.model_validate({"pass": ["GITHUB_TOKEN"], "set": {"A": "1"}}), known
    )
    assert passed["GITHUB_TOKEN"] == "ghp-token-123456" and passed["A"] == "1"


def test_sandboxed_commands_get_a_fixed_minimal_environment() -> None:
    env = minimal_environment(ENV, CommandEnvSettings(), path=SANDBOX_PATH, home=SANDBOX_HOME)
    assert env == {"PATH": SANDBOX_PATH, "HOME": SANDBOX_HOME, "LANG": "C.UTF-8", "LC_ALL": "C", "TERM": "xterm"}
