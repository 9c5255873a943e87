"""The trace context of a run, joined by each of its activities (one trace across workers).

The context travels in the activity inputs (``trace``, copied from ``RunSpec.trace``) rather than
in Temporal headers: the workflow stays free of OpenTelemetry (its sandbox, its replays), and the
activities' ``chat``/``execute_tool``/``quorum.review`` spans are children of the run's starter.
"""

from __future__ import annotations

from typing import Any

from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput, Interceptor

from quorum.infrastructure.telemetry.hooks import joined


class TraceContext(Interceptor):
    """A worker interceptor: an activity whose input has a ``trace`` runs in that context."""

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _JoinTrace(next)


class _JoinTrace(ActivityInboundInterceptor):
    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        carrier = getattr(input.args[0], "trace", None) if input.args else None
        if not carrier:
            return await super().execute_activity(input)
        with joined(carrier):
            return await super().execute_activity(input)
