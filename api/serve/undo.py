"""``POST /v1/runs/{id}/undo``: the undo of a run, in the workspace the run was recorded in (issue 35)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from starlette.responses import JSONResponse, Response

from quorum.composition.service import RunElsewhere
from quorum.domain.errors import NothingToUndo, UndoConflict, UsageError
from quorum.serve.errors import CODES, ApiError
from quorum.serve.models import UndoOrder


def order_of(data: Any) -> UndoOrder:
    try:
        return UndoOrder.model_validate({} if data is None else data)  # an empty body: the defaults
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'body'}: {e['msg']}" for e in error.errors())
        raise ApiError(422, problems) from None


def _elsewhere(error: RunElsewhere) -> str:
    return (
        f"run {error.run_id} belongs to the workspace {error.recorded}; this server serves {error.served}. "
        f"Undo it with `quorum undo {error.run_id}` from {error.recorded}, or through a server started there."
    )


def conflict_response(error: UndoConflict) -> JSONResponse:
    """409 naming the files changed since the run (nothing was changed)."""
    files = list(error.files)
    message = f"files changed since run {error.run_id}: {', '.join(files)}; nothing was undone (force restores anyway)"
    body = {"error": {"code": CODES[409], "message": message, "files": files}}
    return JSONResponse(body, status_code=409)


async def undo_run(hub: Any, run_id: str, order: UndoOrder) -> Response:
    """Plan (``dry_run``) or apply the undo of ``run_id``; the JSON of ``UndoResult``.

    Raises:
        ApiError: 409 for a run of another workspace, 404 when there is nothing to undo, 400 when
            checkpoints are disabled.
    """
    from quorum.application.use_cases.undo_run import UndoRequest, UndoResult
    from quorum.composition.checkpoints import build_undo

    try:
        hub.service.check_workspace(run_id)  # undo acts in the run's recorded workspace only (issue 32)
    except RunElsewhere as error:
        raise ApiError(409, _elsewhere(error)) from None
    try:
        undo = build_undo(hub.runtime.container)
        plan = await undo.plan(UndoRequest(run_id=run_id, to_call=order.to))
        if order.dry_run:
            result = UndoResult(run_id=run_id, undo_run_id=None, plan=plan, applied=False)
        else:
            result = await undo.apply(plan, force=order.force)
    except UndoConflict as error:
        return conflict_response(error)
    except NothingToUndo as error:
        raise ApiError(404, str(error)) from None
    except UsageError as error:
        raise ApiError(400, str(error)) from None
    return JSONResponse(result.model_dump(mode="json"))
