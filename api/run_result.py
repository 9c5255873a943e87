"""``RunResult``: what ``Agent.run`` returns (``quorum.RunResult``, ``quorum.agent.RunResult``).

Its own module so that ``from quorum import Agent`` does not build the pydantic models of the loop's
result and of every run event: the first run imports it.
"""

from __future__ import annotations

from typing import Any

from quorum.application.execution import RunResult as LoopResult
from quorum.domain.events import RunEvent


class RunResult(LoopResult):
    """How a run ended, and every event of it.

    ``output``, ``stop_reason``, ``turns``, ``usage``, ``run_id``, ``detail`` as the loop reports
    them; ``events`` as ``--json`` prints them, ``run_started`` first and ``run_finished`` last.
    With ``output_schema=``, ``output`` is the parsed answer (the JSON value for a dict schema, an
    instance for a pydantic model class) when the run ended ``end_turn``; None otherwise, the last
    answer and what was wrong with it in ``detail`` (``invalid_output``).
    """

    output: Any
    events: tuple[RunEvent, ...] = ()
