"""``ContextFit``: the loop's use of compaction — measure before each request, compact past the threshold."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from quorum.application.compaction import (
    DEFAULT_CONTEXT_WINDOW,
    ContextMeter,
    elide_outputs,
    message_tokens,
    recent_start,
    summarize,
)
from quorum.application.ports.llm import LlmGateway, LlmSession, TurnInput
from quorum.application.ports.model_data import ContextWindows
from quorum.application.ports.observer import RunObserver
from quorum.domain.events import ContextCompacted
from quorum.domain.responses import LlmResponse, Usage

if TYPE_CHECKING:
    from quorum.application.execution import RunRequest
    from quorum.application.hooks import RunHooks


class CompactedRun(Protocol):
    """What compaction reads and changes of a run's state (``RunState`` is one).

    A protocol, not the state's class: the state holds its ``ContextFit``, and the two modules
    would import each other otherwise.
    """

    session: LlmSession
    turns: int
    usage: Usage
    sampled: list[tuple[str, Usage]]

    def answering_for(self, model_id: str) -> str:
        """The model that answers for ``model_id`` now (a fallback, after a move): what its tokens cost."""
        ...


SUMMARY_WORTH = 0.1
"""A summary is asked for only when the older part holds more than this fraction of the threshold:
when the recent tail is what is large (a huge call's arguments), a summary would cost a request
and save nothing. A provider's refusal asks for one whatever the size."""


@dataclass
class ContextFit:
    """Keeps one run's requests under ``compact_at`` of the window (see ``quorum.application.compaction``).

    A compaction opens a fresh session on the same model and system prompt with the compacted
    history (``state.session``), emits ``context_compacted``, and counts the summary's tokens in
    the run's usage (as MCP sampling is: the run spent them).
    """

    meter: ContextMeter
    gateway: LlmGateway
    observer: RunObserver
    model_id: str
    system_prompt: str | None
    task: str
    summary_model: str
    hooks: RunHooks | None = None
    """The run's hooks: ``pre_compact`` runs before each compaction."""

    @classmethod
    def for_run(
        cls, request: RunRequest, gateway: LlmGateway, windows: ContextWindows | None, observer: RunObserver
    ) -> ContextFit:
        """The fit of ``request``: its window from ``context_window``, the model data, else the default."""
        params = request.params
        window = params.context_window
        if window is None and windows is not None:
            window = windows.context_window(request.model_id)
        return cls(
            meter=ContextMeter(window=window or DEFAULT_CONTEXT_WINDOW, compact_at=params.compact_at),
            gateway=gateway,
            observer=observer,
            model_id=request.model_id,
            system_prompt=request.system_prompt,
            task=request.task,
            summary_model=params.compact_model or request.model_id,
        )

    def after(self, response: LlmResponse, session: LlmSession) -> None:
        """Take the tokens ``response`` reports (it joined ``session``'s history)."""
        self.meter.observe(response.usage, len(session.history()))

    async def before(self, state: CompactedRun, turn: TurnInput | None, *, force: bool = False) -> bool:
        """Compact ``state.session`` when sending ``turn`` would pass the threshold (or ``force``); True if it did."""
        history = state.session.history()
        sent = turn.message() if turn is not None else None
        if history and history[-1] == sent:  # a refused request left its message behind: it is sent again
            history = history[:-1]
        before = self.meter.estimate(history, turn)
        if before <= self.meter.threshold and not force:
            return False
        if self.hooks is not None:
            await self.hooks.before_compaction("auto")
        step = elide_outputs(history)
        compacted, changed = step.history, step.messages_compacted
        self.meter.rebase()  # the provider's last count covers outputs that are gone now
        older = message_tokens(compacted[: recent_start(compacted)])
        worth = older > self.meter.threshold * SUMMARY_WORTH  # else the tail itself is what is large
        if (self.meter.estimate(compacted, turn) > self.meter.threshold and worth) or force:
            summary, spent = await summarize(
                compacted, task=self.task, gateway=self.gateway, model_id=self.summary_model
            )
            if summary.messages_compacted:
                compacted, changed = summary.history, summary.messages_compacted
                state.sampled.append((state.answering_for(self.summary_model), spent))
                state.usage = state.usage + spent
        if not changed:
            return False
        state.session = self.gateway.session(self.model_id, self.system_prompt, history=compacted)
        after = self.meter.estimate(compacted, turn)
        self.observer.on_event(
            ContextCompacted(turn=state.turns, tokens_before=before, tokens_after=after, messages_compacted=changed)
        )
        return True
