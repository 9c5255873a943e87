"""Prompt caching's bill: a 30-turn Anthropic tool loop on a 20k-token prefix, cached and not.

The same run twice through ``RunAgent`` and the real ``anthropic`` SDK, against the scripted
Messages server, once with ``cache = "auto"`` and once with ``cache = "off"``. The server bills
each request as Anthropic's prompt cache would (``CacheLedger``): a block marked ``cache_control``
writes the prefix up to it; a later request whose breakpoint finds a written prefix within the 20
blocks before it reads that prefix; prefixes under 1,024 tokens are not cached. Tokens are counted
as a quarter of each block's JSON. Input is priced as Claude Sonnet's (USD per million: input 3,
cache read 0.30, cache write 3.75); output is the same in both runs and left out.

    python bench/prompt_caching.py [TURNS] [PREFIX_TOKENS]
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.responses import Usage
from quorum.domain.tools import ToolParameter
from quorum.infrastructure.providers.anthropic import AnthropicGateway, AnthropicSettings
from tests.fakes import FakeTools, JsonSchema, RecordingObserver, ScriptedReviewer
from tests.support import anthropic_server as wire
from tests.support.http_server import Recorded, Reply, ScriptedHttpServer
from tests.support.script import Call, Turn

INPUT, CACHE_READ, CACHE_WRITE = 3.0, 0.30, 3.75
"""USD per million input tokens: plain, read from the cache, written to it (Claude Sonnet)."""

MIN_CACHEABLE = 1024
LOOKBACK = 20


def tokens(value: Any) -> int:
    """A block's tokens: a quarter of its JSON (without its ``cache_control``)."""
    return max(1, len(json.dumps(value, sort_keys=True)) // 4)


def blocks(body: dict[str, Any]) -> list[tuple[Any, bool]]:
    """The request's prefix in the API's order (tools, system, messages), block by block: (block, marked)."""
    out: list[tuple[Any, bool]] = []
    system = body.get("system") or []
    for block in [*body.get("tools", ()), *([{"type": "text", "text": system}] if isinstance(system, str) else system)]:
        out.append((_unmarked(block), "cache_control" in block))
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for block in content:
            out.append(({"role": message["role"], **_unmarked(block)}, "cache_control" in block))
    return out


def _unmarked(block: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in block.items() if key != "cache_control"}


class CacheLedger:
    """Anthropic's prompt cache as far as the bill goes: which prefixes were written, and their size."""

    def __init__(self) -> None:
        self.written: set[str] = set()
        self.lock = threading.Lock()

    def bill(self, body: dict[str, Any]) -> tuple[int, int, int]:
        """(plain input, cache read, cache write) tokens of one request; writes its breakpoints' prefixes."""
        prefix = hashlib.sha256()
        digests, sizes, marks, total = [], [], [], 0
        for block, marked in blocks(body):
            prefix.update(json.dumps(block, sort_keys=True).encode())
            total += tokens(block)
            digests.append(prefix.hexdigest())
            sizes.append(total)
            marks.append(marked)
        with self.lock:
            read = 0
            for index in (i for i, marked in enumerate(marks) if marked):
                for back in range(index, max(-1, index - LOOKBACK), -1):
                    if digests[back] in self.written:
                        read = max(read, sizes[back])
                        break
            last = max((i for i, marked in enumerate(marks) if marked), default=-1)
            write = 0
            if last >= 0 and sizes[last] >= MIN_CACHEABLE:
                write = max(0, sizes[last] - read)
                self.written.update(
                    digests[i] for i, marked in enumerate(marks) if marked and sizes[i] >= MIN_CACHEABLE
                )
        return total - read - write, read, write


def caching_server() -> tuple[ScriptedHttpServer, CacheLedger]:
    """The scripted Messages server, reporting each reply's usage as the cache ledger bills it."""
    ledger = CacheLedger()

    def render(item: Any, request: Recorded) -> Reply:
        if isinstance(item, Turn):
            plain, read, write = ledger.bill(request.body)
            item = Turn(text=item.text, calls=item.calls, usage=(plain, item.usage[1]), cache=(read, write))
        return wire.render(item, request)

    return ScriptedHttpServer(render).start(), ledger


def script(turns: int) -> list[Turn]:
    """``turns - 1`` turns reading a file each, then the answer."""
    reads = [
        Turn(calls=(Call(f"toolu_{n}", "read_file", {"path": f"src/m{n}.py"}),), usage=(0, 60))
        for n in range(turns - 1)
    ]
    return [*reads, Turn(text="All modules read; they agree.", usage=(0, 80))]


def tools() -> FakeTools:
    fake = FakeTools()

    async def read_file(args: dict[str, Any]) -> str:
        return f"# {args['path']}\n" + "def handler(event):\n    return route(event)\n" * 20  # ~250 tokens

    fake.add("read_file", read_file, params=[ToolParameter(name="path", param_type="path")])
    return fake


class One:
    def __init__(self, gateway: AnthropicGateway) -> None:
        self.gateway = gateway

    def session(self, model_id: str, system_prompt: str | None = None, *, history: Any = ()) -> Any:
        return self.gateway.session(model_id.partition(":")[2], system_prompt, history=history)


async def run(turns: int, prefix_tokens: int, cache: str) -> Usage:
    server, _ = caching_server()
    server.enqueue(*script(turns))
    settings = AnthropicSettings(base_url=server.url, api_key="sk-ant-bench", max_retries=0, cache=cache)  # type: ignore[arg-type]
    gateway = AnthropicGateway("claude", settings, {})
    agent = RunAgent(
        gateway=One(gateway),
        executor=tools(),
        schema=JsonSchema(),
        reviewer=ScriptedReviewer(),
        observer=RecordingObserver(),
    )
    system = "You are a careful coding agent. Project conventions follow.\n" + "Rule: keep handlers pure. " * (
        prefix_tokens * 4 // 26
    )
    params = ExecutionParams(max_tool_turns=turns + 1, compact="off")
    try:
        result = await agent.execute(
            RunRequest(
                task="Read every module and say whether they agree.",
                model_id="claude:m",
                system_prompt=system,
                params=params,
            )
        )
    finally:
        await gateway.aclose()
        server.stop()
    assert result.turns == turns, (result.turns, result.detail)
    return result.usage


def input_cost(usage: Usage) -> float:
    """USD of the input: plain, cache reads and cache writes at their prices."""
    return (
        usage.uncached_input_tokens * INPUT
        + usage.cache_read_input_tokens * CACHE_READ
        + usage.cache_write_input_tokens * CACHE_WRITE
    ) / 1e6


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    prefix = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000
    cached = asyncio.run(run(turns, prefix, "auto"))
    plain = asyncio.run(run(turns, prefix, "off"))
    assert cached.input_tokens == plain.input_tokens, (cached, plain)
    print(f"{turns} turns, a {prefix:,}-token prefix, {plain.input_tokens:,} input tokens in all")
    print(f"  cache off : ${input_cost(plain):.4f} (all {plain.input_tokens:,} at ${INPUT}/M)")
    print(
        f"  cache auto: ${input_cost(cached):.4f} ({cached.cache_read_input_tokens:,} read, "
        f"{cached.cache_write_input_tokens:,} written, {cached.uncached_input_tokens:,} plain)"
    )
    print(f"  caching bills the input {input_cost(plain) / input_cost(cached):.1f}x cheaper")


if __name__ == "__main__":
    main()
