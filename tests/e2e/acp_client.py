"""A scripted ACP client driving a real ``quorum acp`` process through the SDK's client side.

``RecordingClient`` keeps every ``session/update`` and permission request, and answers each
permission request with the next option id of ``answers`` — or ``(option id, reason)``, the reason
sent in the answer's ``_meta`` as Quorum reads it (a test that gets an unexpected question fails:
there is no answer left). ``agent`` spawns ``quorum acp`` with the SDK's
``spawn_agent_process``; its stderr goes to a file, read by the test on failure. Every wait is on
a protocol answer, bounded by ``DEADLINE``; nothing sleeps.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Cli

if not os.environ.get("CI"):  # under CI a missing SDK fails (the import below), never skips
    pytest.importorskip("acp", reason="quorum acp needs the acp extra (agent-client-protocol)")

from acp import RequestError, spawn_agent_process, text_block
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    EnvVariable,
    HttpHeader,
    HttpMcpServer,
    McpServerStdio,
    RequestPermissionResponse,
)

# Re-exported for the tests, which import them from here, after the skip above.
__all__ = ["EnvVariable", "HttpHeader", "HttpMcpServer", "McpServerStdio", "RequestError"]

DEADLINE = 90.0
"""Seconds any one protocol answer may take: far beyond need, so only a real hang fails."""


@dataclass
class RecordingClient:
    """The client side: records updates and permission requests, answers from ``answers``."""

    answers: list[str | tuple[str, str]] = field(default_factory=list)
    updates: list[tuple[str, Any]] = field(default_factory=list)
    permissions: list[Any] = field(default_factory=list)
    hold: asyncio.Event | None = None
    _arrived: asyncio.Event = field(default_factory=asyncio.Event)

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **_: Any) -> Any:
        self.permissions.append((tool_call, options))
        self._arrived.set()
        if self.hold is not None:  # the person has not answered yet
            await self.hold.wait()
        if not self.answers:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        chosen = self.answers.pop(0)
        if isinstance(chosen, tuple):
            option_id, reason = chosen
            selected = AllowedOutcome(outcome="selected", option_id=option_id, field_meta={"reason": reason})
            return RequestPermissionResponse(outcome=selected)
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=chosen))

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append((session_id, update))
        self._arrived.set()

    async def wait_for(self, kind: str) -> list[Any]:
        """The updates of ``kind`` (``permission``: the permission requests) once one arrived, within ``DEADLINE``."""

        def found() -> list[Any]:
            return list(self.permissions) if kind == "permission" else self.of(kind)

        async def first() -> list[Any]:
            while not found():
                self._arrived.clear()
                await self._arrived.wait()
            return found()

        return await within(first())

    def of(self, kind: str) -> list[Any]:
        """The updates of one kind (``tool_call``, ``agent_message_chunk``…), in arrival order."""
        return [u for _, u in self.updates if u.session_update == kind]

    def text(self) -> str:
        """The agent's text, joined."""
        return "".join(u.content.text for u in self.of("agent_message_chunk"))

    def clear(self) -> None:
        self.updates.clear()
        self.permissions.clear()


def write_script(cli: Cli, turns: list[dict[str, Any]], name: str = "script.json") -> str:
    """A scripted model's turns, outside the workspace; returns its model id."""
    path = cli.workspace.parent / name
    path.write_text(json.dumps({"conversation": "continue", "turns": turns}))
    return f"scripted:{path}"


@asynccontextmanager
async def agent(cli: Cli, client: RecordingClient, *args: str) -> AsyncIterator[Any]:
    """``quorum acp ARGS`` started from a directory beside the workspace; yields the connection, initialized."""
    home = cli.workspace.parent / "client"
    home.mkdir(exist_ok=True)
    stderr = (cli.workspace.parent / "acp-stderr.txt").open("ab")
    try:
        async with spawn_agent_process(
            client,
            sys.executable,
            "-m",
            "quorum.cli.main",
            "acp",
            *args,
            env=cli.env,
            cwd=home,
            # the SDK waits 2 s for the agent to exit after stdin closes: a loaded machine needs longer
            transport_kwargs={"stderr": stderr.fileno(), "shutdown_timeout": DEADLINE},
        ) as (conn, _process):
            await within(conn.initialize(protocol_version=1))
            yield conn
    finally:
        stderr.close()


async def within(awaitable: Any) -> Any:
    """``awaitable``'s result, failing the test after ``DEADLINE`` seconds."""
    return await asyncio.wait_for(awaitable, DEADLINE)


async def prompt(conn: Any, session_id: str, text: str) -> str:
    """Send ``text`` as a prompt; returns the stop reason."""
    response = await within(conn.prompt(session_id=session_id, prompt=[text_block(text)]))
    return str(response.stop_reason)


def stderr_of(cli: Cli) -> str:
    path = cli.workspace.parent / "acp-stderr.txt"
    return path.read_text() if path.exists() else ""


def quorum_toml(cli: Cli, text: str) -> Path:
    return cli.write("quorum.toml", text)
