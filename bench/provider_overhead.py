"""Adapter overhead per turn: Quorum's provider sessions vs the bare SDK, same local server, same run.

One turn = open a session on a fixed 6-message history (tool calls and results included), send a
user message with two tools offered, and get the parsed response (text + two tool calls). The bare
SDK turn sends the same wire messages with ``create`` and reads the same fields. Turns alternate
between the two so drift of the shared machine hits both alike.

    python bench/provider_overhead.py [TURNS]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quorum.application.ports.llm import TurnInput
from quorum.domain.messages import Message
from quorum.domain.responses import TextBlock
from quorum.domain.tools import ToolCall, ToolResult
from quorum.infrastructure.providers.anthropic import AnthropicGateway, AnthropicSettings
from quorum.infrastructure.providers.anthropic.wire import message_to_wire as anthropic_wire
from quorum.infrastructure.providers.openai import OpenAIChatGateway, OpenAISettings
from quorum.infrastructure.providers.openai.wire import message_to_wire as openai_wire
from quorum.infrastructure.providers.openai.wire import tools_to_wire
from tests.support.anthropic_server import anthropic_server
from tests.support.openai_server import openai_server
from tests.support.script import Call, Turn

TOOLS = [
    {
        "name": "read_file",
        "description": "Read a file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
    {
        "name": "list_dir",
        "description": "List a directory.",
        "input_schema": {"type": "object", "properties": {}},
    },
]
HISTORY = [
    Message(role="user", content=(TextBlock(text="What is in the project?"),)),
    Message(
        role="assistant",
        content=(TextBlock(text="Let me look."), ToolCall(native_id="c0", name="list_dir", arguments={})),
    ),
    Message(role="user", content=(ToolResult(call_id="c0", output="a.txt b.txt src/"),)),
    Message(
        role="assistant",
        content=(ToolCall(native_id="c1", name="read_file", arguments={"path": "a.txt"}),),
    ),
    Message(role="user", content=(ToolResult(call_id="c1", output="hello " * 50),)),
    Message(role="assistant", content=(TextBlock(text="a.txt greets."),)),
]
REPLY = Turn(
    text="I will read both files now.",
    calls=(Call("c2", "read_file", {"path": "b.txt"}), Call("c3", "list_dir", {})),
)
TASK = "And b.txt?"


async def _openai(turns: int, stream: bool) -> tuple[list[float], list[float]]:
    import openai

    server = openai_server()
    server.enqueue(*[REPLY] * (2 * turns + 20))
    settings = OpenAISettings(base_url=server.url + "/v1", api_key="k", max_retries=0)
    gateway = OpenAIChatGateway("bench", settings, {})
    bare = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    wire_messages = [m for message in HISTORY for m in openai_wire(message)] + [{"role": "user", "content": TASK}]
    wire_tools = tools_to_wire(TOOLS)

    async def adapter_turn() -> Any:
        session = gateway.session("m", history=HISTORY)
        if stream:
            async for event in session.request_stream(TurnInput.user(TASK, TOOLS)):
                last = event
            return last
        return await session.request(TurnInput.user(TASK, TOOLS))

    async def bare_turn() -> Any:
        if not stream:
            completion = await bare.chat.completions.create(model="m", messages=wire_messages, tools=wire_tools)
            message = completion.choices[0].message
            return message.content, [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls]
        chunks = await bare.chat.completions.create(
            model="m",
            messages=wire_messages,
            tools=wire_tools,
            stream=True,
            stream_options={"include_usage": True},
        )
        text, args = [], {}
        async for chunk in chunks:
            for choice in chunk.choices:
                if choice.delta.content:
                    text.append(choice.delta.content)
                for call in choice.delta.tool_calls or ():
                    args.setdefault(call.index, []).append(call.function.arguments or "")
        return "".join(text), args

    try:
        return await _measure(turns, adapter_turn, bare_turn)
    finally:
        await gateway.aclose()
        await bare.close()
        server.stop()


async def _anthropic(turns: int, stream: bool) -> tuple[list[float], list[float]]:
    import anthropic

    server = anthropic_server()
    server.enqueue(*[REPLY] * (2 * turns + 20))
    settings = AnthropicSettings(base_url=server.url, api_key="k", max_retries=0, max_tokens=1024)
    gateway = AnthropicGateway("bench", settings, {})
    bare = anthropic.AsyncAnthropic(base_url=server.url, api_key="k", max_retries=0, timeout=600.0)
    wire_messages = [m for message in HISTORY for m in anthropic_wire(message)] + [{"role": "user", "content": TASK}]

    async def adapter_turn() -> Any:
        session = gateway.session("m", history=HISTORY)
        if stream:
            async for event in session.request_stream(TurnInput.user(TASK, TOOLS)):
                last = event
            return last
        return await session.request(TurnInput.user(TASK, TOOLS))

    async def bare_turn() -> Any:
        if not stream:
            message = await bare.messages.create(model="m", max_tokens=1024, messages=wire_messages, tools=TOOLS)
            return [(b.type, getattr(b, "text", None), getattr(b, "input", None)) for b in message.content]
        events = await bare.messages.create(
            model="m", max_tokens=1024, messages=wire_messages, tools=TOOLS, stream=True
        )
        parts: dict[int, list[str]] = {}
        async for event in events:
            if event.type == "content_block_delta":
                delta = event.delta
                parts.setdefault(event.index, []).append(getattr(delta, "text", None) or delta.partial_json)
        return parts

    try:
        return await _measure(turns, adapter_turn, bare_turn)
    finally:
        await gateway.aclose()
        await bare.close()
        server.stop()


async def _measure(turns: int, adapter_turn: Any, bare_turn: Any) -> tuple[list[float], list[float]]:
    for _ in range(10):  # warm-up: imports, connection, caches
        await adapter_turn()
        await bare_turn()
    adapter, bare = [], []
    for _ in range(turns):
        start = time.perf_counter()
        await adapter_turn()
        adapter.append(time.perf_counter() - start)
        start = time.perf_counter()
        await bare_turn()
        bare.append(time.perf_counter() - start)
    return adapter, bare


def _row(name: str, adapter: list[float], bare: list[float]) -> str:
    def us(values: list[float], f: Any) -> float:
        return f(values) * 1e6

    med_a, med_b = us(adapter, statistics.median), us(bare, statistics.median)
    mean_a, mean_b = us(adapter, statistics.fmean), us(bare, statistics.fmean)
    return (
        f"{name:<22} {med_b:>9.0f} {med_a:>9.0f} {med_a - med_b:>+9.0f}   "
        f"{mean_b:>9.0f} {mean_a:>9.0f} {mean_a - mean_b:>+9.0f}"
    )


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    print(f"{turns} turns each, µs per turn (bare SDK vs Quorum adapter, same local server)")
    head = ("med bare", "med ours", "overhead", "mean bare", "mean ours", "overhead")
    print(f"{'':<22} " + " ".join(f"{h:>9}" for h in head[:3]) + "   " + " ".join(f"{h:>9}" for h in head[3:]))
    for name, bench, stream in (
        ("openai plain", _openai, False),
        ("openai stream", _openai, True),
        ("anthropic plain", _anthropic, False),
        ("anthropic stream", _anthropic, True),
    ):
        adapter, bare = asyncio.run(bench(turns, stream))
        print(_row(name, adapter, bare))


if __name__ == "__main__":
    main()
