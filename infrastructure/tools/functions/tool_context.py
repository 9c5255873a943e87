"""``ToolContext``: what a ``@tool`` function may ask for about the call it is serving."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ToolContext:
    """Given to a ``@tool`` function that has a parameter annotated ``ToolContext``.

    The parameter is left out of the tool's schema (the model never sees it); any name works.

    Attributes:
        run_id: the run the call belongs to (``RunAgent`` publishes it in
            ``quorum.application.run_context.current_run_id``); ``""`` outside a run.
        workspace: the directory tools act in, when the tool source was given one.
        logger: a logger named ``quorum.tools.<tool name>``.
        call_id: the id the model gave this call (its results are sent back under it).
    """

    run_id: str
    workspace: Path | None
    logger: logging.Logger
    call_id: str

    @classmethod
    def for_call(cls, tool_name: str, call_id: str, *, run_id: str = "", workspace: Path | None = None) -> ToolContext:
        """A context for one call of ``tool_name``, with the tool's own logger."""
        return cls(
            run_id=run_id, workspace=workspace, logger=logging.getLogger(f"quorum.tools.{tool_name}"), call_id=call_id
        )
