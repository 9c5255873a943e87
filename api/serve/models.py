"""The API's request and response bodies (pydantic models; the OpenAPI document is built from them)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StartRun(_Body):
    """``POST /v1/runs``: a task to run; ``parent`` continues that run's conversation.

    ``plan``: plan mode (plan, have the plan reviewed, then execute); None: ``[agent] plan``.
    ``output_schema``: a JSON Schema the final answer must match (``run_finished.output`` is then
    the JSON document, or the run stops ``invalid_output``); 400 when it is not a valid one.
    """

    task: str = Field(min_length=1)
    model: str | None = None
    parent: str | None = None
    plan: bool | None = None
    output_schema: Any = None


class Decision(_Body):
    """``POST /v1/runs/{id}/decisions``: a person's decision on one pending call."""

    call_id: str = Field(min_length=1)
    approve: bool
    reason: str = ""
    by: str = "api"
    always: bool = False
    """Also approve, for the rest of the run, later calls in this call's scope (the terminal's "always")."""


class RunCreated(BaseModel):
    """``201`` of ``POST /v1/runs``."""

    run_id: str


class Health(BaseModel):
    """``GET /v1/health``."""

    status: str = "ok"


class Accepted(BaseModel):
    """``202`` of ``POST /v1/runs/{id}/cancel`` and ``200`` of a decision."""

    run_id: str
    status: str


class ErrorDetail(BaseModel):
    """What went wrong, without a trace."""

    code: str
    message: str


class Error(BaseModel):
    """Every error body: ``{"error": {"code", "message"}}``."""

    error: ErrorDetail


class Listing(BaseModel):
    """A list of JSON objects (runs, pending calls, models, tools) in the fields their ``--json`` gives."""

    items: list[dict[str, Any]]


class ModelListing(Listing):
    """``GET /v1/models``: the models to choose from, and the one a run naming none gets.

    ``default``: ``quorum serve --model``, else ``model`` of the configuration, else the default of
    the first provider key found; None when there is none (a run must then name its ``model``).
    """

    default: str | None = None


class UndoOrder(_Body):
    """``POST /v1/runs/{id}/undo``: undo what the run changed in its recorded workspace.

    ``dry_run``: answer the plan, change nothing. ``force``: restore files changed since the run too.
    ``to``: restore the state before this call id instead of before the run.
    """

    dry_run: bool = False
    force: bool = False
    to: str | None = None
