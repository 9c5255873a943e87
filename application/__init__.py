"""Quorum's application layer: ports (Protocols the adapters implement) and use cases.

No pluggy, no SDKs, no dependency injection here: use cases receive their ports as constructor
arguments from the composition (``quorum.composition``).
"""

from quorum.application.execution import ExecutionParams, RunRequest, RunResult
from quorum.application.use_cases.run_agent import RunAgent

__all__ = ["ExecutionParams", "RunAgent", "RunRequest", "RunResult"]
