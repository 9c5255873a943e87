"""Use cases (``RunAgent``, ``ContinueRun``: one public method each) and the parts of a run they share.

A run's parts, one module each: ``run_deps`` (the agent's ports), ``run_state`` (what a run keeps),
``run`` (the run in progress), ``turn`` (the one turn every phase repeats), ``execution_phase``
and ``plan_phase`` (the phases), ``model_request`` (one model request).
"""

from quorum.application.use_cases.run_agent import RunAgent

__all__ = ["RunAgent"]
