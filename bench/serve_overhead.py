"""``quorum serve`` overhead (issue 21): a run through HTTP + SSE against the same run with the library.

The model is the offline scripted one (a low-risk ``list_dir`` call, then an answer), the run log
is on in both, so the difference is the server's: the request, the run started in the server, the
event stream read back from the run log. The clients are minimal HTTP/1.1 connections
(``bench/raw_http.py``), one per client, so the figures are the server's, not a client library's.
Library and server are measured in alternating rounds (medians), so a machine busy with other work
weighs on both alike. Figures:

- per run, sequential: median wall time of ``Agent.run`` vs ``POST /v1/runs`` + the event stream
  read to its end;
- 200 concurrent runs: runs/s of ``asyncio.gather`` over one ``Agent`` vs 200 clients of one server
  (goal: at least half the library's figure), median of ``--rounds`` rounds each;
- memory per open event stream: a fresh server's RSS growth with 200 more streams open on a run
  waiting for approval (after one stream has warmed it), divided by 200.

    python bench/serve_overhead.py [--runs 40] [--concurrent 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.raw_http import RawClient  # noqa: E402
from tests.support.net import free_port, wait_listening  # noqa: E402

SCRIPT = {"turns": [{"tool_calls": [{"name": "list_dir", "arguments": {}}]}, {"text": "done"}]}
WAIT = {"turns": [{"tool_calls": [{"name": "write_file", "arguments": {"path": "x", "content": "x"}}]}]}


def _env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUORUM_", "OPENAI_", "ANTHROPIC_"))}
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        env[name] = str(root / name.lower())
    return env


async def library_run(agent: Any) -> None:
    result = await agent.run("look")
    assert result.output == "done", result


async def one_served(host: str, port: int, token: str, model: str) -> str:
    """One client: start a run, then read its event stream to the end; returns the run id."""
    async with RawClient(host, port, token) as client:
        status, answer = await client.post_json("/v1/runs", {"task": "look", "model": model})
        assert status == 201, answer
        run_id: str = answer["run_id"]
        text = b"".join([chunk async for chunk in client.stream(f"/v1/runs/{run_id}/events")]).decode()
    last = [line for line in text.splitlines() if line.startswith("data: ")][-1]
    assert json.loads(last[6:])["output"] == "done", last
    return run_id


async def measure(workspace: Path, model: str, port: int, token: str, args: argparse.Namespace) -> dict[str, Any]:
    """Sequential times and concurrent rates of the library and the server, in alternating rounds."""
    from quorum import Agent

    agent = Agent(model=model, builtins="read_only", workspace=workspace, run_log=workspace.parent / "lib.db")
    served_run = functools.partial(one_served, "127.0.0.1", port, token, "scripted:s.json")
    figures: dict[str, list[float]] = {"lib": [], "http": [], "lib_rate": [], "http_rate": []}
    try:
        for _ in range(3):  # warm both: imports, connections, the run logs
            await library_run(agent)
            await served_run()
        for _ in range(args.runs):
            for name, work in (("lib", lambda: library_run(agent)), ("http", served_run)):
                start = time.perf_counter()
                await work()
                figures[name].append(time.perf_counter() - start)
        for _ in range(args.rounds):
            for name, work in (("lib_rate", lambda: library_run(agent)), ("http_rate", served_run)):
                start = time.perf_counter()
                await asyncio.gather(*(work() for _ in range(args.concurrent)))
                figures[name].append(args.concurrent / (time.perf_counter() - start))
    finally:
        await agent.aclose()
    return {name: statistics.median(values) for name, values in figures.items()}


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def stream_memory(port: int, token: str, model: str, pid: int, streams: int) -> float:
    """KiB of server RSS per open event stream on a run waiting for approval (after one warming stream)."""
    async with RawClient("127.0.0.1", port, token) as client:
        status, answer = await client.post_json("/v1/runs", {"task": "wait", "model": model})
        assert status == 201, answer
    run_id = answer["run_id"]
    waiting = 0
    all_open = asyncio.Event()

    async def hold(counted: bool) -> None:
        nonlocal waiting
        async with RawClient("127.0.0.1", port, token) as client:
            async for chunk in client.stream(f"/v1/runs/{run_id}/events"):
                if b"awaiting_approval" in chunk:
                    waiting += 1
                    if waiting == streams + 1:
                        all_open.set()
                    await asyncio.Event().wait()  # held open until cancelled

    holders = [asyncio.create_task(hold(False))]
    while waiting < 1:  # the first stream warms the route (imports, caches): not counted
        await asyncio.sleep(0.05)
    before = rss_kib(pid)
    holders += [asyncio.create_task(hold(True)) for _ in range(streams)]
    await all_open.wait()
    after = rss_kib(pid)
    for task in holders:
        task.cancel()
    await asyncio.gather(*holders, return_exceptions=True)
    return (after - before) / streams


class Server:
    """``python -m quorum.serve`` on a free port, in ``workspace``, for the benchmark's duration."""

    def __init__(self, workspace: Path, env: dict[str, str]) -> None:
        self.port = free_port()
        command = [sys.executable, "-m", "quorum.serve", "--port", str(self.port), "--workspace", str(workspace)]
        self.process = subprocess.Popen(command, cwd=workspace, env=env, stderr=subprocess.PIPE, text=True)
        assert self.process.stderr is not None
        self.token = self.process.stderr.readline().strip().rsplit("#token=", 1)[1]
        wait_listening(self.process, self.port, "quorum serve")  # type: ignore[arg-type]

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait(60)


def served_vs_library(runs: int, concurrent: int, rounds: int, memory: bool = True) -> dict[str, float]:
    """Sequential seconds and concurrent runs/s of the library and the server (and KiB per open stream)."""
    args = argparse.Namespace(runs=runs, concurrent=concurrent, rounds=rounds)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        workspace = root / "ws"
        workspace.mkdir()
        (workspace / "s.json").write_text(json.dumps(SCRIPT))
        (workspace / "w.json").write_text(json.dumps(WAIT))
        env = _env(root)
        saved = {k: os.environ.get(k) for k in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")}
        os.environ.update({k: env[k] for k in saved})
        try:
            model = f"scripted:{workspace / 's.json'}"
            with Server(workspace, env) as server:
                got = asyncio.run(measure(workspace, model, server.port, server.token, args))
            if memory:
                with Server(workspace, env) as server:  # a fresh process: RSS not inflated by the runs above
                    got["per_stream"] = asyncio.run(
                        stream_memory(server.port, server.token, "scripted:w.json", server.process.pid, concurrent)
                    )
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--concurrent", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    got = served_vs_library(args.runs, args.concurrent, args.rounds)
    per_stream = got["per_stream"]
    lib, http = got["lib"] * 1000, got["http"] * 1000
    print(f"per run, median of {args.runs}: library {lib:.1f} ms, HTTP+SSE {http:.1f} ms (+{http - lib:.1f} ms)")
    print(
        f"{args.concurrent} concurrent runs, median of {args.rounds} rounds: library {got['lib_rate']:.0f} runs/s,"
        f" HTTP+SSE {got['http_rate']:.0f} runs/s ({got['http_rate'] / got['lib_rate']:.0%} of the library;"
        " goal >= 50%)"
    )
    print(f"memory per open event stream: {per_stream:.1f} KiB ({args.concurrent} streams)")


if __name__ == "__main__":
    main()
