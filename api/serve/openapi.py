"""The OpenAPI 3 document of the routes, with the request and response bodies' JSON schemas."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from quorum.application.use_cases.undo_run import UndoResult
from quorum.serve.models import (
    Accepted,
    Decision,
    Error,
    Health,
    Listing,
    ModelListing,
    RunCreated,
    StartRun,
    UndoOrder,
)

_BODIES: dict[tuple[str, str], tuple[type[BaseModel] | None, int, type[BaseModel] | None]] = {
    ("GET", "/v1/health"): (None, 200, Health),
    ("POST", "/v1/runs"): (StartRun, 201, RunCreated),
    ("GET", "/v1/runs"): (None, 200, Listing),
    ("GET", "/v1/runs/{run_id}"): (None, 200, None),
    ("GET", "/v1/runs/{run_id}/events"): (None, 200, None),
    ("GET", "/v1/runs/{run_id}/pending"): (None, 200, Listing),
    ("POST", "/v1/runs/{run_id}/decisions"): (Decision, 200, Accepted),
    ("POST", "/v1/runs/{run_id}/cancel"): (None, 202, Accepted),
    ("POST", "/v1/runs/{run_id}/undo"): (UndoOrder, 200, UndoResult),
    ("GET", "/v1/models"): (None, 200, ModelListing),
    ("GET", "/v1/tools"): (None, 200, Listing),
    ("GET", "/v1/openapi.json"): (None, 200, None),
}


def _ref(model: type[BaseModel]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}}}


def document(routes: list[Any]) -> dict[str, Any]:
    """The OpenAPI document of ``routes`` (Starlette ``Route`` objects)."""
    paths: dict[str, dict[str, Any]] = {}
    models: set[type[BaseModel]] = {Error}
    for route in routes:
        for method in sorted(route.methods - {"HEAD"}):
            request, status, response = _BODIES.get((method, route.path), (None, 200, None))
            operation: dict[str, Any] = {
                "operationId": route.endpoint.__name__,
                "responses": {
                    str(status): {"description": "OK", **(_ref(response) if response else {})},
                    "default": {"description": "an error", **_ref(Error)},
                },
            }
            if route.path != "/v1/health":
                operation["security"] = [{"bearer": []}]
            if request is not None:
                operation["requestBody"] = {"required": True, **_ref(request)}
            if "{run_id}" in route.path:
                parameter = {"name": "run_id", "in": "path", "required": True, "schema": {"type": "string"}}
                operation["parameters"] = [parameter]
            models.update(m for m in (request, response) if m is not None)
            paths.setdefault(route.path, {})[method.lower()] = operation
    schemas: dict[str, Any] = {}
    for model in sorted(models, key=lambda m: m.__name__):
        schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        schemas.update(schema.pop("$defs", {}))
        schemas[model.__name__] = schema
    return {
        "openapi": "3.1.0",
        "info": {"title": "Quorum", "version": "1"},
        "paths": paths,
        "components": {"schemas": schemas, "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
    }
