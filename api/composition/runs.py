"""Preparing one run: the model, the system prompt with the tool sources' notes, the request, its observers.

``prepare_run`` is the one place a driver's task becomes a ``RunRequest``: ``quorum run``/``ask``,
each ``quorum chat`` message, each ``quorum batch`` task and ``Agent.run`` call it, then hand the
result to ``Runtime.execute`` (or to the Temporal client, which sends the request as a workflow).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from quorum.application.execution import DEFAULT_SYSTEM_PROMPT, RunRequest
from quorum.application.ports.observer import RunObserver
from quorum.composition.model_choice import choose_model
from quorum.composition.observers import FanOut, build_recorder
from quorum.composition.paths import workspace_of

if TYPE_CHECKING:
    from quorum.composition.runtime import Runtime
    from quorum.domain.messages import Message
    from quorum.infrastructure.config.schema import Settings


def system_prompt(settings: Settings, workspace: Path | None = None) -> str:
    """The agent's system prompt: ``[agent] system_prompt``, else the default naming the workspace.

    ``workspace`` replaces the configured one (a batch task's own workspace).
    """
    where = workspace if workspace is not None else workspace_of(settings)
    return str(settings.agent.system_prompt or DEFAULT_SYSTEM_PROMPT.format(workspace=where))


async def with_tool_notes(prompt: str | None, executor: Any) -> str | None:
    """``prompt`` followed by the tool sources' notes (MCP server instructions), when there are any.

    Starts the eager MCP servers, as listing the tools would; their start events are said at the
    run's start.
    """
    from quorum.infrastructure.plugins.contracts import ToolSourceNotes

    notes = list(await executor.prompt_notes()) if isinstance(executor, ToolSourceNotes) else []
    return "\n\n".join([prompt or "", *notes]).strip() if notes else prompt


@dataclass(frozen=True)
class PreparedRun:
    """A run ready to execute.

    Attributes:
        request: what the loop runs (model resolved to ``provider:model``, the system prompt with
            the tool sources' notes unless the run goes to Temporal, whose worker adds its own).
        observer: who sees the run's events: the run log's recorder, then the driver's observers.
        parent_run_id: the recorded run this one continues (``--continue``, a chat's previous message).
    """

    request: RunRequest
    observer: RunObserver
    parent_run_id: str | None = None


def plan_override(plan: bool | None) -> dict[str, Any]:
    """The ``[agent] plan`` override a driver's ``plan`` flag makes (none for None)."""
    return {} if plan is None else {"plan": "always" if plan else "off"}


async def prepare_run(
    runtime: Runtime,
    task: str,
    *,
    model: str | None = None,
    history: Sequence[Message] = (),
    tools: Literal["all", "low_risk_only"] = "all",
    run_id: str | None = None,
    parent_run_id: str | None = None,
    observers: Sequence[RunObserver | None] = (),
    tool_notes: bool = True,
    plan: bool | None = None,
) -> PreparedRun:
    """Prepare one run of ``task`` on ``runtime``'s composition.

    Args:
        runtime: the open composition.
        task: the user's text.
        model: the driver's choice (a flag, a resumed run's model, ``/model``); None: ``model``
            from the configuration, else a default for the first provider key in the environment.
            Aliases and bare names become ``provider:model`` here, so the run log and prices see
            the real model.
        history: the conversation so far.
        tools: which tools are offered (``ask``: ``low_risk_only``).
        run_id: the run's id (None: the loop makes one).
        parent_run_id: the recorded run this one continues.
        observers: the driver's observers (a renderer, a collector), after the recorder.
        tool_notes: add the tool sources' notes to the system prompt (starts the eager MCP
            servers); False for a run a Temporal worker executes.
        plan: plan mode for this run (plan, have the plan reviewed, then execute); None:
            ``[agent] plan`` decides.

    Raises:
        UsageError: no model configured and no key found, or an ambiguous model name.
    """
    container = runtime.container
    settings = container.settings()
    model_id = container.gateway().resolve(choose_model(model or settings.model, container.env()))
    prompt = await runtime.system_prompt() if tool_notes else system_prompt(settings)
    request = RunRequest(
        task=task,
        model_id=model_id,
        system_prompt=prompt,
        params=settings.agent.execution_params(tools=tools, **plan_override(plan)),
        history=tuple(history),
        run_id=run_id,
    )
    recorder = build_recorder(runtime.store, settings, parent_run_id)
    return PreparedRun(request=request, observer=FanOut([recorder, *observers]), parent_run_id=parent_run_id)
