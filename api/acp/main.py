"""``python -m quorum.acp``: what ``quorum acp`` runs, an ACP agent on stdin/stdout.

Stdout carries protocol messages and nothing else. Before anything runs, the process keeps
private copies of its stdin and stdout for the protocol and points file descriptors 0 and 1
elsewhere (``/dev/null`` and stderr): a stray ``print``, a library's message or a child process
(a command, an MCP server) cannot write into the protocol stream or read from it. Logs go to
stderr. The agent serves until the client closes stdin (or sends SIGTERM), then closes every
session: running prompts are cancelled, MCP servers stopped, the run log closed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import stat
import sys
from pathlib import Path
from typing import IO, Any

from quorum.acp.agent import AgentOptions, QuorumAgent
from quorum.acp.wire_guard import forward_messages


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="quorum acp", description="An Agent Client Protocol agent on stdin/stdout.")
    parser.add_argument("--config", type=Path, help="the quorum.toml to use")
    parser.add_argument("--model", help="the model of every session (default: the configured one)")
    return parser


def _protocol_streams() -> tuple[IO[bytes], IO[bytes]]:
    """Private copies of stdin and stdout for the protocol; fds 0 and 1 then lead elsewhere."""
    protocol_in = os.fdopen(os.dup(0), "rb", buffering=0)
    protocol_out = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)  # anything else written to stdout lands on stderr
    return protocol_in, protocol_out


async def serve(options: AgentOptions, protocol_in: IO[bytes], protocol_out: IO[bytes]) -> None:
    """Serve one client on the given streams until it closes its end."""
    from acp import run_agent
    from acp.core import DEFAULT_STDIO_BUFFER_LIMIT_BYTES
    from acp.stdio import stdio_streams

    # The SDK opens sys.stdin/sys.stdout: hand it the protocol's copies for that moment only.
    saved: tuple[Any, Any] = (sys.stdin, sys.stdout)
    sys.stdin, sys.stdout = protocol_in, protocol_out
    try:
        reader, writer = await stdio_streams(limit=DEFAULT_STDIO_BUFFER_LIMIT_BYTES)
    finally:
        sys.stdin, sys.stdout = saved
    guarded = asyncio.StreamReader(limit=DEFAULT_STDIO_BUFFER_LIMIT_BYTES)
    forwarding = asyncio.create_task(forward_messages(reader, guarded), name="acp stdin")
    agent = QuorumAgent(options)
    served: Any = agent  # implements the methods it supports; the SDK answers others "method not found"
    loop, task = asyncio.get_running_loop(), asyncio.current_task()
    if task is not None:  # SIGTERM (an editor closing) ends like a closed stdin: sessions are closed
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        await run_agent(served, writer, guarded)
    finally:
        forwarding.cancel()
        await agent.aclose()


def main(argv: list[str] | None = None) -> None:
    """Serve on stdin/stdout (exit 0 when the client closes it); exit 2 on a bad command line."""
    args = _parser().parse_args(argv)
    if any(stat.S_ISREG(os.fstat(fd).st_mode) or stat.S_ISDIR(os.fstat(fd).st_mode) for fd in (0, 1)):
        print("quorum acp: error: stdin and stdout must be pipes: an ACP client (an editor) starts it", file=sys.stderr)
        raise SystemExit(2)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="quorum acp: %(levelname)s: %(message)s")
    protocol_in, protocol_out = _protocol_streams()
    sys.stdout = sys.stderr  # Python's own writes too
    options = AgentOptions(config_path=args.config, model=args.model)
    with contextlib.suppress(KeyboardInterrupt, asyncio.CancelledError):
        asyncio.run(serve(options, protocol_in, protocol_out))
