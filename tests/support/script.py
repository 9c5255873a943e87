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
class Turn:
    """One model response, rendered as JSON or as an SSE stream, as the request asks.

    Attributes:
        text: the text the model writes (before its calls).
        calls: the tool calls.
        stop: the provider's raw stop/finish reason; default from whether there are calls.
        usage: (input tokens, output tokens).
        model: the model name the server reports.
        drop_after: stream only: send this many SSE frames, then drop the connection.
        end_after: stream only: send this many SSE frames, then end the body cleanly.
        error_after: stream only: send this many SSE frames, then an error event, then end.
        gate: stream only: after ``gate_after`` frames, wait for this event before going on.
        gate_after: see ``gate``.
        piece: size of the text/argument fragments in a stream.
    """

    text: str = ""
    calls: tuple[Call, ...] = ()
    stop: str | None = None
    usage: tuple[int, int] = (12, 7)
    model: str = "m-1"
    drop_after: int | None = None
    end_after: int | None = None
    error_after: int | None = None
    gate: threading.Event | None = None
    gate_after: int = 2
    piece: int = 4


@dataclass(frozen=True)
class Fail:
    """An HTTP error in the protocol's error shape; ``headers`` e.g. ``{"retry-after-ms": "5"}``."""

    status: int
    message: str = "failure"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Hang:
    """Read the request, then wait for ``release`` before closing without a response."""

    release: threading.Event


@dataclass(frozen=True)
class Disconnect:
    """Close the connection without any response."""


ScriptItem = Turn | Fail | Hang | Disconnect


def pieces(text: str, size: int) -> list[str]:
    """``text`` cut into fragments of ``size`` characters (at least one fragment)."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]
