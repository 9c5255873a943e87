"""Inputs and result of a run: execution parameters, the request, and what came of it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from quorum.application.deferral import PendingTurn
from quorum.domain.events import RunStopReason
from quorum.domain.messages import Message
from quorum.domain.plans import ApprovedPlan
from quorum.domain.responses import ReasoningLevel, RunUsage
from quorum.domain.tool_profile import ToolsProfile
from quorum.domain.tools import ImagePart

DEFAULT_SYSTEM_PROMPT = (
    "You are Quorum, a careful software agent. You work in {workspace}; tool paths are relative to it. "
    "Use the tools to look before you answer or change anything, read a file before you edit it, and prefer "
    "read-only tools. High-risk calls (writes, commands) are reviewed and may be rejected with a reason: then "
    "take a safer approach. Finish with a short, direct answer."
)
"""The system prompt of a run that sets none; ``{workspace}`` is filled with the workspace path."""

LEAN_SYSTEM_PROMPT = (
    "You are a software agent working in {workspace}. Use the tools to do the task: read a file "
    "before you change it. When the task is done, answer in a few words."
)
"""The default system prompt of the lean tool profile (``tools_profile = "lean"``)."""

TurnLimitPolicy = Literal["summarize", "stop"]
"""What happens when the tool turn limit is reached (see ExecutionParams.on_turn_limit)."""


class LoopLimits(BaseModel):
    """The loop's limits and switches: the keys of ``[agent]`` in quorum.toml.

    Attributes:
        max_tool_turns: turns whose tool calls are executed; the next request for tools ends the run.
        timeout_seconds: wall-clock limit of the whole run.
        tool_timeout_seconds: limit of one tool call; the call is cancelled after it.
        max_parallel_tools: how many low-risk calls run at once.
        on_turn_limit: ``summarize`` asks once more, without tools, for the best final answer;
            ``stop`` ends at once.
        max_rejections: consecutive review rejections that stop the run.
        max_total_tokens: token budget of the run (input + output), or None.
        max_cost_usd: cost cap of the run in USD (agent and reviewer models, priced as ``cost``),
            or None; the run stops ``max_cost`` once its spending passes it.
        max_repeated_calls: a call with the same tool and arguments as each of this many calls
            before it, in a row, is not executed again (the loop guard).
        context_window: the model's context window (tokens); None: the model data's, else
            ``DEFAULT_CONTEXT_WINDOW`` (128,000).
        compact: ``auto`` compacts the history when a request would pass ``compact_at`` of the
            window; ``off`` never does.
        compact_at: the fraction of the window that triggers compaction.
        compact_model: the model that writes the summary (``provider:model``); None: the run's.
        stream: request streamed responses (text reaches observers as it arrives).
        plan: ``always`` runs every task in plan mode (plan, review the plan, then execute);
            ``off`` only when asked (``--plan``, ``/plan``, ``plan=True``).
        max_plan_turns: turns of the planning phase; without an approved plan by then the run
            stops ``no_plan``.
        reasoning: how much the agent's model reasons before answering (``off``, ``low``,
            ``medium``, ``high``); each provider maps it to its API (decision 211).
        tools_profile: ``full`` offers the tools as they are; ``lean`` with short descriptions and
            only their required parameters, and the short default system prompt; None: lean for a
            model whose context window is at most 32,768 tokens (``quorum.domain.tool_profile``).
        fallback_models: models (``provider:model``) that answer, in order, a request the run's
            model cannot (overloaded, 5xx, 429, timeout, connection error after the SDK's
            retries); the rest of the run stays on the model that answered
            (``quorum.application.fallback``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_tool_turns: int = Field(10, ge=1)
    timeout_seconds: float = Field(300.0, gt=0)
    tool_timeout_seconds: float = Field(60.0, gt=0)
    max_parallel_tools: int = Field(8, ge=1)
    on_turn_limit: TurnLimitPolicy = "summarize"
    max_rejections: int = Field(3, ge=1)
    max_total_tokens: int | None = Field(None, ge=1)
    max_cost_usd: float | None = Field(None, gt=0)
    max_repeated_calls: int = Field(3, ge=1)
    context_window: int | None = Field(None, ge=1000)
    compact: Literal["auto", "off"] = "auto"
    compact_at: float = Field(0.8, gt=0, le=1)
    compact_model: str | None = None
    stream: bool = True
    plan: Literal["off", "always"] = "off"
    max_plan_turns: int = Field(5, ge=1)
    reasoning: ReasoningLevel = "off"
    tools_profile: ToolsProfile | None = None
    fallback_models: tuple[str, ...] = ()

    @field_validator("fallback_models")
    @classmethod
    def _model_ids(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for model_id in value:
            provider, colon, model = model_id.partition(":")
            if not (provider.strip() and colon and model.strip()):
                raise ValueError(f"{model_id!r} is not a model id: expected 'provider:model'")
        return value


class ExecutionParams(LoopLimits):
    """How a run behaves: the loop limits, plus which tools are offered.

    Attributes:
        tools: ``all``, or ``low_risk_only`` (the read-only ``ask`` mode; chosen by the command).
    """

    tools: Literal["all", "low_risk_only"] = "all"


class RunRequest(BaseModel):
    """One task for one model. ``history`` continues an earlier conversation.

    ``resume`` continues a run stopped ``awaiting_approval`` under the same ``run_id``: ``history``
    then ends with the open turn's assistant message, whose calls ``resume`` settles before the
    loop goes on (built by ``ContinueRun``).

    ``params.plan == "always"`` runs the task in plan mode (``PlanPhase``); ``approved_plan`` is
    the plan a continued run already had approved (its execution phase goes on with it).

    ``output_schema`` (a valid JSON Schema) asks for a final answer that is a JSON document matching
    it (``quorum.application.output_schema``): the run's ``output`` is then that document, and a run
    whose answer does not match after the tries it is given stops ``invalid_output``.

    ``task_images`` go with the task in the run's first user message as image input (a model
    without vision answers with its provider's error). They are not in the run log's events, so
    a run continued from the log has the task's text without them.
    """

    model_config = ConfigDict(frozen=True)

    task: str
    model_id: str
    system_prompt: str | None = None
    params: ExecutionParams = ExecutionParams()
    history: tuple[Message, ...] = ()
    run_id: str | None = None
    resume: PendingTurn | None = None
    approved_plan: ApprovedPlan | None = None
    task_images: tuple[ImagePart, ...] = ()
    session_id: str | None = None
    """The conversation's root run id (hooks' ``session_id``); None: this run starts the conversation."""
    output_schema: dict[str, Any] | None = None


class RunResult(BaseModel):
    """How a run ended. ``detail`` explains any stop other than ``end_turn``.

    ``usage`` counts the agent's and (``reviewer_*``) the reviewer models' tokens; ``cost`` is
    their price in USD, None when a model's prices are unknown.
    """

    model_config = ConfigDict(frozen=True)

    run_id: str
    stop_reason: RunStopReason
    turns: int
    output: str
    usage: RunUsage
    detail: str | None = None
    cost: float | None = None
