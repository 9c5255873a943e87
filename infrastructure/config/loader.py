"""The one configuration loader: layers → merged dict → validated Settings (with plugin sections)."""

from __future__ import annotations

import copy
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from quorum.domain.errors import ConfigurationError
from quorum.infrastructure.config.errors import did_you_mean, fields_at, raise_validation, validation_lines
from quorum.infrastructure.config.layers import (
    STRICT_ENV,
    Layer,
    drop_path,
    env_layer,
    merge,
    origin_of,
    read_toml,
)
from quorum.infrastructure.config.schema import CORE_KEYS, Settings
from quorum.infrastructure.config.sections import PluginsSettings
from quorum.infrastructure.config.trust import Finding, added_to, without_restricted
from quorum.infrastructure.config.workspace import CONFIG_NAME, WorkspaceFiles, find_workspace

LOCAL_CONFIG = CONFIG_NAME

TrustCheck = Callable[[Path, Sequence[Path]], bool]
"""Whether a workspace directory is trusted with these configuration files as they are now."""


@dataclass(frozen=True)
class ProviderInstance:
    """One ``[providers.NAME]`` section: its provider kind and its validated settings."""

    name: str
    kind: str
    settings: BaseModel | None


@dataclass(frozen=True)
class RawConfig:
    """Merged configuration data before validation, with the origin of every value.

    ``not_config`` lists the ``QUORUM_*`` variables already known not to be configuration keys
    (left out of ``data``); ``env_variables`` maps the others to the key path each set, so the
    ones naming no section at all can be told apart once plugin sections are known.
    """

    data: dict[str, Any]
    origins: dict[str, str]
    files: tuple[str, ...]
    not_config: tuple[str, ...] = ()
    env_variables: dict[str, tuple[str, ...]] = field(default_factory=dict)
    strict_env: bool = False
    layers: tuple[Layer, ...] = ()
    """The layers merged into ``data``, later wins (to merge again without some variables)."""
    untrusted: tuple[Finding, ...] = ()
    """Keys of an untrusted workspace's files left out (see ``quorum.infrastructure.config.trust``)."""
    workspace: Path | None = None
    """The directory whose configuration files were read (what ``quorum trust`` would trust)."""

    def source_of(self, path: str) -> str | None:
        return origin_of(self.origins, path)


def collect_layers(
    *,
    cwd: Path,
    env: Mapping[str, str],
    user_config_dir: Path | None,
    config_path: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    trusted: TrustCheck | None = None,
) -> RawConfig:
    """Read every layer, later wins: user config → workspace files → --config → QUORUM_* → flags.

    Built-in defaults are the schema's defaults. ``QUORUM_CONFIG`` stands in for ``--config``.
    The workspace's files (``workspace_files``: ``quorum.toml`` of the repository root down to
    ``cwd``, the nearer winning) come with the repository: unless ``trusted``
    says the workspace is trusted with them, their restricted keys are left out (listed in
    ``RawConfig.untrusted``). ``trusted`` None trusts them (callers that chose the files).
    """
    layers: list[Layer] = []
    # exists(), not is_file(): a directory or FIFO where a config file should be is an error,
    # never silently skipped.
    if user_config_dir is not None and (user_config_dir / LOCAL_CONFIG).exists():
        layers.append(read_toml(user_config_dir / LOCAL_CONFIG))
    explicit = config_path or (Path(env["QUORUM_CONFIG"]) if env.get("QUORUM_CONFIG") else None)
    workspace = workspace_layout(cwd, explicit, user_config_dir)
    untrusted: list[Finding] = []
    restrict = bool(workspace.files) and trusted is not None and not trusted(cwd, workspace.files)
    for path in workspace.configs:
        layer = read_toml(path, _label(path, workspace.directory))
        if restrict:
            layer.data, found = without_restricted(layer.data, path.parent)
            layer.data = added_to(layer.data, merge(layers)[0])
            untrusted += found
        layers.append(layer)
    if explicit is not None:
        layers.append(read_toml(explicit, str(explicit)))
    environment = env_layer(env)
    not_config = sorted(name for name, parts in environment.variables.items() if _core_key(parts) is False)
    for name in not_config:  # before merging, so nothing (not even [plugins]) reads them
        drop_path(environment.data, environment.variables.pop(name))
    layers.append(environment)
    if overrides:
        layers.append(Layer("command line", dict(overrides)))
    data, origins = merge(layers)
    files = tuple(layer.label for layer in layers if layer.label not in ("environment", "command line"))
    strict = env.get(STRICT_ENV, "").strip().lower() in ("1", "true", "yes", "on")
    return RawConfig(
        data,
        origins,
        files,
        tuple(not_config),
        environment.variables,
        strict,
        tuple(layers),
        tuple(untrusted),
        cwd,
    )


def workspace_files(cwd: Path, explicit: Path | None = None, user_config_dir: Path | None = None) -> list[Path]:
    """Every file the workspace ``cwd`` brings, in the order trust fingerprints them (``workspace_layout``)."""
    return workspace_layout(cwd, explicit, user_config_dir).files


def workspace_layout(cwd: Path, explicit: Path | None = None, user_config_dir: Path | None = None) -> WorkspaceFiles:
    """The files the workspace ``cwd`` brings: the one place that says which.

    Its ``quorum.toml`` and its parents' up to the repository root (``configs``), and the files
    under their ``.quorum/`` (``others``); never ``explicit`` nor the user's config file (the
    person's own choices). These are the files trust is about: ``collect_layers`` and
    ``quorum trust`` both ask here.
    """
    user_file = user_config_dir / LOCAL_CONFIG if user_config_dir is not None else None
    return find_workspace(cwd, (explicit, user_file))


def _label(path: Path, directory: Path) -> str:
    """How a workspace file is named in errors and ``config show``: ``quorum.toml`` here, a parent's by its path."""
    return LOCAL_CONFIG if path.parent == directory else str(path)


def _core_key(parts: tuple[str, ...]) -> bool | None:
    """Whether ``parts`` is a key of Quorum's own schema; None when a plugin section may own it."""
    if parts[0] not in CORE_KEYS:
        return None
    if parts[0] == "providers":
        return True  # any name; each provider kind validates its own keys
    known = fields_at(Settings, parts[:-1])
    return not known or parts[-1] in known


def _section_key(parts: tuple[str, ...], model: type[BaseModel]) -> bool:
    """Whether ``parts`` (starting with the section's own key) is a key of the section ``model``."""
    if len(parts) == 1:
        return True
    known = fields_at(model, parts[1:-1])
    return not known or parts[-1] in known


def _without_section_non_keys(raw: RawConfig, sections: Mapping[str, type[BaseModel]]) -> RawConfig:
    """``raw`` without the ``QUORUM_*`` variables that name no key of the plugin section they address.

    Those are not configuration keys (as a variable naming no key of the core schema is not);
    known only once plugins declared their sections, so the layers are merged again without them.
    """
    dropped = [
        name
        for name, parts in raw.env_variables.items()
        if parts[0] in sections and not _section_key(parts, sections[parts[0]])
    ]
    if not dropped:
        return raw
    variables = {name: parts for name, parts in raw.env_variables.items() if name not in dropped}
    layers = []
    for layer in raw.layers:
        if layer.label == "environment":
            layer = Layer(layer.label, copy.deepcopy(layer.data), dict(variables))
            for name in dropped:
                drop_path(layer.data, raw.env_variables[name])
        layers.append(layer)
    data, origins = merge(layers)
    not_config = tuple(sorted((*raw.not_config, *dropped)))
    return replace(
        raw, data=data, origins=origins, not_config=not_config, env_variables=variables, layers=tuple(layers)
    )


def _ignore_env(raw: RawConfig, data: dict[str, Any], sections: Mapping[str, Any], warn: Callable[[str], None]) -> None:
    """Leave out ``QUORUM_*`` variables that are not configuration keys: warn, or fail when strict.

    Raises:
        ConfigurationError: ``QUORUM_STRICT_ENV`` is set and a variable is not a configuration key.
    """
    ignored = list(raw.not_config)
    for name, parts in raw.env_variables.items():
        top = parts[0]
        only_env = all(label == "environment" for path, label in raw.origins.items() if path.split(".")[0] == top)
        if top not in CORE_KEYS and top not in sections and only_env:
            ignored.append(name)
            data.pop(top, None)
    if ignored and raw.strict_env:
        names = ", ".join(sorted(ignored))
        raise ConfigurationError(f"{names}: not a configuration key ({STRICT_ENV} is set)", source="environment")
    for name in sorted(ignored):
        warn(f"ignoring {name}: not a configuration key")


def untrusted_warning(raw: RawConfig) -> str:
    """The one warning naming the keys an untrusted workspace's files set, and how to trust it."""
    keys = ", ".join(dict.fromkeys(_shown(finding.path) for finding in raw.untrusted))
    where = _shown(shlex.quote(str(raw.workspace))) if raw.workspace is not None else "DIR"
    return (
        f"ignoring {LOCAL_CONFIG} keys of an untrusted workspace (they run programs, loosen review "
        f"or send data elsewhere): {keys}; to use them, review them with `quorum trust {where}`"
    )


def _shown(text: str) -> str:
    """``text``, escaped when it holds a character a terminal obeys.

    ``str.isprintable`` is False for escape sequences and bidi controls alike; key names come from
    the repository.
    """
    return text if text.isprintable() else ascii(text)


def _stderr_warning(message: str) -> None:
    print(f"quorum: warning: {message}", file=sys.stderr, flush=True)


def blocked_plugins(raw: RawConfig) -> list[str]:
    """``[plugins] blocked``, validated on its own: it is needed before plugins load."""
    section = raw.data.get("plugins", {})
    try:
        return PluginsSettings.model_validate(section).blocked
    except ValidationError as error:
        raise_validation(error, PluginsSettings, prefix=("plugins",), source_of=raw.source_of)


def validate(
    raw: RawConfig,
    *,
    provider_models: Mapping[str, type[BaseModel] | None],
    section_models: Mapping[str, type[BaseModel]],
    warn: Callable[[str], None] = _stderr_warning,
) -> Settings:
    """Validate the merged data against the core schema, provider kinds and plugin sections.

    Args:
        raw: merged layers.
        provider_models: registered provider kinds → their settings model (None: no settings).
        section_models: plugin-declared top-level sections → their model.
        warn: receives one message per ``QUORUM_*`` variable ignored as not a configuration key.

    Raises:
        ConfigurationError: every problem, one per line, as ``file: key.path: message``.
    """
    raw = _without_section_non_keys(raw, section_models)
    data = dict(raw.data)
    _ignore_env(raw, data, section_models, warn)
    if raw.untrusted:
        warn(untrusted_warning(raw))
    for key in data:
        if key not in CORE_KEYS and key not in section_models:
            known = sorted(CORE_KEYS | set(section_models))
            hint = did_you_mean(key, known) or f" (known sections: {', '.join(known)})"
            source = raw.source_of(key)
            raise ConfigurationError(f"unknown key{hint}", source=source, key=key)
    providers = {}
    sections = data.pop("providers", {})
    if not isinstance(sections, Mapping):
        raise ConfigurationError(
            "expected a table of [providers.NAME] sections",
            source=raw.source_of("providers"),
            key="providers",
        )
    for name, section in sections.items():
        providers[name] = _provider_instance(raw, name, section, provider_models)

    problems: list[str] = []
    extensions = _sections(raw, data, section_models, problems)
    try:
        core: Settings | None = Settings.model_validate(data)
    except ValidationError as error:
        core = None
        problems[:0] = validation_lines(error, Settings, source_of=raw.source_of)
    if core is None or problems:
        raise ConfigurationError("\n".join(problems))
    return core.model_copy(update={"providers": providers, "extensions": extensions})


def _sections(
    raw: RawConfig, data: dict[str, Any], section_models: Mapping[str, type[BaseModel]], problems: list[str]
) -> dict[str, BaseModel]:
    """Each plugin section validated by its model and taken out of ``data``; problems go to ``problems``.

    An absent section reads as its defaults when its model has no required key, so ``config show``
    lists it as it lists the core sections.
    """
    sections: dict[str, BaseModel] = {}
    for key, model in section_models.items():
        if key not in data and any(field.is_required() for field in model.model_fields.values()):
            continue
        try:
            sections[key] = model.model_validate(data.pop(key, {}))
        except ValidationError as error:
            problems += validation_lines(error, model, prefix=(key,), source_of=raw.source_of)
    return sections


def default_provider(name: str, provider_models: Mapping[str, type[BaseModel] | None]) -> ProviderInstance:
    """The instance used for ``NAME:model`` when quorum.toml has no ``[providers.NAME]``."""
    model = provider_models[name]
    return ProviderInstance(name, name, model.model_validate({}) if model else None)


def _provider_instance(
    raw: RawConfig, name: str, section: Any, provider_models: Mapping[str, type[BaseModel] | None]
) -> ProviderInstance:
    path = f"providers.{name}"
    if not isinstance(section, Mapping):
        raise ConfigurationError("expected a table", source=raw.source_of(path), key=path)
    body = dict(section)
    kind = body.pop("type", name)
    if kind not in provider_models:
        known = ", ".join(sorted(provider_models)) or "(none)"
        where = f"{path}.type" if "type" in section else path
        raise ConfigurationError(
            f"unknown provider type {kind!r}; installed provider types: {known} "
            f'(set type = "openai" for an OpenAI-compatible server)',
            source=raw.source_of(where),
            key=where,
        )
    model = provider_models[kind]
    if model is None:
        if body:
            raise ConfigurationError(f"provider type {kind!r} takes no settings", source=raw.source_of(path), key=path)
        return ProviderInstance(name, kind, None)
    try:
        return ProviderInstance(name, kind, model.model_validate(body))
    except ValidationError as error:
        raise_validation(error, model, prefix=("providers", name), source_of=raw.source_of)
