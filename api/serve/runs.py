"""``RunHub``: the runs a server executes, people's decisions on them, and who waits for their events.

Every run lives in the run log first: its events are read back from there by the event streams,
so a stream sees the same sequence numbers as ``quorum logs show``, whichever process wrote them
(a ``quorum approve`` from a terminal, another server). The hub only adds the in-process parts:
the asyncio task of each run in flight, and a wake-up for the streams following a run.
"""

from __future__ import annotations

import asyncio
import functools
import uuid
from collections import OrderedDict
from contextlib import suppress
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from quorum.application import model_wording as say
from quorum.composition.engines import engine_for, engine_of_run
from quorum.composition.service import RunElsewhere, RunService
from quorum.domain.errors import UsageError
from quorum.domain.events import RunEvent, RunStarted

if TYPE_CHECKING:
    from quorum.composition.runtime import Runtime

STARTS_KEPT = 1024
"""How many runs' start events the hub keeps for the streams' first message (older ones are read from the run log)."""

FOLLOW_POLL = 1.0
"""Seconds a stream waits for a wake-up before reading the run log again (events another process wrote)."""


class Conflict(Exception):
    """The request contradicts the run's state (a call already decided, a run not waiting): HTTP 409."""


class NotFound(Exception):
    """No such run (HTTP 404)."""


def elsewhere(error: RunElsewhere) -> str:
    """The 409's message for a run recorded in another workspace than this server's."""
    return (
        f"run {error.run_id} belongs to the workspace {error.recorded}; this server serves {error.served}. "
        f"Decide it with `quorum approve {error.run_id}` (or `quorum reject`) from {error.recorded}, "
        "or through a server started there."
    )


class _Notifier:
    """A run's observer that wakes its streams after the recorder has written the event."""

    def __init__(self, hub: RunHub, run_id: str, started: asyncio.Event) -> None:
        self._hub, self._run_id, self._started = hub, run_id, started

    def on_event(self, event: RunEvent) -> None:
        if isinstance(event, RunStarted) and not event.resumed:  # a stream starts with the first start
            self._hub.remember_start(event)
        self._started.set()
        # call_soon: after the recorder's own call_soon flush, so a woken stream reads the event
        asyncio.get_running_loop().call_soon(self._hub.notify, self._run_id)


class RunHub:
    """The runs of one server on one open ``Runtime`` (``hil_mode = "defer"``: people decide through the API)."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.stopping = False
        self.started_at = datetime.now(UTC)
        self._tasks: dict[str, asyncio.Task[Any]] = {}
        self._changed: dict[str, asyncio.Event] = {}
        self.served: set[str] = set()  # runs started or continued here: watched for [review] approval_timeout
        self._starts: OrderedDict[str, RunStarted] = OrderedDict()  # the newest runs' starts, as recorded
        self._always: dict[str, list[Any]] = {}  # "always" scopes given for each run (the terminal's, per run)
        self.engine = engine_for(runtime)  # where new runs execute (``[engine] kind``)
        self.service = RunService(runtime)

    @functools.cached_property
    def store(self) -> Any:
        """The run log (a ``RunStore`` that keeps pending approvals), looked up once."""
        from quorum.composition.stores import as_approvals

        return as_approvals(self.runtime.store)

    def live(self, run_id: str) -> bool:
        """Whether this server executes ``run_id`` right now."""
        task = self._tasks.get(run_id)
        return task is not None and not task.done()

    def remember_start(self, event: RunStarted) -> None:
        """Keep a run's (redacted) start event: a stream's first message, without a query of the run log."""
        self._starts[event.run_id] = event
        if len(self._starts) > STARTS_KEPT:
            self._starts.popitem(last=False)

    def start_of(self, run_id: str) -> RunStarted:
        """The start event of ``run_id``: kept from this server's runs, else built from its run-log header."""
        kept = self._starts.get(run_id)
        if kept is not None:
            return kept
        run = self.store.get_run(run_id)
        return RunStarted(run_id=run.run_id, model=run.model, task=run.task)

    def changed(self, run_id: str) -> asyncio.Event:
        """An event set at the next change of ``run_id`` (take it before reading the run log)."""
        return self._changed.setdefault(run_id, asyncio.Event())

    def notify(self, run_id: str) -> None:
        """Wake the streams of ``run_id``."""
        event = self._changed.pop(run_id, None)
        if event is not None:
            event.set()

    async def wait(self, changed: asyncio.Event) -> None:
        """Until ``changed`` is set, the server stops, or ``FOLLOW_POLL`` seconds pass."""
        with suppress(TimeoutError):
            await asyncio.wait_for(changed.wait(), FOLLOW_POLL)

    async def start(
        self,
        task: str,
        *,
        model: str | None,
        parent: str | None,
        plan: bool | None = None,
        output_schema: dict[str, Any] | None = None,
    ) -> str:
        """Start a run of ``task`` (continuing ``parent``'s conversation); returns its id once it started.

        ``plan``: plan mode for this run (None: ``[agent] plan``). A ``task`` starting with
        ``/NAME`` runs that prompt command's prompt (its ``model`` and ``plan`` unless given).
        ``output_schema``: the JSON Schema its final answer must match (valid: the route checked it).

        Raises:
            NotFound: ``parent`` is not in the run log.
            UsageError: an unknown model, no model configured, plan mode on the Temporal
                engine, or an unknown ``/NAME``: nothing was recorded.
        """
        from quorum.composition.conventions import expand, prompt_commands
        from quorum.composition.orders import RunOrder

        container = self.runtime.container
        expanded = expand(task, prompt_commands(container.settings(), container.config_dir()))
        task, model = expanded.task, model or expanded.model
        plan = expanded.plan if plan is None else plan

        history: list[Any] = []
        if parent is not None:
            if self.store.get_run(parent) is None:
                raise NotFound(f"there is no run {parent!r} in the run log")
            history = self.store.load_history(parent)
        run_id = uuid.uuid4().hex[:16]
        started = asyncio.Event()
        order = RunOrder(
            task,
            model=model,
            history=tuple(history),
            run_id=run_id,
            parent_run_id=parent,
            observers=(_Notifier(self, run_id, started),),
            plan=plan,
            output_schema=output_schema,
        )
        if not self.engine.in_process:  # on the workers: the streams follow the run log
            return await self.engine.start(order)
        await self._launch(run_id, self.engine.run(order), started)
        return run_id

    async def decide(
        self,
        run_id: str,
        call_ids: tuple[str, ...],
        *,
        approve: bool,
        reason: str,
        by: str,
        cancel: bool = False,
        always: Any = None,
    ) -> None:
        """Record a person's decision on pending calls of ``run_id`` and continue the run in this server.

        ``cancel``: the continued run is cancelled as it starts (``POST /cancel`` of a waiting run).
        ``always`` (an ``ApprovalScope``) is the terminal's "always": later calls of the run in that
        scope are approved without asking, for as long as this server serves the run.

        Raises:
            NotFound: no such run.
            Conflict: the call is not pending (already decided, by anyone, anywhere), the run
                is not waiting for approval, or it was recorded in another workspace than this
                server's (a deferred call runs only where it was shown: decision 190). Nothing
                was executed then.
        """
        from quorum.composition.orders import DecisionOrder

        run = self.store.get_run(run_id)
        if run is None:
            raise NotFound(f"there is no run {run_id!r} in the run log")
        if self.live(run_id):
            raise Conflict(f"run {run_id} is running, not waiting for approval")
        started = asyncio.Event()
        scopes = (*self._always.get(run_id, ()), *([always] if always is not None else []))
        order = DecisionOrder(
            run_id=run_id,
            approved=approve,
            by=by,
            call_ids=call_ids,
            reason=reason,
            always=scopes,
            observers=(_Notifier(self, run_id, started),),
            cancel=cancel,
        )
        engine = await engine_of_run(self.runtime, run_id)
        if not engine.in_process and await self._submit(engine, order):
            return  # its workflow runs the calls where it was started
        if not cancel:
            try:
                self.service.check_workspace(run_id)
            except RunElsewhere as error:
                raise Conflict(elsewhere(error)) from None
        try:
            await self._launch(run_id, self.service.decide(order), started)
        except UsageError as error:  # refused before anything ran: nothing pending to decide
            raise Conflict(str(error)) from None
        self._always[run_id] = list(scopes)

    async def _submit(self, engine: Any, order: Any) -> bool:
        """Send the decision to the engine running the run; False when it no longer runs it (continue here)."""
        try:
            submitted: bool = await engine.submit(order)
        except UsageError as error:  # not pending, or another server or a terminal claimed it first
            raise Conflict(str(error)) from None
        return submitted

    async def cancel(self, run_id: str) -> None:
        """End ``run_id`` ``cancelled``: a run in flight is cancelled; a waiting one has its calls rejected first.

        Raises:
            NotFound: no such run.
            Conflict: the run has finished, or runs in another process (not on Temporal).
        """
        task = self._tasks.get(run_id)
        if task is not None and not task.done():
            task.cancel()
            return
        run = self.store.get_run(run_id)
        if run is None:
            raise NotFound(f"there is no run {run_id!r} in the run log")
        if await (await engine_of_run(self.runtime, run_id)).cancel(run_id):
            return  # its workflow answers the unfinished calls and records the end
        if run.status != "awaiting_approval":
            raise Conflict(f"run {run_id} is not running here (status: {run.status})")
        # its pending calls are answered (rejected), then the run ends cancelled
        await self.decide(run_id, (), approve=False, reason=say.RUN_CANCELLED, by="api", cancel=True)

    async def _launch(self, run_id: str, work: Any, started: asyncio.Event) -> None:
        """Run ``work`` as the task of ``run_id``; return once its first event is out, raise what it raised before."""
        task = asyncio.create_task(work, name=f"run {run_id}")
        self._tasks[run_id] = task
        self.served.add(run_id)
        task.add_done_callback(lambda done: self._finished(run_id, done))
        waiter = asyncio.create_task(started.wait())
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        if task.done() and not started.is_set():
            error = task.exception()
            if error is not None:
                raise error

    def _finished(self, run_id: str, task: asyncio.Task[Any]) -> None:
        if self._tasks.get(run_id) is task:
            del self._tasks[run_id]
        if not task.cancelled():
            task.exception()  # retrieved: a failure is in the run log as run_finished (error)
        self.notify(run_id)

    def begin_stop(self) -> None:
        """Stop following and cancel every run in flight (they are recorded ``cancelled``)."""
        self.stopping = True
        for task in self._tasks.values():
            task.cancel()
        for run_id in list(self._changed):
            self.notify(run_id)

    async def drain(self) -> None:
        """Wait for the cancelled runs to record their end."""
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
