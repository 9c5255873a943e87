"""Reading the configuration layers into plain dicts, remembering where each value came from."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quorum.domain.errors import ConfigurationError

ENV_PREFIX = "QUORUM_"
ENV_NOT_CONFIG = frozenset({"QUORUM_DISABLE_PLUGIN_AUTOLOAD", "QUORUM_CONFIG", "QUORUM_DB", "QUORUM_TRACE_PLUGINS"})
"""QUORUM_* variables that are switches, not config keys (QUORUM_DB is mapped to storage.path)."""


@dataclass
class Layer:
    """One source of configuration: its label (shown in errors and ``config show``) and data."""

    label: str
    data: dict[str, Any] = field(default_factory=dict)


def read_toml(path: Path, label: str | None = None) -> Layer:
    """Parse a TOML file into a layer.

    Raises:
        ConfigurationError: the file is missing, unreadable or not valid TOML (with line/column).
    """
    name = label or str(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigurationError("file not found", source=name) from None
    except OSError as error:
        raise ConfigurationError(f"cannot read: {error.strerror}", source=name) from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigurationError("not UTF-8 text", source=name) from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigurationError(f"invalid TOML: {error}", source=name) from None
    return Layer(name, data)


def env_layer(env: Mapping[str, str]) -> Layer:
    """``QUORUM_MODEL`` → ``model``; ``QUORUM_AGENT__MAX_TOOL_TURNS`` → ``agent.max_tool_turns``.

    Values that look like JSON arrays or objects are parsed as JSON; the schema coerces the rest.
    ``QUORUM_DB`` sets ``storage.path``.
    """
    data: dict[str, Any] = {}
    for name in sorted(env):
        if not name.startswith(ENV_PREFIX) or name in ENV_NOT_CONFIG:
            continue
        parts = [p.lower() for p in name[len(ENV_PREFIX) :].split("__") if p]
        if not parts:
            continue
        value: Any = env[name]
        if value[:1] in "[{":
            try:
                value = json.loads(value)
            except ValueError:
                raise ConfigurationError("value is not valid JSON", source="environment", key=name) from None
        set_path(data, parts, value)
    if env.get("QUORUM_DB"):
        set_path(data, ["storage", "path"], env["QUORUM_DB"])
    return Layer("environment", data)


def set_path(data: dict[str, Any], parts: list[str], value: Any) -> None:
    """Set ``data[p0][p1]… = value``, creating tables on the way."""
    node = data
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value


def merge(layers: list[Layer]) -> tuple[dict[str, Any], dict[str, str]]:
    """Deep-merge layers, later wins; returns the data and ``{"a.b.c": label}`` for every leaf.

    Tables merge key by key; any other value (arrays included) replaces the earlier one.
    """
    merged: dict[str, Any] = {}
    origins: dict[str, str] = {}

    def walk(target: dict[str, Any], source: Mapping[str, Any], prefix: str, label: str) -> None:
        for key, value in source.items():
            path = f"{prefix}{key}"
            if isinstance(value, Mapping) and isinstance(target.get(key), dict):
                walk(target[key], value, path + ".", label)
            elif isinstance(value, Mapping):
                target[key] = {}
                for stale in [p for p in origins if p == path or p.startswith(path + ".")]:
                    del origins[stale]
                walk(target[key], value, path + ".", label)
            else:
                target[key] = value
                for stale in [p for p in origins if p.startswith(path + ".")]:
                    del origins[stale]
                origins[path] = label

    for layer in layers:
        walk(merged, layer.data, "", layer.label)
    return merged, origins


def origin_of(origins: Mapping[str, str], path: str) -> str | None:
    """The layer that set ``path`` or the nearest key under it (for error messages)."""
    if path in origins:
        return origins[path]
    for key, label in origins.items():
        if key.startswith(path + "."):
            return label
    parts = path.split(".")
    while parts:
        parts.pop()
        candidate = ".".join(parts)
        if candidate in origins:
            return origins[candidate]
    return None
