"""``GET /v1/runs/{id}/events``: the run's events as server-sent events, replayed from the run log, then live.

Each message is ``id: <seq>``, ``event: <type>``, ``data: <the event JSON as --json prints it>``.
The stream ends after the run's final ``run_finished`` (any stop reason but ``awaiting_approval``:
a run waiting for a person goes on in the same stream once someone decides), or when the server stops.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import datetime
from typing import TYPE_CHECKING

from starlette.responses import StreamingResponse

from quorum.domain.events import RunEvent, RunFinished, RunStopReason

if TYPE_CHECKING:
    from quorum.application.ports.run_store import RecordedEvent
    from quorum.serve.runs import RunHub


def event_json(event: RunEvent) -> str:
    """The event's JSON exactly as ``--json`` prints it (its type alone if it cannot be serialized)."""
    try:
        return event.model_dump_json()
    except (ValueError, RecursionError) as error:
        return json.dumps({"type": event.type, "unserializable": str(error).splitlines()[0][:200]})


def _final(event: RunEvent) -> bool:
    # A child run's (a delegation's) run_finished is tagged with its run id: the run goes on.
    return (
        isinstance(event, RunFinished) and event.run_id is None and event.stop_reason != RunStopReason.AWAITING_APPROVAL
    )


async def _messages(hub: RunHub, run_id: str, after: int) -> AsyncIterator[str]:
    if after < 0:  # the run log keeps the start as the run's header: it is sent first, numbered 0
        yield _message(0, hub.start_of(run_id))
    last = max(after, 0)
    latest: RecordedEvent | None = None  # the run's last event read so far
    while not hub.stopping:
        changed = hub.changed(run_id)  # taken before reading: a change while reading wakes the wait
        batch = []
        for item in hub.store.load_events(run_id, after=last):  # only what is new: a long run stays cheap
            last, latest = item.seq, item
            batch.append(_message(item.seq, item.event))
        if batch:  # one write for what is new: a busy server sends a chunk per wake-up, not per event
            yield "".join(batch)
        if latest is None and after > 0:  # resumed after the end: the last event decides whether it ended
            latest = next(iter(hub.store.load_events(run_id, after=after - 1)), None)
        if not hub.live(run_id) and (
            (latest is not None and _final(latest.event))
            or _abandoned(hub, run_id, latest.at if latest is not None else None)
        ):
            return
        await hub.wait(changed)


def _message(seq: int, event: RunEvent) -> str:
    return f"id: {seq}\nevent: {event.type}\ndata: {event_json(event)}\n\n"


def _abandoned(hub: RunHub, run_id: str, last_at: datetime | None) -> bool:
    """A run without an end whose last event is older than this server: its process died (SIGKILL)."""
    run = hub.store.get_run(run_id)
    on_engine = run is not None and run.engine == "temporal"  # a worker runs it, whatever this server does
    return run is not None and not on_engine and run.interrupted and (last_at or run.started_at) < hub.started_at


def event_stream(hub: RunHub, run_id: str, after: int) -> StreamingResponse:
    """The streaming response of ``run_id``'s events numbered above ``after``."""
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(_messages(hub, run_id, after), media_type="text/event-stream", headers=headers)
