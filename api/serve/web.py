"""The web page: ``GET /`` and its assets (``/ui/…``), shipped in the package, using only the ``/v1`` API.

The page holds no secret, so these paths need no token (``Guard.PUBLIC_PATHS``); the page reads the
token from the URL it was opened with (``/#token=…``, or ``/?token=…``), keeps it in the tab's session
storage, removes it from the address bar and sends it as ``Authorization: Bearer`` on every API call.
"""

from __future__ import annotations

from importlib.resources import files

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

ASSETS = {"markdown.js": "text/javascript", "app.js": "text/javascript", "app.css": "text/css"}
PAGE_PATHS = frozenset({"/", *(f"/ui/{name}" for name in ASSETS)})
"""The paths served without a token: the page and its assets, nothing else."""

# The page runs only its own script and style and talks only to this server; nothing may frame it.
_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def _asset(name: str) -> bytes:
    return files("quorum.serve").joinpath("static", name).read_bytes()


async def page(request: Request) -> Response:
    return Response(_asset("index.html"), media_type="text/html; charset=utf-8", headers=_HEADERS)


async def asset(request: Request) -> Response:
    name = request.url.path.rsplit("/", 1)[1]
    return Response(_asset(name), media_type=f"{ASSETS[name]}; charset=utf-8", headers=_HEADERS)


PAGE_ROUTES = [
    Route("/", page, methods=["GET"]),
    *(Route(f"/ui/{name}", asset, methods=["GET"]) for name in ASSETS),
]
