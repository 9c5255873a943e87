"""Ports: the Protocols the application needs, owned here and implemented by adapters."""

from quorum.application.ports.checkpoints import CheckpointStore
from quorum.application.ports.llm import LlmGateway, LlmSession
from quorum.application.ports.model_data import ContextWindows
from quorum.application.ports.observer import RunObserver
from quorum.application.ports.pricing import PriceList
from quorum.application.ports.reviewer import ActionReviewer, ReviewContext
from quorum.application.ports.run_store import RunStore
from quorum.application.ports.tool_executor import ToolExecutor
from quorum.application.ports.tool_schema import ToolSchemaPort

__all__ = [
    "ActionReviewer",
    "CheckpointStore",
    "ContextWindows",
    "LlmGateway",
    "LlmSession",
    "PriceList",
    "ReviewContext",
    "RunObserver",
    "RunStore",
    "ToolExecutor",
    "ToolSchemaPort",
]
