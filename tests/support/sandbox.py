"""What the sandbox tests share: requiring bubblewrap, and a listener that counts connections."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from quorum.infrastructure.sandbox.detect import sandbox_status


def require_bubblewrap() -> None:
    """Skip (with the reason) on a machine without a working bubblewrap; fail under CI, which installs it."""
    status = sandbox_status("auto")
    if status.enforced:
        return
    reason = f"bubblewrap sandbox not available here: {status.problem}"
    if os.environ.get("CI"):
        pytest.fail(reason + " (CI must install bubblewrap)")
    pytest.skip(reason)


def _accept(server: socket.socket, accepted: list[str], stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            connection, peer = server.accept()
        except TimeoutError:
            continue
        except OSError:
            return
        accepted.append(str(peer))
        connection.close()


@contextlib.contextmanager
def listener() -> Iterator[tuple[int, list[str]]]:
    """A TCP listener on 127.0.0.1: yields its port and the list of peers it accepted."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    accepted: list[str] = []
    stop = threading.Event()
    thread = threading.Thread(target=_accept, args=(server, accepted, stop), daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], accepted
    finally:
        stop.set()
        thread.join(5)
        server.close()


def processes_running(marker: str, *, zombies: bool = False) -> list[int]:
    """Pids whose command line contains ``marker``; zombies (dead, not yet reaped) only if asked."""
    found = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0]
        except (OSError, IndexError):
            continue
        if marker in cmdline and (zombies or state != "Z"):
            found.append(int(pid))
    return found
