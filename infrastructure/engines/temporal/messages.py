"""What crosses the workflow boundary: workflow input, activity inputs and replies. No SDK imports.

Everything here is small on purpose: the conversation never crosses (the model-request activity
reads it from the run log by run id), nor do tool schemas (each worker derives them from its own
tools by name). Tool outputs cross redacted, as the tool activity's result, when small; a large one is kept in
the run log's payloads and only a reference crosses (``activities.payload_reference``).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from quorum.application.deferral import PendingTurn
from quorum.application.execution import ExecutionParams
from quorum.application.ports.approvals import CallDecision
from quorum.application.ports.reviewer import ReviewContext
from quorum.application.ports.run_store import RecordedEvent
from quorum.domain.policy import ArgumentView, PolicyRule
from quorum.domain.responses import LlmResponse, ReasoningLevel
from quorum.domain.tools import Clearance, RiskAssessment, ToolCall, ToolDefinition

WORKFLOW_NAME = "QuorumRun"
DECIDE_SIGNAL = "decide"
STATUS_QUERY = "status"


class _Message(BaseModel):
    model_config = ConfigDict(frozen=True)


class RunSpec(_Message):
    """The workflow's input: one task, as ``quorum run`` asked for it.

    Attributes:
        run_id: the run id, also the workflow id.
        task: the task text.
        model_id: ``provider:model``, resolved by the client.
        system_prompt: the client's system prompt; workers append their tool sources' notes.
        params: the loop limits.
        workspace: where the tools act (the client's workspace; workers must see the same path).
        hil_mode: the human step: ``defer`` and ``interactive`` wait for a decision (a Signal),
            ``auto_approve``/``auto_reject`` decide at once.
        approval_timeout: seconds a deferred call waits before it is rejected.
        parent_run_id: the run continued (``--continue``/``--resume``), recorded with the run.
        heartbeat_timeout: seconds without a heartbeat after which a running tool call's worker
            counts as lost (``[engine] heartbeat_timeout``).
        trace: the W3C trace context (``traceparent``) of whoever started the run; every activity
            request carries it, so the spans of the run are one trace whichever workers serve it.
    """

    run_id: str
    task: str
    model_id: str
    system_prompt: str | None = None
    params: ExecutionParams = ExecutionParams()
    workspace: str
    hil_mode: str = "defer"
    approval_timeout: float = 86400.0
    parent_run_id: str | None = None
    heartbeat_timeout: float = 15.0
    trace: dict[str, str] = {}


class Prepared(_Message):
    """What a worker says about the run before it starts: tools, review setup, the system prompt."""

    tools: tuple[ToolDefinition, ...]
    schemas: dict[str, dict[str, object]]
    rules: tuple[PolicyRule, ...] = ()
    panel: bool = False
    escalate_on_reject: bool = False
    system_prompt: str | None = None


class CallFacts(_Message):
    """What the workflow needs of a call, computed where the tools are: its risk and the rules' views."""

    risk: RiskAssessment
    views: dict[str, ArgumentView] | None = None


class RecordBatch(_Message):
    """Events to append to the run log (``seq`` numbered by the workflow; replays are skipped)."""

    run_id: str
    workspace: str
    header_task: str | None = None
    header_model: str | None = None
    parent_run_id: str | None = None
    events: tuple[RecordedEvent, ...]


class ModelRequest(_Message):
    """One request to the model; the conversation is read from the run log of ``run_id``.

    Attributes:
        tool_names: the tools offered (None: answer without tools, the turn-limit summary).
        note: user text after the results (the turn-limit note).
        after_seq: the request is made only once the run log holds this event (recorded first).
        reasoning: the turn's reasoning level (``[agent] reasoning``).
        record: the run's events not yet in the run log; the activity appends them before it
            reads the conversation (decision 274: no run-log write of its own before a request).
    """

    run_id: str
    workspace: str
    model_id: str
    system_prompt: str | None = None
    tool_names: tuple[str, ...] | None = ()
    note: str | None = None
    after_seq: int = -1
    trace: dict[str, str] = {}
    reasoning: ReasoningLevel = "off"
    record: RecordBatch | None = None


class ModelReply(_Message):
    """The new response only, and the facts of each of its calls (by call id)."""

    response: LlmResponse
    facts: dict[str, CallFacts] = Field(default_factory=dict)
    cost: float | None = None
    """The response's price in USD by the worker's price list, None when unknown."""


class ToolRequest(_Message):
    """One tool call to execute with the given clearance."""

    run_id: str
    workspace: str
    call: ToolCall
    clearance: Clearance
    timeout: float
    trace: dict[str, str] = {}


class PanelRequest(_Message):
    """One call for the reviewer panel of the worker's ``[review]``."""

    run_id: str
    workspace: str
    call: ToolCall
    context: ReviewContext
    trace: dict[str, str] = {}


class ClaimRequest(_Message):
    """People's decisions to claim in the run log before the workflow settles the open turn."""

    run_id: str
    workspace: str
    decisions: tuple[CallDecision, ...]


class Claimed(_Message):
    """The claim's outcome: the open turn to settle, or why nothing was claimed."""

    turn: PendingTurn | None = None
    facts: dict[str, CallFacts] = Field(default_factory=dict)
    refused: str | None = None


class Decisions(_Message):
    """The Signal's payload: decisions on pending calls of the run.

    Attributes:
        decisions: one per call decided.
        model_id: continue the run with this model (``quorum approve --model``), resolved by the client.
    """

    decisions: tuple[CallDecision, ...]
    model_id: str | None = None


class WorkflowStatus(_Message):
    """The Query's answer: the events recorded so far and the calls waiting for a person."""

    recorded_seq: int
    waiting: tuple[str, ...] = ()
    finished: bool = False
