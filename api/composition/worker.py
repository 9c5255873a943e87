"""What a Temporal worker composes for the runs of one workspace (``quorum worker``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from quorum.composition.container import build_container
from quorum.composition.options import AppOptions
from quorum.composition.runtime import Runtime
from quorum.composition.stores import as_approvals
from quorum.composition.telemetry import traced_executor, traced_reviewer
from quorum.infrastructure.review.settings import ReviewSettings

if TYPE_CHECKING:
    from quorum.domain.secrets import Redactor
    from quorum.infrastructure.engines.temporal.activities import RunParts


def worker_parts(
    config_path: Path | None, workspace: str, on_secrets: Callable[[Redactor], None] | None = None
) -> RunParts:
    """The worker's ``RunParts`` for runs in ``workspace``: its own configuration, the workspace overridden.

    The review's parts (the rules, the panel, whether rejections escalate) are built as a run's
    reviewer is, without its human step: a person decides through the run log (``hil_mode = "defer"``).
    ``on_secrets`` is told the redactor of the secrets the configuration knows.

    Raises:
        UsageError: the run log is disabled.
        ConfigurationError: the configuration is invalid, or the run store keeps no pending approvals.
    """
    from quorum.composition.checkpoints import checkpointed
    from quorum.infrastructure.engines.temporal.activities import RunParts
    from quorum.infrastructure.review.call_viewer import WorkspaceCallViewer
    from quorum.infrastructure.review.factory import build_quorum

    overrides = {"tools": {"workspace": workspace}, "review": {"hil_mode": "defer"}}
    container = build_container(AppOptions(config_path=config_path, overrides=overrides), on_secrets=on_secrets)
    runtime = Runtime(container)
    runtime.open()
    store = as_approvals(container.run_store())
    review = container.settings().section(ReviewSettings)
    telemetry = container.telemetry()  # the activities' spans join the run's trace (RunSpec.trace)
    return RunParts(
        gateway=container.run_gateway(),
        executor=traced_executor(checkpointed(container.tool_executor(), container.checkpoints()), telemetry),
        schema=container.schema(),
        rules=tuple(review.rules),
        panel=traced_reviewer(build_quorum(container.review_context(), container.catalog().reviewers), telemetry),
        escalate_on_reject=review.escalate_on_reject,
        viewer=WorkspaceCallViewer(Path(workspace)),
        store=store,
        payloads=store,
        approvals=store,
        redactor=container.redactor(),
        prices=container.prices(),
        system_notes=lambda prompt: _notes(runtime, prompt),
        close=runtime.aclose,
        workspace=workspace,
    )


async def _notes(runtime: Runtime, prompt: str | None) -> str | None:
    from quorum.composition.runs import with_tool_notes

    return await with_tool_notes(prompt, runtime.container.tool_executor())
