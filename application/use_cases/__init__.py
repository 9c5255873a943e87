"""Use cases: one per module, one public method each."""

from quorum.application.use_cases.run_agent import RunAgent

__all__ = ["RunAgent"]
