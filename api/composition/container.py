"""The container: the only module that knows concrete classes.

``build_container(options)`` returns a dependency-injector container whose providers build, on
first use: the layered configuration, the plugin catalog, the validated settings, the LLM
gateway, the tool executor, the reviewer, the run store, the observers and the ``RunAgent`` use
case. Tests build the real container and override providers with fakes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dependency_injector import containers, providers

from quorum.application.ports.llm import LlmGateway
from quorum.application.reversible import ReversibleApproval
from quorum.composition.checkpoints import checkpoint_store, checkpointed, checkpoints_enabled
from quorum.composition.conventions import find_conventions
from quorum.composition.hooks import build_hooks
from quorum.composition.observers import FanOut, build_recorder
from quorum.composition.options import AppOptions
from quorum.composition.paths import user_config_dir, user_data_dir, workspace_of
from quorum.composition.stores import build_run_store
from quorum.composition.telemetry import build_telemetry, traced_gateway
from quorum.composition.telemetry import run_agent as build_run_agent
from quorum.composition.trust import trust_check
from quorum.domain.secrets import Redactor, Secret
from quorum.infrastructure.config.loader import RawConfig, blocked_plugins, collect_layers, validate
from quorum.infrastructure.config.schema import CORE_KEYS, Settings
from quorum.infrastructure.mcp.settings import McpSettings
from quorum.infrastructure.plugins.contracts import (
    ElicitationCallback,
    LinePrompt,
    ReviewerContext,
    ToolSource,
    ToolSourceContext,
)
from quorum.infrastructure.plugins.manager import PluginCatalog, load_plugins
from quorum.infrastructure.pricing import ProviderPrices
from quorum.infrastructure.providers.gateway import PluginLlmGateway
from quorum.infrastructure.review.reversible import reversible_approval
from quorum.infrastructure.review.settings import ReviewSettings
from quorum.infrastructure.sandbox.detect import SandboxStatus
from quorum.infrastructure.secrets import KnownSecrets, collect_secrets
from quorum.infrastructure.tools.executor import PluginToolExecutor
from quorum.infrastructure.tools.functions.source import FunctionToolSource
from quorum.infrastructure.tools.schema import JsonSchemaToolConverter
from quorum.infrastructure.tools.settings import ToolsSettings

if TYPE_CHECKING:  # imported when a run builds its reviewer
    from quorum.application.review_gate import ReviewGate
    from quorum.domain.subagents import Subagent
    from quorum.infrastructure.keys.store import StoredKeys
    from quorum.infrastructure.review.human import HumanPrompt
    from quorum.infrastructure.review.scope import ApprovalScope

TRUTHY = ("1", "true", "yes", "on")


def read_layers(options: AppOptions, env: Mapping[str, str], config_dir: Path | None) -> RawConfig:
    """The configuration layers of this invocation; an untrusted workspace's restricted keys left out."""
    return collect_layers(
        cwd=Path.cwd(),
        env=env,
        user_config_dir=config_dir,
        config_path=options.config_path,
        overrides=options.overrides,
        trusted=trust_check(env),
    )


def load_catalog(
    raw: RawConfig, env: Mapping[str, str], extra_plugins: Sequence[tuple[str, Any]] = ()
) -> PluginCatalog:
    return load_plugins(
        blocked=blocked_plugins(raw),
        autoload=env.get("QUORUM_DISABLE_PLUGIN_AUTOLOAD", "").lower() not in TRUTHY,
        reserved_sections=CORE_KEYS,
        extra=extra_plugins,
    )


def validate_settings(raw: RawConfig, catalog: PluginCatalog) -> Settings:
    return validate(
        raw,
        provider_models={e.name: e.settings for e in catalog.providers.entries()},
        section_models={e.name: e.value for e in catalog.config_sections.entries()},
    )


def open_keys(env: Mapping[str, str], config_dir: Path | None) -> StoredKeys | None:
    """The keys stored with ``quorum keys set`` (nothing is read until asked); None without a config dir."""
    from quorum.infrastructure.keys.store import open_key_store

    return open_key_store(env, config_dir) if config_dir is not None else None


def known_models(settings: Settings) -> list[str]:
    """The ``provider:model`` ids the configuration names: the model, the reviewers and the fallbacks."""
    seats = settings.section(ReviewSettings).seats()
    fallbacks = [*settings.agent.fallback_models, *(seat.fallback for seat in seats if seat.fallback)]
    named = [settings.model, *(seat.model for seat in seats), *fallbacks]
    return [model for model in named if model and ":" in model]


def known_secrets(
    catalog: PluginCatalog,
    settings: Settings,
    env: Mapping[str, str],
    keys: StoredKeys | None = None,
    on_secrets: Callable[[Redactor], None] | None = None,
    extra: Sequence[Secret] = (),
) -> KnownSecrets:
    """Every secret of the configuration and environment (redacted everywhere, kept from children).

    Stored keys and the MCP OAuth tokens of configured HTTP servers count too (reading them costs
    a look at the key index / the token folder when none is stored).
    ``on_secrets`` is told their redactor (the CLI redacts the error messages it prints with it).
    ``extra``: secrets a driver adds (the server's token), redacted like any key.
    """
    from quorum.infrastructure.mcp.auth.store import stored_token_secrets

    stored = keys.values() if keys is not None else None
    http_servers = [name for name, server in settings.section(McpSettings).servers.items() if server.url is not None]
    tokens = stored_token_secrets(env, user_data_dir(), http_servers) if http_servers else None
    secrets = collect_secrets(settings, env, (e.settings for e in catalog.providers.entries()), stored, tokens)
    if extra:
        secrets = type(secrets)((*secrets.secrets, *extra), secrets.env_names)
    if on_secrets is not None:
        on_secrets(secrets.redactor())
    return secrets


def defined_subagents(settings: Settings, config_dir: Path | None) -> dict[str, Subagent]:
    """The subagents of this workspace: the user's files, ``[agents.NAME]``, the workspace's files.

    Raises:
        ConfigurationError: a definition that cannot be read or is not valid.
    """
    from quorum.infrastructure.agents import load_subagents

    return load_subagents(settings.agents, user_dir=config_dir, workspace=workspace_of(settings))


def probe_sandbox(settings: Settings) -> SandboxStatus:
    """How ``run_command`` runs in this process (the probe runs once per process)."""
    from quorum.infrastructure.sandbox.detect import sandbox_status

    sandbox = settings.section(ToolsSettings).sandbox
    return sandbox_status(sandbox.mode, sandbox.program)


def tool_source_context(
    settings: Settings,
    env: Mapping[str, str],
    gateway: LlmGateway,
    secrets: KnownSecrets,
    raw: RawConfig,
    prompt: LinePrompt | None = None,
    on_elicitation: ElicitationCallback | None = None,
    config_dir: Path | None = None,
) -> ToolSourceContext:
    """What every tool source is built with; ``prompt``/``on_elicitation`` answer MCP servers' questions."""
    return ToolSourceContext(
        workspace=workspace_of(settings),
        settings=settings,
        env=env,
        cache_dir=user_data_dir() / "cache",
        gateway=gateway,
        secrets=secrets,
        config_files=tuple(Path(f) for f in raw.files),
        prompt=prompt,
        on_elicitation=on_elicitation,
        user_config_dir=config_dir,
    )


def build_tool_executor(catalog: PluginCatalog, settings: Settings, context: ToolSourceContext) -> PluginToolExecutor:
    """The tools of every tool source (and of the ``@tool`` functions plugins registered)."""
    sources: list[ToolSource] = [entry.value(context) for entry in catalog.tools.entries()]
    if catalog.tools.functions:
        sources.append(FunctionToolSource(catalog.tools.functions, workspace=workspace_of(settings)))
    return PluginToolExecutor(sources=sources, settings=settings.section(ToolsSettings))


def tool_source(container: Container, name: str) -> ToolSource:
    """The tool source plugin ``name`` registered, built as the container builds it for a run.

    Raises:
        UsageError: no such tool source (the plugin is blocked or not installed).
    """
    from quorum.domain.errors import UsageError

    entry = container.catalog().tools.get(name)
    if entry is None:
        raise UsageError(f"the tool source {name!r} is blocked or not installed")
    source: ToolSource = entry.value(container.tool_context())
    return source


def reviewer_context(
    settings: Settings,
    options: AppOptions,
    gateway: LlmGateway,
    prompt: HumanPrompt | None = None,
    always: tuple[ApprovalScope, ...] = (),
    hil_mode: str | None = None,
) -> ReviewerContext:
    """What the review of a run is built from; ``prompt`` asks the human (None: the terminal when interactive).

    ``always``: the run's earlier "always" answers (a served run continued after one).
    ``hil_mode``: this run's human step, in place of ``[review] hil_mode`` (chat's ``/review``, an
    editor session's mode).
    """
    if hil_mode is not None:
        review = settings.section(ReviewSettings).model_copy(update={"hil_mode": hil_mode})
        settings = settings.with_sections(review)
    return ReviewerContext(
        settings=settings,
        gateway=gateway,
        interactive=options.interactive,
        auto_approve=options.yes,
        prompt=prompt,
        workspace=workspace_of(settings),
        always=always,
        reversible=reversible_premises(settings),
    )


def reversible_premises(settings: Settings) -> ReversibleApproval:
    """Whether runs under ``settings`` approve confined calls unasked (``[review] reversible``), and why not."""
    return reversible_approval(settings, checkpoints=checkpoints_enabled(settings))


def build_reviewer(
    catalog: PluginCatalog,
    settings: Settings,
    options: AppOptions,
    gateway: LlmGateway,
    prompt: HumanPrompt | None = None,
    always: tuple[ApprovalScope, ...] = (),
    hil_mode: str | None = None,
) -> ReviewGate:
    """The review (policy rules → quorum of models → human) of one run.

    One per run: the human step remembers "always" answers for the run it serves. ``prompt`` asks
    the human (an embedding application's callback); None means the terminal when interactive.
    ``hil_mode`` replaces ``[review] hil_mode`` for this run.
    """
    from quorum.infrastructure.review.pipeline import build_reviewer as build_pipeline

    context = reviewer_context(settings, options, gateway, prompt, always, hil_mode)
    return build_pipeline(context, catalog.reviewers)


class Container(containers.DeclarativeContainer):
    """Every provider of the application; override any of them in tests.

    Shared by every run of the process: configuration, plugins, the gateway, the tools, the run
    store. Made anew for each run (``Factory``): the reviewer (its "always" answers), the recorder
    and the observers — runs in flight at once never share one.
    """

    options = providers.Object(AppOptions())
    env = providers.Object(os.environ)
    config_dir = providers.Singleton(user_config_dir)
    extra_plugins: providers.Provider[Sequence[tuple[str, Any]]] = providers.Object(())

    raw_config = providers.Singleton(read_layers, options, env, config_dir)
    catalog = providers.Singleton(load_catalog, raw_config, env, extra_plugins)
    settings = providers.Singleton(validate_settings, raw_config, catalog)

    stored_keys = providers.Singleton(open_keys, env, config_dir)

    gateway = providers.Singleton(
        PluginLlmGateway,
        registry=catalog.provided.providers,
        instances=settings.provided.providers,
        env=env,
        aliases=settings.provided.aliases,
        known_models=providers.Callable(known_models, settings),
        keys=stored_keys,
    )
    schema = providers.Singleton(JsonSchemaToolConverter)
    prices = providers.Singleton(ProviderPrices, settings.provided.providers)
    on_secrets: providers.Provider[Any] = providers.Object(None)
    extra_secrets: providers.Provider[Sequence[Secret]] = providers.Object(())
    secrets = providers.Singleton(known_secrets, catalog, settings, env, stored_keys, on_secrets, extra_secrets)
    sandbox = providers.Singleton(probe_sandbox, settings)
    redactor = secrets.provided.redactor.call()
    telemetry = providers.Singleton(build_telemetry, settings, env, secrets.provider)  # None: [telemetry] is off
    run_gateway = providers.Singleton(traced_gateway, gateway, telemetry, settings)  # what runs talk through
    human_prompt: providers.Provider[Any] = providers.Object(None)
    line_prompt: providers.Provider[Any] = providers.Object(None)
    on_elicitation: providers.Provider[Any] = providers.Object(None)
    tool_context = providers.Singleton(
        tool_source_context, settings, env, run_gateway, secrets, raw_config, line_prompt, on_elicitation, config_dir
    )
    conventions = providers.Singleton(find_conventions, settings, config_dir)  # AGENTS.md, skills
    tool_executor = providers.Singleton(build_tool_executor, catalog, settings, tool_context)
    subagents = providers.Singleton(defined_subagents, settings, config_dir)
    review_context = providers.Factory(reviewer_context, settings, options, run_gateway, prompt=human_prompt)
    reviewer = providers.Factory(build_reviewer, catalog, settings, options, run_gateway, prompt=human_prompt)
    run_store = providers.Singleton(build_run_store, catalog, settings, options, env)
    recorder = providers.Factory(build_recorder, run_store, settings, None)
    observer = providers.Factory(FanOut, providers.List(recorder))  # runs pass their own (``prepare_run``)
    hooks = providers.Singleton(build_hooks, raw_config, settings, env, secrets)  # None: no hook configured

    checkpoints = providers.Singleton(checkpoint_store, settings, env)  # None: [checkpoints] enabled = false
    run_agent = providers.Factory(
        build_run_agent,
        telemetry,
        settings,
        gateway=run_gateway,
        executor=providers.Factory(checkpointed, tool_executor, checkpoints),
        schema=schema,
        reviewer=reviewer,
        observer=observer,
        redactor=redactor,
        prices=prices,
        windows=prices,
        hooks=hooks,
    )


def build_container(options: AppOptions, **overrides: Any) -> Container:
    """A container for one command invocation; ``overrides`` replace providers by name."""
    container = Container()
    container.options.override(providers.Object(options))
    for name, value in overrides.items():
        getattr(container, name).override(value if isinstance(value, providers.Provider) else providers.Object(value))
    return container
