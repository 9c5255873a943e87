"""Preparing one run: the model, the system prompt with the tool sources' notes, the request, its observers.

``prepare`` turns a driver's ``RunOrder`` into a ``PreparedRun``: it is the one place a task
becomes a ``RunRequest``. The run service (``quorum.composition.service``) executes it;
``prepare_run`` is the same with the order's fields as keywords (``quorum batch``, the Temporal
clients).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.ports.observer import RunObserver
from quorum.composition.model_choice import choose_model
from quorum.composition.observers import FanOut, build_recorder
from quorum.composition.orders import PreparedRun, RunOrder
from quorum.composition.prompts import system_prompt, with_profile, with_tool_notes

if TYPE_CHECKING:
    from quorum.composition.runtime import Runtime
    from quorum.domain.messages import Message

__all__ = [
    "PreparedRun",
    "plan_override",
    "prepare",
    "prepare_run",
    "require_schema",
    "system_prompt",
    "with_tool_notes",
]


def plan_override(plan: bool | None) -> dict[str, Any]:
    """The ``[agent] plan`` override a driver's ``plan`` flag makes (none for None)."""
    return {} if plan is None else {"plan": "always" if plan else "off"}


def require_schema(schema: Any) -> None:
    """Refuse an output schema that is not a valid JSON Schema (None: no schema asked for).

    Raises:
        UsageError: what is wrong with it.
    """
    if schema is None:
        return
    from quorum.application.output_schema import schema_problem
    from quorum.domain.errors import UsageError

    problem = schema_problem(schema)
    if problem is not None:
        raise UsageError(
            f"the output schema is {problem}" if problem.startswith("not ") else f"output schema: {problem}"
        )


async def prepare(runtime: Runtime, order: RunOrder) -> PreparedRun:
    """Prepare ``order`` on ``runtime``'s composition.

    Aliases and bare model names become ``provider:model`` here, so the run log and prices see
    the real model.

    Raises:
        UsageError: no model configured and no key found, an ambiguous model name, or an
            ``output_schema`` that is not a valid JSON Schema.
        ConfigurationError: a fallback model (``[agent] fallback_models``) cannot be opened.
    """
    container = runtime.container
    settings = container.settings()
    require_schema(order.output_schema)
    model_id = container.gateway().resolve(choose_model(order.model or settings.model, container.env()))
    params = run_params(runtime, model_id, order.tools, order.plan)
    lean = params.tools_profile == "lean"
    if order.tool_notes:
        prompt = await runtime.system_prompt(lean=lean)
    else:
        prompt = system_prompt(settings, lean=lean, conventions=container.conventions())
    if order.max_cost_usd is not None:
        params = params.model_copy(update={"max_cost_usd": order.max_cost_usd})
    for fallback in params.fallback_models:  # an unknown provider or a missing key: said now, not mid-run
        container.gateway().session(fallback)
    request = RunRequest(
        task=order.task,
        task_images=order.task_images,
        model_id=model_id,
        system_prompt=prompt,
        params=params,
        history=tuple(order.history),
        run_id=order.run_id,
        session_id=conversation_root(runtime, order.parent_run_id) if container.hooks() is not None else None,
        output_schema=order.output_schema,
    )
    recorder = build_recorder(runtime.store, settings, order.parent_run_id)
    observer = FanOut([recorder, *order.observers])
    return PreparedRun(request=request, observer=observer, parent_run_id=order.parent_run_id)


def run_params(runtime: Runtime, model_id: str, tools: str, plan: bool | None) -> ExecutionParams:
    """The ``[agent]`` settings as a run's parameters, its tools profile decided for ``model_id``.

    ``tools`` and ``plan`` are the order's. Kept on the runtime per (model, tools, plan): the
    settings and the model data do not change while it is open, and every run asks.
    """
    key = (model_id, tools, plan)
    params = runtime.run_params.get(key)
    if params is None:
        container = runtime.container
        params = container.settings().agent.execution_params(tools=tools, **plan_override(plan))
        params = runtime.run_params[key] = with_profile(params, model_id, container.prices())
    return params


def conversation_root(runtime: Runtime, parent_run_id: str | None) -> str | None:
    """The first run of the conversation ``parent_run_id`` belongs to (hooks' ``session_id``); None for a new one."""
    root, store = parent_run_id, runtime.store
    seen: set[str] = set()
    while root is not None and store is not None and root not in seen:
        seen.add(root)
        summary = store.get_run(root)
        if summary is None or summary.parent_run_id is None:
            break
        root = summary.parent_run_id
    return root


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
    """``prepare`` of the order these keywords make (see ``RunOrder`` for each)."""
    order = RunOrder(
        task=task,
        model=model,
        history=tuple(history),
        tools=tools,
        run_id=run_id,
        parent_run_id=parent_run_id,
        observers=tuple(observers),
        tool_notes=tool_notes,
        plan=plan,
    )
    return await prepare(runtime, order)
