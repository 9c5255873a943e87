"""Responses API wire format: neutral history and tools in as ``input`` items, a ``response`` out.

The history goes out as items: user and assistant text as messages, each tool call as the
``function_call`` item the model sent, each result as a ``function_call_output`` item under the
same ``call_id``. Nothing is stored at the provider (``store: false``): every request carries the
whole conversation, as on Chat Completions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from quorum.application.ports.llm import ToolSchemas
from quorum.domain.messages import Message
from quorum.domain.responses import ContentBlock, LlmResponse, ReasoningBlock, StopReason, TextBlock, Usage
from quorum.domain.tools import ImagePart, ToolCall, ToolResult
from quorum.infrastructure.providers.http_body import ErrorReply, raise_error_object, validated
from quorum.infrastructure.providers.openai import responses_shapes as shapes
from quorum.infrastructure.providers.openai.responses_reasoning import item_to_wire, kept_item
from quorum.infrastructure.providers.openai.wire import ERROR_PREFIX, tool_call
from quorum.infrastructure.providers.wire_api import Wire, response

NO_IMAGES = "[{count} image(s) not shown: this provider is configured with images = false]"


def tools_to_wire(tools: ToolSchemas) -> list[Wire]:
    """Neutral schemas as Responses function tools (not strict: Quorum's schemas have optional fields)."""
    return [
        {
            "type": "function",
            "name": tool["name"],
            "description": tool.get("description", ""),
            "parameters": tool.get("input_schema") or {"type": "object", "properties": {}},
            "strict": False,
        }
        for tool in tools
    ]


def message_to_wire(message: Message, *, images: bool = True) -> list[Wire]:
    """One neutral message as ``input`` items.

    An assistant message is its text as an assistant message, then one ``function_call`` item per
    call. A user message is one ``function_call_output`` per result (its images, when the models
    take images, in the output itself), then one user message for its text and images.
    """
    if message.role == "assistant":
        return _assistant_items(message)
    items: list[Wire] = []
    parts: list[Wire] = []
    for block in message.content:
        if isinstance(block, ToolResult):
            items.append({"type": "function_call_output", "call_id": block.call_id, "output": _output(block, images)})
        elif isinstance(block, TextBlock) and block.text:
            parts.append({"type": "input_text", "text": block.text})
        elif isinstance(block, ImagePart):
            parts.append(_input_image(block))
    pictures = [part for part in parts if part["type"] == "input_image"]
    if pictures and not images:
        parts = [part for part in parts if part["type"] != "input_image"]
        parts.append({"type": "input_text", "text": NO_IMAGES.format(count=len(pictures))})
    if parts:
        plain = all(part["type"] == "input_text" for part in parts)
        content: Any = "\n\n".join(part["text"] for part in parts) if plain else parts
        items.append({"role": "user", "content": content})
    return items


def _assistant_items(message: Message) -> list[Wire]:
    """Kept reasoning items first (as received, in order), then the text, then the calls."""
    items: list[Wire] = []
    for block in message.content:
        if isinstance(block, ReasoningBlock) and (item := item_to_wire(block)) is not None:
            items.append(item)
    text = "".join(block.text for block in message.content if isinstance(block, TextBlock))
    if text:
        items.append({"role": "assistant", "content": text})
    for block in message.content:
        if isinstance(block, ToolCall):
            items.append(
                {
                    "type": "function_call",
                    "call_id": block.native_id,
                    "name": block.name,
                    "arguments": _arguments(block),
                }
            )
    return items


def _arguments(call: ToolCall) -> str:
    """The argument text as the model sent it when it could not be read, else the arguments as JSON."""
    if call.arguments_error is not None and call.raw_arguments is not None:
        return call.raw_arguments
    return json.dumps(dict(call.arguments), ensure_ascii=False)


def _output(result: ToolResult, images: bool) -> str | list[Wire]:
    text = ERROR_PREFIX + result.output if result.is_error else result.output
    if not result.images:
        return text
    if not images:
        return text + "\n" + NO_IMAGES.format(count=len(result.images))
    return [{"type": "input_text", "text": text}, *(_input_image(image) for image in result.images)]


def _input_image(image: ImagePart) -> Wire:
    return {"type": "input_image", "image_url": f"data:{image.media_type};base64,{image.data}", "detail": "auto"}


def parse_response(body: dict[str, Any]) -> LlmResponse:
    """A ``response`` JSON body as a neutral response.

    Raises:
        ErrorReply: the body is an error object, or a response that failed.
        MalformedResponse: the body is not a response Quorum can use.
    """
    raise_error_object(body)
    return build_response(validated(shapes.Response, body, "the response"))


def build_response(reply: shapes.Response, streamed_items: Sequence[dict[str, Any]] = ()) -> LlmResponse:
    """The neutral response of a ``response`` object; the plain and the streamed path both end here.

    ``streamed_items`` (the ``response.output_item.done`` items of a stream) stand in for the
    output when the final object carries none, as some compatible servers send it.

    Raises:
        ErrorReply: the response failed. MalformedResponse: an item is not what its type says.
    """
    if reply.status == "failed" or reply.error:
        error = reply.error or {}
        raise ErrorReply(str(error.get("message") or "the response failed") + _label(error))
    content: list[ContentBlock] = []
    for item in reply.output or list(streamed_items):
        content.extend(_blocks(item))
    calls = any(isinstance(block, ToolCall) for block in content)
    return response(content, _stop(reply, calls), reply.model, usage_of(reply.usage))


def _label(error: dict[str, Any]) -> str:
    code = error.get("code")
    return f" ({code})" if isinstance(code, str) and code else ""


def _blocks(item: dict[str, Any]) -> list[ContentBlock]:
    kind = item.get("type")
    if kind == "message":
        message = validated(shapes.MessageItem, item, "an output message")
        text = "".join(part.text or part.refusal or "" for part in message.content)
        return [TextBlock(text=text)] if text else []
    if kind == "function_call":
        call = validated(shapes.FunctionCallItem, item, "a function call")
        return [tool_call(call.call_id, call.name, call.arguments)]
    if kind == "reasoning":
        return [kept_item(item)]  # sent back unchanged with the next request
    return []  # built-in tools' items: not part of the answer


def _stop(reply: shapes.Response, has_calls: bool) -> StopReason:
    if reply.status == "incomplete":
        reason = reply.incomplete_details.reason if reply.incomplete_details else None
        return StopReason.max_tokens() if reason in (None, "max_output_tokens") else StopReason.other(reason)
    return StopReason.tool_use() if has_calls else StopReason.end_turn()


def usage_of(usage: shapes.Usage | None) -> Usage:
    """The neutral usage of a response's ``usage`` (input includes cached tokens)."""
    if usage is None:
        return Usage()
    details = usage.input_tokens_details
    return Usage(
        input_tokens=usage.input_tokens or 0,
        output_tokens=usage.output_tokens or 0,
        cache_read_input_tokens=(details.cached_tokens or 0) if details is not None else 0,
    )
