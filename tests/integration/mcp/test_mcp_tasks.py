"""MCP tasks against server-everything's ``simulate-research-query`` (``taskSupport: required``).

The whole flow (create, follow, result) runs in ``test_mcp_everything``; here: a call that is
cancelled (the run was cancelled, or the tool's deadline passed) cancels the task on the server.
"""

from __future__ import annotations

import asyncio
import re

import mcp_types as types
import pytest

from quorum.application.run_context import CallActivity, current_call
from quorum.domain.elicitation import ElicitationAnswer, ElicitationRequest
from quorum.domain.events import RunEvent, ToolProgress
from quorum.domain.tools import ToolCall
from quorum.infrastructure.mcp.client_features import ClientSide
from quorum.infrastructure.mcp.source import McpToolSource
from tests.integration.mcp.test_mcp_content import _everything


@pytest.mark.parametrize("how", ["cancelled", "timed out"])
async def test_a_cancelled_call_cancels_its_task_on_the_server(how: str) -> None:
    source = McpToolSource({"ev": _everything()})
    statuses: list[str] = []
    started = asyncio.Event()

    def on_event(event: RunEvent) -> None:
        if isinstance(event, ToolProgress):
            statuses.append(event.message)
            started.set()

    try:
        offered = {t.name for t in await source.list_tools()}
        assert "mcp__ev__simulate-research-query" in offered  # task-only tools are offered now
        call = ToolCall(native_id="c", name="mcp__ev__simulate-research-query", arguments={"topic": "tides"})
        current_call.set(CallActivity("c", on_event))
        running = asyncio.create_task(source.execute(call))
        await started.wait()  # the task exists on the server
        if how == "cancelled":
            running.cancel()
            with pytest.raises(asyncio.CancelledError):
                await running
        else:
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0):  # the tool's deadline passes while it waits
                    await running
        match = re.match(r"MCP task (\S+): ", statuses[0])
        assert match, statuses
        client = source.connections["ev"]._client
        request = types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=match.group(1)))
        task = await client.session.send_request(request, types.GetTaskResult)
        assert task.status == "cancelled"
    finally:
        await source.aclose()


async def test_a_task_that_needs_input_asks_through_tasks_result() -> None:
    """``input_required``: the server's elicitation arrives while ``tasks/result`` waits; the answer goes back."""
    asked: list[ElicitationRequest] = []

    async def answer(request: ElicitationRequest) -> ElicitationAnswer:
        asked.append(request)
        return ElicitationAnswer(action="accept", content={"interpretation": "historical"})

    source = McpToolSource({"ev": _everything()}, client_side=ClientSide(on_elicitation=answer))
    try:
        await source.list_tools()
        call = ToolCall(
            native_id="c", name="mcp__ev__simulate-research-query", arguments={"topic": "tides", "ambiguous": True}
        )
        result = await source.execute(call)
    finally:
        await source.aclose()
    assert not result.is_error, result.output
    assert "# Research Report: tides (historical)" in result.output
    assert len(asked) == 1 and "multiple interpretations" in asked[0].message
