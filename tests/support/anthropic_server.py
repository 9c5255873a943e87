"""A local Anthropic Messages server (``POST /v1/messages``), JSON and SSE."""

from __future__ import annotations

import json
from typing import Any

from tests.support.http_server import JsonReply, NoReply, Recorded, Reply, ScriptedHttpServer, SseReply
from tests.support.script import Disconnect, Fail, Hang, Thinking, Turn, pieces

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def message(turn: Turn) -> dict[str, Any]:
    """The non-streaming ``message`` body for ``turn`` (arguments must be dicts here)."""
    content: list[dict[str, Any]] = [block.block() for block in turn.thinking]
    if turn.text:
        content.append({"type": "text", "text": turn.text})
    for call in turn.calls:
        assert isinstance(call.arguments, dict), "a non-streamed Anthropic tool_use input is an object"
        content.append({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments})
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": turn.model,
        "content": content,
        "stop_reason": _stop(turn),
        "stop_sequence": None,
        "usage": {"input_tokens": turn.usage[0], "output_tokens": turn.usage[1], **_cache_usage(turn)},
    }


def _cache_usage(turn: Turn) -> dict[str, int]:
    if turn.cache is None:
        return {}
    return {"cache_read_input_tokens": turn.cache[0], "cache_creation_input_tokens": turn.cache[1]}


def events(turn: Turn) -> list[dict[str, Any]]:
    """The stream events of ``turn``, fragment by fragment, with a ping for realism."""
    start = {**message(_without_raw(turn)), "content": [], "stop_reason": None}
    start["usage"] = {"input_tokens": turn.usage[0], "output_tokens": 1, **_cache_usage(turn)}
    out: list[dict[str, Any]] = [{"type": "message_start", "message": start}, {"type": "ping"}]
    index = 0
    for thought in turn.thinking:
        out.extend(_thinking_events(thought, index, turn.piece))
        index += 1
    if turn.text:
        out.append({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})
        for part in pieces(turn.text, turn.piece):
            out.append({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": part}})
        out.append({"type": "content_block_stop", "index": index})
        index += 1
    for call in turn.calls:
        block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        out.append({"type": "content_block_start", "index": index, "content_block": block})
        for part in pieces(call.arguments_text(), turn.piece + 1):
            delta = {"type": "input_json_delta", "partial_json": part}
            out.append({"type": "content_block_delta", "index": index, "delta": delta})
        out.append({"type": "content_block_stop", "index": index})
        index += 1
    out.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": _stop(turn), "stop_sequence": None},
            "usage": {"output_tokens": turn.usage[1]},
        }
    )
    out.append({"type": "message_stop"})
    return out


def render(item: Any, request: Recorded) -> Reply:
    """The reply to ``request`` for script item ``item``."""
    if isinstance(item, Fail):
        error_type = ERROR_TYPES.get(item.status, "api_error")
        body = {"type": "error", "error": {"type": error_type, "message": item.message}}
        return JsonReply(item.status, body, dict(item.headers))
    if isinstance(item, Hang):
        return NoReply(item.release)
    if isinstance(item, Disconnect):
        return NoReply()
    assert isinstance(item, Turn)
    if not (request.body or {}).get("stream"):
        return JsonReply(200, message(item))
    frames = [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events(item)]
    if item.error_after is not None:
        error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        frames = [*frames[: item.error_after], f"event: error\ndata: {json.dumps(error)}\n\n"]
    return SseReply(
        frames,
        drop_after=item.drop_after,
        end_after=item.end_after,
        gate=item.gate,
        gate_after=item.gate_after,
    )


def anthropic_server() -> ScriptedHttpServer:
    """A started server; its base URL for the SDK is ``server.url`` (no ``/v1``)."""
    return ScriptedHttpServer(render).start()


def _thinking_events(thought: Thinking, index: int, piece: int) -> list[dict[str, Any]]:
    """A thinking block streamed as the API does: text in ``thinking_delta``s, then one ``signature_delta``."""
    if thought.redacted:
        start = {"type": "content_block_start", "index": index, "content_block": thought.block()}
        return [start, {"type": "content_block_stop", "index": index}]
    empty = {"type": "thinking", "thinking": "", "signature": ""}
    out: list[dict[str, Any]] = [{"type": "content_block_start", "index": index, "content_block": empty}]
    for part in pieces(thought.text, piece):
        out.append(
            {"type": "content_block_delta", "index": index, "delta": {"type": "thinking_delta", "thinking": part}}
        )
    signature = {"type": "signature_delta", "signature": thought.signature}
    out.append({"type": "content_block_delta", "index": index, "delta": signature})
    out.append({"type": "content_block_stop", "index": index})
    return out


def _without_raw(turn: Turn) -> Turn:
    return Turn(model=turn.model, usage=turn.usage, cache=turn.cache, stop=turn.stop)


def _stop(turn: Turn) -> str:
    return turn.stop or ("tool_use" if turn.calls else "end_turn")
