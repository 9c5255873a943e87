"""``RunDeps``: the ports and services a run works with, fixed for the agent's lifetime.

``RunAgent`` builds them once from its constructor arguments; every phase of every run it
executes (the execution phase, plan mode's planning phase) reads them from here instead of
copying them into a constructor of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from quorum.application.argument_validation import ArgumentValidator
from quorum.application.ports.hooks import HookRunner
from quorum.application.ports.llm import LlmGateway
from quorum.application.ports.model_data import ContextWindows
from quorum.application.ports.observer import RunObserver
from quorum.application.ports.pricing import PriceList
from quorum.application.ports.reviewer import CallReviewer
from quorum.application.ports.tool_executor import ToolExecutor
from quorum.application.ports.tool_schema import ToolSchemaPort
from quorum.domain.secrets import Redactor


@dataclass(frozen=True)
class RunDeps:
    """What every run of one agent shares: its ports, its validator, redactor, clock and price data.

    Attributes:
        gateway: opens the run's sessions (and compaction's summary sessions).
        executor: lists and runs the tools.
        schema: turns tool definitions into the schemas a request offers.
        reviewer: screens every call by the policy rules and reviews the high-risk ones.
        observer: receives every event of the run, redacted (a ``RedactingObserver``).
        validator: checks a call's arguments against its tool's schema.
        redactor: the secret values replaced in tool outputs, events and the result.
        clock: seconds, for tool call durations (the workflow's clock on Temporal).
        prices: prices tokens for ``cost`` and the cost cap; None: the cost is unknown.
        windows: the models' context windows (compaction); None: ``context_window`` or the default.
        hooks: runs the person's ``[[hooks.EVENT]]`` commands; None: none are configured.
    """

    gateway: LlmGateway
    executor: ToolExecutor
    schema: ToolSchemaPort
    reviewer: CallReviewer
    observer: RunObserver
    validator: ArgumentValidator
    redactor: Redactor
    clock: Callable[[], float]
    prices: PriceList | None
    windows: ContextWindows | None
    hooks: HookRunner | None = None
