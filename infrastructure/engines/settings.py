"""``[engine]``: which engine runs tasks, and how to reach a Temporal service."""

from __future__ import annotations

import importlib
from typing import Literal

from pydantic import Field

from quorum.domain.errors import ConfigurationError
from quorum.infrastructure.config.sections import Section

DEFAULT_TASK_QUEUE = "quorum"


class EngineSettings(Section):
    """``[engine]`` section.

    Attributes:
        kind: ``local`` (this process, the default) or ``temporal`` (a workflow on Temporal workers).
        address: the Temporal frontend, ``host:port``.
        namespace: the Temporal namespace.
        task_queue: the task queue workers poll and runs are started on.
        tls: connect to Temporal over TLS (a hosted service); off for a local dev server.
        heartbeat_timeout: seconds a running tool call may go without a heartbeat from its worker
            before it counts as lost (a high-risk call is then reported to the model as of unknown
            outcome, a low-risk one retried).
    """

    kind: Literal["local", "temporal"] = "local"
    address: str = Field("localhost:7233", min_length=1)
    namespace: str = Field("default", min_length=1)
    task_queue: str = Field(DEFAULT_TASK_QUEUE, min_length=1)
    tls: bool = False
    heartbeat_timeout: float = Field(15.0, ge=1.0)


def require_temporal() -> None:
    """Make sure the Temporal SDK can be imported (the ``temporal`` extra is installed).

    Raises:
        ConfigurationError: naming ``engine.kind`` and the extra to install.
    """
    try:
        importlib.import_module("temporalio.client")
    except ImportError as error:
        raise ConfigurationError(
            f'the Temporal engine needs the temporal extra: pip install "quorum-agent[temporal]" ({error})',
            key="engine.kind",
        ) from None
