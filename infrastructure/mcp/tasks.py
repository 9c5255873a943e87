"""Task-augmented tool calls (MCP 2025-11-25 tasks): create, follow, fetch the result, cancel.

A tool whose ``execution.taskSupport`` is ``required``, or ``optional`` on a server that declares
``tasks.requests.tools.call``, is called with a ``task`` parameter: the server answers with a task
at once (``CreateTaskResult``) and works in the background. Quorum then polls ``tasks/get`` at the
server's ``pollInterval``, reporting each status message as progress of the call, and fetches the
tool's result with ``tasks/result`` once the task is ``completed`` (or ``failed``), or as soon as it
is ``input_required``: the server then sends its questions on that request, which waits for the
task to end. When the call is
cancelled (a cancelled run, or the tool's deadline) the task is cancelled (``tasks/cancel``).

The installed SDK carries the task types but no client methods for them. ``tasks/get``,
``tasks/result`` and ``tasks/cancel`` go through the session's generic ``send_request``; the
task-augmented ``tools/call`` cannot, because the SDK validates a ``tools/call`` answer as a
``CallToolResult`` and a ``CreateTaskResult`` is not one, so that one request is sent through the
session's dispatcher (as ``send_request`` does, without the result check) and validated here.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from quorum.application.run_context import report_progress
from quorum.infrastructure.mcp.server_tools import ServerTool

TASK_PROTOCOL = "2025-11-25"
"""The protocol version whose core has tasks (2026-07-28 moved them to an extension)."""
TASK_TTL_MS = 15 * 60 * 1000
"""How long the server is asked to keep a task (and its result) after creating it."""
_POLL_DEFAULT = 1.0
_POLL_BOUNDS = (0.05, 5.0)
"""A server's ``pollInterval`` is kept within these seconds: neither a busy loop nor a stall."""
_CANCEL_GRACE = 5.0
_DONE = ("completed", "failed", "cancelled", "input_required")
"""Statuses that end the polling: terminal ones, and ``input_required``, whose requests (an
elicitation, say) the server sends while ``tasks/result`` waits for the task to end."""


def runs_as_task(client: Any, tool: ServerTool | None) -> bool:
    """Whether a call of ``tool`` on ``client`` is task-augmented.

    ``required``: always (on a connection that has tasks). ``optional``: when the server declares
    task-augmented ``tools/call``. Otherwise the call is plain.
    """
    if tool is None or tool.task_support not in ("required", "optional"):
        return False
    if getattr(client, "protocol_version", None) != TASK_PROTOCOL:
        return False
    if tool.task_support == "required":
        return True
    tasks = getattr(getattr(client, "server_capabilities", None), "tasks", None)
    return getattr(getattr(getattr(tasks, "requests", None), "tools", None), "call", None) is not None


async def call_tool(
    client: Any,
    tool: str,
    spec: ServerTool | None,
    arguments: dict[str, Any],
    progress: Any,
    *,
    meta: dict[str, Any] | None = None,
) -> Any:
    """``tools/call`` of ``tool``: as a task when ``runs_as_task``, else plainly. SDK errors propagate.

    ``meta``: ``params._meta`` entries (the trace context), sent with the call either way.
    """
    if not runs_as_task(client, spec):
        return await client.call_tool(tool, arguments, progress_callback=progress, meta=meta)
    return await call_as_task(client, tool, arguments, meta=meta)


async def call_as_task(client: Any, tool: str, arguments: dict[str, Any], *, meta: dict[str, Any] | None = None) -> Any:
    """Create a task for ``tool``, follow it to its end and return its ``CallToolResult``.

    Raises:
        Exception: the SDK's error for any of the requests; ``asyncio.CancelledError`` after the
            task was cancelled on the server (best effort, within a few seconds).
    """
    import mcp_types as types

    session = client.session
    params: dict[str, Any] = {"name": tool, "arguments": arguments, "task": {"ttl": TASK_TTL_MS}}
    if meta:
        params["_meta"] = meta
    created = types.CreateTaskResult.model_validate(await _send_raw(session, "tools/call", params), by_name=False)
    task = created.task
    said = f"MCP task {task.task_id}: {task.status_message or task.status}"
    report_progress(said)
    try:
        while task.status not in _DONE:
            await asyncio.sleep(_poll_seconds(task.poll_interval))
            request = types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task.task_id))
            task = await session.send_request(request, types.GetTaskResult)
            status = f"MCP task {task.task_id}: {task.status_message or task.status}"
            if status != said:
                said = status
                report_progress(status)
        if task.status == "cancelled":
            message = f"the MCP task {task.task_id} was cancelled by the server"
            return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)
        payload = types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task.task_id))
        return await session.send_request(payload, types.CallToolResult)
    except asyncio.CancelledError:
        await _cancel(session, task.task_id)
        raise


async def _cancel(session: Any, task_id: str) -> None:
    """``tasks/cancel``, shielded from the cancellation that called for it; failures are ignored."""
    import mcp_types as types

    request = types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task_id))
    with contextlib.suppress(Exception, asyncio.CancelledError):
        await asyncio.shield(asyncio.wait_for(session.send_request(request, types.CancelTaskResult), _CANCEL_GRACE))


def _poll_seconds(interval_ms: int | None) -> float:
    if interval_ms is None:
        return _POLL_DEFAULT
    low, high = _POLL_BOUNDS
    return min(max(interval_ms / 1000, low), high)


async def _send_raw(session: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """``send_request`` without the SDK's result check (see the module docstring)."""
    data: dict[str, Any] = {"method": method, "params": params}
    options: dict[str, Any] = {}
    session._stamp(data, options)
    raw: dict[str, Any] = await session._dispatcher.send_raw_request(method, data.get("params"), options)
    return raw
