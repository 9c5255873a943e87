"""Delegation: a subagent's task run as a child run of the run that delegated, through the run service's parts.

``run_executor`` gives a run its tools: the composition's, plus ``delegate`` when subagents are
defined (``quorum.application.delegation``). A delegation (``ChildRuns.delegate``) prepares the
child as ``runs.prepare`` prepares a run — the subagent's model (else the parent's), its system
prompt, the parent's loop limits with its own ``max_tool_turns`` and ``reasoning`` — and
executes it on the same composition with:

- only the tools its definition allows (``AllowedTools``: ``delegate`` is never one, depth 1);
- the parent's reviewer (the same policy rules, hooks, panel and human step with its "always"
  answers): a definition cannot widen the review;
- a recorder writing it to the run log with the parent's id (``parent_run_id``) and its name;
- the parent's event stream, each event tagged with the child's run id (``delegated``), its
  ``run_finished`` bringing the child's tokens and cost into the parent's (``Run.report``).

The child runs in a task of its own, so its context (run id, events) never leaks into the
parent's; cancelling the delegation (the parent's timeout, a cancel) cancels it.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from quorum.application import model_wording as say
from quorum.application.delegation import AllowedTools, DelegatingExecutor
from quorum.application.execution import RunRequest
from quorum.application.ports.tool_executor import ToolExecutor
from quorum.application.run_context import current_run_events, current_run_id
from quorum.composition.checkpoints import checkpointed
from quorum.composition.model_choice import choose_model
from quorum.composition.observers import FanOut, build_recorder
from quorum.composition.prompts import system_prompt, with_profile
from quorum.domain.events import RunEvent, RunStopReason, delegated
from quorum.domain.subagents import Subagent
from quorum.domain.tools import ToolResult

if TYPE_CHECKING:
    from quorum.application.ports.run_store import RunStore
    from quorum.composition.container import Container


class OpenComposition(Protocol):
    """What a delegation needs of the open composition (``Runtime``, which imports this module)."""

    container: Container

    @property
    def store(self) -> RunStore | None:
        """The run store runs are recorded in (None: recording is off)."""
        ...


class _Tagged:
    """Forwards a child run's events to the parent's stream, tagged with the child's run id."""

    def __init__(self, run_id: str, emit: Callable[[RunEvent], None] | None) -> None:
        self._run_id = run_id
        self._emit = emit

    def on_event(self, event: RunEvent) -> None:
        if self._emit is not None:
            self._emit(delegated(event, self._run_id))


class ChildRuns:
    """The ``Delegation`` port of one parent run: its subagents run on ``runtime`` under ``reviewer``.

    Args:
        runtime: the open composition the parent runs on.
        reviewer: the parent's review, shared by its children.
        parent: the parent's request (its model and loop limits are the children's defaults).
    """

    def __init__(self, runtime: OpenComposition, reviewer: Any, parent: RunRequest) -> None:
        self._runtime = runtime
        self._reviewer = reviewer
        self._parent = parent

    async def delegate(self, agent: Subagent, task: str, tools: Sequence[str]) -> ToolResult:
        """Run ``agent`` on ``task`` as a child of the current run (see ``Delegation``)."""
        container = self._runtime.container
        child_id = uuid.uuid4().hex[:16]
        request = self.request(agent, task, child_id)
        parent_id = current_run_id.get() or None
        recorder = build_recorder(self._runtime.store, container.settings(), parent_id, agent.name)
        observer = FanOut([recorder, _Tagged(child_id, current_run_events.get())])
        executor = AllowedTools(checkpointed(container.tool_executor(), container.checkpoints()), tools)
        child = container.run_agent(observer=observer, reviewer=self._reviewer, executor=executor)
        result = await asyncio.create_task(child.execute(request))
        if result.stop_reason is RunStopReason.END_TURN:
            return ToolResult(output=result.output or "(the subagent gave no answer)")
        return ToolResult(
            output=say.delegation_stopped(agent.name, result.stop_reason, result.detail, result.output), is_error=True
        )

    def request(self, agent: Subagent, task: str, run_id: str) -> RunRequest:
        """The child run's request: the subagent's model, prompt and limits over the parent's."""
        container = self._runtime.container
        settings = container.settings()
        parent = self._parent
        if agent.model:
            model_id = container.gateway().resolve(choose_model(agent.model, container.env()))
        else:
            model_id = parent.model_id
        update: dict[str, Any] = {"plan": "off", "tools": "all"}
        if agent.max_tool_turns is not None:
            update["max_tool_turns"] = agent.max_tool_turns
        if agent.reasoning is not None:
            update["reasoning"] = agent.reasoning
        if model_id != parent.model_id:  # the parent's fallbacks and profile were chosen for its model
            update["fallback_models"] = ()
            update["tools_profile"] = settings.agent.tools_profile
        params = parent.params.model_copy(update=update)
        params = with_profile(params, model_id, container.prices())
        prompt = agent.prompt or system_prompt(settings, lean=params.tools_profile == "lean")
        return RunRequest(task=task, model_id=model_id, system_prompt=prompt, params=params, run_id=run_id)


def run_executor(runtime: OpenComposition, reviewer: Any, request: RunRequest) -> ToolExecutor:
    """The tools of the run ``request``: the composition's, and ``delegate`` when subagents are defined.

    Recorded by the checkpoints (``checkpointed``) as the container's own ``run_agent`` executor is:
    passing an executor replaces that one.
    """
    container = runtime.container
    executor: ToolExecutor = checkpointed(container.tool_executor(), container.checkpoints())
    agents = list(container.subagents().values())
    if not agents:
        return executor
    return DelegatingExecutor(executor, agents, ChildRuns(runtime, reviewer, request))
