"""What a driver asks the run service for: one frozen order per run, per decision.

A driver (``quorum run``, a chat message, ``Agent.run``, ``POST /v1/runs``, an editor's prompt)
translates its protocol into a ``RunOrder``; ``quorum approve``/``reject`` and ``POST
/v1/runs/{id}/decisions`` into a ``DecisionOrder``. Everything a driver varies per run is a field
here, never an override of the composition's wiring (decision 190): the person asked about
high-risk calls is the ``human`` port, the approval mode and the earlier "always" answers are
fields, and so are the cost cap and the observers (the driver's renderer or event stream).
A ``PreparedRun`` is an order made ready: its ``RunRequest`` and its observers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from quorum.application.execution import RunRequest
    from quorum.application.ports.observer import RunObserver
    from quorum.domain.messages import Message
    from quorum.domain.tools import ImagePart
    from quorum.infrastructure.review.human import HumanPrompt
    from quorum.infrastructure.review.scope import ApprovalScope

HilMode = Literal["interactive", "auto_approve", "auto_reject", "defer"]
"""The human step of a run (``[review] hil_mode``)."""


@dataclass(frozen=True)
class RunOrder:
    """One run, as a driver asks for it.

    Attributes:
        task: the user's text.
        task_images: images going with the task in the first user message (an editor's prompt).
        model: the driver's choice (a flag, a resumed run's model, ``/model``); None: ``model``
            from the configuration, else a default for the first provider key in the environment.
        history: the conversation so far.
        parent_run_id: the recorded run this one continues (``--continue``, the previous message).
        run_id: the run's id (None: the loop makes one).
        tools: which tools are offered (``ask``: ``low_risk_only``).
        plan: plan mode for this run; None: ``[agent] plan`` decides.
        human: who is asked about a high-risk call (the terminal, an editor's permission request,
            an embedding application's callback), when the composition is interactive
            (``AppOptions.interactive``); None: the terminal then. Without a person to ask,
            ``hil_mode``'s rule decides.
        hil_mode: this run's human step in place of ``[review] hil_mode`` (None: the configured one).
        always: "always approve" answers already given, approving calls in their scopes unasked.
        refused: "always reject" scopes: a call in one is rejected before any question or mode.
            Read at each call, so a driver passes a list it extends while the run goes on (an
            editor session's, empty at first); None: the driver has no such answer.
        max_cost_usd: this run's cost cap in place of ``[agent] max_cost_usd`` (a chat session's
            remainder of its own cap).
        observers: the driver's observers (a renderer, an event stream), after the recorder.
        tool_notes: add the tool sources' notes to the system prompt (starts the eager MCP
            servers); False for a run a Temporal worker executes (the worker adds its own).
        output_schema: a JSON Schema the run's final answer must match (``--output-schema``,
            ``Agent.run(output_schema=)``, ``POST /v1/runs``); the run's output is then the JSON
            document, or it stops ``invalid_output`` (decision 260). None: a free answer.
    """

    task: str
    task_images: tuple[ImagePart, ...] = ()
    model: str | None = None
    history: tuple[Message, ...] = ()
    parent_run_id: str | None = None
    run_id: str | None = None
    tools: Literal["all", "low_risk_only"] = "all"
    plan: bool | None = None
    human: HumanPrompt | None = None
    hil_mode: HilMode | None = None
    always: tuple[ApprovalScope, ...] = ()
    refused: Sequence[ApprovalScope] | None = None
    max_cost_usd: float | None = None
    observers: tuple[RunObserver | None, ...] = ()
    tool_notes: bool = True
    output_schema: dict[str, Any] | None = None


@dataclass(frozen=True)
class DecisionOrder:
    """People's decision on calls of a deferred run, and the continuation it starts.

    Attributes:
        run_id: the run stopped ``awaiting_approval``.
        approved: approve the calls (they run) or reject them (the model sees ``reason``).
        by: who decides (recorded in the ``review`` event).
        call_ids: the calls decided; empty: every pending call of the run.
        reason: why (the model sees it for a rejection).
        model: the model to go on with; None: the one the run used last.
        always: "always approve" answers given for this run (a served run's earlier ones).
        observers: the driver's observers of the continued part, after the recorder.
        cancel: the continued run cancels itself as it starts: its calls are answered (rejected)
            and it ends ``cancelled`` (``POST /v1/runs/{id}/cancel`` of a waiting run).
    """

    run_id: str
    approved: bool
    by: str
    call_ids: tuple[str, ...] = ()
    reason: str = ""
    model: str | None = None
    always: tuple[ApprovalScope, ...] = ()
    observers: tuple[RunObserver | None, ...] = ()
    cancel: bool = False


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
