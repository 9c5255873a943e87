"""``Runtime``: one composition, open for runs, as one ``async with``.

``async with Runtime(container) as runtime:`` opens the parts a run uses — the configuration and
plugins, the run store, the tools (MCP servers start when first listed), the gateway (HTTP clients
connect on their first request) — and on leaving closes them in order: the tool sources (MCP
servers), the gateway's clients, the run store. Every driver holds its runs inside one: a command
for its life, a chat session for the session, ``Agent`` until ``aclose``.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from types import TracebackType
from typing import TYPE_CHECKING, Any

from quorum.composition.prompts import system_prompt, with_tool_notes

if TYPE_CHECKING:
    from quorum.application.execution import ExecutionParams, RunResult
    from quorum.application.ports.run_store import RunStore
    from quorum.composition.container import Container
    from quorum.composition.orders import PreparedRun
    from quorum.domain.secrets import Secret
    from quorum.infrastructure.plugins.contracts import LinePrompt


class Runtime:
    """The open composition of ``container`` (see the module docstring).

    Args:
        container: the composition (built with ``build_container``).
        share_prompt: compute the system prompt with the tool sources' notes once for every run
            (``quorum batch``); otherwise each run asks the sources again (a lazy MCP server
            started by an earlier run adds its instructions).
        line_prompt: who answers an MCP server's question for the whole process (the terminal
            beside the renderer); None: nobody, the server is told no.
        secrets: secrets the driver adds to the known ones (the server's token): redacted from
            events, outputs and the run log like any key.

    The composition is wired here, once, before any part is built: a driver never overrides a
    provider of the container (decision 190).
    """

    def __init__(
        self,
        container: Container,
        *,
        share_prompt: bool = False,
        line_prompt: LinePrompt | None = None,
        secrets: tuple[Secret, ...] = (),
    ) -> None:
        from dependency_injector import providers

        if line_prompt is not None:
            container.line_prompt.override(providers.Object(line_prompt))
        if secrets:
            container.extra_secrets.override(providers.Object(secrets))
            container.secrets.reset()  # built again with them
        self.container = container
        self._share_prompt = share_prompt
        self._prompt: asyncio.Future[str | None] | None = None
        self._opened: list[Any] = []
        self._executor: Any = None  # kept after closing: its problems are said then
        self._uncapped: set[str] = set()  # models whose cost cap was said to be unenforceable
        self._telemetry: Any = None
        self.run_params: dict[tuple[str, str, bool | None], ExecutionParams] = {}
        """A run's parameters by (model, tools, plan), made once by ``runs.run_params``."""

    async def __aenter__(self) -> Runtime:
        self.open()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()

    def open(self) -> None:
        """Build the parts (idempotent). Raises what the configuration's validation raises."""
        if self._opened:
            return
        container = self.container
        container.settings()
        self._telemetry = container.telemetry()  # None when off; a bad [telemetry] is said before any run
        self._opened = [container.run_store(), container.tool_executor(), container.gateway()]
        self._executor = self._opened[1]

    @property
    def store(self) -> RunStore | None:
        """The run store runs are recorded in (None: recording is off), opened with the runtime."""
        self.open()
        store: RunStore | None = self._opened[0]
        return store

    async def aclose(self) -> None:
        """Close the tool sources, the gateway's clients, the run and checkpoint stores; flush telemetry. Idempotent."""
        if self._prompt is not None and not self._prompt.done():
            self._prompt.cancel()
            await asyncio.gather(self._prompt, return_exceptions=True)
        self._prompt = None
        opened, self._opened = self._opened, []
        if not opened:
            return
        store, executor, gateway = opened
        await executor.aclose()
        await gateway.aclose()
        if store is not None:
            store.close()
        checkpoints = self.container.checkpoints()  # its database and directory watches (reopened on use)
        if checkpoints is not None:
            checkpoints.close()
        if self._telemetry is not None:  # export the runs' spans now, not only at exit
            await asyncio.to_thread(self._telemetry.force_flush)

    async def system_prompt(self, *, lean: bool = False) -> str | None:
        """The configured system prompt followed by the tool sources' notes (starts eager MCP servers).

        ``lean``: the lean tool profile's default prompt (``[agent] tools_profile``), never shared.
        """
        self.open()
        if lean:
            with self._bound():
                base = system_prompt(self.container.settings(), lean=True, conventions=self.container.conventions())
                return await with_tool_notes(base, self.container.tool_executor())
        if not self._share_prompt:
            return await self._with_notes()
        if self._prompt is None:
            self._prompt = asyncio.ensure_future(self._with_notes())
        return await asyncio.shield(self._prompt)

    async def _with_notes(self) -> str | None:
        # Eager MCP servers start here, outside any run: with telemetry on, their requests (initialize,
        # tools/list, and what their sessions do later) are spans of their own.
        with self._bound():
            base = system_prompt(self.container.settings(), conventions=self.container.conventions())
            return await with_tool_notes(base, self.container.tool_executor())

    def _bound(self) -> contextlib.AbstractContextManager[None]:
        """The telemetry bound for the block (MCP requests become spans), or nothing when it is off."""
        if self._telemetry is None:
            return contextlib.nullcontext()
        from quorum.infrastructure.telemetry.hooks import bound

        return bound(self._telemetry)

    async def require_sandbox(self, low_risk_only: bool) -> None:
        """Refuse runs offering ``run_command`` when ``[tools.sandbox] mode = "required"`` and no sandbox works.

        Raises:
            ConfigurationError: naming the setting and how to get a sandbox.
        """
        from quorum.domain.errors import ConfigurationError

        status = self.container.sandbox()
        if status.mode != "required" or status.enforced or low_risk_only:
            return
        if "run_command" in (await self.container.tool_executor().list_tools()).names():
            raise ConfigurationError(
                f"mode = 'required' and run_command is offered, but {status.no_sandbox_reason()}",
                key="tools.sandbox.mode",
            )

    async def execute(self, prepared: PreparedRun, reviewer: Any = None) -> RunResult:
        """Run ``prepared`` to its end with a new agent and the prepared observers.

        ``reviewer``: the run's review (``RunService`` builds it from the order); None: the
        composition's, built for this run. With subagents defined, the run's tools include
        ``delegate``, whose child runs share this review (``quorum.composition.subagents``).
        """
        from quorum.composition.subagents import run_executor

        self.open()
        self.warn_unenforceable_cap(prepared.request)
        if reviewer is None:
            reviewer = self.container.reviewer()
        executor = run_executor(self, reviewer, prepared.request)
        parts: dict[str, Any] = {"observer": prepared.observer, "reviewer": reviewer, "executor": executor}
        return await self.container.run_agent(**parts).execute(prepared.request)

    def warn_unenforceable_cap(self, request: Any) -> None:
        """Say once per model, before its first run, that ``max_cost_usd`` cannot be enforced without its prices.

        Every model the run may spend on counts: the agent's and its fallbacks, the reviewer models
        of ``[review] reviewers`` and theirs, and ``compact_model``. The run goes on (its cost
        stays unknown); saying nothing would leave an unattended run uncapped while its owner believes it capped.
        """
        from quorum.domain.responses import Usage
        from quorum.infrastructure.review.settings import ReviewSettings

        if request.params.max_cost_usd is None:
            return
        seats = self.container.settings().section(ReviewSettings).seats()
        reviewers = [name for seat in seats for name in (seat.model, seat.fallback) if name and ":" in name]
        spenders = [request.model_id, *request.params.fallback_models, *reviewers, request.params.compact_model]
        prices = self.container.prices()
        for model in dict.fromkeys(m for m in spenders if m and m not in self._uncapped):
            if prices.cost(model, Usage(input_tokens=1, output_tokens=1)) is None:
                self._uncapped.add(model)
                print(
                    f"quorum: warning: max_cost_usd cannot be enforced: the prices of {model} are unknown "
                    "(set [providers.NAME] prices)",
                    file=sys.stderr,
                    flush=True,
                )

    def problems(self) -> list[str]:
        """What the tool sources reported (failed starts, closes), redacted with the known secrets."""
        problems = list(getattr(self._executor, "problems", ()))
        if not problems:
            return []
        redactor = self.container.redactor()
        return [redactor.text(problem) for problem in problems]
