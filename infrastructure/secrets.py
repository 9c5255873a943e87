"""The secrets Quorum knows, collected from the configuration and the environment.

Known: each provider's ``api_key`` and the variable its ``api_key_env`` names (and the default
variables of every provider kind, configured or not), provider and MCP ``headers`` values, MCP
``env`` values, the variables listed in ``[secrets] redact_env``, the keys stored with
``quorum keys set``, the MCP OAuth tokens stored with ``quorum mcp login``, the password of
``[storage] url``, and the OTLP export headers (``[telemetry] headers``, ``OTEL_EXPORTER_OTLP_*HEADERS``).
Their values are redacted from everything Quorum writes (see ``quorum.domain.secrets.Redactor``) and their variables are
removed from the environment of every child process.

The ``[secrets]`` section is declared by the built-in plugin ``quorum.secrets`` (``secrets_plugin``):
this module imports nothing of the plugin system, which imports it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, SecretStr

from quorum.domain.secrets import Redactor, Secret
from quorum.infrastructure.config.sections import Section

if TYPE_CHECKING:
    from quorum.infrastructure.config.schema import Settings

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class SecretsSettings(Section):
    """``[secrets]`` section.

    Attributes:
        redact_env: more environment variables whose values are secrets (e.g. ``GITHUB_TOKEN``):
            redacted from outputs, events and the run log, and kept from child processes.
    """

    redact_env: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class KnownSecrets:
    """Every secret Quorum knows.

    Attributes:
        secrets: named values (any length; the redactor itself ignores very short ones).
        env_names: environment variables holding secrets, set or not.
    """

    secrets: tuple[Secret, ...] = ()
    env_names: frozenset[str] = field(default_factory=frozenset)

    def redactor(self) -> Redactor:
        """A redactor over these secrets."""
        return Redactor(self.secrets)

    def scrub(self, environ: Mapping[str, str], *, keep: Iterable[str] = ()) -> dict[str, str]:
        """``environ`` without the secret variables, nor any variable whose value is a secret.

        ``keep`` names variables passed on deliberately (``[tools] command_env.pass``).
        """
        kept = set(keep)
        values = {s.value for s in self.secrets if s.value}
        return {
            name: value
            for name, value in environ.items()
            if name in kept or (name not in self.env_names and value not in values)
        }


def collect_secrets(
    settings: Settings,
    env: Mapping[str, str],
    provider_models: Iterable[type[BaseModel] | None] = (),
    stored_keys: Mapping[str, str] | None = None,
    stored_tokens: Mapping[str, str] | None = None,
) -> KnownSecrets:
    """The secrets of ``settings`` (the validated configuration) and ``env``.

    Args:
        settings: the whole configuration (``providers``, ``mcp``, ``secrets`` are read).
        env: the process environment as the container saw it.
        provider_models: settings models of every registered provider kind; the default of their
            ``api_key_env`` field counts even when the provider is not configured.
        stored_keys: keys stored with ``quorum keys set``, by provider instance name.
        stored_tokens: MCP OAuth tokens and client secrets, by ``mcp.NAME.FIELD``.
    """
    # Imported here: the plugin contracts import this module, and a run of the Python API should
    # not pay for the configuration loader and the MCP settings before it reads a configuration.
    from quorum.infrastructure.config.loader import ProviderInstance
    from quorum.infrastructure.mcp.settings import McpSettings
    from quorum.infrastructure.storage.settings import StorageSettings
    from quorum.infrastructure.telemetry.settings import HEADER_VARIABLES, TelemetrySettings, header_secrets

    found: list[Secret] = []
    names: set[str] = set()
    for model in provider_models:
        default = _field_default(model, "api_key_env")
        if isinstance(default, str):
            names.add(default)
    for name, instance in settings.providers.items():
        section = instance.settings if isinstance(instance, ProviderInstance) else instance
        if isinstance(section, BaseModel):
            found.extend(_model_secrets(section, f"providers.{name}", names))
    for server, server_settings in settings.section(McpSettings).servers.items():
        for table, values in (("env", server_settings.env), ("headers", server_settings.headers)):
            for key, value in values.items():
                found.append(Secret(f"mcp.servers.{server}.{table}.{key}", _expand(value, env)))
                names.update(_VAR.findall(value))
        secret = server_settings.auth.client_secret
        if secret:
            found.append(Secret(f"mcp.servers.{server}.auth.client_secret", _expand(secret, env)))
            names.update(_VAR.findall(secret))
    storage_secrets, storage_names = settings.section(StorageSettings).secret_values(env)  # [storage] url's password
    found.extend(Secret(name, value) for name, value in storage_secrets)
    names.update(storage_names)
    for name, value in header_secrets(settings.section(TelemetrySettings), env):  # OTLP export credentials
        found.append(Secret(name, _expand(value, env)))
        names.update(_VAR.findall(value))
    names.update(HEADER_VARIABLES)
    names.update(settings.section(SecretsSettings).redact_env)
    found.extend(Secret(f"keys.{name}", value) for name, value in sorted((stored_keys or {}).items()))
    found.extend(Secret(name, value) for name, value in sorted((stored_tokens or {}).items()))
    found.extend(Secret(name, env[name]) for name in sorted(names) if env.get(name))
    return KnownSecrets(tuple(found), frozenset(names))


def _model_secrets(section: BaseModel, where: str, names: set[str]) -> list[Secret]:
    found: list[Secret] = []
    for name, value in section.__dict__.items():
        if isinstance(value, SecretStr):
            found.append(Secret(f"{where}.{name}", value.get_secret_value()))
        elif name == "api_key_env" and isinstance(value, str):
            names.add(value)
        elif name == "headers" and isinstance(value, Mapping):
            found.extend(Secret(f"{where}.headers.{key}", str(item)) for key, item in value.items())
    return found


def _field_default(model: type[BaseModel] | None, name: str) -> Any:
    if model is None:
        return None
    info = model.model_fields.get(name)
    return None if info is None else info.default


def _expand(value: str, env: Mapping[str, str]) -> str:
    return _VAR.sub(lambda m: env.get(m.group(1), ""), value)
