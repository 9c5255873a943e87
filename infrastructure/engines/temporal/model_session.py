"""The workflow's ``LlmGateway``: each request is one activity reading the conversation from the run log.

The session keeps no conversation: what a turn sends (the task, the results) is in the run log
through its events, recorded first (``WorkflowRecorder.drain``), or by the request itself, which
carries the events not yet recorded (``WorkflowRecorder.take``, decision 274). The activity returns only the new
response, so the workflow history grows with each response, not with the whole conversation.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from quorum.application.ports.llm import TurnInput
    from quorum.domain.errors import ProviderError
    from quorum.domain.messages import Message
    from quorum.domain.responses import LlmResponse, Usage
    from quorum.domain.streaming import StreamCompleted, StreamEvent, StreamReasoning, StreamTextDelta
    from quorum.domain.tools import ToolResult
    from quorum.infrastructure.engines.temporal.messages import CallFacts, ModelReply, ModelRequest, RunSpec
    from quorum.infrastructure.engines.temporal.policies import (
        MODEL,
        RETRY,
        cause_of,
        raise_if_cancelled,
        unavailable_of,
    )
    from quorum.infrastructure.engines.temporal.recorder import WorkflowRecorder


class ReplyPrices:
    """``PriceList`` of the workflow: the prices workers attached to the responses (votes: unknown)."""

    def __init__(self) -> None:
        self.known: dict[tuple[str, Usage], float | None] = {}

    def cost(self, model_id: str, usage: Usage) -> float | None:
        return self.known.get((model_id, usage))


class ActivityGateway:
    """``LlmGateway`` whose sessions request through the model activity."""

    def __init__(
        self, spec: RunSpec, recorder: WorkflowRecorder, facts: dict[str, CallFacts], prices: ReplyPrices
    ) -> None:
        self._spec = spec
        self._recorder = recorder
        self._facts = facts
        self._prices = prices

    def session(
        self, model_id: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()
    ) -> ActivitySession:
        return ActivitySession(self._spec, model_id, system_prompt, self._recorder, self._facts, self._prices)


class ActivitySession:
    """``LlmSession`` keeping no conversation: the run log holds it, the model activity reads it."""

    def __init__(
        self,
        spec: RunSpec,
        model_id: str,
        system_prompt: str | None,
        recorder: WorkflowRecorder,
        facts: dict[str, CallFacts],
        prices: ReplyPrices,
    ) -> None:
        self._spec = spec
        self._model_id = model_id
        self._system_prompt = system_prompt
        self._recorder = recorder
        self._facts = facts
        self._prices = prices

    @property
    def model(self) -> str:
        return self._model_id.partition(":")[2]

    def history(self) -> list[Message]:
        """Empty: the conversation is in the run log."""
        return []

    async def request(self, turn: TurnInput) -> LlmResponse:
        """Ask the model activity once the run log holds the turn (its text and results are events).

        Only what the events do not say crosses: the tools offered (by name) and the note.
        """
        recorder = self._recorder
        batch = await recorder.take() if recorder.rides_along else None
        if not recorder.rides_along:
            await recorder.drain()
        tools = turn.tools
        request = ModelRequest(
            run_id=self._spec.run_id,
            workspace=self._spec.workspace,
            model_id=self._model_id,
            system_prompt=self._system_prompt,
            tool_names=None if tools is None else tuple(str(t["name"]) for t in tools),
            note=turn.note,
            reasoning=turn.reasoning,
            after_seq=self._recorder.last_seq,
            trace=self._spec.trace,
            record=batch,
        )
        try:
            reply = await workflow.execute_activity(
                "quorum.model", request, result_type=ModelReply, start_to_close_timeout=MODEL, retry_policy=RETRY
            )
        except BaseException as error:  # failed or cancelled: its events may not be in the log
            if batch is not None:
                recorder.back(batch)
            if not isinstance(error, ActivityError):
                raise
            raise_if_cancelled(error)
            provider = self._model_id.partition(":")[0]
            raise ProviderError(cause_of(error), provider=provider, unavailable=unavailable_of(error)) from None
        if batch is not None:
            recorder.recorded(batch)
        self._facts.update(reply.facts)
        usage = reply.response.usage
        self._prices.known[(self._model_id, usage)] = reply.cost  # the whole usage: cache parts change the price
        return reply.response

    async def request_stream(self, turn: TurnInput) -> AsyncIterator[StreamEvent]:
        """The response arrives whole from the activity: its reasoning, its text as one delta, then the response."""
        response = await self.request(turn)
        for block in response.reasoning():
            yield StreamReasoning(block=block)
        if response.text_content():
            yield StreamTextDelta(text=response.text_content())
        yield StreamCompleted(response=response)

    def record(self, results: Sequence[ToolResult]) -> None:
        """Nothing to keep: the results are in the run log through their events."""
