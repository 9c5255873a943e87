"""Input tokens a long chat sends, with and without context compaction (issue 23).

A scripted chat of 30 messages; for each, the model reads a different 20 KB file, then answers.
Each message is one ``RunAgent`` run continuing the conversation so far, rebuilt from the
earlier runs' events (uncompacted, so each run compacts again), as ``quorum chat`` runs it. The
scripted model reports, as a provider would, the input tokens of each request it receives (its
JSON at 4 bytes a token, system prompt included), and refuses a request longer than the window,
as providers do. Printed: the input tokens sent over the whole chat with ``compact = "off"``
(window 1,000,000: never refused) and ``"auto"`` (window 32,000), the compactions, and the
largest request.

    python bench/compaction.py [--messages 30] [--kb 20] [--compact-window 32000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from quorum.application.compaction import message_tokens  # noqa: E402
from quorum.application.execution import ExecutionParams, RunRequest  # noqa: E402
from quorum.application.ports.llm import TurnInput  # noqa: E402
from quorum.application.use_cases.run_agent import RunAgent  # noqa: E402
from quorum.cli.chat.conversation import Conversation  # noqa: E402
from quorum.domain.errors import ContextTooLong  # noqa: E402
from quorum.domain.messages import Message  # noqa: E402
from quorum.domain.responses import LlmResponse, StopReason, TextBlock, Usage  # noqa: E402
from quorum.domain.tools import ToolCall, ToolResult  # noqa: E402
from tests.fakes import FakeTools, JsonSchema, RecordingObserver, ScriptedReviewer  # noqa: E402

SYSTEM = "You are Quorum, a careful software agent."


@dataclass
class Meter:
    window: int
    sent: int = 0
    requests: int = 0
    largest: int = 0


@dataclass
class CountingSession:
    """A model that reads the file the task names, then answers; it reports its input tokens."""

    meter: Meter
    system_prompt: str | None
    messages: list[Message] = field(default_factory=list)
    model: str = "bench"

    def history(self) -> list[Message]:
        return list(self.messages)

    def record(self, results: Sequence[ToolResult]) -> None:
        if results:
            self.messages.append(TurnInput.answering(results, None).message())

    async def request(self, turn: TurnInput) -> LlmResponse:
        self.messages.append(turn.message())
        tokens = message_tokens(self.messages) + len((self.system_prompt or "").encode()) // 4
        if tokens > self.meter.window:
            raise ContextTooLong(f"prompt is too long: {tokens} tokens", provider="bench", status_code=400)
        self.meter.sent += tokens
        self.meter.requests += 1
        self.meter.largest = max(self.meter.largest, tokens)
        usage = Usage(input_tokens=tokens, output_tokens=20)
        if turn.text and turn.text.startswith("read "):
            path = turn.text.split()[1]
            content: tuple[Any, ...] = (ToolCall(native_id=f"id-{path}", name="read_file", arguments={"path": path}),)
            stop = StopReason.tool_use()
        elif turn.tools is None and not turn.results:  # a summary request
            content, stop = (TextBlock(text="Summary: files were read and described, one per message."),), None
        else:
            content, stop = (TextBlock(text="That file holds 20 KB of sample text."),), None
        response = LlmResponse(content=content, stop_reason=stop or StopReason.end_turn(), usage=usage)
        self.messages.append(Message(role="assistant", content=response.content))
        return response

    def request_stream(self, turn: TurnInput) -> Any:
        raise NotImplementedError  # the bench runs with stream = false


@dataclass
class Gateway:
    meter: Meter

    def session(self, model_id: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()) -> Any:
        return CountingSession(self.meter, system_prompt, list(history))


async def chat(messages: int, kb: int, window: int, compact: str) -> tuple[Meter, int, str]:
    meter = Meter(window=window)
    tools = FakeTools()

    async def read_file(args: dict[str, Any]) -> str:
        line = f"{args['path']}: the quick brown fox jumps over the lazy dog 0123456789\n"
        return (line * (kb * 1024 // len(line) + 1))[: kb * 1024]

    tools.add("read_file", read_file)
    conversation = Conversation()  # rebuilt from each run's events, uncompacted, as quorum chat does
    compactions = 0
    last = ""
    for index in range(messages):
        observer = RecordingObserver()
        gateway = Gateway(meter)
        agent = RunAgent(
            gateway=gateway, executor=tools, schema=JsonSchema(), reviewer=ScriptedReviewer(), observer=observer
        )
        params = ExecutionParams(stream=False, compact=compact, context_window=window)  # type: ignore[arg-type]
        request = RunRequest(
            task=f"read file{index}.txt and describe it",
            model_id="bench:m",
            system_prompt=SYSTEM,
            params=params,
            history=tuple(conversation.history),
        )
        result = await agent.execute(request)
        last = str(result.stop_reason)
        compactions += len(observer.of("context_compacted"))
        if result.stop_reason != "end_turn":
            break
        conversation.add_run(result.run_id, observer.events)
    return meter, compactions, last


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=30)
    parser.add_argument("--kb", type=int, default=20)
    parser.add_argument("--window", type=int, default=1_000_000, help="the window (tokens); large: never refused")
    parser.add_argument("--compact-window", type=int, default=32_000, help="the window compaction aims under")
    args = parser.parse_args()
    off, _, off_end = await chat(args.messages, args.kb, args.window, "off")
    on, compactions, on_end = await chat(args.messages, args.kb, args.compact_window, "auto")
    print(f"{args.messages}-message chat, each reading a {args.kb} KB file:")
    print(
        f"  compact=off : {off.sent:>10,} input tokens in {off.requests} requests, largest {off.largest:,} ({off_end})"
    )
    print(
        f"  compact=auto: {on.sent:>10,} input tokens in {on.requests} requests, largest {on.largest:,} "
        f"(window {args.compact_window:,}, {compactions} compactions, {on_end})"
    )
    print(f"  saved: {1 - on.sent / off.sent:.0%}")


if __name__ == "__main__":
    asyncio.run(main())
