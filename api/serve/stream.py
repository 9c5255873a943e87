"""``GET /v1/runs/{id}/events``: the run's events as server-sent events, replayed from the run log, then live.

Each message is ``id: <seq>``, ``event: <type>``, ``data: <the event JSON as --json prints it>``.
The stream ends after the run's final ``run_finished`` (any stop reason but ``awaiting_approval``:
a run waiting for a person goes on in the same stream once someone decides), or when the server stops.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from starlette.responses import StreamingResponse

from quorum.domain.events import RunEvent, RunFinished, RunStopReason

if TYPE_CHECKING:
    from quorum.serve.runs import RunHub


def event_json(event: RunEvent) -> str:
    """The event's JSON exactly as ``--json`` prints it (its type alone if it cannot be serialized)."""
    try:
        return event.model_dump_json()
    except (ValueError, RecursionError) as error:
        return json.dumps({"type": event.type, "unserializable": str(error).splitlines()[0][:200]})


def _final(event: RunEvent) -> bool:
    return isinstance(event, RunFinished) and event.stop_reason != RunStopReason.AWAITING_APPROVAL


async def _messages(hub: RunHub, run_id: str, after: int) -> AsyncIterator[str]:
    last = after
    while not hub.stopping:
        changed = hub.changed(run_id)  # taken before reading: a change while reading wakes the wait
        recorded = [r for r in hub.store.load_events(run_id) if r.seq > last]
        for item in recorded:
            last = item.seq
            yield f"id: {item.seq}\nevent: {item.event.type}\ndata: {event_json(item.event)}\n\n"
        if recorded and _final(recorded[-1].event) and not hub.live(run_id):
            return
        if not recorded and last > 0 and not hub.live(run_id) and _ended(hub, run_id, last):
            return
        await hub.wait(changed)


def _ended(hub: RunHub, run_id: str, last: int) -> bool:
    """Whether the event numbered ``last`` (already sent, e.g. before a Last-Event-ID) was the final one."""
    events = hub.store.load_events(run_id)
    return any(r.seq == last and _final(r.event) for r in events) and events[-1].seq == last


def event_stream(hub: RunHub, run_id: str, after: int) -> StreamingResponse:
    """The streaming response of ``run_id``'s events numbered above ``after``."""
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(_messages(hub, run_id, after), media_type="text/event-stream", headers=headers)
