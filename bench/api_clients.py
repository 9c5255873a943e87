"""The wire server and the two clients ``api_overhead.py`` compares: ``Agent`` and the bare openai SDK.

The server (``content_server``) answers from the request alone, so concurrent runs can share it: a
request with tools gets one call of ``lookup`` per key named in the task, a request ending with
tool results gets their values joined, anything else ``TEXT_ANSWER``. ``verify`` checks that the
bare client sends byte for byte what ``Agent`` sends.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support.http_server import Recorded, Reply, ScriptedHttpServer  # noqa: E402
from tests.support.openai_server import render  # noqa: E402
from tests.support.script import Call, Turn  # noqa: E402

SYSTEM = "You are a benchmark. Be brief."
TEXT_TASK = "Say hello."
TEXT_ANSWER = "Hello! How can I help you today?"
TABLE = {"a": "1", "b": "2", "c": "3"}
TOOL_WIRE = [
    {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Look a key up in the table.",
            "parameters": {
                "additionalProperties": False,
                "properties": {"key": {"description": "the key to look up.", "type": "string"}},
                "required": ["key"],
                "type": "object",
            },
        },
    }
]
"""What ``@tool`` makes of ``lookup`` on the wire; the bare SDK sends it as is (checked in ``verify``)."""


def tool_task(*keys: str) -> str:
    return "lookup: " + " ".join(keys)


def tool_answer(*keys: str) -> str:
    return ", ".join(TABLE[k] for k in keys)


# --- the server (child process) ----------------------------------------------------------------


def answer_for(body: dict[str, Any]) -> Turn:
    """The model's reply to a request, decided by the request alone (so concurrent runs can share it)."""
    messages = body["messages"]
    if messages[-1]["role"] == "tool":
        trailing = itertools.takewhile(lambda m: m["role"] == "tool", reversed(messages))
        return Turn(text=", ".join(m["content"] for m in reversed(list(trailing))))
    if body.get("tools"):
        task = next(m["content"] for m in messages if m["role"] == "user")
        keys = task.removeprefix("lookup: ").split()
        return Turn(calls=tuple(Call(f"c{i}", "lookup", {"key": k}) for i, k in enumerate(keys)))
    return Turn(text=TEXT_ANSWER)


def render_by_content(_item: Any, request: Recorded) -> Reply:
    return render(answer_for(request.body or {}), request)


def content_server() -> ScriptedHttpServer:
    server = ScriptedHttpServer(render_by_content)
    # http.server listens with a backlog of 5: a batch of runs opening connections at once would
    # overflow it and see resets. Listening again on Linux raises the backlog of the same socket.
    server._httpd.socket.listen(1024)
    server.start()
    server.enqueue(*itertools.repeat("auto", 300_000))  # the script is the request: any item will do
    return server


def serve() -> None:
    """``--serve``: print the server's URL, serve until stdin closes."""
    server = content_server()
    print(server.url, flush=True)
    sys.stdin.read()
    server.stop()


# --- the two clients ---------------------------------------------------------------------------


def make_lookup() -> tuple[Any, Callable[..., Awaitable[str]]]:
    """(the ``@tool`` for the agent, the plain function the bare SDK calls itself)."""
    from quorum import tool

    async def lookup(key: str) -> str:
        """Look a key up in the table.

        Args:
            key: the key to look up.
        """
        return TABLE.get(key, "?")

    return tool(risk="low")(lookup), lookup


def make_agent(url: str, *, tools: bool, stream: bool, run_log: Path | bool = False) -> Any:
    from quorum import Agent

    providers = {"local": {"type": "openai", "base_url": url + "/v1", "api_key": "x", "max_retries": 0}}
    offered = [make_lookup()[0]] if tools else []
    return Agent(
        "local:m",
        tools=offered,
        providers=providers,
        system_prompt=SYSTEM,
        stream=stream,
        run_log=run_log,
        max_tool_turns=4,
    )


def cache_key_of(task: str) -> str:
    """The ``prompt_cache_key`` a conversation starting with ``task`` is sent with (one per run, decision 210).

    What ``Agent`` sends by default (``cache = "auto"``): a digest of the first user text.
    """
    return "quorum-" + hashlib.sha256(task.encode()).hexdigest()[:24]


class Bare:
    """The same runs, written against the openai SDK directly (with the same prompt cache key)."""

    def __init__(self, url: str) -> None:
        import openai

        self.client = openai.AsyncOpenAI(base_url=url + "/v1", api_key="x", max_retries=0)
        self.function = make_lookup()[1]

    async def turn(
        self, messages: list[dict[str, Any]], tools: bool, stream: bool, cache_key: str
    ) -> tuple[str, list[Any]]:
        """One request: (text, [(id, name, arguments text)])."""
        extra: dict[str, Any] = {"tools": TOOL_WIRE} if tools else {}
        extra["prompt_cache_key"] = cache_key
        if not stream:
            completion = await self.client.chat.completions.create(model="m", messages=messages, **extra)
            message = completion.choices[0].message
            calls = [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or ()]
            return message.content or "", calls
        chunks = await self.client.chat.completions.create(
            model="m", messages=messages, stream=True, stream_options={"include_usage": True}, **extra
        )
        text: list[str] = []
        parts: dict[int, list[Any]] = {}
        async for chunk in chunks:
            for choice in chunk.choices:
                if choice.delta.content:
                    text.append(choice.delta.content)
                for call in choice.delta.tool_calls or ():
                    part = parts.setdefault(call.index, [call.id, call.function.name, []])
                    part[2].append(call.function.arguments or "")
        return "".join(text), [(i, n, "".join(a)) for i, n, a in parts.values()]

    async def run(self, task: str, tools: bool, stream: bool) -> str:
        """A run as the agent does it: ask, call the tools the model asks for, ask again, until text."""
        messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": task}]
        cache_key = cache_key_of(task)
        while True:
            text, calls = await self.turn(messages, tools, stream, cache_key)
            if not calls:
                return text
            results = await asyncio.gather(*(self.function(**json.loads(a)) for _, _, a in calls))
            wire_calls = [{"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls]
            messages.append({"role": "assistant", "content": text or None, "tool_calls": wire_calls})
            messages.extend(
                {"role": "tool", "tool_call_id": i, "content": r} for (i, _, _), r in zip(calls, results, strict=True)
            )


# --- checks and measurements -------------------------------------------------------------------


async def verify() -> None:
    """The bare SDK sends what the agent sends (in-process server), and both get the right answers."""
    server = content_server()
    try:
        for tools, stream in itertools.product((False, True), (False, True)):
            task, want = (tool_task("a", "b"), tool_answer("a", "b")) if tools else (TEXT_TASK, TEXT_ANSWER)
            bare = Bare(server.url)
            async with make_agent(server.url, tools=tools, stream=stream) as agent:
                start = len(server.requests)
                result = await agent.run(task)
                ours = [r.body for r in server.requests[start:]]
                start = len(server.requests)
                text = await bare.run(task, tools, stream)
                theirs = [r.body for r in server.requests[start:]]
            await bare.client.close()
            assert result.stop_reason == "end_turn" and result.output == want, (result.stop_reason, result.output)
            assert text == want, text
            assert ours == theirs, f"requests differ (tools={tools}, stream={stream}):\n{ours}\n{theirs}"
    finally:
        server.stop()
