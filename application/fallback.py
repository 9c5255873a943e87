"""Fallback models: a request its model cannot answer goes, unchanged, to the next model of a chain.

One place for the agent's loop and the reviewer models alike: ``FallbackGateway`` wraps the
gateway a run (or a reviewer) opens its sessions through, so compaction, plan mode's new sessions
and a reviewer's nudge all go through the same chain. The move is kept: once a model has
answered for another, every later request of the run goes to it (decision 212).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence

from quorum.application.ports.llm import LlmGateway, LlmSession, TurnInput
from quorum.domain.errors import ProviderError, UsageError
from quorum.domain.events import ModelFallback
from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse
from quorum.domain.streaming import StreamEvent
from quorum.domain.tools import ToolResult

OnFallback = Callable[[ModelFallback], None]
"""Hears of each move down a chain (the run emits it as a ``model_fallback`` event)."""


class FallbackGateway:
    """``LlmGateway`` whose sessions move down a chain of models while a model cannot answer.

    ``chains`` maps a model id to the models that answer for it, in order. A request failing with
    a ``ProviderError`` whose ``unavailable`` is set (overloaded, 5xx, 429, timeout, connection:
    after the SDK's own retries) is sent again, with the same history and the same tools, to the
    next model; ``on_fallback`` hears of each move. Any other error (a 400, a bad key, a context
    overflow), and the last model's failure, propagate unchanged. A model id without a chain gets
    the inner gateway's session as it is.

    Moves are kept for the gateway's life (one run, or one reviewer's panel seat): a session
    opened later for a model that fell back starts on the model that answered for it.
    """

    def __init__(
        self,
        gateway: LlmGateway,
        chains: Mapping[str, Sequence[str]],
        on_fallback: OnFallback,
        *,
        reviewer: str | None = None,
    ) -> None:
        self._gateway = gateway
        self._chains = {model: (model, *after) for model, after in chains.items() if after}
        self._on_fallback = on_fallback
        self._reviewer = reviewer
        self._answering: dict[str, int] = {}

    def session(
        self, model_id: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()
    ) -> LlmSession:
        """A session on ``model_id`` or, after a move, on the model answering for it.

        Raises:
            UsageError, ConfigurationError: as ``LlmGateway.session`` does, for the model opened.
        """
        chain = self._chains.get(model_id)
        if chain is None:
            return self._gateway.session(model_id, system_prompt, history=history)
        return FallbackSession(self, chain, self._answering.get(model_id, 0), system_prompt, history)

    def open(self, model_id: str, system_prompt: str | None, history: Sequence[Message]) -> LlmSession:
        """The inner gateway's session on ``model_id`` (for ``FallbackSession``)."""
        return self._gateway.session(model_id, system_prompt, history=history)

    def moved(self, chain: Sequence[str], index: int, error: ProviderError) -> None:
        """Keep that ``chain[index]`` answers for ``chain[0]`` from now on, and say so."""
        self._answering[chain[0]] = index
        assert error.unavailable is not None  # FallbackSession moves on nothing else
        self._on_fallback(
            ModelFallback.model_validate(
                {
                    "from": chain[index - 1],
                    "to": chain[index],
                    "reason": error.unavailable,
                    "detail": str(error),
                    "reviewer": self._reviewer,
                }
            )
        )


class FallbackSession:
    """``LlmSession`` over the session of one model of a chain, moving down the chain as it must.

    A streamed request moves only while nothing was yielded: once text reached the caller, a
    failure is the caller's, as without a fallback.
    """

    def __init__(
        self,
        owner: FallbackGateway,
        chain: Sequence[str],
        index: int,
        system_prompt: str | None,
        history: Sequence[Message],
    ) -> None:
        self._owner = owner
        self._chain = tuple(chain)
        self._index = index
        self._system_prompt = system_prompt
        self._session = owner.open(self._chain[index], system_prompt, history)

    @property
    def model(self) -> str:
        return self._session.model

    def history(self) -> list[Message]:
        return self._session.history()

    async def request(self, turn: TurnInput) -> LlmResponse:
        while True:
            kept = len(self._session.history())
            try:
                return await self._session.request(turn)
            except ProviderError as error:
                self._move(error, kept)

    async def request_stream(self, turn: TurnInput) -> AsyncIterator[StreamEvent]:
        while True:
            kept = len(self._session.history())
            started = False
            try:
                async for event in self._session.request_stream(turn):
                    started = True
                    yield event
                return
            except ProviderError as error:
                if started:
                    raise
                self._move(error, kept)

    def record(self, results: Sequence[ToolResult]) -> None:
        self._session.record(results)

    def _move(self, error: ProviderError, kept: int) -> None:
        """Open the next model's session on the history before the failed turn, or raise ``error``.

        The failed session's history holds the turn's message (it joins before the request is
        made); the next session gets the history without it, and the same turn is sent again.
        """
        if error.unavailable is None or self._index + 1 >= len(self._chain):
            raise error
        history = self._session.history()[:kept]
        try:
            session = self._owner.open(self._chain[self._index + 1], self._system_prompt, history)
        except UsageError:  # the fallback cannot be opened (checked before runs): the first failure stands
            raise error from None
        self._session, self._index = session, self._index + 1
        self._owner.moved(self._chain, self._index, error)
