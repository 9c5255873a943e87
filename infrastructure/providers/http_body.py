"""Reading a provider's response body ourselves: JSON bodies and SSE events, bounded and strict.

The SDKs keep the HTTP work (auth, retries, status errors); the body is read here, because the
SDKs trust it: a non-JSON page becomes a string where a model was expected, a bad stream line a
bare ``JSONDecodeError``, and SSE comments reset the read timeout forever. Here every body is
bounded in size and time, decoded as strict UTF-8, and whatever cannot be understood raises
``MalformedResponse`` saying what was wrong, for the session to translate into a ``ProviderError``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

M = TypeVar("M", bound=BaseModel)

MAX_BODY_BYTES = 16 * 1024 * 1024
"""Largest non-streamed body read: a chat response is kilobytes; more is a broken server."""

MAX_EVENT_BYTES = 4 * 1024 * 1024
"""Largest single SSE event: bounds memory when a stream never sends its blank line."""


class MalformedResponse(Exception):
    """Internal: the provider's reply cannot be understood; the message says what was wrong."""


class ErrorReply(Exception):
    """Internal: the provider answered with an error object (in a 200 body or a stream event)."""


class ResponseStalled(Exception):
    """Internal: no usable data arrived for ``seconds`` (a stalled or keepalive-only stream)."""

    def __init__(self, seconds: float, what: str) -> None:
        self.seconds = seconds
        super().__init__(what)


@dataclass(frozen=True)
class SseEvent:
    """One dispatched server-sent event: its ``event`` name (``""`` when absent) and ``data``."""

    event: str
    data: str


async def read_json(response: Any, *, timeout: float, max_bytes: int = MAX_BODY_BYTES) -> dict[str, Any]:
    """The body of ``response`` (an ``httpx2.Response`` whose body is unread) as a JSON object.

    Raises:
        MalformedResponse: not JSON, not UTF-8, not an object, too large, undecodable encoding.
        ResponseStalled: the whole body did not arrive within ``timeout`` seconds.
    """
    status = response.status_code
    declared = response.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise MalformedResponse(f"the body declares {int(declared)} bytes, more than the {_size(max_bytes)} limit")
    data = bytearray()
    try:
        async with asyncio.timeout(timeout):
            async for chunk in _decoded_bytes(response):
                data += chunk
                if len(data) > max_bytes:
                    raise MalformedResponse(f"the body is larger than the {_size(max_bytes)} limit")
    except TimeoutError:
        raise ResponseStalled(timeout, f"the response body did not complete within {timeout:g} s") from None
    media = (response.headers.get("content-type") or "").split(";")[0].strip().lower() or "no content type"
    if not data.strip():
        raise MalformedResponse(f"expected JSON, got an empty body (status {status})")
    text = _utf8(bytes(data), "the body")
    try:
        value = json.loads(text)
    except ValueError as error:
        if "json" not in media:  # compatible servers sometimes mislabel JSON; only then blame the type
            raise MalformedResponse(f"expected JSON, got {media} (status {status})") from None
        raise MalformedResponse(f"the body is not valid JSON ({error}) (status {status})") from None
    if not isinstance(value, dict):
        raise MalformedResponse(f"expected a JSON object, got {_kind(value)} (status {status})")
    return value


async def sse_events(response: Any, *, idle_timeout: float) -> AsyncIterator[SseEvent]:
    """The events of a ``text/event-stream`` body, parsed as the SSE specification says.

    Comments (``: keepalive``) and empty events keep the connection open but are not data, so
    they do not reset the idle clock: ``idle_timeout`` bounds the time between real events.

    Raises:
        MalformedResponse: a line is not UTF-8, or one event grows beyond ``MAX_EVENT_BYTES``.
        ResponseStalled: no event for ``idle_timeout`` seconds.
    """
    media = (response.headers.get("content-type") or "").split(";")[0].strip().lower()
    if media != "text/event-stream":
        raise MalformedResponse(
            f"expected an event stream, got {media or 'no content type'} (status {response.status_code})"
        )
    loop = asyncio.get_running_loop()
    deadline = loop.time() + idle_timeout
    lines = _lines(_decoded_bytes(response))
    data: list[str] = []
    event, size = "", 0
    while True:
        try:
            async with asyncio.timeout_at(deadline):
                raw = await anext(lines, None)
        except TimeoutError:
            raise ResponseStalled(idle_timeout, f"no data for {idle_timeout:g} s") from None
        if raw is None:
            return
        line = _utf8(raw, "a stream line")
        if not line:  # a blank line dispatches the event
            if data:
                yield SseEvent(event, "\n".join(data))
                deadline = loop.time() + idle_timeout
            event, data, size = "", [], 0
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            size += len(raw)
            if size > MAX_EVENT_BYTES:
                raise MalformedResponse(f"a stream event is larger than the {_size(MAX_EVENT_BYTES)} limit")
            data.append(value)
        elif name == "event":
            event = value


def raise_error_object(value: Any) -> None:
    """Raise ErrorReply when ``value`` is an error object (``{"error": ...}``) instead of a reply.

    Both APIs wrap errors so: OpenAI as ``{"error": {"message"}}``, Anthropic as
    ``{"type": "error", "error": {"type", "message"}}``; some compatible servers send a string.
    """
    if not isinstance(value, dict) or not value.get("error"):
        return
    error = value["error"]
    if isinstance(error, dict):
        message = error.get("message")
        label = error.get("type") or error.get("code")
        text = message if isinstance(message, str) and message else json.dumps(error)[:200]
        raise ErrorReply(f"{text} ({label})" if isinstance(label, str) and label and label not in text else text)
    raise ErrorReply(str(error)[:200])


def parse_json(data: str, what: str) -> Any:
    """``data`` (one stream event's text) as JSON. Raises MalformedResponse naming ``what``."""
    try:
        return json.loads(data)
    except ValueError as error:
        raise MalformedResponse(f"{what} is not valid JSON ({error}): {_excerpt(data)}") from None


class Shape(BaseModel):
    """Base of a reply shape a wire module reads: strict types, unknown fields ignored, frozen."""

    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)


def validated(model: type[M], value: Any, what: str) -> M:
    """``value`` validated as ``model``. Raises MalformedResponse naming the first bad field."""
    try:
        return model.model_validate(value)
    except ValidationError as error:
        first = error.errors()[0]
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"]).lstrip(".")
        got = _kind(first.get("input"))
        raise MalformedResponse(f"{what}: {where or 'body'}: {first['msg'].lower()} (got {got})") from None


async def _decoded_bytes(response: Any) -> AsyncIterator[bytes]:
    """The body bytes after Content-Encoding; a body that cannot be decoded is malformed."""
    import httpx2  # a dependency of both SDKs, imported by them already

    try:
        async for chunk in response.aiter_bytes():
            yield chunk
    except httpx2.DecodingError as error:
        encoding = response.headers.get("content-encoding", "?")
        raise MalformedResponse(f"the body cannot be decoded as {encoding}: {error}") from None


async def _lines(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """Lines split on CRLF, LF or CR, without their ends, as SSE defines them."""
    buffer = b""
    async for chunk in chunks:
        buffer += chunk
        while True:
            cut = min((i for i in (buffer.find(b"\r"), buffer.find(b"\n")) if i >= 0), default=-1)
            if cut < 0 or (buffer[cut : cut + 1] == b"\r" and cut == len(buffer) - 1):
                break  # no end yet, or a CR that may be the first half of a CRLF
            end = cut + 2 if buffer[cut : cut + 2] == b"\r\n" else cut + 1
            yield buffer[:cut]
            buffer = buffer[end:]
        if len(buffer) > MAX_EVENT_BYTES:
            raise MalformedResponse(f"a stream line is larger than the {_size(MAX_EVENT_BYTES)} limit")
    if buffer:
        yield buffer.rstrip(b"\r")


def _utf8(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise MalformedResponse(
            f"{what} is not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})"
        ) from None


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number" if isinstance(value, int | float) else type(value).__name__)


def _excerpt(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _size(count: int) -> str:
    return f"{count // (1024 * 1024)} MiB"
