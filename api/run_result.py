"""``RunResult``: what ``Agent.run`` returns (``quorum.RunResult``, ``quorum.agent.RunResult``).

Its own module so that ``from quorum import Agent`` does not build the pydantic models of the loop's
result and of every run event: the first run imports it.
"""

from __future__ import annotations

from quorum.application.execution import RunResult as LoopResult
from quorum.domain.events import RunEvent


class RunResult(LoopResult):
    """How a run ended, and every event of it.

    ``output``, ``stop_reason``, ``turns``, ``usage``, ``run_id``, ``detail`` as the loop reports
    them; ``events`` as ``--json`` prints them, ``run_started`` first and ``run_finished`` last.
    """

    events: tuple[RunEvent, ...] = ()
