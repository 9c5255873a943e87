"""``Agent``: Quorum as a library — a model, tools and review, running any number of tasks at once.

A driver beside the CLI: it builds the same composition (``quorum.composition``) from keyword
arguments instead of files and flags, holds it open as one ``Runtime``, and hands each run to the
run service as a ``RunOrder`` (its own reviewer asking the ``Review``'s human callback, recorder
and event stream; see docs/decisions/060-python-api.md, 120-one-composition.md and
190-one-run-service.md).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

# What a run needs is imported by the first Agent() (the loop, the review, the pydantic models of
# events and results), so ``from quorum import Agent`` stays cheap (docs/decisions/271-lazy-public-api.md).
if TYPE_CHECKING:
    import asyncio
    from types import TracebackType

    from quorum.answer_schema import OutputSchema
    from quorum.application.use_cases.undo_run import UndoResult
    from quorum.composition.container import Container
    from quorum.composition.model_choice import ModelNaming
    from quorum.composition.runtime import Runtime
    from quorum.domain.elicitation import ElicitationAnswer, ElicitationRequest
    from quorum.domain.events import RunEvent
    from quorum.domain.messages import Message
    from quorum.infrastructure.tools.functions.tool import Tool
    from quorum.review import Review
    from quorum.run_result import RunResult

    ElicitationReply = ElicitationAnswer | Mapping[str, Any] | None
    ElicitationHandler = Callable[[ElicitationRequest], ElicitationReply | Awaitable[ElicitationReply]]

Builtins = Literal["none", "read_only", "all"]

BUILTIN_SETS: dict[str, tuple[str, ...]] = {
    "none": (),
    "read_only": ("read_file", "glob_search", "grep_search", "list_dir"),
    "all": ("read_file", "glob_search", "grep_search", "list_dir", "write_file", "edit_file", "run_command"),
}
"""Which built-in tools ``builtins=`` offers."""


def __getattr__(name: str) -> Any:
    """The names whose values need the loop's or the domain's models, made on first use (PEP 562).

    ``IN_PYTHON``: how a model is named through the Python API: the no-model advice a script gets.
    ``AGENT_KEYS``: the ``[agent]`` keys ``Agent`` accepts as keyword arguments (``max_tool_turns=10``…).
    ``RunResult``: how a run ended, and every event of it (``quorum.run_result``).
    ``ElicitationReply``: what an ``on_elicitation`` callback returns: an answer, the values to accept
    with, or None (decline). ``ElicitationHandler``: ``Agent(on_elicitation=…)``: sync or async; a sync
    callback runs in a worker thread.
    """
    if name == "IN_PYTHON":
        value: Any = _in_python()
    elif name == "AGENT_KEYS":
        from quorum.application.execution import LoopLimits

        value = frozenset(LoopLimits.model_fields) | {"project_instructions"}
    elif name == "RunResult":
        from quorum.run_result import RunResult

        value = RunResult
    elif name in ("ElicitationReply", "ElicitationHandler"):
        from quorum.domain.elicitation import ElicitationAnswer, ElicitationRequest

        reply = ElicitationAnswer | Mapping[str, Any] | None
        value = reply if name == "ElicitationReply" else Callable[[ElicitationRequest], reply | Awaitable[reply]]
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later lookups skip this function
    return value


def _in_python() -> ModelNaming:
    from quorum.composition.model_choice import ModelNaming

    return ModelNaming(
        name_it='Name one with Agent(model="provider:model") (e.g. Agent(model="openai:gpt-4.1-mini"))',
        offline='Agent(model="scripted:demo") (replays examples/demo.toml, shipped with Quorum) or Agent(model="test")',
    )


class _CliLayering:
    """``config=`` as ``Agent.from_config`` passes it: layer as the CLI does, ``path`` as ``--config``.

    A plain class, not a dataclass: ``dataclasses`` imports ``inspect``, which ``from quorum import
    Agent`` need not pay for.
    """

    __slots__ = ("path",)

    def __init__(self, path: Path | None) -> None:
        self.path = path


class Agent:
    """A configured agent. ``await agent.run(task)``; many runs may be in flight at once.

    Args:
        model: a model id as the CLI takes it (``"openai:gpt-4.1-mini"``, ``"test"``,
            ``"scripted:PATH"``); None: ``model`` from the configuration, or a default from the keys
            in the environment.
        tools: ``@tool`` functions (plain functions are wrapped with ``tool``).
        builtins: built-in tools to offer: ``"none"`` (default), ``"read_only"`` or ``"all"``.
        system_prompt: replaces the built-in system prompt.
        review: how high-risk calls are reviewed (``Review``); None: no panel, no human, so every
            call that needs a review is rejected.
        providers: ``[providers.NAME]`` tables, e.g. ``{"local": {"type": "openai", "base_url": …}}``.
        mcp_servers: ``[mcp.servers.NAME]`` tables; their tools are offered.
        on_elicitation: answers MCP servers' requests for input (``elicitation/create``, form
            mode): called with an ``ElicitationRequest`` (server, message, the fields' JSON
            schema), returns an ``ElicitationAnswer`` (accept with ``content``, decline, cancel),
            a mapping (accept with these values) or None (decline). Fields left out take the
            schema's defaults. Sync or async. Without it every request is declined.
        workspace: the directory built-in tools act in (default: the current directory).
        config: None reads no file and no ``QUORUM_*`` variable; a path reads that file (keyword
            arguments win). ``Agent.from_config`` layers quorum.toml files as the CLI does.
        run_log: False (default) records nothing; True records in the default run log; a path
            records in that SQLite file.
        **settings: the ``[agent]`` keys (``max_tool_turns``, ``timeout_seconds``, …), among them
            ``reasoning="off" | "low" | "medium" | "high"``: how much the model reasons before
            answering (default ``off``; its text comes as ``reasoning`` events, not in ``output``),
            and ``project_instructions``: put the workspace's AGENTS.md files into the system
            prompt (default False with ``config=None``, which reads no file; the configuration's,
            True unless set, otherwise). ``Agent.from_config`` with built-ins also offers
            ``load_skill`` (the workspace's and the user's skills), as ``quorum run`` does.

    Raises:
        TypeError: an unknown keyword argument.
        ConfigurationError: a setting is invalid (named by its quorum.toml key).
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        tools: Iterable[Tool[..., Any] | Callable[..., Any]] = (),
        builtins: Builtins = "none",
        system_prompt: str | None = None,
        review: Review | None = None,
        providers: Mapping[str, Mapping[str, Any]] | None = None,
        mcp_servers: Mapping[str, Mapping[str, Any]] | None = None,
        on_elicitation: ElicitationHandler | None = None,
        workspace: str | Path | None = None,
        config: str | Path | _CliLayering | None = None,
        run_log: bool | str | Path = False,
        **settings: Any,
    ) -> None:
        from quorum.infrastructure.tools.functions.tool import Tool, tool
        from quorum.review import Review

        unknown = sorted(set(settings) - __getattr__("AGENT_KEYS"))
        if unknown:
            raise TypeError(f"Agent() got unexpected keyword argument(s): {', '.join(unknown)}")
        if builtins not in BUILTIN_SETS:
            raise TypeError(f"builtins must be one of {', '.join(BUILTIN_SETS)}, got {builtins!r}")
        self._tools = tuple(t if isinstance(t, Tool) else tool(t) for t in tools)
        self._review = review or Review()
        if on_elicitation is not None and not callable(on_elicitation):
            raise TypeError(f"on_elicitation must be callable, got {type(on_elicitation).__name__}")
        self._on_elicitation = _ElicitationCallback(on_elicitation) if on_elicitation is not None else None
        self._run_log = run_log
        self._layers: Literal["none", "file", "all"]
        if isinstance(config, _CliLayering):
            self._layers, self._config_path = "all", config.path
        else:
            self._layers = "none" if config is None else "file"
            self._config_path = Path(config) if config is not None else None
        if config is None:  # reads no file: not the AGENTS.md of wherever the program runs either
            settings.setdefault("project_instructions", False)
        skills = ["load_skill"] if self._layers == "all" and builtins != "none" else []
        self._data = _config_data(
            model=model,
            tool_names=[*skills, *(t.name for t in self._tools)],
            builtins=builtins,
            system_prompt=system_prompt,
            review=self._review,
            providers=providers,
            mcp_servers=mcp_servers,
            workspace=workspace,
            run_log=run_log,
            settings=settings,
        )
        self._runtime: Runtime | None = None
        self._compose()  # configuration errors surface here, not at the first run

    @classmethod
    def from_config(cls, config: str | Path | None = None, **kwargs: Any) -> Agent:
        """An agent configured as ``quorum run`` is, layered from files and the environment.

        Defaults → user config → ./quorum.toml → ``config`` (or ``QUORUM_CONFIG``) → ``QUORUM_*``
        → keyword arguments. Unlike ``Agent()``, it offers the built-in tools (``builtins="all"``)
        unless told otherwise.
        """
        kwargs.setdefault("builtins", "all")
        return cls(config=_CliLayering(Path(config) if config is not None else None), **kwargs)

    async def run(
        self,
        task: str,
        *,
        history: Sequence[Message] = (),
        plan: bool | None = None,
        output_schema: OutputSchema | None = None,
    ) -> RunResult:
        """Run ``task`` to its end. Never raises for what happens during the run (see ``stop_reason``).

        ``plan=True`` runs it in plan mode: read-only exploration, a plan reviewed by the panel and
        the human step (``Review``), then execution with the plan in every reviewer's prompt;
        None: the ``plan`` setting (``"off"`` by default).

        ``output_schema``: a JSON Schema (a dict) or a pydantic model class the final answer must
        match; ``output`` is then the parsed value (``RunResult``), and a run whose answer does not
        match after 2 more tries stops ``invalid_output``.

        Raises:
            UsageError: before the run starts (unknown provider, missing key, bad model id, an
                ``output_schema`` that is not a valid JSON Schema).
            TypeError: ``output_schema`` is neither a dict nor a pydantic model class.
        """
        return await self._run(task, tuple(history), None, plan, output_schema)

    def run_sync(
        self,
        task: str,
        *,
        history: Sequence[Message] = (),
        plan: bool | None = None,
        output_schema: OutputSchema | None = None,
    ) -> RunResult:
        """``run`` from synchronous code (not inside a running event loop). Closes what it opened."""
        import asyncio

        async def once() -> RunResult:
            try:
                return await self._run(task, tuple(history), None, plan, output_schema)
            finally:
                await self.aclose()  # clients and servers belong to this call's event loop

        return asyncio.run(once())

    async def run_stream(
        self, task: str, *, history: Sequence[Message] = (), plan: bool | None = None
    ) -> AsyncIterator[RunEvent]:
        """The run's events as they happen — the same objects ``--json`` prints, ``run_finished`` last.

        Leaving the loop early cancels the run (it still ends with ``run_finished`` ``cancelled``).
        """
        import asyncio

        queue: asyncio.Queue[RunEvent] = asyncio.Queue()
        running = asyncio.ensure_future(self._run(task, tuple(history), queue.put_nowait, plan))
        try:
            while True:
                getter = asyncio.ensure_future(queue.get())
                await asyncio.wait({getter, running}, return_when=asyncio.FIRST_COMPLETED)
                if not getter.done():
                    getter.cancel()
                    running.result()  # the run failed before run_finished: raise its error
                    while not queue.empty():  # pragma: no cover - run_finished is always queued first
                        yield queue.get_nowait()
                    return
                event = getter.result()
                yield event
                if event.type == "run_finished" and event.run_id is None:  # not a delegation's child run
                    break
            await running
        finally:
            if not running.done():
                running.cancel()
                await asyncio.gather(running, return_exceptions=True)

    async def undo(
        self, run_id: str | None = None, *, to_call: str | None = None, dry_run: bool = False, force: bool = False
    ) -> UndoResult:
        """Put back every file run ``run_id`` changed in the workspace as it was before the run (docs/undo.md).

        Args:
            run_id: the run (``RunResult.run_id``); None: the last run that changed this
                workspace (an undo included: undoing an undo redoes).
            to_call: restore the state before this call of the run instead (a ``tool_call`` id).
            dry_run: plan only: ``result.plan`` says what would be done; nothing is changed.
            force: restore files changed since the run too (their changes are lost).

        Returns:
            ``UndoResult``: ``plan.steps`` (each path: ``remove``, ``restore`` or ``recreate``, its
            modes, a diff for text files), ``applied``, and ``undo_run_id``, the undo's own run.

        Raises:
            UndoConflict: files changed since the run (``error.files``) and not ``force``:
                nothing was changed.
            UsageError: nothing to undo (no such run or call), or checkpoints are disabled.
        """
        from quorum.application.use_cases.undo_run import UndoRequest, UndoResult
        from quorum.composition.checkpoints import build_undo
        from quorum.domain.errors import UndoConflict

        use_case = build_undo(self._compose().container)
        plan = await use_case.plan(UndoRequest(run_id=run_id, to_call=to_call))
        if dry_run:
            return UndoResult(run_id=plan.run_id, undo_run_id=None, plan=plan, applied=False)
        if plan.conflicts and not force:
            raise UndoConflict(plan.run_id, plan.conflicts)
        return await use_case.apply(plan, force=force)

    async def aclose(self) -> None:
        """Close HTTP clients and MCP servers. The agent can run again afterwards (they reopen)."""
        runtime, self._runtime = self._runtime, None
        if runtime is not None:
            await runtime.aclose()

    async def __aenter__(self) -> Agent:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()

    def _compose(self) -> Runtime:
        if self._runtime is None:
            from quorum.composition.runtime import Runtime

            container = _container(
                self._layers, self._config_path, self._data, self._tools, self._review, self._on_elicitation
            )
            container.settings()  # validate now
            self._runtime = Runtime(container)
        return self._runtime

    async def _run(
        self,
        task: str,
        history: tuple[Message, ...],
        listener: Callable[[RunEvent], None] | None,
        plan: bool | None = None,
        output_schema: OutputSchema | None = None,
    ) -> RunResult:
        import uuid

        from quorum.answer_schema import asked_schema, with_answer
        from quorum.composition.model_choice import NoModelChosen, advice
        from quorum.composition.orders import RunOrder
        from quorum.composition.service import RunService
        from quorum.domain.errors import UsageError
        from quorum.review import CallbackPrompt
        from quorum.run_result import RunResult

        runtime = self._compose()
        events: list[RunEvent] = []
        observers: list[Any] = [_Collector(events)]
        if listener is not None:
            observers.append(_Listener(listener))
        human = self._review.human
        schema, parse = asked_schema(output_schema)
        order = RunOrder(
            task,
            history=history,
            run_id=uuid.uuid4().hex[:16],
            observers=tuple(observers),
            plan=plan,
            human=CallbackPrompt(human) if human is not None else None,
            output_schema=schema,
        )
        try:
            result = await RunService(runtime).run(order)
        except NoModelChosen:  # the command line's advice names flags a script has no way to pass
            raise UsageError(advice(__getattr__("IN_PYTHON"))) from None
        # Without a schema the loop's fields are taken as they are (validated models already):
        # dumping them to dicts to validate them again cost more than the rest of building the result.
        fields = dict(result) if schema is None else with_answer(result.model_dump(), parse)
        return RunResult(**fields, events=tuple(events))


class _Collector:
    def __init__(self, events: list[RunEvent]) -> None:
        self._events = events

    def on_event(self, event: RunEvent) -> None:
        self._events.append(event)


class _Listener:
    def __init__(self, listener: Callable[[RunEvent], None]) -> None:
        self._listener = listener

    def on_event(self, event: RunEvent) -> None:
        self._listener(event)


def _config_data(
    *,
    model: str | None,
    tool_names: list[str],
    builtins: Builtins,
    system_prompt: str | None,
    review: Review,
    providers: Mapping[str, Mapping[str, Any]] | None,
    mcp_servers: Mapping[str, Mapping[str, Any]] | None,
    workspace: str | Path | None,
    run_log: bool | str | Path,
    settings: Mapping[str, Any],
) -> dict[str, Any]:
    """The configuration the arguments stand for, as quorum.toml data (the last layer)."""
    data: dict[str, Any] = {}
    if model is not None:
        data["model"] = model
    agent = dict(settings)
    if system_prompt is not None:
        agent["system_prompt"] = system_prompt
    if agent:
        data["agent"] = agent
    data["review"] = review.section()
    if providers:
        data["providers"] = {name: dict(table) for name, table in providers.items()}
    if mcp_servers:
        data["mcp"] = {"servers": {name: dict(table) for name, table in mcp_servers.items()}}
    offered = [*BUILTIN_SETS[builtins], *tool_names, *(["mcp__*"] if mcp_servers else [])]
    tools: dict[str, Any] = {"enabled": offered} if offered else {"disabled": ["*"]}
    if workspace is not None:
        tools["workspace"] = str(Path(workspace).expanduser().resolve())
    data["tools"] = tools
    storage: dict[str, Any] = {"enabled": run_log is not False}
    if not isinstance(run_log, bool):
        storage["path"] = str(Path(run_log).expanduser())
    data["storage"] = storage
    return data


def _container(
    layers: Literal["none", "file", "all"],
    config_path: Path | None,
    data: dict[str, Any],
    tools: Sequence[Tool[..., Any]],
    review: Review,
    on_elicitation: _ElicitationCallback | None = None,
) -> Container:
    """The composition, fed from arguments.

    ``none`` reads no file and no ``QUORUM_*`` variable; ``file`` reads ``config_path`` only;
    ``all`` layers as the CLI does.
    """
    import uuid

    from quorum.composition.container import build_container
    from quorum.composition.options import AppOptions
    from quorum.infrastructure.config.layers import Layer, merge, read_toml
    from quorum.infrastructure.config.loader import RawConfig
    from quorum.infrastructure.tools.functions.plugin import FunctionToolsPlugin

    human = review.human  # asked through each run's order (``_run``)
    overrides: dict[str, Any] = {
        "extra_plugins": [(f"quorum.agent.tools.{uuid.uuid4().hex[:8]}", FunctionToolsPlugin(tools))] if tools else [],
        "on_elicitation": on_elicitation,
    }
    if layers == "all":
        options = AppOptions(config_path=config_path, overrides=data, interactive=human is not None)
        return build_container(options, **overrides)
    env = {name: value for name, value in os.environ.items() if not name.startswith("QUORUM_")}
    stack = [read_toml(config_path, str(config_path))] if config_path is not None else []
    stack.append(Layer("Agent()", data))
    merged, origins = merge(stack)
    raw = RawConfig(merged, origins, tuple(str(config_path) for _ in stack[:-1]), layers=tuple(stack))
    options = AppOptions(interactive=human is not None)
    return build_container(options, env=env, raw_config=raw, **overrides)


class _ElicitationCallback:
    """Adapts an ``on_elicitation`` handler to the MCP client's callback (async, an answer always)."""

    def __init__(self, handler: ElicitationHandler) -> None:
        self._handler = handler

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        import inspect

        from quorum.domain.elicitation import ElicitationAnswer
        from quorum.infrastructure.tools.blocking import run_blocking

        handler = self._handler
        if inspect.iscoroutinefunction(handler):
            reply = await handler(request)
        else:
            reply = await run_blocking(lambda _stop: handler(request))
            if inspect.isawaitable(reply):
                reply = await reply
        if reply is None:
            return ElicitationAnswer(action="decline")
        if isinstance(reply, ElicitationAnswer):
            return reply
        if isinstance(reply, Mapping):
            return ElicitationAnswer(action="accept", content=dict(reply))
        raise TypeError(
            f"on_elicitation returned {type(reply).__name__}; expected an ElicitationAnswer, a mapping or None"
        )
