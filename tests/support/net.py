"""Local servers the tests start: a free port, and waiting until the server listens on it."""

from __future__ import annotations

import socket
import subprocess
import time


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(process: subprocess.Popen[bytes], port: int, name: str, *, timeout: float = 60) -> None:
    """Return once ``process`` accepts connections on ``port`` (a readiness condition, polled).

    Raises:
        RuntimeError: ``process`` exited first, or ``timeout`` seconds passed (``process`` is killed).
    """
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"{name} did not open port {port} within {timeout:g} s") from None
            time.sleep(0.05)  # polling a port that is not open yet: there is no event to wait on
