"""Serve the real test model over an OpenAI-compatible HTTP API (llama.cpp's server, via ``xllamacpp``).

usage: python serve.py MODEL.gguf PORT [--threads N] [--ctx TOKENS] [--template FILE] [--watch-stdin]

Run as its own process by the tests (``tests/support/real_model/__init__.py``): the server is
llama.cpp's C++ server running in this process, listening on 127.0.0.1:PORT with ``/health``,
``/v1/models`` and ``/v1/chat/completions`` (tools, streaming). The model is served as ``local``.
``--template`` replaces the model's chat template (``--jinja --chat-template-file`` of
``llama-server``): the built-in one makes this build return no ``tool_calls`` (see
the module doc of ``__init__.py``). SIGTERM, SIGINT or the end of stdin stops it: the tests give it
a pipe as stdin, so a test process that dies without stopping it does not leave 2 GB behind.

Sampling is greedy (temperature 0, a fixed seed), so a test sees the same answer for the same
request: what a test asserts is then either always or never true on a given build, not sometimes.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model", type=Path)
    parser.add_argument("port", type=int)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--template", type=Path, default=None)
    parser.add_argument("--watch-stdin", action="store_true", help="stop at the end of stdin")
    args = parser.parse_args()

    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(args.model)
    params.model_alias = {"local"}  # a set: a plain string would become one alias per letter
    params.hostnames = ["127.0.0.1"]
    params.port = args.port
    params.n_ctx = args.ctx
    params.n_parallel = 1  # one slot: consecutive requests reuse its cached prompt prefix
    params.use_jinja = True  # tool calling through the chat template
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.ui = False
    params.sampling.temp = 0.0
    params.sampling.seed = 42
    if args.template is not None:
        params.chat_template = args.template.read_text()

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    if args.watch_stdin:
        threading.Thread(target=lambda: (sys.stdin.buffer.read(), stop.set()), daemon=True).start()
    server = xllamacpp.Server(params)  # loads the model, then listens (in its own threads)
    print("listening on", server.listening_address, flush=True)
    stop.wait()
    print("stopping", flush=True)
    os._exit(0)  # the server's threads are not daemons and have no stop call: end the process


if __name__ == "__main__":
    main()
