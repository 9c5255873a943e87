"""What plugin factories receive and must return: contexts and the adapter-side protocols."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pydantic import BaseModel

from quorum.application.ports.llm import LlmGateway, LlmSession
from quorum.application.ports.reviewer import ActionReviewer
from quorum.application.ports.run_store import RunStore
from quorum.application.reversible import ReversibleApproval
from quorum.domain.elicitation import ElicitationAnswer, ElicitationRequest
from quorum.domain.messages import Message
from quorum.domain.tools import Clearance, RiskAssessment, ToolCall, ToolDefinition, ToolResult
from quorum.infrastructure.secrets import KnownSecrets

if TYPE_CHECKING:  # both import feature modules that import plugin machinery: only the types are needed here
    from quorum.infrastructure.config.schema import Settings
    from quorum.infrastructure.keys.store import KeyLookup
    from quorum.infrastructure.review.human import HumanPrompt
    from quorum.infrastructure.review.scope import ApprovalScope


@dataclass(frozen=True)
class ProviderContext:
    """Given to a provider factory for one ``[providers.NAME]`` instance.

    Attributes:
        name: the instance name (the part before ``:`` in a model id).
        kind: the provider kind (``type`` in its section; defaults to the name).
        settings: the section validated by the kind's settings model (None if it declared none).
        env: the process environment as the container saw it; adapters read keys from here, never
            from ``os.environ``.
        keys: keys stored with ``quorum keys set``, by instance name: used when neither the
            section nor the environment holds one. None: no stored keys.
    """

    name: str
    kind: str
    settings: BaseModel | None
    env: Mapping[str, str] = field(default_factory=dict)
    keys: KeyLookup | None = None


@runtime_checkable
class ProviderGateway(Protocol):
    """One configured provider instance; opens sessions on its models.

    Creating the gateway must be cheap; SDK imports and clients are made in ``session``.
    """

    def session(self, model: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()) -> LlmSession:
        """A session on ``model`` (the part after ``:``). Raises UsageError/ConfigurationError."""
        ...


@runtime_checkable
class ClosableGateway(Protocol):
    """Optional for a ``ProviderGateway``: clients or connections to release when Quorum is done with it."""

    async def aclose(self) -> None:
        """Close what the gateway opened. Idempotent."""
        ...


@runtime_checkable
class ModelCatalog(Protocol):
    """Optional for a ``ProviderGateway``: the models its server offers (``quorum models``)."""

    async def list_models(self) -> list[str]:
        """Model names from the provider's models endpoint.

        Raises:
            QuorumError: no key, or the server failed or answered something unreadable.
        """
        ...


class LinePrompt(Protocol):
    """Asks a person one line on the terminal, beside the run's output (the review's machinery)."""

    async def ask_line(self, shown: str, question: str) -> str | None:
        """Write ``shown`` (escaped) and ``question``; the line typed, without its newline.

        Returns None at end of input (nobody answers). Cancellable; typeahead is discarded first.
        """
        ...


ElicitationCallback = Callable[[ElicitationRequest], Awaitable[ElicitationAnswer]]
"""Answers an MCP server's request for input (form mode) without a terminal."""


@dataclass(frozen=True)
class ToolSourceContext:
    """Given to a tool-source factory.

    Attributes:
        workspace: the directory tools act in (``--workspace`` / ``[tools] workspace``).
        settings: the whole validated configuration (sources read their own section).
        env: the process environment as the container saw it.
        cache_dir: a directory the source may keep caches in.
        gateway: the LLM gateway, for sources that need a model.
        secrets: the secrets Quorum knows; sources starting processes keep them out of their
            environments (``KnownSecrets.scrub``).
        config_files: the configuration files this run read (some may hold secrets).
        prompt: asks the person on the terminal (an MCP server's sampling approval or form);
            None when nobody can be asked (``--json``, no terminal).
        on_elicitation: answers an MCP server's request for input instead of the terminal (the
            Python API's ``on_elicitation``).
        user_config_dir: the user's config directory (its ``skills/``); None: not known.
    """

    workspace: Path
    settings: Settings
    env: Mapping[str, str] = field(default_factory=dict)
    cache_dir: Path | None = None
    gateway: LlmGateway | None = None
    secrets: KnownSecrets = field(default_factory=KnownSecrets)
    config_files: tuple[Path, ...] = ()
    prompt: LinePrompt | None = None
    on_elicitation: ElicitationCallback | None = None
    user_config_dir: Path | None = None


@runtime_checkable
class ToolSource(Protocol):
    """A set of tools from one origin (built-ins, one MCP server, a plugin's functions)."""

    name: str

    async def list_tools(self) -> Sequence[ToolDefinition]:
        """The tools available now. Raises ToolSourceError when the source is down."""
        ...

    def assess_risk(self, call: ToolCall, tool: ToolDefinition) -> RiskAssessment:
        """The risk of this call; sources without per-call rules return the tool's default risk."""
        ...

    async def execute(self, call: ToolCall, *, clearance: Clearance = Clearance.UNREVIEWED) -> ToolResult:
        """Run one validated call (see ``ToolExecutor.execute``).

        ``clearance`` is ``UNREVIEWED`` on the low-risk path and ``APPROVED`` after a review
        approved the call; a source whose tools can run more or less confined must honour it.
        """
        ...

    async def aclose(self) -> None:
        """Release processes and connections. Idempotent."""
        ...


@runtime_checkable
class ToolSourceOrigins(Protocol):
    """Optional for a ``ToolSource``: a finer origin per tool for ``quorum tools list``.

    A source that serves tools from several places (MCP servers, plugins) names the one a tool
    comes from; the executor falls back to the source's ``name`` when this raises.
    """

    def origin(self, tool_name: str) -> str:
        """Where ``tool_name`` comes from (``mcp:time``, the plugin's name…)."""
        ...


@runtime_checkable
class ToolSourceNotes(Protocol):
    """Optional for a ``ToolSource``: text it asks to add to the system prompt (MCP server instructions).

    Called once before a run; each note is complete (fenced and labelled by the source as text
    from outside the user). Must not raise for a part that is unavailable: it adds no note.
    """

    async def prompt_notes(self) -> Sequence[str]:
        """The notes, in order."""
        ...


@runtime_checkable
class ToolSourceProblems(Protocol):
    """Optional for a ``ToolSource``: what went wrong while listing without failing the whole source.

    Read after each ``list_tools``; the messages are shown as warnings (one MCP server of several
    down, a name clash inside the source).
    """

    @property
    def problems(self) -> Sequence[str]:
        """Human-readable messages, one per problem."""
        ...


@runtime_checkable
class ToolSourceWithheld(Protocol):
    """Optional for a ``ToolSource``: the tools it knows but does not offer, and why.

    Read after each ``list_tools``. Each reason is said to a model that calls the tool by name
    (instead of "unknown tool") and must say what stands in the way and what the user can do,
    without repeating what the source was refused for (a changed tool's new description).
    """

    def withheld_tools(self) -> Mapping[str, str]:
        """Tool name (as it would be offered) → why it is not offered."""
        ...


@dataclass(frozen=True)
class ReviewerContext:
    """Given to a reviewer factory.

    Attributes:
        settings: the whole validated configuration (reviewers read ``[review]``).
        gateway: opens sessions for reviewer models.
        interactive: whether a human can be asked (a terminal on stdin, not ``--json``).
        auto_approve: ``--yes`` was given.
        prompt: the human-prompt adapter; None for the terminal (when interactive).
        workspace: the directory file tools act in, so the human step can show a write as a diff
            against the current file and scope "always" to a directory; None when unknown.
        always: "always" answers already given for the run (a served run continued after one),
            approving later calls in their scopes without asking.
        reversible: the premises of ``[review] reversible = "auto"`` for the run (None: never).
    """

    settings: Settings
    gateway: LlmGateway | None = None
    interactive: bool = False
    auto_approve: bool = False
    prompt: HumanPrompt | None = None
    workspace: Path | None = None
    always: tuple[ApprovalScope, ...] = ()
    reversible: ReversibleApproval | None = None


@dataclass(frozen=True)
class StoreContext:
    """Given to a run-store factory: the validated configuration and the environment."""

    settings: Settings
    env: Mapping[str, str] = field(default_factory=dict)
    data_dir: Path | None = None


ProviderFactory = Callable[[ProviderContext], ProviderGateway]
"""What ``ProviderRegistry.add`` takes: one gateway per configured ``[providers.NAME]`` instance."""

ToolSourceFactory = Callable[[ToolSourceContext], ToolSource]
"""What ``ToolRegistry.add_source`` takes: the source of one run's tools."""

ReviewerFactory = Callable[[ReviewerContext], ActionReviewer]
"""What ``ReviewerRegistry.add`` takes: a reviewer for one run."""

StoreFactory = Callable[[StoreContext], RunStore]
"""What ``StoreRegistry.add`` takes: the run store (cheap to build; it opens on first use)."""


def describe(obj: object) -> str:
    """The first line of ``obj``'s docstring, for listings."""
    doc = (getattr(obj, "__doc__", None) or "").strip()
    return doc.splitlines()[0] if doc else ""
