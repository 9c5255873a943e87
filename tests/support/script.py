"""Provider-neutral script items: what a scripted server should answer, in either wire protocol."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Call:
    """A tool call the model makes; ``arguments`` as a dict, or raw text (possibly malformed)."""

    id: str
    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)

    def arguments_text(self) -> str:
        """The arguments as the wire carries them: raw text as given, a dict as JSON."""
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)


@dataclass(frozen=True)
class Thinking:
    """An Anthropic ``thinking`` block (``text``, ``signature``), or with ``redacted`` a
    ``redacted_thinking`` block whose ``data`` is ``signature``. The Responses API renders it as a
    ``reasoning`` item (``text`` its summary, ``signature`` its ``encrypted_content``); Chat
    Completions leaves it out."""

    text: str = ""
    signature: str = ""
    redacted: bool = False

    def block(self) -> dict[str, Any]:
        """The block as a non-streamed Messages reply holds it."""
        if self.redacted:
            return {"type": "redacted_thinking", "data": self.signature}
        return {"type": "thinking", "thinking": self.text, "signature": self.signature}


@dataclass(frozen=True)
class Turn:
    """One model response, rendered as JSON or as an SSE stream, as the request asks.

    Attributes:
        text: the text the model writes (before its calls).
        calls: the tool calls.
        stop: the provider's raw stop/finish reason; default from whether there are calls.
        usage: (input tokens, output tokens), as the wire reports them: Anthropic's
            ``input_tokens`` leave the cache's out, OpenAI's ``prompt_tokens`` count them.
        cache: (tokens read from the prompt cache, tokens written to it): Anthropic's
            ``cache_read_input_tokens`` / ``cache_creation_input_tokens``, OpenAI's
            ``prompt_tokens_details.cached_tokens`` (the read part; OpenAI reports no writes).
        model: the model name the server reports.
        drop_after: stream only: send this many SSE frames, then drop the connection.
        end_after: stream only: send this many SSE frames, then end the body cleanly.
        error_after: stream only: send this many SSE frames, then an error event, then end.
        gate: stream only: after ``gate_after`` frames, wait for this event before going on.
        gate_after: see ``gate``.
        piece: size of the text/argument fragments in a stream.
        thinking: reasoning before the text: Anthropic thinking blocks, Responses reasoning items
            (Chat Completions leaves them out).
    """

    text: str = ""
    calls: tuple[Call, ...] = ()
    stop: str | None = None
    usage: tuple[int, int] = (12, 7)
    cache: tuple[int, int] | None = None
    model: str = "m-1"
    drop_after: int | None = None
    end_after: int | None = None
    error_after: int | None = None
    gate: threading.Event | None = None
    gate_after: int = 2
    piece: int = 4
    thinking: tuple[Thinking, ...] = ()


@dataclass(frozen=True)
class Fail:
    """An HTTP error in the protocol's error shape; ``headers`` e.g. ``{"retry-after-ms": "5"}``."""

    status: int
    message: str = "failure"
    headers: dict[str, str] = field(default_factory=dict)
    code: str | None = None
    """The OpenAI body's ``error.code`` (default: the status), e.g. ``context_length_exceeded``."""


@dataclass(frozen=True)
class Hang:
    """Read the request, then wait for ``release`` before closing without a response."""

    release: threading.Event


@dataclass(frozen=True)
class Disconnect:
    """Close the connection without any response."""


@dataclass(frozen=True)
class Raw:
    """Any HTTP response, byte for byte: for bodies no well-behaved server sends.

    Attributes:
        status: the HTTP status.
        body: the body bytes as sent (need not be JSON, nor UTF-8).
        content_type: the ``Content-Type`` header; None sends none.
        headers: more headers (e.g. ``{"Content-Encoding": "gzip"}``).
        content_length: the declared length; default ``len(body)``. A larger one with ``release``
            set leaves the client waiting for bytes that never come.
        trickle: after the body, send one more byte every this many seconds (a body that never
            ends) until ``release`` is set.
        release: set by the test when done; a waiting or trickling reply then drops the connection.
    """

    status: int = 200
    body: bytes = b""
    content_type: str | None = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    content_length: int | None = None
    trickle: float | None = None
    release: threading.Event | None = None


@dataclass(frozen=True)
class SseRaw:
    """A chunked ``text/event-stream`` of raw lines (str or bytes, each sent as one chunk as given).

    Attributes:
        lines: the frames, e.g. ``"data: {bad json\n\n"`` or ``b"data: \xff\n\n"``.
        then: after the lines: ``"end"`` the body cleanly, ``"drop"`` the connection, ``"hang"``
            until ``release`` is set, or send ``keepalive`` comments until ``release`` is set.
        keepalive: seconds between ``: keepalive`` comments when ``then == "keepalive"``.
        release: set by the test when done (required for ``hang`` and ``keepalive``).
        status: the HTTP status.
    """

    lines: tuple[str | bytes, ...] = ()
    then: str = "end"
    keepalive: float = 0.1
    release: threading.Event | None = None
    status: int = 200


ScriptItem = Turn | Fail | Hang | Disconnect | Raw | SseRaw


def pieces(text: str, size: int) -> list[str]:
    """``text`` cut into fragments of ``size`` characters (at least one fragment)."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]
