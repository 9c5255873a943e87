"""Starting and stopping the server: the composition, the token, uvicorn, and the signals.

``main`` is ``python -m quorum.serve`` (``quorum serve`` executes it): it binds to loopback unless
``--allow-remote``, prints a line with the URL and the token to stderr, then one naming the runs'
default model (``--model``), serves until SIGINT or SIGTERM, then cancels the runs in flight
(recorded ``cancelled``) and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import signal
import socket
import sys
import threading
from collections.abc import Generator
from pathlib import Path
from typing import Any

import uvicorn

from quorum.composition.container import build_container
from quorum.composition.options import AppOptions
from quorum.composition.paths import user_data_dir
from quorum.domain.errors import ConfigurationError, QuorumError
from quorum.infrastructure.serve.settings import ServeSettings
from quorum.serve.guard import host_name
from quorum.serve.model_list import model_line, served_default
from quorum.serve.protocol import protocol_class

WILDCARDS = frozenset({"0.0.0.0", "::", ""})
KEEP_ALIVE_SECONDS = 5
"""An idle kept-alive connection is closed after this long (uvicorn's ``timeout_keep_alive``)."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="quorum serve", description="Serve runs, events and approvals over HTTP.")
    parser.add_argument("--host", help="address to bind (default: [serve] host, 127.0.0.1)")
    parser.add_argument("--port", type=int, help="TCP port (default: [serve] port, 8765)")
    parser.add_argument("--workspace", type=Path, help="the directory the runs' tools act in")
    parser.add_argument("--config", type=Path, help="the quorum.toml to use")
    parser.add_argument("-m", "--model", help="the runs' default model, provider:model (default: model of quorum.toml)")
    parser.add_argument("--allow-remote", action="store_true", help="allow binding to a non-loopback address")
    return parser


def _loopback(host: str) -> bool:
    name = host_name(host)
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _own_names(host: str) -> list[str]:
    """The host names requests may carry besides loopback ones."""
    if host in WILDCARDS:
        names = [socket.gethostname(), socket.getfqdn()]
        with contextlib.suppress(OSError):
            names.extend(str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None))
        return names
    return [host]


def main(argv: list[str] | None = None) -> None:
    """Serve until SIGINT/SIGTERM. Exits 2 on a usage or configuration error, said in one line."""
    args = _parser().parse_args(argv)
    try:
        server = _build(args)
    except QuorumError as error:
        label = "configuration error" if isinstance(error, ConfigurationError) else "error"
        print(f"quorum: {label}: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    asyncio.run(server.serve())


def _build(args: argparse.Namespace) -> _Server:
    from quorum.composition.runtime import Runtime
    from quorum.domain.errors import UsageError
    from quorum.domain.secrets import Secret
    from quorum.serve.app import build_app
    from quorum.serve.runs import RunHub
    from quorum.serve.token import server_token

    overrides: dict[str, Any] = {"review": {"hil_mode": "defer"}}  # a person decides through the API
    if args.workspace is not None:
        if not args.workspace.is_dir():
            raise UsageError(f"--workspace {args.workspace} is not a directory")
        overrides["tools"] = {"workspace": str(args.workspace.resolve())}
    if args.model:
        overrides["model"] = args.model  # as quorum run --model: the configuration's model
    container = build_container(AppOptions(config_path=args.config, overrides=overrides, json=True))
    settings = container.settings().section(ServeSettings)
    host = args.host if args.host is not None else settings.host
    port = args.port if args.port is not None else settings.port
    if not _loopback(host) and not args.allow_remote:
        raise UsageError(f"{host} is not a loopback address: pass --allow-remote to serve other machines")
    if bool(settings.tls_cert) != bool(settings.tls_key):
        raise ConfigurationError("give both tls_cert and tls_key, or neither", key="serve.tls_cert")
    token = server_token(settings.token, container.env(), user_data_dir())
    # the token is redacted from events, outputs and the run log like any key
    hub = RunHub(Runtime(container, secrets=(Secret("serve.token", token),)))
    app = build_app(
        hub,
        token=token,
        own_names=_own_names(host),
        origins=settings.cors_origins,
        max_body=settings.max_body_bytes,
        max_headers=settings.max_headers,
        max_head=settings.max_header_bytes,
        body_timeout=settings.body_timeout,
        any_address=host in WILDCARDS,
    )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,  # no request lines: nothing a token or a task could leak through
        server_header=False,
        # HTTP/1.1 by h11: its head-size limit, and a deadline for heads (decision 201)
        http=protocol_class(header_timeout=settings.header_timeout, max_header_bytes=settings.max_header_bytes),
        h11_max_incomplete_event_size=settings.max_header_bytes,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        timeout_graceful_shutdown=10,
        ssl_certfile=settings.tls_cert,
        ssl_keyfile=settings.tls_key,
    )
    model = served_default(container, strict=bool(args.model))  # a --model that does not resolve: exit 2
    return _Server(config, hub, token=token, tls=bool(settings.tls_cert), remote=not _loopback(host), model=model)


class _Server(uvicorn.Server):
    """uvicorn's server with our start line and signals: the first SIGINT/SIGTERM stops the runs, exit 0."""

    def __init__(self, config: Any, hub: Any, *, token: str, tls: bool, remote: bool, model: str | None) -> None:
        super().__init__(config)
        self._hub, self._token, self._tls, self._remote, self._model = hub, token, tls, remote, model

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets=sockets)
        if not self.started:
            return
        host, port = self.servers[0].sockets[0].getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        scheme = "https" if self._tls else "http"
        print(f"quorum serve: {scheme}://{shown}:{port}/#token={self._token}", file=sys.stderr, flush=True)
        print(model_line(self._model), file=sys.stderr, flush=True)
        if self._remote and not self._tls:
            print(
                "quorum serve: WARNING: serving other machines without TLS: the token and every run travel in clear",
                file=sys.stderr,
                flush=True,
            )

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        loop = asyncio.get_running_loop()

        def stop(sig: int, frame: Any) -> None:
            if self.should_exit:
                self.force_exit = True
            self.should_exit = True
            loop.call_soon_threadsafe(self._hub.begin_stop)  # streams end, runs are cancelled

        handled = (signal.SIGINT, signal.SIGTERM)
        original = {sig: signal.signal(sig, stop) for sig in handled}
        try:
            yield
        finally:
            for sig, handler in original.items():
                signal.signal(sig, handler)
