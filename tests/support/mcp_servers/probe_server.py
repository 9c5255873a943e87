"""A small real MCP server for the tests and the benchmark (``python probe_server.py [options]``).

Tools: ``fast`` (echo), ``slow`` (sleeps), ``barrier`` (returns only once N calls are inside it at the
same time, proving concurrency without timing), ``boom`` (raises), ``refuse`` (ToolError),
``image`` (a PNG), ``embedded``, ``linked``, ``base64_text``, ``weather`` (content kinds), two
resources (``probe://notes/today``, ``probe://logo.png``), ``structured`` (structured content
only), ``pid``, ``getenv``, ``trace_context`` (the request's ``_meta`` trace entries), ``grow``
(adds a tool and announces tools/list_changed), and annotated tools for risk.

Options: ``--http PORT`` serve streamable HTTP on 127.0.0.1 instead of stdio (``--legacy``: only
the handshake protocols, so sessions are used); ``--fail`` (or ``PROBE_FAIL=1`` in its
environment, which the tool-list cache does not key on) write to stderr and exit 3 at once;
``--hang`` never answer.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import sys
import time
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp.types import EmbeddedResource, ResourceLink, TextResourceContents, ToolAnnotations

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)

server = MCPServer(
    "probe", version="1.0", instructions=os.environ.get("PROBE_INSTRUCTIONS") or "Call `fast` to have text echoed."
)
_barriers: dict[str, tuple[int, asyncio.Event]] = {}


@server.tool()
async def fast(text: str) -> str:
    """Echo the text back."""
    return f"echo: {text}"


@server.tool()
async def slow(seconds: float) -> str:
    """Sleep, then answer."""
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


@server.tool()
async def barrier(key: str, parties: int) -> str:
    """Return only when `parties` calls with this key are inside the tool at the same time."""
    count, event = _barriers.get(key, (0, asyncio.Event()))
    count += 1
    _barriers[key] = (count, event)
    if count >= parties:
        event.set()
    try:
        await asyncio.wait_for(event.wait(), 20)
    except TimeoutError:
        return f"barrier {key} timed out with {_barriers[key][0]} of {parties} inside"
    return f"barrier {key} passed by {parties}"


@server.tool()
async def boom() -> str:
    """Always fails with an unexpected exception."""
    raise RuntimeError("kaboom")


@server.tool()
async def refuse(reason: str) -> str:
    """Always fails with an expected error."""
    raise ToolError(f"refused: {reason}")


@server.tool()
def image() -> Image:
    """A 1x1 PNG."""
    return Image(data=PNG, format="png")


@server.tool()
async def pid() -> int:
    """The server's process id."""
    return os.getpid()


@server.tool()
async def getenv(name: str) -> str:
    """The value of an environment variable in the server process."""
    return os.environ.get(name, "<unset>")


@server.tool()
async def header(name: str, ctx: Context) -> str:
    """The value of an HTTP request header (streamable HTTP only)."""
    return (ctx.headers or {}).get(name.lower(), "<absent>")


@server.tool()
async def trace_context(ctx: Context) -> str:
    """The request's ``params._meta`` trace entries (``traceparent``, ``tracestate``) as JSON."""
    meta = dict(ctx.request_context.meta or {})
    return json.dumps({key: meta[key] for key in ("traceparent", "tracestate") if key in meta})


@server.tool()
async def grow(name: str, ctx: Context) -> str:
    """Add a tool called `name` and announce that the tool list changed."""

    async def added() -> str:
        return f"I am {name}"

    server.add_tool(added, name=name, description="added at run time")
    await ctx.notify_tools_changed()
    return f"added {name}"


@server.tool()
async def record(path: str, text: str) -> str:
    """Append a line to the file at `path` (counts executions of a tool with effects)."""
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text + "\n")
    return f"recorded {text}"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
async def lookup(key: str) -> str:
    """Read-only lookup."""
    return f"value of {key}"


@server.tool(annotations=ToolAnnotations(read_only_hint=True, destructive_hint=True))
async def odd_read(key: str) -> str:
    """Claims read-only but also destructive: must not be trusted as low risk."""
    return key


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
async def wipe(key: str) -> str:
    """Destructive."""
    return f"wiped {key}"


@server.tool(name="a_really_long_tool_name_that_goes_on_and_on_and_on_for_ever_and_ever")
async def long_name() -> str:
    """A tool whose namespaced name exceeds 64 characters."""
    return "long"


# -- content kinds (issue 15): what the model receives for each ---------------------------------


@server.resource("probe://notes/today", name="today", title="Today's notes", mime_type="text/plain")
def notes_today() -> str:
    """The notes of the day (a text resource)."""
    return "buy milk; call Ada"


@server.resource("probe://logo.png", name="logo", mime_type="image/png")
def logo() -> bytes:
    """The probe's logo (a blob resource that is an image)."""
    return PNG


@server.tool()
def embedded() -> list[EmbeddedResource]:
    """An embedded text resource."""
    text = TextResourceContents(uri="probe://notes/today", mime_type="text/plain", text="buy milk; call Ada")
    return [EmbeddedResource(type="resource", resource=text)]


@server.tool()
def linked() -> list[ResourceLink]:
    """A link to a resource, with name, title and description."""
    link = ResourceLink(
        type="resource_link",
        uri="probe://notes/today",
        name="today",
        title="Today's notes",
        description="what to do today",
        mime_type="text/plain",
    )
    return [link]


@server.tool()
def base64_text() -> str:
    """An image as base64 text (as a data URI), the way some servers leak it."""
    return "here: data:image/png;base64," + base64.b64encode(PNG).decode() + " (done)"


@server.tool()
def weather(city: str) -> dict[str, object]:
    """Structured content (and its JSON as text, as the spec asks)."""
    return {"city": city, "temperature": 21}


def _legacy_only(app: Any) -> Any:
    """The app as a server speaking only the handshake protocols (sessions, ``initialize``).

    Requests of the session-less 2026 protocol are answered "method not found", so clients fall
    back to ``initialize`` and get a session id, as with most servers today.
    """
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    async def legacy(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            version = dict(scope["headers"]).get(b"mcp-protocol-version", b"").decode("latin-1")
            if version and version not in HANDSHAKE_PROTOCOL_VERSIONS:
                body, more = b"", True
                while more:
                    message = await receive()
                    body += message.get("body", b"")
                    more = message.get("more_body", False)
                try:
                    request_id = json.loads(body).get("id")
                except ValueError:
                    request_id = None
                error = {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}
                payload = json.dumps(error).encode()
                headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
                await send({"type": "http.response.start", "status": 200, "headers": headers})
                await send({"type": "http.response.body", "body": payload})
                return
        await app(scope, receive, send)

    return legacy


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    parser.add_argument("--fail", action="store_true")
    parser.add_argument("--hang", action="store_true")
    parser.add_argument("--legacy", action="store_true")
    args = parser.parse_args()
    print("probe server starting", file=sys.stderr, flush=True)
    if args.fail or os.environ.get("PROBE_FAIL") == "1":
        print("fatal: probe configured to fail", file=sys.stderr, flush=True)
        sys.exit(3)
    if args.hang:
        time.sleep(3600)
    if args.http and args.legacy:
        import uvicorn

        app = _legacy_only(server.streamable_http_app(host="127.0.0.1"))
        uvicorn.run(app, host="127.0.0.1", port=args.http, log_level="warning")
    elif args.http:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run()


if __name__ == "__main__":
    main()
