"""Run events: what UIs, logs and ``--json`` output consume, in the order a run emits them.

Each event's JSON form (``event.model_dump(mode="json")``) is the public ``--json`` contract: a
``type`` discriminator plus the fields below. Only ever add fields.

An event of a child run (a subagent's delegation) reaches the delegating run's observers tagged
with the child's ``run_id`` (``delegated``); the run's own events leave ``run_id`` out of their
JSON (``run_started`` always has it).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from quorum.domain.errors import Unavailable
from quorum.domain.plans import Plan
from quorum.domain.responses import ReasoningBlock, RunUsage, Usage
from quorum.domain.review import ReviewDecision, Vote, milliseconds
from quorum.domain.tools import RiskLevel, ToolCall, ToolResult


class RunStopReason(StrEnum):
    """Why a run ended."""

    END_TURN = "end_turn"
    MAX_TURNS = "max_turns"
    TIMEOUT = "timeout"
    MAX_TOKENS = "max_tokens"
    MAX_COST = "max_cost"
    """The run's spending passed ``[agent] max_cost_usd``."""
    REJECTED = "rejected"
    CANCELLED = "cancelled"
    ERROR = "error"
    AWAITING_APPROVAL = "awaiting_approval"
    """High-risk calls wait for a person (``hil_mode = "defer"``); ``quorum approve`` continues the run."""
    NO_PLAN = "no_plan"
    """Plan mode: no plan was approved within ``[agent] max_plan_turns`` planning turns."""
    LOOP_DETECTED = "loop_detected"
    """The model repeated a call (in a row or in a cycle, to the same result) after the loop guard's warnings."""
    INVALID_OUTPUT = "invalid_output"
    """The run asked for a final answer matching a JSON Schema (``output_schema``) and the model's last
    answer, after the tries it was given, was not one; ``detail`` holds that answer and what is wrong."""


_T = TypeVar("_T")


def _untagged(run_id: str | None) -> bool:
    return run_id is None


CHILD_RUN_ID = Field(None, exclude_if=_untagged)
"""``run_id`` of an event of a child run in its parent's stream; None (left out of the JSON) otherwise."""


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True)

    run_id: str | None = CHILD_RUN_ID


def delegated(event: RunEvent, run_id: str) -> RunEvent:
    """``event`` of the child run ``run_id`` as its parent's stream carries it: tagged with ``run_id``."""
    return event.model_copy(update={"run_id": run_id})


def own_events(events: Iterable[_T]) -> list[_T]:
    """``events`` of one run's stream without its child runs' (delegations', tagged with their ``run_id``).

    The run is the one whose ``run_started`` comes first; objects that are not events pass.
    """
    own: str | None = None
    kept: list[_T] = []
    for event in events:
        run_id = getattr(event, "run_id", None)
        if own is None and isinstance(event, RunStarted):
            own = run_id
        if run_id is None or run_id == own:
            kept.append(event)
    return kept


class RunStarted(_Event):
    """A run starts, or (``resumed``) goes on after a stop such as ``awaiting_approval``.

    A resumed run keeps its ``run_id``; its events follow the earlier ones in the same run, and
    ``model`` is the model of this part of the run (``quorum approve --model`` may change it).
    ``output_schema``: the JSON Schema the run's final answer must match (left out of the JSON
    when there is none), so a continued run checks its answer too.
    """

    type: Literal["run_started"] = "run_started"
    run_id: str
    model: str
    task: str
    resumed: bool = False
    output_schema: dict[str, Any] | None = None

    @model_serializer(mode="wrap")
    def _schema_when_any(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if self.output_schema is None:  # a run without one reads as it always did
            data.pop("output_schema", None)
        return data


class TurnStarted(_Event):
    type: Literal["turn_started"] = "turn_started"
    turn: int


class TextDelta(_Event):
    """Model text as it arrives (a whole response's text when not streaming)."""

    type: Literal["text"] = "text"
    text: str


class ReasoningEvent(_Event):
    """The model's reasoning before its answer: not part of the answer (``text``).

    The flat public form of a ``ReasoningBlock``: ``text`` is the readable reasoning (empty when
    the provider sends none), ``api`` and ``wire`` the block as received, which the run log keeps
    so a continued or approved run sends it back. ``redacted``: a secret was replaced in it, so it
    is no longer what the provider signed and is not sent back.
    """

    type: Literal["reasoning"] = "reasoning"
    text: str
    api: str
    wire: dict[str, Any]
    redacted: bool = False

    @classmethod
    def of(cls, block: ReasoningBlock) -> ReasoningEvent:
        """The event carrying ``block``."""
        return cls(text=block.text, api=block.api, wire=dict(block.wire))

    def block(self) -> ReasoningBlock:
        """The kept block this event carries."""
        return ReasoningBlock(api=self.api, wire=self.wire, text=self.text)


class ToolCallEvent(_Event):
    """A call of the model's response, announced before it is checked, reviewed or run.

    The flat public form of a ``ToolCall`` (``id`` is its ``native_id``), with the call's risk;
    ``arguments`` are as shown (a placeholder for arguments too deep or large to carry).
    """

    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: dict[str, Any]
    risk: RiskLevel

    @classmethod
    def of(cls, call: ToolCall, risk: RiskLevel, arguments: dict[str, Any]) -> ToolCallEvent:
        """The event announcing ``call`` with the ``arguments`` shown."""
        return cls(id=call.native_id, name=call.name, arguments=arguments, risk=risk)


VoteRecord = Vote
"""The vote as events carry it: ``Vote`` itself (the name is kept for code written when they differed)."""


class ReviewEvent(_Event):
    type: Literal["review"] = "review"
    call_id: str
    name: str
    approved: bool
    decided_by: str
    votes: list[Vote]
    reason: str
    rule: str | None = None
    by: str | None = None
    """Who decided, when a person did later (``quorum approve``/``reject``: ``--by`` or ``$USER``)."""
    votes_needed: int | None = None
    """A panel's decision: the fewest cast votes it needed to count them under ``rule``
    (``[review] min_votes``, by default a majority of the panel); with fewer it rejects."""
    hook: str | None = None
    """The command of the ``pre_tool_use`` hook that decided (``decided_by`` is ``hook``)."""

    @classmethod
    def of(cls, call_id: str, name: str, decision: ReviewDecision) -> ReviewEvent:
        return cls(
            call_id=call_id,
            name=name,
            approved=decision.approved,
            decided_by=decision.decided_by,
            votes=list(decision.votes),
            reason=decision.reason,
            rule=decision.rule,
            by=decision.by,
            votes_needed=decision.votes_needed,
            hook=decision.hook,
        )


class ApprovalRequested(_Event):
    """A high-risk call waits for a person (``hil_mode = "defer"``): it has no result yet.

    Emitted instead of a ``review`` event when the human step defers; the run finishes the other
    calls of its turn and ends with ``awaiting_approval``. ``reason`` says why a person must
    decide, ``votes`` are the review so far (the panel's, when it escalated). ``quorum approve``
    or ``quorum reject`` decides it later; a run that stops again re-emits the requests still open.
    """

    type: Literal["approval_requested"] = "approval_requested"
    call_id: str
    name: str
    arguments: dict[str, Any]
    risk: RiskLevel
    reason: str
    votes: list[Vote] = Field(default_factory=list)
    rule: str | None = None


class VoteCast(Vote):
    """One reviewer's vote on ``call_id``, as it arrives (the ``review`` event repeats it with the decision).

    The vote's own fields (``Vote``: ``reviewer``, ``verdict``, ``reason``, ``latency_ms``,
    ``model``, ``usage``) plus ``call_id``. Lets a UI show each vote while the panel is still
    deliberating.
    """

    type: Literal["vote"] = "vote"
    call_id: str
    run_id: str | None = CHILD_RUN_ID

    @classmethod
    def of(cls, call_id: str, vote: Vote) -> VoteCast:
        return cls(call_id=call_id, **dict(vote))


class ToolProgress(_Event):
    """A call under way reports progress: a line of output, an MCP progress notification.

    ``progress``/``total`` are numbers in the tool's own unit when it gives them (``total`` may be
    unknown); ``message`` is a short human line. Sources throttle these (a few per second at most).
    """

    type: Literal["progress"] = "progress"
    call_id: str
    message: str = ""
    progress: float | None = None
    total: float | None = None


class McpServerEvent(_Event):
    """An MCP server started, failed to start or was restarted; ``error`` says why it failed.

    ``duration_ms`` is how long the start (or restart) took. Emitted in the run that caused it;
    a server started before the run is reported at the run's start.
    """

    type: Literal["mcp_server"] = "mcp_server"
    name: str
    state: Literal["started", "failed", "restarted"]
    error: str | None = None
    duration_ms: float = 0.0


class McpSampling(_Event):
    """An MCP server asked to use a model (``sampling/createMessage``) and was served or refused.

    ``decided_by`` is ``config`` (``sampling = "allow"``/``"deny"``), ``human`` (asked), or
    ``auto`` (``ask`` with nobody to ask: refused). ``model`` served it (None when refused);
    ``usage`` is what it spent, counted in the run's usage. ``max_tokens`` is the cap applied
    (the request's, lowered to ``sampling_max_tokens``). ``error`` says why it failed or was refused.
    """

    type: Literal["mcp_sampling"] = "mcp_sampling"
    server: str
    approved: bool
    decided_by: Literal["config", "human", "auto"]
    model: str | None = None
    usage: Usage = Usage()
    max_tokens: int = 0
    stop_reason: str | None = None
    error: str | None = None


class McpElicitation(_Event):
    """An MCP server asked the person for input (``elicitation/create``); ``action`` is the answer.

    ``fields`` names the fields answered (their values are not recorded); ``decided_by`` is
    ``human`` (terminal), ``callback`` (the Python API's ``on_elicitation``) or ``auto`` (nobody to
    ask: declined).
    """

    type: Literal["mcp_elicitation"] = "mcp_elicitation"
    server: str
    message: str
    action: Literal["accept", "decline", "cancel"]
    decided_by: Literal["human", "callback", "auto"]
    fields: list[str] = Field(default_factory=list)


class McpLog(_Event):
    """A log message an MCP server sent (``notifications/message``); shown with ``-v``."""

    type: Literal["mcp_log"] = "mcp_log"
    server: str
    level: str
    logger: str | None = None
    message: str


class McpToolsPinned(_Event):
    """A server's tools were seen for the first time and pinned (trust on first use).

    ``tool_count`` tools were pinned: each tool's definition is fingerprinted (SHA-256 of its
    canonical JSON) so that a later change is withheld until a person trusts it.
    """

    type: Literal["mcp_tools_pinned"] = "mcp_tools_pinned"
    server: str
    tool_count: int


McpToolChange = Literal["new", "description", "input_schema", "output_schema", "annotations", "title"]
"""What differs from a tool's pin: ``new`` (no pin), or the fields of the definition that changed."""


class McpToolChanged(_Event):
    """A pinned server offers a tool that differs from its pin (or is new): it is withheld.

    The tool is not offered to the model and a call to it is refused until a person runs
    ``quorum mcp trust SERVER TOOL``. ``change`` names what differs, in a fixed order.
    """

    type: Literal["mcp_tool_changed"] = "mcp_tool_changed"
    server: str
    tool: str
    change: list[McpToolChange]


ToolOutcome = Literal["ok", "error", "rejected", "invalid_arguments", "timed_out", "not_run"]
"""How a call ended (``tool_result.outcome``).

- ``ok``: it ran and succeeded.
- ``error``: it failed (the tool's error, a run cancelled or timed out under it, a repeated call
  the loop guard did not run).
- ``not_run``: the loop left it unexecuted because the run stops (a limit, too many rejections,
  a failure); ``problem`` says why.
- ``rejected``: a review or a ``deny`` rule refused it; it did not run.
- ``invalid_arguments``: it could not be run as made (an unknown tool, arguments that break the
  tool's schema or bounds); refused before any review, it did not run.
- ``timed_out``: it ran past ``[agent] tool_timeout_seconds``, so the loop cancelled it.
"""


class ToolResultEvent(_Event):
    """A call's result: the flat public form of a ``ToolResult``, under the same field names.

    ``redacted`` is true when known secret values were replaced in ``output``. ``duration_ms`` is
    the result's ``duration`` in milliseconds; ``images`` counts the images sent to the model with
    the result, whose data is never in an event (``output`` names each one, e.g.
    ``[image: image/png, 4 KB]``). ``outcome`` says how the call ended (``ToolOutcome``);
    ``is_error`` is true for every outcome but ``ok``, ``is_rejected`` for ``rejected``. An event
    recorded before ``outcome`` existed reads as ``rejected``, ``error`` or ``ok`` from those two.
    ``problem`` says, for a call that did not run (``invalid_arguments``, ``not_run``), why, in
    the loop's words without the model-facing wrapping of ``output``; left out of the JSON when
    there is none.
    """

    type: Literal["tool_result"] = "tool_result"
    call_id: str
    name: str
    is_error: bool
    is_rejected: bool
    output: str
    duration_ms: float
    redacted: bool = False
    images: int = 0
    outcome: ToolOutcome = "ok"
    problem: str | None = None

    @model_serializer(mode="wrap")
    def _without_empty_problem(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if self.problem is None:  # a call that ran keeps its JSON as it always was
            data.pop("problem", None)
        return data

    @model_validator(mode="before")
    @classmethod
    def _outcome_of_flags(cls, data: Any) -> Any:
        if isinstance(data, dict) and "outcome" not in data:
            data = {**data, "outcome": _outcome_of(bool(data.get("is_error")), bool(data.get("is_rejected")))}
        return data

    @classmethod
    def of(cls, result: ToolResult, outcome: ToolOutcome | None = None, problem: str | None = None) -> ToolResultEvent:
        """The event announcing ``result``; ``outcome`` defaults to what its flags say (ok, error, rejected)."""
        return cls(
            call_id=result.call_id,
            name=result.name,
            is_error=result.is_error,
            is_rejected=result.is_rejected,
            output=result.output,
            duration_ms=milliseconds(result.duration),
            redacted=result.redacted,
            images=len(result.images),
            outcome=outcome or _outcome_of(result.is_error, result.is_rejected),
            problem=problem,
        )


def _outcome_of(is_error: bool, is_rejected: bool) -> ToolOutcome:
    return "rejected" if is_rejected else "error" if is_error else "ok"


class ContextCompacted(_Event):
    """The session's history was compacted before turn ``turn``'s request (the run log keeps it all).

    ``tokens_before`` and ``tokens_after`` are the estimated tokens of the request; old tool
    outputs were replaced by markers, then, if need be, older messages by a summary:
    ``messages_compacted`` counts the messages changed or replaced.
    """

    type: Literal["context_compacted"] = "context_compacted"
    turn: int
    tokens_before: int
    tokens_after: int
    messages_compacted: int


class ModelFallback(_Event):
    """A model could not answer (``reason``), so the same request went to the next model of its chain.

    ``from`` and ``to`` are model ids (``provider:model``); ``reason`` is why ``from`` could not
    answer (``overloaded``, ``server_error``, ``rate_limited``, ``timeout``, ``connection``) and
    ``detail`` the provider's error. ``reviewer`` names the panel seat whose model fell back,
    None for the agent's model. The rest of the run stays on ``to``.
    """

    model_config = ConfigDict(frozen=True, serialize_by_alias=True, validate_by_name=True, validate_by_alias=True)

    type: Literal["model_fallback"] = "model_fallback"
    from_: str = Field(alias="from")
    to: str
    reason: Unavailable
    detail: str = ""
    reviewer: str | None = None


class TurnFinished(_Event):
    type: Literal["turn_finished"] = "turn_finished"
    turn: int


class StopDetail(BaseModel):
    """What a stop other than ``end_turn`` was about, as data (``run_finished.stop``).

    ``run_finished.detail`` says the same in a sentence for people; renderers word a stop from
    these fields, never from that sentence. Fields that do not apply to the stop are left out
    (None, empty).
    """

    model_config = ConfigDict(frozen=True)

    limit: int | float | None = None
    """The limit the run reached, in the unit of its stop reason: tool turns (``max_turns``),
    planning turns (``no_plan``), rejections in a row (``rejected``), warnings given
    (``loop_detected``), answers checked (``invalid_output``), tokens (``max_tokens``,
    when the run's token budget stopped it; None when the model hit its output limit), USD
    (``max_cost``), seconds (``timeout``)."""
    used: int | float | None = None
    """What the run had used against ``limit``: tokens (``max_tokens``), USD (``max_cost``)."""
    waiting_calls: list[str] = Field(default_factory=list)
    """``awaiting_approval``: the ids of the calls waiting for a person, in the model's order."""
    hook: str | None = None
    """``rejected`` by a ``user_prompt_submit`` hook: its command (the message was never sent)."""


class RunFinished(_Event):
    """The last event of every run. ``detail`` explains stops other than end_turn, ``stop`` as data.

    ``usage`` counts the agent model's tokens and, in its ``reviewer_*`` fields, the reviewer
    models'; ``cost`` is what both cost in USD, or None when a model's prices are unknown.
    ``stop`` (``StopDetail``) carries what a stop other than ``end_turn`` was about: the limit
    reached and what was used, the calls waiting for a person. It is left out of the JSON when
    there is nothing to add (``end_turn``, ``cancelled``, ``error``), and None in events recorded
    before it existed.
    """

    type: Literal["run_finished"] = "run_finished"
    stop_reason: RunStopReason
    turns: int
    output: str
    usage: RunUsage
    detail: str | None = None
    cost: float | None = None
    stop: StopDetail | None = None

    @model_serializer(mode="wrap")
    def _stop_when_any(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if self.stop is None:  # an end of turn's JSON stays as it always was
            data.pop("stop", None)
        return data

    @field_validator("usage", mode="before")
    @classmethod
    def _run_usage(cls, value: Any) -> Any:
        """Accept a plain ``Usage`` (no reviewer tokens), as events recorded before reviewers counted."""
        if isinstance(value, Usage) and not isinstance(value, RunUsage):
            return RunUsage.of(value, Usage())
        return value


class PlanProposed(_Event):
    """Plan mode: the model proposed ``plan`` (its ``propose_plan`` call ``call_id``), before its review.

    ``attempt`` counts the plans proposed in this part of the run (a revision after a rejection is 2).
    """

    type: Literal["plan_proposed"] = "plan_proposed"
    call_id: str
    plan: Plan
    attempt: int = 1


class PlanReviewed(_Event):
    """Plan mode: the decision on a proposed plan: the plan, the votes (panel, then person), who decided and why.

    Follows the ``review`` event of the ``propose_plan`` call. An approved plan starts the
    execution phase; a rejected one goes back to the model with ``reason``. A plan left to a
    person (``hil_mode = "defer"``) has an ``approval_requested`` event instead until decided.
    """

    type: Literal["plan_reviewed"] = "plan_reviewed"
    call_id: str
    plan: Plan
    approved: bool
    decided_by: str
    votes: list[Vote]
    reason: str
    by: str | None = None
    turn: int = 0
    rule: str | None = None
    """The panel's quorum rule, when the panel decided."""
    votes_needed: int | None = None
    """As in ``review``: the fewest cast votes the panel needed to count them."""


class CheckpointEvent(_Event):
    """The workspace was recorded after a batch of calls that can change it (``[checkpoints]``).

    Names the files (not directories) the batch ``created``, ``modified`` and ``deleted``, sorted,
    and the calls of the batch (``call_ids``). ``unrestorable`` are changed files an undo cannot
    put back as they were (over ``[checkpoints] max_file_mib`` before the batch). Emitted only
    when the batch changed something; ``quorum undo RUN_ID`` restores the state before the run.
    """

    type: Literal["checkpoint"] = "checkpoint"
    checkpoint_id: str
    call_ids: list[str]
    created: list[str] = Field(default_factory=list)
    modified: list[str] = Field(default_factory=list)
    deleted: list[str] = Field(default_factory=list)
    unrestorable: list[str] = Field(default_factory=list)


RunEvent = Annotated[
    RunStarted
    | ContextCompacted
    | ModelFallback
    | TurnStarted
    | TextDelta
    | ReasoningEvent
    | ToolCallEvent
    | VoteCast
    | ReviewEvent
    | ApprovalRequested
    | ToolProgress
    | McpServerEvent
    | McpSampling
    | McpElicitation
    | McpLog
    | McpToolsPinned
    | McpToolChanged
    | ToolResultEvent
    | TurnFinished
    | RunFinished
    | PlanProposed
    | PlanReviewed
    | CheckpointEvent,
    Field(discriminator="type"),
]
