"""Messages API wire format: neutral history and tools in, ``Message`` out."""

from __future__ import annotations

from typing import Any

from quorum.application.ports.llm import ToolSchemas
from quorum.domain.messages import Message
from quorum.domain.responses import ContentBlock, LlmResponse, ReasoningBlock, StopReason, TextBlock, Usage
from quorum.domain.tools import ImagePart, ToolCall, ToolResult
from quorum.infrastructure.providers.anthropic import thinking
from quorum.infrastructure.providers.anthropic.shapes import Message as MessageShape
from quorum.infrastructure.providers.anthropic.shapes import TextContent, ToolUseContent
from quorum.infrastructure.providers.http_body import raise_error_object, validated
from quorum.infrastructure.providers.wire_api import Wire, response


def tools_to_wire(tools: ToolSchemas) -> list[Wire]:
    """Neutral schemas are already Anthropic's shape; copied so nothing else leaks in."""
    return [
        {
            "name": tool["name"],
            "description": tool.get("description", ""),
            "input_schema": tool.get("input_schema") or {"type": "object", "properties": {}},
        }
        for tool in tools
    ]


def message_to_wire(message: Message) -> list[Wire]:
    """One neutral message as a Messages API message; none when it has no sendable content.

    Empty text blocks are dropped (the API refuses them); a message of one text is sent as a
    plain string. Two messages of the same role in a row are merged by the API itself. Images the
    user sent with a task become ``image`` blocks (base64 sources) after its text. Kept thinking
    blocks go back where they were, as received; another API's reasoning is left out.
    """
    blocks: list[Wire] = []
    for block in message.content:
        if isinstance(block, ReasoningBlock):
            if (kept := thinking.block_to_wire(block)) is not None:
                blocks.append(kept)
        elif isinstance(block, TextBlock):
            if block.text:
                blocks.append({"type": "text", "text": block.text})
        elif isinstance(block, ToolCall):
            blocks.append(
                {"type": "tool_use", "id": block.native_id, "name": block.name, "input": dict(block.arguments)}
            )
        elif isinstance(block, ToolResult):
            blocks.append(
                {
                    "type": "tool_result",
                    "tool_use_id": block.call_id,
                    "content": _result_content(block),
                    "is_error": block.is_error,
                }
            )
        elif isinstance(block, ImagePart):
            blocks.append(_image_block(block))
    if not blocks:
        return []
    if len(blocks) == 1 and blocks[0]["type"] == "text":
        return [{"role": message.role, "content": blocks[0]["text"]}]
    return [{"role": message.role, "content": blocks}]


def _result_content(block: ToolResult) -> str | list[Wire]:
    """A result's text, or with images a list of a text block and ``image`` blocks (base64 sources).

    The Messages API takes images inside ``tool_result`` itself, so the model sees them as the
    call's result.
    """
    if not block.images:
        return block.output
    content: list[Wire] = [{"type": "text", "text": block.output}] if block.output else []
    content.extend(_image_block(image) for image in block.images)
    return content


def _image_block(image: ImagePart) -> Wire:
    return {"type": "image", "source": {"type": "base64", "media_type": image.media_type, "data": image.data}}


def build_response(content: list[ContentBlock], stop: str | None, model: str | None, usage: Usage) -> LlmResponse:
    """The neutral response of the plain and the streamed path (``wire_api.response``).

    Raises:
        MalformedResponse: two calls share an id (their results could not be told apart).
    """
    has_calls = any(isinstance(b, ToolCall) for b in content)
    return response(content, stop_reason(stop, has_calls), model, usage)


def parse_message(body: dict[str, Any]) -> LlmResponse:
    """A ``message`` JSON body as a neutral response.

    Thinking blocks are kept as received (``thinking``); block types Quorum does not use are left out.

    Raises:
        ErrorReply: the body is an error object.
        MalformedResponse: the body is not a message Quorum can use.
    """
    raise_error_object(body)
    message = validated(MessageShape, body, "the message")
    content: list[ContentBlock] = []
    for index, raw in enumerate(message.content):
        kind = raw.get("type")
        if kind == "text":
            content.append(TextBlock(text=validated(TextContent, raw, f"the message: content[{index}]").text))
        elif kind == "tool_use":
            call = validated(ToolUseContent, raw, f"the message: content[{index}]")
            content.append(ToolCall(native_id=call.id, name=call.name, arguments=call.input))
        elif kind in thinking.KINDS:
            content.append(thinking.kept_block(raw, f"the message: content[{index}]"))
    return build_response(content, message.stop_reason, message.model or None, usage_of(message.usage))


def stop_reason(raw: str | None, has_calls: bool) -> StopReason:
    """``stop_reason`` as a StopReason (``stop_sequence`` is an ordinary end)."""
    if raw == "max_tokens":
        return StopReason.max_tokens()
    if raw == "tool_use" or (raw is None and has_calls):
        return StopReason.tool_use()
    if raw in (None, "end_turn", "stop_sequence"):
        return StopReason.end_turn()
    return StopReason.other(raw)


def usage_of(usage: Any) -> Usage:
    """Tokens used: ``input_tokens`` counts the cache reads and writes too (the API counts them apart)."""
    if usage is None:
        return Usage()
    read = usage.cache_read_input_tokens or 0
    written = usage.cache_creation_input_tokens or 0
    return Usage(
        input_tokens=(usage.input_tokens or 0) + read + written,
        output_tokens=usage.output_tokens or 0,
        cache_read_input_tokens=read,
        cache_write_input_tokens=written,
    )
