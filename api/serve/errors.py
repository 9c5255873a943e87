"""JSON error bodies, ``{"error": {"code", "message"}}``: never a traceback."""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    409: "conflict",
    413: "too_large",
    421: "misdirected",
    431: "headers_too_large",
    422: "invalid",
    500: "internal",
}


class ApiError(Exception):
    """An error the API answers with ``status`` and ``message``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """The JSON error response."""
    body = {"error": {"code": CODES.get(status, "error"), "message": message}}
    return JSONResponse(body, status_code=status, headers=headers)


async def on_api_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, ApiError)
    return error_response(error.status, error.message)


async def on_http_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, HTTPException)
    return error_response(error.status_code, str(error.detail), dict(error.headers or {}))


async def on_unexpected(request: Request, error: Exception) -> JSONResponse:
    """A bug: said without the exception's text (it may hold a path or a secret)."""
    return error_response(500, "the server failed to handle the request")


HANDLERS: dict[Any, Any] = {ApiError: on_api_error, HTTPException: on_http_error, Exception: on_unexpected}
