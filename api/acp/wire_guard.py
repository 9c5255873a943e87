"""Incoming lines the SDK's receive loop could not survive are logged and dropped before it reads them.

The SDK logs and skips a line that is not JSON, but a line that is JSON without being a message
object (``[1, 2]``, ``"text"``), a response whose ``id`` cannot be a key (``{"id": [1]}``) or a
line nested too deeply to parse (100,000 ``[``: ``RecursionError``, not a ``ValueError``) raises
inside its receive loop, which ends the connection. ``forward_messages`` sits between stdin and
the SDK: it passes every line that is not JSON (the SDK logs those) and every JSON object with a
usable ``id``, and logs the rest, so no client input ends the agent.
"""

from __future__ import annotations

import asyncio
import json
import logging

log = logging.getLogger("quorum.acp")

_ID_TYPES = (str, int, float, type(None))


def admissible(line: bytes) -> bool:
    """Whether the SDK may read ``line`` (not JSON, or a JSON object whose ``id``, if any, is usable)."""
    try:
        message = json.loads(line)
    except ValueError:
        return True  # the SDK logs it and reads on
    except Exception:  # RecursionError (too deep), MemoryError…: the SDK's parse would end the agent
        return False
    if not isinstance(message, dict):
        return False
    return "id" not in message or (isinstance(message["id"], _ID_TYPES) and not isinstance(message["id"], bool))


async def forward_messages(source: asyncio.StreamReader, sink: asyncio.StreamReader) -> None:
    """Copy admissible lines from ``source`` to ``sink`` until ``source`` ends, then end ``sink``."""
    try:
        while True:
            line = await _read_line(source)
            if not line:
                return
            if not line.strip() or admissible(line):
                sink.feed_data(line if line.endswith(b"\n") else line + b"\n")
            else:
                log.warning("ignored a line that is not a JSON-RPC message: %.200r", line)
    finally:
        sink.feed_eof()


async def _read_line(reader: asyncio.StreamReader) -> bytes:
    """One line, however long (a line over the reader's limit is read in pieces, as the SDK reads it)."""
    chunks: list[bytes] = []
    try:
        while True:
            try:
                chunks.append(await reader.readuntil(b"\n"))
                return b"".join(chunks)
            except asyncio.LimitOverrunError as error:
                chunks.append(await reader.readexactly(error.consumed))
    except asyncio.IncompleteReadError as error:
        chunks.append(error.partial)
        return b"".join(chunks)
