"""GroupCommit: the events of every run recording into one store, committed together once per loop turn.

Concurrent runs on one event loop each used to commit their own burst of events (``RunRecorder``,
decision 031): 200 runs, 200 transactions for what one turn of the loop emitted. A ``GroupCommit``
is shared by the recorders of one store on one event loop: a recorder with events to write enlists,
the first enlistment of a loop turn schedules ONE flush (``loop.call_soon``), and the flush writes
the batches of every enlisted recorder in one transaction (``SqlRunStore.append_event_batches``,
one ``executemany`` per run). The guarantee of 031 is unchanged: the flush still runs before the
event loop waits on anything, so whatever any run emitted before it blocks is committed
(decision 270).

Back-pressure: when the enlisted recorders hold ``MAX_PENDING_EVENTS`` events or more, the recorder
that crosses the bound flushes at once, so the buffer never grows past one loop turn's bound. A
store without ``append_event_batches`` (a wrapper, a test double) is written run by run, as before.
When the shared transaction fails, each recorder writes its own batch again, alone, so one run's
failure (an event naming a run that was never started) never costs another run its events.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any, Protocol

from quorum.infrastructure.storage.sql_store import EventBatch

MAX_PENDING_EVENTS = 4096
"""Events buffered across the runs of a loop turn before the recorder adding more writes them at once."""


class Enlisted(Protocol):
    """A recorder as the group commit sees it."""

    def take(self) -> EventBatch | None:
        """Its buffered header and events, handed over (None: nothing to write)."""
        ...

    def write_alone(self, batch: EventBatch) -> None:
        """Write ``batch`` by itself, stopping recording (never raising) if that fails."""
        ...

    @property
    def pending(self) -> int:
        """Events it holds."""
        ...


class GroupCommit:
    """The recorders of one store on one event loop, flushed in one transaction per loop turn."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self._members: dict[int, Enlisted] = {}
        self._pending = 0
        self._scheduled = False

    def enlist(self, recorder: Enlisted) -> None:
        """``recorder`` has one more event: write it with everyone's before the loop next waits.

        Must be called from a coroutine or callback of the event loop the group belongs to.
        """
        if id(recorder) not in self._members:
            self._members[id(recorder)] = recorder
        self._pending += 1
        if self._pending >= MAX_PENDING_EVENTS:
            self.flush()
        elif not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Write what every enlisted recorder holds now, in one transaction (idempotent)."""
        self._scheduled = False
        members, self._members, self._pending = list(self._members.values()), {}, 0
        taken = [(member, batch) for member in members if (batch := member.take()) is not None]
        if not taken:
            return
        store = self._store
        write_many = getattr(type(store), "append_event_batches", None)
        if write_many is not None:
            try:
                write_many(store, [batch for _, batch in taken])
                return
            except Exception:  # one run's batch may be the cause: each writes its own below
                pass
        for member, batch in taken:
            member.write_alone(batch)


_GROUPS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, GroupCommit]] = weakref.WeakKeyDictionary()
"""Per event loop (forgotten with it), the group commit of each store used on it (by identity)."""


def group_of(store: Any, loop: asyncio.AbstractEventLoop) -> GroupCommit:
    """The group commit of ``store`` on ``loop`` (made on first use; kept as long as the loop)."""
    groups = _GROUPS.get(loop)
    if groups is None:
        groups = _GROUPS[loop] = {}
    group = groups.get(id(store))
    if group is None:
        group = groups[id(store)] = GroupCommit(store)
    return group
