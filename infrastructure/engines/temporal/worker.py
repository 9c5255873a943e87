"""The worker: hosts the run workflow and its activities on a task queue."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from quorum.infrastructure.engines.temporal.activities import QuorumActivities
from quorum.infrastructure.engines.temporal.tracing import TraceContext
from quorum.infrastructure.engines.temporal.workflow import RunWorkflow

PASSED_THROUGH = ("quorum", "pydantic", "pydantic_core", "jsonschema", "referencing", "rpds", "re2")
"""Modules the workflow sandbox shares with the worker instead of re-importing them per run.

Quorum's loop is deterministic code on immutable models; ``jsonschema`` (argument validation) is
the trap seen first: re-imported inside the sandbox it trips its restrictions. Workers run the
workflow unsandboxed (decision 274); the replay test runs the recorded histories in the sandbox
with these modules passed through.
"""


def build_worker(client: Client, task_queue: str, activities: QuorumActivities, *, concurrency: int) -> Worker:
    """A worker running up to ``concurrency`` activities (and workflow tasks) at once.

    The workflow runs outside Temporal's sandbox (decision 274): every module it uses is passed
    through the sandbox anyway (``PASSED_THROUGH``: the workflow module is under ``quorum``), so
    the sandbox checked nothing of Quorum's code and cost an ``exec`` per activation and per payload.
    """
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[RunWorkflow],
        activities=activities.all(),
        max_concurrent_activities=concurrency,
        max_concurrent_workflow_tasks=max(concurrency, 2),
        workflow_runner=UnsandboxedWorkflowRunner(),
        interceptors=[TraceContext()],  # activities join the run's trace (RunSpec.trace)
    )
