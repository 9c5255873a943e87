"""The Responses API side of the scripted OpenAI server (``POST /v1/responses``), JSON and SSE.

A ``Turn`` becomes a ``response`` object: its text a ``message`` item, each call a ``function_call``
item under the call's id, ``stop = "length"`` an ``incomplete`` response. Streamed, the items come
as the API sends them: ``response.output_item.added``, the deltas, ``response.output_item.done``,
then ``response.completed`` carrying the whole response.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.http_server import JsonReply, Recorded, Reply, SseReply
from tests.support.script import Thinking, Turn, pieces


def reasoning_item(index: int, thought: Thinking) -> dict[str, Any]:
    """A ``reasoning`` output item: the thought's text as its summary, its signature as encrypted content."""
    summary = [{"type": "summary_text", "text": thought.text}] if thought.text else []
    return {"type": "reasoning", "id": f"rs_{index}", "summary": summary, "encrypted_content": thought.signature}


def output_items(turn: Turn) -> list[dict[str, Any]]:
    """The ``output`` items of ``turn``, in order: its reasoning, its message, then its calls."""
    items: list[dict[str, Any]] = [reasoning_item(i, thought) for i, thought in enumerate(turn.thinking)]
    if turn.text:
        text = {"type": "output_text", "text": turn.text, "annotations": []}
        items.append({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [text]})
    for index, call in enumerate(turn.calls):
        items.append(
            {
                "type": "function_call",
                "id": f"fc_{index}",
                "call_id": call.id,
                "name": call.name,
                "arguments": call.arguments_text(),
                "status": "completed",
            }
        )
    return items


def response_body(turn: Turn) -> dict[str, Any]:
    """The non-streamed ``response`` object of ``turn``."""
    prompt, completion = turn.usage
    incomplete = turn.stop == "length"
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1_700_000_000,
        "model": turn.model,
        "status": "incomplete" if incomplete else "completed",
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "output": output_items(turn),
        "usage": {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": turn.cache[0] if turn.cache else 0},
            "output_tokens": completion,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": prompt + completion,
        },
    }


def events(turn: Turn) -> list[dict[str, Any]]:
    """The stream events of ``turn``, fragment by fragment."""
    body = response_body(turn)
    out: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**body, "status": "in_progress", "output": []}}
    ]
    for index, item in enumerate(body["output"]):
        if item["type"] == "reasoning":
            out.append({"type": "response.output_item.added", "output_index": index, "item": {**item, "summary": []}})
        elif item["type"] == "message":
            out.append({"type": "response.output_item.added", "output_index": index, "item": {**item, "content": []}})
            out.extend(
                {"type": "response.output_text.delta", "output_index": index, "item_id": item["id"], "delta": part}
                for part in pieces(turn.text, turn.piece)
            )
        else:
            out.append({"type": "response.output_item.added", "output_index": index, "item": {**item, "arguments": ""}})
            out.extend(
                {
                    "type": "response.function_call_arguments.delta",
                    "output_index": index,
                    "item_id": item["id"],
                    "delta": part,
                }
                for part in pieces(item["arguments"], turn.piece + 1)
            )
        out.append({"type": "response.output_item.done", "output_index": index, "item": item})
    final = "response.incomplete" if body["status"] == "incomplete" else "response.completed"
    out.append({"type": final, "response": body})
    return out


def render_turn(item: Turn, request: Recorded) -> Reply:
    """The reply to a Responses request for ``item``: a JSON body, or an SSE stream when asked."""

    body = request.body or {}
    if not body.get("stream"):
        return JsonReply(200, response_body(item))
    frames = [f"event: {event['type']}\ndata: {json.dumps(event)}\n\n" for event in events(item)]
    if item.error_after is not None:
        error = {"type": "error", "code": "server_error", "message": "the server had an error mid-stream"}
        frames = [*frames[: item.error_after], f"event: error\ndata: {json.dumps(error)}\n\n"]
    return SseReply(
        frames, drop_after=item.drop_after, end_after=item.end_after, gate=item.gate, gate_after=item.gate_after
    )
