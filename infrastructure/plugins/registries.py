"""Registrars handed to registration hooks: they validate, attribute and de-duplicate."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel

from quorum.domain.errors import ConfigurationError
from quorum.domain.tools import ToolDefinition
from quorum.infrastructure.plugins.contracts import (
    ProviderFactory,
    ReviewerFactory,
    StoreFactory,
    ToolSourceFactory,
    describe,
)
from quorum.infrastructure.tools.functions.tool import ArgumentsFunction, Tool

if TYPE_CHECKING:  # click is imported by the CLI, not by plugin registration
    import click

T = TypeVar("T")

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class Registration:
    """One thing a plugin registered, for ``quorum plugins list``."""

    kind: str
    name: str
    plugin: str
    description: str = ""


@dataclass(frozen=True)
class Entry(Generic[T]):
    """A registered value and who registered it."""

    name: str
    value: T
    plugin: str
    description: str = ""
    settings: type[BaseModel] | None = None


class _Registry(Generic[T]):
    """Shared mechanics: names checked, duplicates refused, each entry attributed to its plugin."""

    kind = "thing"

    def __init__(self) -> None:
        self._entries: dict[str, Entry[T]] = {}
        self.current_plugin = "?"

    def _add(self, name: str, value: T, *, description: str = "", settings: type[BaseModel] | None = None) -> None:
        if not isinstance(name, str) or not _NAME.match(name):
            raise ConfigurationError(
                f"plugin {self.current_plugin!r} registered a {self.kind} with an invalid name {name!r} "
                "(letters, digits, '_', '-', '.'; starting with a letter)"
            )
        if name in self._entries:
            other = self._entries[name].plugin
            raise ConfigurationError(
                f"{self.kind} {name!r} is registered twice: by plugin {other!r} and by plugin {self.current_plugin!r}"
            )
        if settings is not None and not (isinstance(settings, type) and issubclass(settings, BaseModel)):
            raise ConfigurationError(f"{self.kind} {name!r}: settings must be a pydantic model class")
        self._entries[name] = Entry(name, value, self.current_plugin, description, settings)

    def get(self, name: str) -> Entry[T] | None:
        """The entry called ``name``, or None."""
        return self._entries.get(name)

    def names(self) -> list[str]:
        return list(self._entries)

    def entries(self) -> list[Entry[T]]:
        return list(self._entries.values())

    def registrations(self) -> list[Registration]:
        return [Registration(self.kind, e.name, e.plugin, e.description) for e in self._entries.values()]


def _require_callable(kind: str, name: str, factory: object) -> None:
    if not callable(factory):
        raise ConfigurationError(f"{kind} {name!r}: the factory must be callable, got {type(factory).__name__}")


class ProviderRegistry(_Registry[ProviderFactory]):
    """``add(kind, factory, settings=Model)``: a provider kind and the model validating its section."""

    kind = "provider"

    def add(
        self,
        kind: str,
        factory: ProviderFactory,
        *,
        settings: type[BaseModel] | None = None,
        description: str = "",
    ) -> None:
        _require_callable("provider", kind, factory)
        self._add(kind, factory, description=description or describe(factory), settings=settings)


ToolFunction = ArgumentsFunction
"""The ``add_tool(definition, function)`` form's function: it receives the arguments dict."""


@dataclass(frozen=True)
class FunctionTool:
    """A single tool a plugin registered with ``add_tool``, and which plugin that was."""

    tool: Tool[..., Any]
    plugin: str

    @property
    def definition(self) -> ToolDefinition:
        """The tool as the model sees it."""
        return self.tool.definition


class ToolRegistry(_Registry[ToolSourceFactory]):
    """``add_source(name, factory)`` for tool sources; ``add_tool(tool)`` for one ``@tool`` function."""

    kind = "tool source"

    def __init__(self) -> None:
        super().__init__()
        self.functions: dict[str, FunctionTool] = {}

    def add_source(self, name: str, factory: ToolSourceFactory, *, description: str = "") -> None:
        _require_callable("tool source", name, factory)
        self._add(name, factory, description=description or describe(factory))

    def add_tool(self, tool: Tool[..., Any] | ToolDefinition, function: ToolFunction | None = None, /) -> None:
        """Register one function tool.

        ``add_tool(weather)`` takes a function decorated with ``@tool``; the older
        ``add_tool(definition, function)`` a ``ToolDefinition`` and a function receiving the
        arguments dict.

        Raises:
            ConfigurationError: for anything else, or a tool name registered twice.
        """
        if isinstance(tool, Tool):
            if function is not None:
                raise ConfigurationError(
                    f"plugin {self.current_plugin!r}: add_tool({tool.name!r}, …) takes no function: "
                    "a @tool function is both the definition and the function"
                )
            entry = tool
        elif isinstance(tool, ToolDefinition):
            _require_callable("tool", tool.name, function)
            entry = Tool.from_definition(tool, function)  # type: ignore[arg-type]
        else:
            raise ConfigurationError(
                f"plugin {self.current_plugin!r}: add_tool needs a function decorated with @tool "
                f"(or a ToolDefinition and a function), got {type(tool).__name__}"
            )
        if entry.name in self.functions:
            other = self.functions[entry.name].plugin
            raise ConfigurationError(
                f"tool {entry.name!r} is registered twice: by plugin {other!r} and by plugin {self.current_plugin!r}"
            )
        self.functions[entry.name] = FunctionTool(entry, self.current_plugin)

    def registrations(self) -> list[Registration]:
        tools = [
            Registration("tool", f.definition.name, f.plugin, f.definition.description) for f in self.functions.values()
        ]
        return super().registrations() + tools


class ReviewerRegistry(_Registry[ReviewerFactory]):
    """``add(name, factory)``: a reviewer usable in the review pipeline."""

    kind = "reviewer"

    def add(self, name: str, factory: ReviewerFactory, *, description: str = "") -> None:
        _require_callable("reviewer", name, factory)
        self._add(name, factory, description=description or describe(factory))


class StoreRegistry(_Registry[StoreFactory]):
    """``add(name, factory)``: a run-log storage backend."""

    kind = "store"

    def add(self, name: str, factory: StoreFactory, *, description: str = "") -> None:
        _require_callable("store", name, factory)
        self._add(name, factory, description=description or describe(factory))


class ConfigSectionRegistry(_Registry[type[BaseModel]]):
    """``add(key, model)``: a top-level quorum.toml section owned by a plugin."""

    kind = "config section"

    def __init__(self, reserved: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self._reserved = reserved

    def add(self, key: str, model: type[BaseModel]) -> None:
        if key in self._reserved:
            raise ConfigurationError(
                f"plugin {self.current_plugin!r} declared config section [{key}], which Quorum owns"
            )
        # Sections are read back by their model (``settings.section(model)``): one key per model.
        other = next((entry for entry in self._entries.values() if entry.value is model), None)
        if other is not None and key not in self._entries:  # a key taken twice: _add names both plugins
            raise ConfigurationError(
                f"plugin {self.current_plugin!r} declared config section [{key}] with the model of "
                f"[{other.name}] (plugin {other.plugin!r}); each section needs its own model class"
            )
        self._add(key, model, settings=model, description=describe(model))


class CommandRegistry(_Registry["click.Command"]):
    """``add(command)``: a ``click.Command`` added to the ``quorum`` CLI."""

    kind = "command"

    def __init__(self, reserved: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self._reserved = reserved

    def add(self, command: click.Command) -> None:
        name = getattr(command, "name", None)
        if not name or not callable(getattr(command, "main", None)):
            raise ConfigurationError(f"plugin {self.current_plugin!r}: add() needs a click command")
        if name in self._reserved:
            raise ConfigurationError(f"plugin {self.current_plugin!r} tried to replace built-in command {name!r}")
        short_help = getattr(command, "get_short_help_str", None)
        self._add(name, command, description=short_help() if short_help is not None else "")
