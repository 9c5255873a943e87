"""A real ``quorum serve`` process on a free port, and an HTTP client for it (httpx2).

Every wait is on something observable: the server's start line on stderr, its port accepting
connections, an event in a stream, the process's exit. No sleeps.
"""

from __future__ import annotations

import json
import ssl
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx2

from tests.e2e.conftest import Cli
from tests.support.net import free_port, wait_listening

DEADLINE = 90.0
"""Seconds any one request or wait may take: far beyond need, so only a real hang fails."""


@dataclass
class Message:
    """One server-sent event."""

    id: int
    type: str
    data: dict[str, Any]


def write_script(cli: Cli, turns: list[dict[str, Any]], name: str = "s.json") -> str:
    """Write a scripted model's turns to the workspace; returns the model name for the API."""
    cli.write(name, json.dumps({"conversation": "continue", "turns": turns}))
    return f"scripted:{name}"


class Server:
    """``quorum serve`` in ``cli``'s workspace, with its private data dir; ``stop``/``kill`` end it."""

    def __init__(self, cli: Cli, *args: str, port: int | None = None, verify: ssl.SSLContext | bool = True) -> None:
        self.port = port or free_port()
        self.verify = verify  # what a TLS server's certificate is checked against
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "quorum.cli.main", "serve", "--port", str(self.port), *args],
            cwd=cli.workspace,
            env=cli.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stderr is not None
        self.warnings: list[str] = []  # lines before the start line (quorum: warning: …)
        self.first_line = self.proc.stderr.readline()  # the start line, or "" when it exited
        while self.first_line.startswith("quorum: warning:"):
            self.warnings.append(self.first_line)
            self.first_line = self.proc.stderr.readline()
        self.stderr: list[str] = []
        self._drainer = threading.Thread(target=self._drain, daemon=True)
        self._drainer.start()
        if "#token=" not in self.first_line:
            self.proc.kill()
            self.proc.wait(DEADLINE)
            self._close()
            raise AssertionError(f"quorum serve did not start: {self.first_line}")
        self.token = self.first_line.strip().rsplit("#token=", 1)[1]
        wait_listening(self.proc, self.port, "quorum serve")  # type: ignore[arg-type]
        scheme = self.first_line.split("://", 1)[0].rsplit(" ", 1)[-1]  # https with [serve] tls_cert
        self.base = f"{scheme}://127.0.0.1:{self.port}"
        self.http = self.client(self.token)

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        self.stderr.extend(self.proc.stderr)

    def client(self, token: str | None, **headers: str) -> httpx2.Client:
        """A client sending ``token`` (None: no Authorization header) and ``headers``."""
        sent = dict(headers)
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        return httpx2.Client(base_url=self.base, headers=sent, timeout=DEADLINE, verify=self.verify)

    def start(self, task: str, model: str, **extra: Any) -> str:
        answer = self.http.post("/v1/runs", json={"task": task, "model": model, **extra})
        assert answer.status_code == 201, answer.text
        run_id: str = answer.json()["run_id"]
        return run_id

    def events(
        self,
        run_id: str,
        *,
        after: int | None = None,
        until: Callable[[Message], bool] | None = None,
        client: httpx2.Client | None = None,
    ) -> Iterator[Message]:
        """The run's stream (from ``after``), to its end or through the first message ``until`` accepts."""
        headers = {"Last-Event-ID": str(after)} if after is not None else {}
        with (client or self.http).stream("GET", f"/v1/runs/{run_id}/events", headers=headers) as response:
            assert response.status_code == 200, response.read()
            assert response.headers["content-type"].startswith("text/event-stream")
            fields: dict[str, str] = {}
            for line in response.iter_lines():
                if line:
                    key, _, value = line.partition(": ")
                    fields[key] = value
                    continue
                if not fields:
                    continue
                message = Message(int(fields["id"]), fields["event"], json.loads(fields["data"]))
                fields = {}
                yield message
                if until is not None and until(message):
                    return

    def until_waiting(self, run_id: str, after: int | None = None) -> list[Message]:
        """The stream's messages through the ``run_finished`` that stops the run ``awaiting_approval``."""
        return list(self.events(run_id, after=after, until=awaiting))

    def decide(self, run_id: str, call_id: str, approve: bool, reason: str = "") -> httpx2.Response:
        body = {"call_id": call_id, "approve": approve, "reason": reason}
        return self.http.post(f"/v1/runs/{run_id}/decisions", json=body)

    def runs(self) -> list[dict[str, Any]]:
        answer = self.http.get("/v1/runs", params={"limit": 100})
        assert answer.status_code == 200, answer.text
        items: list[dict[str, Any]] = answer.json()["items"]
        return items

    def stop(self) -> int:
        """SIGTERM, then the exit code."""
        self.http.close()
        self.proc.terminate()
        code = self.proc.wait(DEADLINE)
        self._close()
        return code

    def kill(self) -> None:
        self.http.close()
        self.proc.kill()
        self.proc.wait(DEADLINE)
        self._close()

    def _close(self) -> None:
        self._drainer.join(DEADLINE)  # the pipe is at its end once the process is gone
        assert self.proc.stderr is not None
        self.proc.stderr.close()


def awaiting(message: Message) -> bool:
    return message.type == "run_finished" and message.data["stop_reason"] == "awaiting_approval"


def finished(message: Message) -> bool:
    return message.type == "run_finished" and message.data["stop_reason"] != "awaiting_approval"
