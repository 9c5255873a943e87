"""The run a piece of code is serving, for adapters that need to know it (a tool's ``ToolContext``).

``RunAgent.execute`` sets ``current_run_id`` for the duration of a run. Tasks inherit context
variables when they are created, so every tool call of the run sees its run's id, even with many
runs in flight on one event loop; outside a run it is ``""``.
"""

from __future__ import annotations

from contextvars import ContextVar

current_run_id: ContextVar[str] = ContextVar("quorum_current_run_id", default="")
