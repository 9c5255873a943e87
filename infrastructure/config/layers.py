"""Reading the configuration layers into plain dicts, remembering where each value came from."""

from __future__ import annotations

import json
import os
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quorum.domain.errors import ConfigurationError

ENV_PREFIX = "QUORUM_"
STRICT_ENV = "QUORUM_STRICT_ENV"
"""Set to 1: a QUORUM_* variable that is not a configuration key is an error, not a warning."""
ENV_NOT_CONFIG = frozenset(
    {
        "QUORUM_DISABLE_PLUGIN_AUTOLOAD",
        "QUORUM_CONFIG",
        "QUORUM_DB",
        "QUORUM_KEYS_BACKEND",
        "QUORUM_NO_BROWSER",
        "QUORUM_TRACE_PLUGINS",
        "QUORUM_TRUST_WORKSPACE",
        STRICT_ENV,
    }
)
"""QUORUM_* variables that are switches, not config keys (QUORUM_DB is mapped to storage.path)."""
MAX_FILE_BYTES = 10_000_000
"""A configuration file larger than this is refused (no reason to read a huge file whole)."""
MAX_TABLE_DEPTH = 32
"""Tables and arrays nested deeper than this are refused: merging and validation recurse."""
PATH_KEYS = (("tools", "workspace"), ("storage", "path"))
"""Keys holding paths, which in a file are relative to the file's directory."""


@dataclass
class Layer:
    """One source of configuration: its label (shown in errors and ``config show``) and data."""

    label: str
    data: dict[str, Any] = field(default_factory=dict)
    variables: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Environment layer only: each variable's name → the key path it set."""


def read_toml(path: Path, label: str | None = None) -> Layer:
    """Parse a TOML file into a layer; relative paths in it (``PATH_KEYS``) are made absolute from its directory.

    A UTF-8 byte-order mark is accepted.

    Raises:
        ConfigurationError: the file is missing, not a regular file, too large, unreadable, not
            valid TOML (with line/column) or nested too deeply.
    """
    name = label or str(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ConfigurationError("file not found", source=name) from None
    except OSError as error:
        raise ConfigurationError(f"cannot read: {error.strerror}", source=name) from None
    # Checked before opening: reading a FIFO would block for ever, a directory is no config.
    if not stat.S_ISREG(info.st_mode):
        raise ConfigurationError(f"not a regular file ({_file_kind(info.st_mode)})", source=name)
    if info.st_size > MAX_FILE_BYTES:
        raise ConfigurationError(f"too large ({info.st_size} bytes; the limit is {MAX_FILE_BYTES})", source=name)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ConfigurationError(f"cannot read: {error.strerror}", source=name) from None
    try:
        data = tomllib.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        raise ConfigurationError(f"not UTF-8 text (byte {error.start})", source=name) from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigurationError(f"invalid TOML: {error}", source=name) from None
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise ConfigurationError(f"nested too deeply (more than {MAX_TABLE_DEPTH} levels)", source=name) from None
    if _depth(data) > MAX_TABLE_DEPTH:
        raise ConfigurationError(f"nested too deeply (more than {MAX_TABLE_DEPTH} levels)", source=name)
    _resolve_paths(data, path.absolute().parent)
    return Layer(name, data)


def _file_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a file"


def _depth(value: Any) -> int:
    """How deeply tables and arrays nest, measured without recursion (stops past the limit)."""
    deepest, stack = 0, [(value, 0)]
    while stack and deepest <= MAX_TABLE_DEPTH:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is not None:
            deepest = max(deepest, depth + 1)
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _resolve_paths(data: dict[str, Any], base: Path) -> None:
    """Make each relative path of ``PATH_KEYS`` absolute from ``base`` (``~`` is left to expand later)."""
    for section, key in PATH_KEYS:
        table = data.get(section)
        value = table.get(key) if isinstance(table, dict) else None
        if isinstance(value, str) and value and not value.startswith("~") and not Path(value).is_absolute():
            table[key] = os.path.normpath(base / value)  # type: ignore[index]


def env_layer(env: Mapping[str, str]) -> Layer:
    """``QUORUM_MODEL`` → ``model``; ``QUORUM_AGENT__MAX_TOOL_TURNS`` → ``agent.max_tool_turns``.

    Values that look like JSON arrays or objects are parsed as JSON; the schema coerces the rest.
    ``QUORUM_DB`` sets ``storage.path``.
    """
    data: dict[str, Any] = {}
    variables: dict[str, tuple[str, ...]] = {}
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
            except (ValueError, RecursionError):
                raise ConfigurationError("value is not valid JSON", source="environment", key=name) from None
            if _depth(value) > MAX_TABLE_DEPTH:
                raise ConfigurationError("value nested too deeply", source="environment", key=name)
        variables[name] = tuple(parts)
        set_path(data, parts, value)
    if env.get("QUORUM_DB"):
        set_path(data, ["storage", "path"], env["QUORUM_DB"])
    return Layer("environment", data, variables)


def drop_path(data: dict[str, Any], parts: tuple[str, ...]) -> None:
    """Remove ``data[p0][p1]…`` and the tables left empty by it."""
    trail = []
    node: Any = data
    for part in parts[:-1]:
        if not isinstance(node, dict) or not isinstance(node.get(part), dict):
            return
        trail.append((node, part))
        node = node[part]
    node.pop(parts[-1], None)
    for parent, part in reversed(trail):
        if parent[part]:
            break
        del parent[part]


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
