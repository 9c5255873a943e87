"""Context compaction: keep a run's requests inside the model's context window.

Before each request the loop estimates what it will hold (``ContextMeter``); past
``compact_at`` of the window it compacts the session's history, in two steps:

1. old tool outputs (outside the most recent messages) become a short marker naming the tool and
   the size of what was there (the run log keeps every output: events are never compacted);
2. if still over the threshold, the model (without tools; or ``compact_model``) summarizes the
   older conversation, and the history becomes the summary (with the run's task verbatim) plus
   the recent messages verbatim.

The recent part always starts at an assistant message, so each tool call keeps its result beside
it and the open turn (calls waiting for approval, the results about to be sent) is untouched: its
kept reasoning (Anthropic's signed thinking blocks) goes back as received. Older turns keep theirs
through step 1 and lose it to the summary in step 2, where the APIs allow it.
The compacted history goes to a fresh session opened through the gateway (decision 140): the
narrow ``LlmSession`` port does not grow a way to replace its history.

The estimate: the last response's reported input and output tokens, plus what joined the
history since (and the message about to be sent) at ``BYTES_PER_TOKEN`` bytes of its JSON a
token; before any response, the whole history that way. JSON overhead makes it err on the high
side, which compacts a little early rather than letting the provider refuse the request.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from quorum.application import model_wording as say
from quorum.application.ports.llm import LlmGateway, LlmSession, TurnInput
from quorum.domain.messages import HistoryBlock, Message
from quorum.domain.responses import ReasoningBlock, TextBlock, Usage
from quorum.domain.tools import ImagePart, ToolResult

BYTES_PER_TOKEN = 4
"""The estimate's rate for text not yet counted by the provider (English and code average ~4)."""

DEFAULT_CONTEXT_WINDOW = 128_000
"""The window of a model neither ``[agent] context_window`` nor the model data know (tokens).

Today's hosted models have at least this much; a smaller local model should set
``context_window``, and its server's refusal is recovered once per request all the same."""

RECENT_MESSAGES = 2
"""Messages at the end of the history kept verbatim by both steps, moved back to an assistant message."""

ELIDE_ABOVE = 400
"""Tool outputs longer than this (characters) are replaced by a marker in step 1."""


def message_tokens(messages: Sequence[Message]) -> int:
    """The estimated tokens of ``messages``: their JSON's bytes / ``BYTES_PER_TOKEN``."""
    return sum(_bytes(m) for m in messages) // BYTES_PER_TOKEN


def _bytes(message: Message) -> int:
    try:
        return len(message.model_dump_json().encode())
    except (RecursionError, ValueError):  # arguments too deep to serialize: the provider refuses them anyway
        return len(repr(message.role)) + 1000 * len(message.content)


@dataclass
class ContextMeter:
    """Tracks what the next request will hold, from the provider's reports and an estimate."""

    window: int
    compact_at: float
    counted: int = 0
    """Tokens the last response reported (input + output)."""
    counted_messages: int | None = None
    """The history's length when ``counted`` was reported (None: nothing reported yet)."""

    @property
    def threshold(self) -> int:
        return int(self.window * self.compact_at)

    def observe(self, usage: Usage, history_length: int) -> None:
        """Take a response's reported tokens; the history then has ``history_length`` messages."""
        if usage.input_tokens:
            self.counted = usage.input_tokens + usage.output_tokens
            self.counted_messages = history_length

    def estimate(self, history: Sequence[Message], turn: TurnInput | None) -> int:
        """The tokens of a request sending ``turn`` (None: the history alone) after ``history``."""
        pending = [turn.message()] if turn is not None else []
        if self.counted_messages is None or self.counted_messages > len(history):
            return message_tokens([*history, *pending])
        return self.counted + message_tokens([*history[self.counted_messages :], *pending])

    def rebase(self) -> None:
        """Forget the reports: the history was replaced (compacted), so the estimate is bytes alone."""
        self.counted, self.counted_messages = 0, None


@dataclass(frozen=True)
class Compacted:
    """A compacted history and what changed: ``messages_compacted`` messages were elided or summarized."""

    history: list[Message]
    messages_compacted: int


def recent_start(history: Sequence[Message]) -> int:
    """Where the verbatim tail starts: the first assistant message of the last ``RECENT_MESSAGES``.

    An assistant message, so each call in the tail keeps its result and the history stays
    user-first after the summary; when the last messages hold none, the last assistant message
    before them (0 when there is none).
    """
    start = max(len(history) - RECENT_MESSAGES, 0)
    forward = next((i for i in range(start, len(history)) if history[i].role == "assistant"), None)
    if forward is not None:
        return forward
    while start > 0 and history[start].role != "assistant":
        start -= 1
    return start


def elide_outputs(history: Sequence[Message]) -> Compacted:
    """Step 1: long tool outputs before the recent tail become markers (call ids and names kept)."""
    cut = recent_start(history)
    changed = 0
    kept: list[Message] = []
    for index, message in enumerate(history):
        if index >= cut or message.role != "user":
            kept.append(message)
            continue
        blocks = tuple(_elided(block) for block in message.content)
        if blocks != message.content:
            changed += 1
            message = Message(role="user", content=blocks)
        kept.append(message)
    return Compacted(kept, changed)


def _elided(block: HistoryBlock) -> HistoryBlock:
    if not isinstance(block, ToolResult) or (len(block.output) <= ELIDE_ABOVE and not block.images):
        return block
    marker = say.output_compacted(block.name, len(block.output))
    return ToolResult(call_id=block.call_id, name=block.name, output=marker, is_error=block.is_error)


async def summarize(
    history: Sequence[Message],
    *,
    task: str,
    gateway: LlmGateway,
    model_id: str,
) -> tuple[Compacted, Usage]:
    """Step 2: the model summarizes the history before the recent tail; the tail stays verbatim.

    Returns the new history (the summary with the task as the first user message, then the tail)
    and what the summary request spent. Raises what ``LlmSession.request`` raises.
    """
    cut = recent_start(history)
    if cut == 0:
        return Compacted(list(history), 0), Usage()
    older = history[:cut]
    session: LlmSession = gateway.session(model_id, say.SUMMARY_INSTRUCTIONS)
    response = await session.request(TurnInput.user(transcript(older)))
    summary = response.text_content()
    first = Message(role="user", content=(TextBlock(text=say.summary_message(task, summary)),))
    return Compacted([first, *history[cut:]], len(older)), response.usage


def transcript(messages: Sequence[Message]) -> str:
    """The messages as plain text for the summarizing model (tool outputs cut to their start).

    Kept reasoning is left out: it is not the conversation, and the summary replaces only turns
    before the verbatim tail, whose reasoning the APIs do not need back.
    """
    lines: list[str] = []
    for message in messages:
        for block in message.content:
            if isinstance(block, ReasoningBlock):
                continue
            if isinstance(block, TextBlock):
                lines.append(f"{message.role}: {block.text}")
            elif isinstance(block, ToolResult):
                lines.append(f"result of {block.name}: {block.output[:2000]}")
            elif isinstance(block, ImagePart):
                lines.append(f"{message.role}: {block.describe()}")
            else:
                name = getattr(block, "name", "?")
                lines.append(f"assistant called {name} with {getattr(block, 'arguments', {})}")
    return "\n".join(lines)


async def compact_now(history: Sequence[Message], *, gateway: LlmGateway, model_id: str) -> tuple[Compacted, Usage]:
    """Both steps at once, whatever the size (``quorum chat``'s ``/compact``).

    The latest user text is the task kept verbatim before the summary. Returns the history and
    what the summary request spent.
    """
    elided = elide_outputs(history)
    task = next(
        (b.text for m in reversed(elided.history) if m.role == "user" for b in m.content if isinstance(b, TextBlock)),
        "",
    )
    summary, spent = await summarize(elided.history, task=task, gateway=gateway, model_id=model_id)
    if not summary.messages_compacted:
        return elided, spent
    return summary, spent
