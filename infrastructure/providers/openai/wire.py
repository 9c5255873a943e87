"""Chat Completions wire format: neutral history and tools in, ``ChatCompletion`` out."""

from __future__ import annotations

import json
from typing import Any

from quorum.application.ports.llm import ToolSchemas
from quorum.domain.messages import Message
from quorum.domain.responses import ContentBlock, LlmResponse, StopReason, TextBlock, Usage
from quorum.domain.tools import ImagePart, ToolCall, ToolResult
from quorum.infrastructure.providers.http_body import raise_error_object, validated
from quorum.infrastructure.providers.openai.shapes import Completion
from quorum.infrastructure.providers.wire_api import Wire, decode_arguments, response

ERROR_PREFIX = "Error: "
"""Chat Completions has no error flag on tool results, so failed results say so in words."""


def tools_to_wire(tools: ToolSchemas) -> list[Wire]:
    """Neutral ``{"name", "description", "input_schema"}`` schemas as function tools."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "parameters": tool.get("input_schema") or {"type": "object", "properties": {}},
            },
        }
        for tool in tools
    ]


IMAGES_INTRO = "Images returned by the tool calls above:"
"""Opens the user message that carries tool result images (a tool message holds text only)."""


def message_to_wire(message: Message, *, images: bool = True) -> list[Wire]:
    """One neutral message as Chat Completions messages.

    An assistant message becomes one message with ``tool_calls``; a user message becomes one
    ``role: "tool"`` message per result (they must directly follow the calls) and then one user
    message for its images and text. Tool messages carry text only, so the images of the results
    follow in that user message as ``image_url`` data URIs, each introduced by the call it came
    from. With ``images=False`` (a provider whose models take no images) a note replaces them.
    Images the user sent with a task (``ImagePart`` blocks) follow its text as ``image_url`` parts.
    """
    if message.role == "assistant":
        text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
        calls = [_call_to_wire(b) for b in message.content if isinstance(b, ToolCall)]
        if not calls:
            return [{"role": "assistant", "content": text}]
        return [{"role": "assistant", "content": text or None, "tool_calls": calls}]
    wire: list[Wire] = []
    texts: list[str] = []
    parts: list[Wire] = []
    user_images: list[ImagePart] = []
    for block in message.content:
        if isinstance(block, ToolResult):
            content = ERROR_PREFIX + block.output if block.is_error else block.output
            if block.images and not images:
                content += (
                    f"\n[{len(block.images)} image(s) not shown: this provider is configured with images = false]"
                )
            wire.append({"role": "tool", "tool_call_id": block.call_id, "content": content})
            if block.images and images:
                parts.append({"type": "text", "text": f"From {block.name or 'the tool'} (call {block.call_id}):"})
                parts.extend(_image_url(image) for image in block.images)
        elif isinstance(block, TextBlock):
            texts.append(block.text)
        elif isinstance(block, ImagePart):
            user_images.append(block)
    if user_images and not images:
        texts.append(f"[{len(user_images)} image(s) not shown: this provider is configured with images = false]")
    elif user_images:
        parts.extend(_image_url(image) for image in user_images)
        if not any(isinstance(block, ToolResult) for block in message.content):
            lead: list[Wire] = [{"type": "text", "text": "\n\n".join(texts)}] if texts else []
            wire.append({"role": "user", "content": lead + parts})
            return wire
    if parts:
        intro: list[Wire] = [{"type": "text", "text": IMAGES_INTRO}]
        outro: list[Wire] = [{"type": "text", "text": "\n\n".join(texts)}] if texts else []
        wire.append({"role": "user", "content": intro + parts + outro})
    elif texts:
        wire.append({"role": "user", "content": "\n\n".join(texts)})
    return wire


def _image_url(image: ImagePart) -> Wire:
    return {"type": "image_url", "image_url": {"url": f"data:{image.media_type};base64,{image.data}"}}


def _call_to_wire(block: ToolCall) -> Wire:
    arguments = block.raw_arguments if block.arguments_error is not None and block.raw_arguments is not None else None
    if arguments is None:
        arguments = json.dumps(dict(block.arguments), ensure_ascii=False)
    return {"id": block.native_id, "type": "function", "function": {"name": block.name, "arguments": arguments}}


def tool_call(call_id: str, name: str, arguments: str) -> ToolCall:
    """A ToolCall from a call's id, name and argument text (malformed text is flagged)."""
    value, error, raw = decode_arguments(arguments)
    return ToolCall(native_id=call_id, name=name, arguments=value, arguments_error=error, raw_arguments=raw)


def build_response(
    text: str, calls: list[ToolCall], finish_reason: str | None, model: str | None, usage: Any
) -> LlmResponse:
    """The neutral response of the plain and the streamed path (``wire_api.response``).

    Raises:
        MalformedResponse: two calls share an id (their results could not be told apart).
    """
    content: list[ContentBlock] = [TextBlock(text=text)] if text else []
    content.extend(calls)
    return response(content, stop_reason(finish_reason, bool(calls)), model, _usage(usage))


def parse_completion(body: dict[str, Any]) -> LlmResponse:
    """A ``chat.completion`` JSON body as a neutral response (first choice).

    Raises:
        ErrorReply: the body is an error object.
        MalformedResponse: the body is not a completion Quorum can use.
    """
    raise_error_object(body)
    completion = validated(Completion, body, "the completion")
    choice = completion.choices[0]
    message = choice.message
    calls = [tool_call(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or ()]
    return build_response(message.content or "", calls, choice.finish_reason, completion.model, completion.usage)


def stop_reason(finish_reason: str | None, has_calls: bool) -> StopReason:
    """``finish_reason`` as a StopReason. Some compatible servers say ``stop`` with tool calls."""
    if finish_reason == "length":
        return StopReason.max_tokens()
    if has_calls or finish_reason in ("tool_calls", "function_call"):
        return StopReason.tool_use()
    if finish_reason in (None, "stop"):
        return StopReason.end_turn()
    return StopReason.other(finish_reason)


def _usage(usage: Any) -> Usage:
    """Tokens used; ``prompt_tokens`` counts the cached ones, which are also read apart (OpenAI writes for free)."""
    if usage is None:
        return Usage()
    details = usage.prompt_tokens_details
    cached = (details.cached_tokens or 0) if details is not None else 0
    return Usage(
        input_tokens=usage.prompt_tokens or 0,
        output_tokens=usage.completion_tokens or 0,
        cache_read_input_tokens=cached,
    )
