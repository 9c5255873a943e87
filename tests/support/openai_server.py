"""A local OpenAI server: Chat Completions (``POST /v1/chat/completions``) and the Responses API
(``POST /v1/responses``, ``openai_responses``), JSON and SSE."""

from __future__ import annotations

import json
from typing import Any

from tests.support.http_server import JsonReply, NoReply, Recorded, Reply, ScriptedHttpServer, SseReply
from tests.support.openai_responses import render_turn
from tests.support.script import Disconnect, Fail, Hang, Turn, pieces

CREATED = 1_700_000_000


def completion(turn: Turn) -> dict[str, Any]:
    """The non-streaming ``chat.completion`` body for ``turn``."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_text()}}
            for c in turn.calls
        ]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": CREATED,
        "model": turn.model,
        "choices": [{"index": 0, "finish_reason": _finish(turn), "message": message}],
        "usage": _usage(turn),
    }


def chunks(turn: Turn, include_usage: bool) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects of ``turn``, fragment by fragment."""
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": CREATED, "model": turn.model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": ""})]
    if turn.text:
        out.extend(chunk({"content": p}) for p in pieces(turn.text, turn.piece))
    for index, call in enumerate(turn.calls):
        head = {
            "index": index,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        out.append(chunk({"tool_calls": [head]}))
        for part in pieces(call.arguments_text(), turn.piece + 1):
            out.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]}))
    out.append(chunk({}, _finish(turn)))
    if include_usage:
        out.append({**base, "choices": [], "usage": _usage(turn)})
    return out


def render(item: Any, request: Recorded) -> Reply:
    """The reply to ``request`` for script item ``item``."""
    if isinstance(item, Fail):
        code = item.code or str(item.status)
        body = {"error": {"message": item.message, "type": "error", "param": None, "code": code}}
        return JsonReply(item.status, body, dict(item.headers))
    if isinstance(item, Hang):
        return NoReply(item.release)
    if isinstance(item, Disconnect):
        return NoReply()
    if isinstance(item, JsonReply):  # a body the script gives whole
        return item
    assert isinstance(item, Turn)
    if request.path.endswith("/responses"):
        return render_turn(item, request)
    body = request.body or {}
    if not body.get("stream"):
        return JsonReply(200, completion(item))
    include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
    frames = [f"data: {json.dumps(c)}\n\n" for c in chunks(item, include_usage)] + ["data: [DONE]\n\n"]
    if item.error_after is not None:
        error = {"error": {"message": "the server had an error mid-stream", "type": "server_error"}}
        frames = [*frames[: item.error_after], f"data: {json.dumps(error)}\n\n"]
    return SseReply(
        frames,
        drop_after=item.drop_after,
        end_after=item.end_after,
        gate=item.gate,
        gate_after=item.gate_after,
    )


def openai_server() -> ScriptedHttpServer:
    """A started server; its base URL for the SDK is ``server.url + "/v1"``."""
    return ScriptedHttpServer(render).start()


def _finish(turn: Turn) -> str:
    return turn.stop or ("tool_calls" if turn.calls else "stop")


def _usage(turn: Turn) -> dict[str, Any]:
    prompt, completion_tokens = turn.usage
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt + completion_tokens,
    }
    if turn.cache is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": turn.cache[0], "audio_tokens": 0}
    return usage
