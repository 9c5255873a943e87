"""The ``/v1`` routes: runs, their events, pending calls and decisions, models, tools, the OpenAPI document."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from quorum.application.output_schema import schema_problem
from quorum.domain.errors import UsageError
from quorum.serve.errors import ApiError
from quorum.serve.model_list import model_listing, refusal
from quorum.serve.models import Accepted, Decision, Health, RunCreated, StartRun
from quorum.serve.runs import Conflict, NotFound

if TYPE_CHECKING:
    from quorum.serve.runs import RunHub

B = TypeVar("B", bound=BaseModel)
MAX_LIMIT = 1000
MAX_SEQ_DIGITS = 18
"""A ``Last-Event-ID`` with more digits is no event's sequence number."""
MAX_RUN_ID = 200
_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")
"""A NUL in JSON text: ``\\u0000`` after an even number of backslashes (a raw NUL is no JSON at all)."""
"""Longer run ids in a path are answered 404 without a look in the run log."""


def _hub(request: Request) -> RunHub:
    hub: RunHub = request.app.state.hub
    return hub


def whole_number(text: str, *, digits: int) -> int | None:
    """``text`` as a whole number of at most ``digits`` ASCII digits (``²``, ``٣``, ``-1``: None)."""
    text = text.strip()
    if not text or len(text) > digits or not (text.isascii() and text.isdigit()):
        return None
    return int(text)


def parse_json(raw: bytes) -> Any:
    """The JSON document of a request body (empty: None).

    Raises:
        ApiError: 400 when it is not UTF-8 JSON, is nested too deeply to parse, or holds a
            lone surrogate (an escaped ``ud800`` alone: no Unicode text) or a NUL character:
            no text means either, and the run log could not store them (PostgreSQL refuses a NUL).
    """
    if _NUL.search(raw):
        raise ApiError(400, "the body holds a NUL character (an escaped u0000)")
    try:
        data = json.loads(raw or b"null")
        json.dumps(data, ensure_ascii=False).encode()  # a lone surrogate fails here, not in the run log
    except RecursionError:
        raise ApiError(400, "the body is nested too deeply") from None
    except UnicodeEncodeError:
        raise ApiError(400, "the body holds a lone surrogate: it is not Unicode text") from None
    except ValueError:
        raise ApiError(400, "the body is not JSON") from None
    return data


async def _body(request: Request, model: type[B]) -> B:
    data = parse_json(await request.body())
    try:
        return model.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'body'}: {e['msg']}" for e in error.errors())
        raise ApiError(422, problems) from None


def _json(model: BaseModel, status: int = 200) -> JSONResponse:
    return JSONResponse(model.model_dump(mode="json"), status_code=status)


def _run_id(request: Request) -> str:
    """The path's run id; 404 for one no run can have (a control character, too long): no store sees it."""
    run_id: str = request.path_params["run_id"]
    if len(run_id) > MAX_RUN_ID or not run_id.isprintable():
        raise ApiError(404, "there is no such run")
    return run_id


def _run_or_404(hub: RunHub, run_id: str) -> Any:
    run = hub.store.get_run(run_id)
    if run is None:
        raise ApiError(404, f"there is no run {run_id!r}")
    return run


async def health(request: Request) -> Response:
    return _json(Health())


async def start_run(request: Request) -> Response:
    body = await _body(request, StartRun)
    if body.output_schema is not None and (problem := schema_problem(body.output_schema)) is not None:  # 400, not 422
        raise ApiError(400, f"output_schema: {problem}")
    try:
        run_id = await _hub(request).start(
            body.task, model=body.model, parent=body.parent, plan=body.plan, output_schema=body.output_schema
        )
    except NotFound as error:
        raise ApiError(404, str(error)) from None
    except UsageError as error:  # an unknown model, no model configured (advice worded for the server)
        raise ApiError(400, _redacted(request, refusal(error))) from None
    return _json(RunCreated(run_id=run_id), 201)


async def list_runs(request: Request) -> Response:
    limit = whole_number(request.query_params.get("limit", "20"), digits=len(str(MAX_LIMIT)))
    if limit is None or not 1 <= limit <= MAX_LIMIT:
        raise ApiError(400, f"limit must be a whole number from 1 to {MAX_LIMIT}")
    runs = _hub(request).store.list_runs(limit=limit)
    return JSONResponse({"items": [run.model_dump(mode="json") for run in runs]})


async def get_run(request: Request) -> Response:
    run = _run_or_404(_hub(request), _run_id(request))
    return JSONResponse(run.model_dump(mode="json"))


async def pending(request: Request) -> Response:
    hub = _hub(request)
    run = _run_or_404(hub, _run_id(request))
    items = []
    for call in hub.store.pending(run.run_id):
        fields = call.request.model_dump(mode="json")
        fields.pop("type", None)
        at = call.requested_at.isoformat()
        view = _view(call.request, run.workspace)
        scope = _scope(call.request, run.workspace) if run.engine != "temporal" else None  # see _always_scope
        always = scope.label if scope is not None else None  # what "always" would cover; None: not offered
        items.append(
            {"run_id": call.run_id, "task": call.task, "requested_at": at, **fields, "view": view, "always": always}
        )
    return JSONResponse({"items": items})


def _call(request: Any, workspace: str | None) -> tuple[Any, Any]:
    from pathlib import Path

    from quorum.domain.tools import ToolCall
    from quorum.infrastructure.tools.workspace import Workspace

    call = ToolCall(native_id=request.call_id, name=request.name, arguments=request.arguments)
    return call, Workspace(Path(workspace)) if workspace else None


def _view(request: Any, workspace: str | None) -> list[str]:
    """What the terminal shows a person for the call: a file write's unified diff, a command and its directory."""
    from quorum.infrastructure.review.call_view import call_lines

    return call_lines(*_call(request, workspace))


def _scope(request: Any, workspace: str | None) -> Any:
    """The terminal's "always" scope of the call (``ApprovalScope``), or None when it is not offered."""
    from quorum.infrastructure.review.scope import scope_for

    return scope_for(*_call(request, workspace))


def _always_scope(hub: RunHub, run_id: str, call_id: str) -> Any:
    run = _run_or_404(hub, run_id)
    waiting = next((c for c in hub.store.pending(run_id) if c.request.call_id == call_id), None)
    if waiting is None:
        raise ApiError(409, f"call {call_id!r} of run {run_id} is not waiting for a decision")
    if run.engine == "temporal":  # the scopes live in the server continuing a run; a workflow has none
        raise ApiError(422, "always: not offered for runs on the Temporal engine; approve each call")
    scope = _scope(waiting.request, run.workspace)
    if scope is None:  # a compound command, a wrapper, a path outside the workspace: no honest scope
        raise ApiError(422, "always: not offered for this call; approve it alone")
    return scope


async def decide(request: Request) -> Response:
    hub = _hub(request)
    run_id = _run_id(request)
    body = await _body(request, Decision)
    if not body.approve and not body.reason.strip():
        raise ApiError(422, "reason: give the reason the model will see when rejecting")
    if body.always and not body.approve:
        raise ApiError(422, "always: only an approval can be given for the rest of the run")
    reason, scope = body.reason.strip(), None
    if body.always:
        scope = _always_scope(hub, run_id, body.call_id)
        reason = f"{reason or 'approved by the user'}; always approve {scope.label} for the rest of this run"
    try:
        await hub.decide(run_id, (body.call_id,), approve=body.approve, reason=reason, by=body.by, always=scope)
    except NotFound as error:
        raise ApiError(404, str(error)) from None
    except Conflict as error:
        raise ApiError(409, str(error)) from None
    return _json(Accepted(run_id=run_id, status="running"))


async def cancel(request: Request) -> Response:
    run_id = _run_id(request)
    try:
        await _hub(request).cancel(run_id)
    except NotFound as error:
        raise ApiError(404, str(error)) from None
    except Conflict as error:
        raise ApiError(409, str(error)) from None
    return _json(Accepted(run_id=run_id, status="cancelling"), 202)


async def undo(request: Request) -> Response:
    from quorum.serve.undo import order_of, undo_run

    hub = _hub(request)
    run = _run_or_404(hub, _run_id(request))
    order = order_of(parse_json(await request.body()))
    return await undo_run(hub, run.run_id, order)


async def events(request: Request) -> Response:
    from quorum.serve.stream import event_stream

    hub = _hub(request)
    run = _run_or_404(hub, _run_id(request))
    last = request.headers.get("last-event-id", "").strip()
    after = whole_number(last, digits=MAX_SEQ_DIGITS) if last else -1
    if after is None:
        raise ApiError(400, "Last-Event-ID must be an event's sequence number")
    return event_stream(hub, run.run_id, after)


async def models(request: Request) -> Response:
    return _json(model_listing(_hub(request).runtime.container))


async def tools(request: Request) -> Response:
    container = _hub(request).runtime.container
    sandbox = container.sandbox().describe()
    from quorum.composition.listing import tool_row

    items = [tool_row(tool, sandbox) for tool in await container.tool_executor().listed_tools()]
    return JSONResponse({"items": items})


async def openapi(request: Request) -> Response:
    from quorum.serve.openapi import document

    return JSONResponse(document(ROUTES))


def _redacted(request: Request, text: str) -> str:
    return str(_hub(request).runtime.container.redactor().text(text))


ROUTES = [
    Route("/v1/health", health, methods=["GET"]),
    Route("/v1/runs", start_run, methods=["POST"]),
    Route("/v1/runs", list_runs, methods=["GET"]),
    Route("/v1/runs/{run_id}", get_run, methods=["GET"]),
    Route("/v1/runs/{run_id}/events", events, methods=["GET"]),
    Route("/v1/runs/{run_id}/pending", pending, methods=["GET"]),
    Route("/v1/runs/{run_id}/decisions", decide, methods=["POST"]),
    Route("/v1/runs/{run_id}/cancel", cancel, methods=["POST"]),
    Route("/v1/runs/{run_id}/undo", undo, methods=["POST"]),
    Route("/v1/models", models, methods=["GET"]),
    Route("/v1/tools", tools, methods=["GET"]),
    Route("/v1/openapi.json", openapi, methods=["GET"]),
]
"""Every route; the Guard in front of the app checks the token on all of them but ``/v1/health``."""
