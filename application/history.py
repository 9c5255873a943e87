"""Rebuilding a run's conversation from its recorded events, to continue it on any provider.

The events of a run say everything the model saw and said, in order: the task (``run_started``),
the model's kept reasoning (``reasoning``), text (``text``) and calls (``tool_call``), and the
results sent back (``tool_result``).
``rebuild_history`` turns them back into the provider-neutral ``Message`` list a session keeps, so
``LlmGateway.session(..., history=...)`` can continue the conversation, even on another provider.

Two gaps in the events are bridged:

- Calls answered without a ``tool_call`` event (those of a turn-limit summary that still called
  tools, or events recorded by older versions) are restored from their result (name, no
  arguments). Text after a turn's results within the same turn is that summary, asked for with
  ``TURN_LIMIT_NOTE`` after the results.
- Calls without a result (a run killed mid-turn) get an ``interrupted`` error result, because
  every provider rejects a history where a tool call is not answered. A run stopped
  ``awaiting_approval`` looks the same here; ``ContinueRun`` replaces that last message with the
  real results when people have decided. When it resumes (``run_started`` with ``resumed``), the
  results of the open turn follow in the same run and join its results message.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from quorum.application.model_wording import INTERRUPTED_RESULT, TURN_LIMIT_NOTE
from quorum.application.ports.run_store import RunStore
from quorum.domain.errors import UsageError
from quorum.domain.events import (
    ReasoningEvent,
    RunStarted,
    TextDelta,
    ToolCallEvent,
    ToolResultEvent,
    TurnStarted,
    own_events,
)
from quorum.domain.messages import Message
from quorum.domain.responses import ReasoningBlock, TextBlock
from quorum.domain.tools import ToolCall, ToolResult


@dataclass
class _Assistant:
    reasoning: list[ReasoningBlock] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)

    def call_ids(self) -> set[str]:
        return {c.native_id for c in self.calls}

    def message(self) -> Message | None:
        blocks: list[Any] = list(self.reasoning)  # first, as the model sent them: the API checks that
        if text := "".join(self.text):
            blocks.append(TextBlock(text=text))
        blocks.extend(self.calls)
        return Message(role="assistant", content=tuple(blocks)) if blocks else None


@dataclass
class _Builder:
    messages: list[Message] = field(default_factory=list)
    phase: Literal["request", "assistant", "results"] = "request"
    assistant: _Assistant | None = None
    results: dict[str, ToolResultEvent] = field(default_factory=dict)
    turn_began_since_results: bool = False

    def user_text(self, text: str) -> None:
        self._close()
        self.messages.append(Message(role="user", content=(TextBlock(text=text),)))
        self.phase = "request"

    def turn(self) -> None:
        if self.phase == "results":
            self.turn_began_since_results = True

    def model_output(self) -> _Assistant:
        if self.phase == "results":
            # The model answered within the same turn: only the turn-limit summary does that,
            # and it was asked with a note after the results.
            self._close(note=None if self.turn_began_since_results else TURN_LIMIT_NOTE)
        if self.phase != "assistant" or self.assistant is None:
            self.assistant = _Assistant()
            self.phase = "assistant"
        return self.assistant

    def call(self, block: ToolCall) -> None:
        if self.phase == "results" and not self.turn_began_since_results and self.assistant is not None:
            # Calls are announced one by one and invalid ones answered at once, so results and
            # announcements of one response interleave.
            self.assistant.calls.append(block)
        else:
            self.model_output().calls.append(block)

    def result(self, event: ToolResultEvent) -> None:
        if self.phase == "request" or (self.phase == "results" and self.turn_began_since_results):
            # A new response whose calls were answered without being announced (turn limit, budget).
            self._close()
            self.model_output()
        elif self.phase == "results" and (event.call_id in self.results or not self._announced(event.call_id)):
            # A result for a call never announced, or a second one for an id: the turn-limit
            # summary called tools again, unannounced (every other call is announced first).
            self.model_output()
        assistant = self.assistant
        assert assistant is not None
        if event.call_id not in assistant.call_ids():
            assistant.calls.append(ToolCall(native_id=event.call_id, name=event.name, arguments={}))
        if self.phase == "assistant":
            self.phase = "results"
            self.results = {}
            self.turn_began_since_results = False
        self.results[event.call_id] = event

    def _announced(self, call_id: str) -> bool:
        return self.assistant is not None and call_id in self.assistant.call_ids()

    def finish(self) -> list[Message]:
        self._close()
        return self.messages

    def _close(self, note: str | None = None) -> None:
        """Turn what is open (an assistant message and its results) into messages."""
        if self.assistant is not None:
            message = self.assistant.message()
            if message is not None:
                self.messages.append(message)
            blocks: list[Any] = [self._result_block(call) for call in self.assistant.calls]
            if note is not None and blocks:
                blocks.append(TextBlock(text=note))
            if blocks:
                self.messages.append(Message(role="user", content=tuple(blocks)))
        self.assistant = None
        self.results = {}
        self.phase = "request"

    def _result_block(self, call: ToolCall) -> ToolResult:
        event = self.results.get(call.native_id)
        if event is None:
            return ToolResult(call_id=call.native_id, name=call.name, output=INTERRUPTED_RESULT, is_error=True)
        return ToolResult(
            call_id=call.native_id,
            name=event.name,
            output=event.output,
            is_error=event.is_error or event.is_rejected,
        )


def rebuild_history(events: Iterable[object]) -> list[Message]:
    """The conversation one run's events describe (without the history it continued). Pure.

    ``events`` are run events in emission order; events of other kinds (reviews, turn ends, the
    run's end) carry nothing the model saw and are skipped. Results are put in the order the model
    emitted the calls, whatever order they finished in. The result always ends with a complete
    exchange: every tool call is answered by the next message.
    """
    builder = _Builder()
    for event in own_events(events):  # a delegation's events are its child run's, not this conversation's
        if isinstance(event, RunStarted):
            if not event.resumed:  # a run resumed after awaiting approval goes on with its open turn
                builder.user_text(event.task)
        elif isinstance(event, TurnStarted):
            builder.turn()
        elif isinstance(event, TextDelta):
            if event.text:
                builder.model_output().text.append(event.text)
        elif isinstance(event, ReasoningEvent):
            if not event.redacted:  # changed by redaction: no longer what the provider signed
                builder.model_output().reasoning.append(event.block())
        elif isinstance(event, ToolCallEvent):
            builder.call(ToolCall(native_id=event.id, name=event.name, arguments=dict(event.arguments)))
        elif isinstance(event, ToolResultEvent):
            builder.result(event)
    return builder.finish()


def recorded_conversation(store: RunStore, run_id: str) -> list[Message] | None:
    """The conversation of the recorded run ``run_id`` and of the runs it continued, oldest first.

    None when there is no run ``run_id``. A continued run that was deleted ends the chain there
    (the conversation goes on from what is left); a loop in the parent links is cut.
    """
    chain: list[str] = []
    current: str | None = run_id
    while current is not None and current not in chain:
        run = store.get_run(current)
        if run is None:
            if current == run_id:
                return None
            break
        chain.append(current)
        current = run.parent_run_id if run.subagent is None else None  # a delegation starts afresh
    return join_histories(rebuild_history(e.event for e in store.load_events(rid)) for rid in reversed(chain))


def join_histories(histories: Iterable[list[Message]]) -> list[Message]:
    """The conversation of a chain of runs (each continuing the one before), oldest first. Pure.

    Where one run's history ends with a user message (tool results of a stopped run, or a task
    the model never answered) and the next starts with its task, the two user messages are merged
    (results first, then text), so roles keep alternating as every provider requires.
    """
    joined: list[Message] = []
    for history in histories:
        for message in history:
            if joined and joined[-1].role == message.role == "user":
                joined[-1] = Message(role="user", content=joined[-1].content + message.content)
            else:
                joined.append(message)
    return joined


def unanswered_calls(history: Iterable[Message]) -> list[str]:
    """Ids of tool calls not answered by the message right after theirs (empty for a valid history)."""
    messages = list(history)
    missing: list[str] = []
    for index, message in enumerate(messages):
        ids = [b.native_id for b in message.content if isinstance(b, ToolCall)]
        if not ids:
            continue
        following = messages[index + 1].content if index + 1 < len(messages) else ()
        answered = {b.call_id for b in following if isinstance(b, ToolResult)}
        missing.extend(i for i in ids if i not in answered)
    return missing


class Continuation(BaseModel):
    """What ``--continue`` / ``--resume`` needs to go on with a recorded run.

    Attributes:
        parent_run_id: the run continued (give it to the recorder of the new run).
        model: the model id the run used (the default for the new run).
        task: the run's task.
        status: how the run ended (``interrupted`` if it never did).
        history: the whole conversation so far, valid for any provider.
    """

    model_config = ConfigDict(frozen=True)

    parent_run_id: str
    model: str
    task: str
    status: str
    history: tuple[Message, ...]


def continuation(store: RunStore, run_id: str | None = None) -> Continuation:
    """How to continue ``run_id``, or the latest run when None (``--continue``).

    Raises:
        UsageError: the log is empty, or has no run with that id.
    """
    wanted = store.last_run_id() if run_id is None else run_id
    if wanted is None:
        raise UsageError("there is no run to continue: the run log is empty")
    run = store.get_run(wanted)
    if run is None:
        raise UsageError(f"there is no run {wanted!r} to resume in the run log")
    return Continuation(
        parent_run_id=run.run_id,
        model=run.model,
        task=run.task,
        status=run.status,
        history=tuple(store.load_history(run.run_id)),
    )
