"""Engines: where a run executes — in this process (``local``) or as a Temporal workflow (``temporal``).

The ``temporal`` subpackage is the only place importing ``temporalio``; nothing here imports it.
"""

from quorum.infrastructure.engines.settings import EngineSettings, require_temporal

__all__ = ["EngineSettings", "require_temporal"]
