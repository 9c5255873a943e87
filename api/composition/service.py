"""``RunService``: the one place runs are started, continued after people's decisions, and reviewed.

Every driver hands it an order (``quorum.composition.orders``) and gets a ``RunResult``, with the
run's events going to the order's observers on the way:

- ``run(RunOrder)``: prepare (``runs.prepare``) and execute one run with a reviewer built for it
  from the order (its human port, approval mode, "always" and "always reject" scopes);
- ``decide(DecisionOrder)``: record people's decision on pending calls of a deferred run and
  continue it (``ContinueRun``) to its next stop, **only in the workspace the run was recorded
  in**: a deferred call runs exactly where and as it was shown (``RunElsewhere`` otherwise).

Cancelling a run in flight is cancelling the task awaiting ``run``/``decide`` (the loop ends it
``cancelled``); a deferred run is cancelled with ``DecisionOrder(cancel=True)``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quorum.composition.orders import DecisionOrder, RunOrder
from quorum.composition.prompts import with_profile
from quorum.composition.runs import PreparedRun, prepare
from quorum.domain.errors import UsageError
from quorum.domain.events import RunEvent, RunFinished

if TYPE_CHECKING:
    from quorum.application.execution import RunResult
    from quorum.composition.runtime import Runtime


class RunElsewhere(UsageError):
    """A deferred run belongs to another workspace than the one this composition serves.

    Its calls were shown (paths, diffs, "always" scopes) for the recorded workspace; continuing it
    here would run them somewhere else. Nothing was decided or executed.

    Attributes:
        run_id: the run.
        recorded: the workspace the run was recorded in (where it can be decided).
        served: the workspace this composition serves.
    """

    def __init__(self, run_id: str, recorded: str, served: str) -> None:
        super().__init__(
            f"run {run_id} belongs to the workspace {recorded}, not to {served}: decide it with "
            f"`quorum approve {run_id}` (or `quorum reject`) from {recorded}"
        )
        self.run_id = run_id
        self.recorded = recorded
        self.served = served


class _CancelAtStart:
    """Cancels the run's own task at its first event: the run answers its calls and ends ``cancelled``."""

    def __init__(self) -> None:
        self._done = False

    def on_event(self, event: RunEvent) -> None:
        if self._done or isinstance(event, RunFinished):  # a run that ends at once has nothing to cancel
            return
        self._done = True
        task = asyncio.current_task()
        if task is not None:
            task.cancel()


class RunService:
    """Runs of one open composition (``runtime``), started and continued from orders."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def prepare(self, order: RunOrder) -> PreparedRun:
        """The run ``order`` asks for, ready to execute (see ``runs.prepare``)."""
        return await prepare(self.runtime, order)

    async def run(self, order: RunOrder) -> RunResult:
        """Run ``order`` to its end (or its stop ``awaiting_approval``).

        Raises:
            UsageError: no model configured, an unknown one (nothing was recorded).
            asyncio.CancelledError: as ``RunAgent.execute`` (the run was recorded ``cancelled``).
        """
        prepared = await self.prepare(order)
        return await self.runtime.execute(prepared, reviewer=self.reviewer(order))

    def reviewer(self, order: RunOrder) -> Any:
        """The review of one run as ``order`` asks for it (its own: the human step keeps its "always")."""
        container = self.runtime.container
        chosen: dict[str, Any] = {"always": order.always, "hil_mode": order.hil_mode}
        if order.human is not None:  # else the composition's own (the terminal when interactive)
            chosen["prompt"] = order.human
        reviewer = container.reviewer(**chosen)
        if order.refused is not None:
            from quorum.composition.paths import workspace_of
            from quorum.composition.refusals import RefusingStep
            from quorum.infrastructure.tools.workspace import Workspace

            workspace = Workspace(workspace_of(container.settings()))
            reviewer.human = RefusingStep(reviewer.human, order.refused, workspace)
        return reviewer

    def check_workspace(self, run_id: str) -> None:
        """Refuse a run recorded in another workspace than this composition's.

        Raises:
            RunElsewhere: the run's recorded workspace is another directory.
        """
        from quorum.composition.paths import workspace_of

        store = self.runtime.store
        run = store.get_run(run_id) if store is not None else None
        if run is None or not run.workspace:
            return  # ContinueRun says there is no such run; an old run without a workspace is not known
        served = workspace_of(self.runtime.container.settings())
        if Path(run.workspace).resolve() != Path(served).resolve():
            raise RunElsewhere(run_id, run.workspace, str(served))

    async def decide(self, order: DecisionOrder) -> RunResult:
        """Record ``order``'s decision and continue the run here to its next stop.

        The continued part reviews with the configured ``hil_mode`` (a server's and ``quorum
        approve``'s are ``defer``: a new call needing a person stops it again).

        Raises:
            RunElsewhere: the run was recorded in another workspace (not for ``cancel``, which
                runs nothing): nothing was decided.
            UsageError: no run log, no such run, nothing pending, a call not pending, or another
                process claimed it first: nothing was executed.
            asyncio.CancelledError: as ``RunAgent.execute``.
        """
        from quorum.application.use_cases.continue_run import ContinueRequest, ContinueRun
        from quorum.composition.model_choice import choose_model
        from quorum.composition.observers import FanOut, build_recorder
        from quorum.composition.stores import as_approvals

        runtime = self.runtime
        approvals = as_approvals(runtime.store)
        if not order.cancel:
            self.check_workspace(order.run_id)
        container = runtime.container
        settings = container.settings()
        model_id = None
        if order.model:
            model_id = container.gateway().resolve(choose_model(order.model, container.env()))
        params = settings.agent.execution_params(tools="all")
        if model_id is not None or params.tools_profile is not None:
            params = with_profile(params, model_id or "", container.prices())
        request = ContinueRequest(
            run_id=order.run_id,
            approved=order.approved,
            call_ids=order.call_ids,
            by=order.by,
            reason=order.reason,
            model_id=model_id,
            system_prompt=await runtime.system_prompt(lean=params.tools_profile == "lean"),
            params=params,
            cancel=order.cancel,
        )
        watchers = [build_recorder(approvals, settings, None), *order.observers]
        if order.cancel:
            watchers.append(_CancelAtStart())
        reviewer = self.reviewer(RunOrder(task="", always=order.always))
        executor = self._continued_tools(order.run_id, request, reviewer)
        agent = container.run_agent(observer=FanOut(watchers), reviewer=reviewer, executor=executor)
        return await ContinueRun(store=approvals, approvals=approvals, agent=agent).execute(request)

    def _continued_tools(self, run_id: str, request: Any, reviewer: Any) -> Any:
        """The continued run's tools: ``delegate`` too when subagents are defined (a deferred delegation runs)."""
        from quorum.application.execution import RunRequest
        from quorum.composition.subagents import run_executor

        store = self.runtime.store
        recorded = store.get_run(run_id) if store is not None else None
        model_id = request.model_id or (recorded.model if recorded is not None else "")
        parent = RunRequest(task="", model_id=model_id, params=request.params, run_id=run_id)
        return run_executor(self.runtime, reviewer, parent)
