"""``PluginToolExecutor``: one ``ToolExecutor`` over every registered tool source.

It lists each source's tools, applies the ``[tools]`` section (enabled/disabled globs, risk overrides,
output cap, images), routes each call to the source that listed the tool, and keeps going when a source
fails: the failure is recorded in ``problems`` and that source's tools are left out.

A tool a source lists that ``[tools]`` leaves out, or that a source knows but withholds
(``ToolSourceWithheld``: an MCP tool changed since its pin), is not offered; the listed spec says
why (``ToolSpec.withheld``), so a model calling it by name is told why and what the user can do.
"""

from __future__ import annotations

import asyncio
import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import cast

from quorum.application import model_wording as say
from quorum.application.ports.tool_executor import CallPrecheck
from quorum.domain.errors import QuorumError, RequiredToolSourceError
from quorum.domain.tools import Clearance, RiskAssessment, RiskLevel, ToolCall, ToolDefinition, ToolResult, ToolSpec
from quorum.infrastructure.plugins.contracts import (
    ToolSource,
    ToolSourceNotes,
    ToolSourceOrigins,
    ToolSourceProblems,
    ToolSourceWithheld,
)
from quorum.infrastructure.tools.builtin import BuiltinToolSource
from quorum.infrastructure.tools.images import apply_image_policy
from quorum.infrastructure.tools.output import cap_text
from quorum.infrastructure.tools.settings import ToolsSettings


@dataclass(frozen=True)
class ListedTool:
    """A tool as ``quorum tools list`` shows it: its definition and where it comes from.

    Attributes:
        definition: the tool with ``[tools] risk`` overrides applied.
        source: the name of the tool source that lists it (``builtin``, ``mcp``, ``functions``…).
        origin: finer origin when the source knows it (the MCP server, the plugin); else ``source``.
    """

    definition: ToolDefinition
    source: str
    origin: str


def _matches(name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def _override_pattern(name: str, risk: dict[str, RiskLevel]) -> str | None:
    """The ``[tools] risk`` key that applies to ``name``: an exact key, else the longest matching glob."""
    if name in risk:
        return name
    matching = [p for p in risk if fnmatch.fnmatchcase(name, p)]
    return max(matching, key=len) if matching else None


_DISABLED = (
    "it is disabled in this configuration ([tools] enabled/disabled); the user can enable it there for a later run"
)
"""Why a tool ``[tools]`` leaves out is not offered."""


@dataclass(frozen=True)
class _Optional:
    """Which optional protocols a source implements, checked once when the executor is made.

    ``isinstance`` against a runtime-checkable protocol walks the protocol's members each time;
    the sources of an executor do not change, so their answers are kept (they were asked on
    every listing, several times a run).
    """

    notes: bool
    problems: bool
    withheld: bool
    origins: bool
    precheck: bool

    @classmethod
    def of(cls, source: ToolSource) -> _Optional:
        return cls(
            notes=isinstance(source, ToolSourceNotes),
            problems=isinstance(source, ToolSourceProblems),
            withheld=isinstance(source, ToolSourceWithheld),
            origins=isinstance(source, ToolSourceOrigins),
            precheck=isinstance(source, CallPrecheck),
        )


def _withheld_by(source: ToolSource, implements: bool) -> Mapping[str, str]:
    """What ``source`` withholds and why (``ToolSourceWithheld``: ``implements``); nothing when it cannot say."""
    if not implements:
        return {}
    try:
        return dict(cast("ToolSourceWithheld", source).withheld_tools())
    except Exception:  # a plugin's bug: its tools are then only "unknown"
        return {}


class PluginToolExecutor:
    """Implements ``ToolExecutor`` over a list of ``ToolSource``s.

    Args:
        sources: the sources, in priority order: when two list the same tool name the first wins
            and the clash is recorded in ``problems``.
        settings: the ``[tools]`` section (defaults apply when omitted).

    ``problems`` collects human-readable messages about sources that failed to list, name clashes
    and sources that failed to close; the CLI shows them as warnings. Nothing here raises for a
    failing source.
    """

    def __init__(self, sources: Sequence[ToolSource], settings: ToolsSettings | None = None) -> None:
        self._sources = list(sources)
        self._optional = {id(source): _Optional.of(source) for source in self._sources}
        self._offered_names: dict[str, bool] = {}
        self._settings = settings or ToolsSettings()
        self._routes: dict[str, ToolSource] = {}
        self._listed: list[ListedTool] | None = None
        self._withheld: dict[str, str] = {}
        self._lock = asyncio.Lock()
        self.problems: list[str] = []

    async def list_tools(self) -> ToolSpec:
        listed = await self.listed_tools()
        return ToolSpec((t.definition for t in listed), withheld=self._withheld)

    async def listed_tools(self) -> list[ListedTool]:
        """Every offered tool with its source, for listings. Lists each source again (sources cache)."""
        async with self._lock:
            results = await asyncio.gather(*(self._list_source(s) for s in self._sources), return_exceptions=False)
            listed: list[ListedTool] = []
            routes: dict[str, ToolSource] = {}
            withheld: dict[str, str] = {}
            for source, definitions in zip(self._sources, results, strict=True):
                optional = self._optional[id(source)]
                withheld.update(_withheld_by(source, optional.withheld))
                for definition in definitions:
                    if not self._offered(definition.name):
                        withheld[definition.name] = _DISABLED
                        continue
                    if definition.name in routes:
                        self._note(
                            f"tool {definition.name!r} from source {source.name!r} is hidden: "
                            f"source {routes[definition.name].name!r} already offers a tool of that name"
                        )
                        continue
                    routes[definition.name] = source
                    listed.append(
                        ListedTool(
                            self._with_override(definition),
                            source.name,
                            _origin(source, definition.name, optional.origins),
                        )
                    )
            self._routes = routes
            self._listed = listed
            self._withheld = {name: why for name, why in withheld.items() if name not in routes}
            return list(listed)

    def assess_risk(self, call: ToolCall, tool: ToolDefinition) -> RiskAssessment:
        pattern = _override_pattern(call.name, self._settings.risk)
        if pattern is not None:
            level = self._settings.risk[pattern]
            return RiskAssessment(level=level, reason=f"[tools] risk override {pattern!r} = {level.value!r}")
        source = self._routes.get(call.name)
        if source is None:
            return RiskAssessment(level=tool.risk, reason="declared risk of the tool")
        try:
            risk = source.assess_risk(call, tool)
        except Exception as error:  # a plugin's bug must not crash the run; fail towards review
            return RiskAssessment(level=RiskLevel.HIGH, reason=f"risk assessment failed ({type(error).__name__})")
        if risk.confined and not isinstance(source, BuiltinToolSource):
            # Only the built-in tools know their effect is confined and checkpointed: a plugin or an
            # MCP server saying so would be approved unasked under ``reversible = "auto"``.
            return risk.model_copy(update={"confined": False})
        return risk

    def precheck(self, call: ToolCall) -> str | None:
        """Why the call's source would refuse it (``CallPrecheck``), asked before review; None to go on."""
        source = self._routes.get(call.name)
        if source is None or not self._optional[id(source)].precheck:
            return None
        try:
            return cast("CallPrecheck", source).precheck(call)
        except Exception:  # a source's bug: the call goes on to review and the source's own checks
            return None

    async def execute(self, call: ToolCall, *, clearance: Clearance = Clearance.UNREVIEWED) -> ToolResult:
        if self._listed is None:
            await self.listed_tools()
        source = self._routes.get(call.name)
        if source is None:
            why = self._withheld.get(call.name)
            if why is not None:  # withdrawn mid-run (an MCP tool changed): say why
                return ToolResult(output=say.withheld_tool(call.name, why), is_error=True)
            return ToolResult(output=f"unknown tool {call.name!r}: it is not offered in this run", is_error=True)
        try:
            outcome = await source.execute(call, clearance=clearance)
        except QuorumError as error:
            outcome = ToolResult(output=str(error), is_error=True)
        except Exception as error:
            outcome = ToolResult(output=say.tool_failed(call.name, error), is_error=True)
        if not isinstance(outcome, ToolResult):
            outcome = ToolResult(output=str(outcome))
        outcome = apply_image_policy(outcome, self._settings.images)  # before the cap: no half base64
        capped = cap_text(outcome.output, self._settings.output_limit_bytes)
        return outcome if capped is outcome.output else outcome.model_copy(update={"output": capped})

    async def prompt_notes(self) -> list[str]:
        """What the sources ask to add to the system prompt (``ToolSourceNotes``), in source order.

        A source that fails adds nothing (the failure is recorded in ``problems``).
        """
        notes: list[str] = []
        for source in self._sources:
            if not self._optional[id(source)].notes:
                continue
            try:
                notes.extend(str(note) for note in await cast("ToolSourceNotes", source).prompt_notes())
            except Exception as error:
                self._note(f"tool source {source.name!r} gave no notes: {type(error).__name__}: {error}")
        return notes

    async def aclose(self) -> None:
        """Close every source (concurrently); failures are recorded in ``problems``. Idempotent."""
        results = await asyncio.gather(*(s.aclose() for s in self._sources), return_exceptions=True)
        for source, result in zip(self._sources, results, strict=True):
            if isinstance(result, Exception):
                self._note(f"tool source {source.name!r} failed to close: {type(result).__name__}: {result}")

    def _offered(self, name: str) -> bool:
        """Whether ``[tools]`` offers ``name`` (kept per name: the section does not change, tools are listed often)."""
        offered = self._offered_names.get(name)
        if offered is None:
            settings = self._settings
            offered = not _matches(name, settings.disabled) and (
                not settings.enabled or _matches(name, settings.enabled)
            )
            self._offered_names[name] = offered
        return offered

    def _with_override(self, definition: ToolDefinition) -> ToolDefinition:
        pattern = _override_pattern(definition.name, self._settings.risk)
        if pattern is None:
            return definition
        return definition.model_copy(update={"risk": self._settings.risk[pattern]})

    async def _list_source(self, source: ToolSource) -> Sequence[ToolDefinition]:
        try:
            definitions = list(await source.list_tools())
        except RequiredToolSourceError:
            raise  # the run cannot go on without it (``required = true``): the run ends with an error
        except Exception as error:
            self._note(f"tool source {source.name!r} is unavailable: {error}")
            return []
        if self._optional[id(source)].problems:
            for message in cast("ToolSourceProblems", source).problems:
                self._note(message)
        return definitions

    def _note(self, message: str) -> None:
        if message not in self.problems:
            self.problems.append(message)


def _origin(source: ToolSource, tool_name: str, implements: bool) -> str:
    if implements:
        try:
            return str(cast("ToolSourceOrigins", source).origin(tool_name))
        except Exception:
            return source.name
    return source.name
