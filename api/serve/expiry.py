"""``[review] approval_timeout`` for served runs: a call nobody decides in time is rejected, and the run goes on.

A served run's human step is a person deciding through the API; nobody may ever come. As under the
Temporal engine, a call waiting longer than ``approval_timeout`` is rejected (the model reads why)
and the run continues in this server. Only runs this server started or continued are watched: a
``quorum run --defer`` in a terminal writing to the same run log keeps its own rules.
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from quorum.application import model_wording as say
from quorum.serve.runs import Conflict, NotFound

if TYPE_CHECKING:
    from quorum.serve.runs import RunHub


def check_interval(timeout: float) -> float:
    """How often the waiting runs are checked: a quarter of the timeout, between 0.2 and 30 seconds."""
    return min(max(timeout / 4, 0.2), 30.0)


async def reject_expired(hub: RunHub, timeout: float) -> None:
    """Reject, once, the calls of the hub's waiting runs that have waited ``timeout`` seconds or more."""
    now = datetime.now(UTC)
    for run_id in sorted(hub.served):
        if hub.live(run_id):
            continue
        waiting = hub.store.pending(run_id)
        if not waiting:
            run = hub.store.get_run(run_id)
            if run is None or run.status != "awaiting_approval":
                hub.served.discard(run_id)  # over, or taken over elsewhere: nothing to watch
            continue
        expired = tuple(p.request.call_id for p in waiting if (now - p.requested_at).total_seconds() >= timeout)
        if not expired:
            continue
        with contextlib.suppress(Conflict, NotFound):  # decided meanwhile by someone else: theirs stands
            await hub.decide(run_id, expired, approve=False, reason=say.no_decision(timeout), by="quorum")


async def watch_approvals(hub: RunHub, timeout: float) -> None:
    """Until cancelled: every ``check_interval(timeout)`` seconds, ``reject_expired``."""
    while not hub.stopping:
        await asyncio.sleep(check_interval(timeout))
        await reject_expired(hub, timeout)
