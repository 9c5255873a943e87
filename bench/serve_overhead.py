"""``quorum serve`` overhead (issue 21): a run through HTTP + SSE against the same run with the library.

The model is the offline scripted one (a low-risk ``list_dir`` call, then an answer), the run log
is on in both, so the difference is the server's: the request, the run started in the server, the
event stream read back from the run log. Figures:

- per run, sequential: median wall time of ``Agent.run`` vs ``POST /v1/runs`` + the event stream
  read to its end;
- 200 concurrent runs: runs/s of ``asyncio.gather`` over one ``Agent`` vs 200 clients of one server
  (goal: at least half the library's figure);
- memory per open event stream: the server's RSS growth with 200 streams open on a run waiting
  for approval, divided by 200.

    python bench/serve_overhead.py [--runs 40] [--concurrent 200]
"""

from __future__ import annotations

import argparse
import asyncio
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

from tests.support.net import free_port, wait_listening  # noqa: E402

SCRIPT = {"turns": [{"tool_calls": [{"name": "list_dir", "arguments": {}}]}, {"text": "done"}]}
WAIT = {"turns": [{"tool_calls": [{"name": "write_file", "arguments": {"path": "x", "content": "x"}}]}]}


def _env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUORUM_", "OPENAI_", "ANTHROPIC_"))}
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        env[name] = str(root / name.lower())
    return env


async def library(workspace: Path, model: str, runs: int, concurrent: int) -> tuple[list[float], float]:
    from quorum import Agent

    agent = Agent(model=model, builtins="read_only", workspace=workspace, run_log=workspace.parent / "lib.db")
    try:
        times = []
        for _ in range(runs + 3):
            start = time.perf_counter()
            result = await agent.run("look")
            times.append(time.perf_counter() - start)
            assert result.output == "done", result
        start = time.perf_counter()
        results = await asyncio.gather(*(agent.run("look") for _ in range(concurrent)))
        rate = concurrent / (time.perf_counter() - start)
        assert all(r.output == "done" for r in results)
        return times[3:], rate
    finally:
        await agent.aclose()


async def one_served(client: Any, model: str) -> str:
    answer = await client.post("/v1/runs", json={"task": "look", "model": model})
    run_id: str = answer.json()["run_id"]
    last = ""
    async with client.stream("GET", f"/v1/runs/{run_id}/events") as stream:
        async for line in stream.aiter_lines():
            if line.startswith("data: "):
                last = line[6:]
    assert json.loads(last)["output"] == "done", last
    return run_id


async def served(base: str, token: str, model: str, runs: int, concurrent: int) -> tuple[list[float], float]:
    import httpx2

    limits = httpx2.Limits(max_connections=concurrent + 10, max_keepalive_connections=concurrent + 10)
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(base_url=base, headers=headers, timeout=600, limits=limits) as client:
        times = []
        for _ in range(runs + 3):
            start = time.perf_counter()
            await one_served(client, model)
            times.append(time.perf_counter() - start)
        start = time.perf_counter()
        await asyncio.gather(*(one_served(client, model) for _ in range(concurrent)))
        return times[3:], concurrent / (time.perf_counter() - start)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def stream_memory(base: str, token: str, model: str, pid: int, streams: int) -> float:
    """KiB of server memory per open event stream on a run waiting for approval."""
    import httpx2

    limits = httpx2.Limits(max_connections=streams + 10)
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(base_url=base, headers=headers, timeout=600, limits=limits) as client:
        run_id = (await client.post("/v1/runs", json={"task": "wait", "model": model})).json()["run_id"]
        opened = asyncio.Event()
        count = [0]

        async def hold() -> None:
            async with client.stream("GET", f"/v1/runs/{run_id}/events") as stream:
                async for line in stream.aiter_lines():
                    if "awaiting_approval" in line:
                        count[0] += 1
                        if count[0] == streams:
                            opened.set()
                        await asyncio.Event().wait()  # held open until cancelled

        before = rss_kib(pid)
        holders = [asyncio.create_task(hold()) for _ in range(streams)]
        await opened.wait()
        after = rss_kib(pid)
        for task in holders:
            task.cancel()
        await asyncio.gather(*holders, return_exceptions=True)
        return (after - before) / streams


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--concurrent", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        workspace = root / "ws"
        workspace.mkdir()
        (workspace / "s.json").write_text(json.dumps(SCRIPT))
        (workspace / "w.json").write_text(json.dumps(WAIT))
        env = _env(root)
        os.environ.update({k: env[k] for k in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")})
        model = f"scripted:{workspace / 's.json'}"
        lib_times, lib_rate = asyncio.run(library(workspace, model, args.runs, args.concurrent))
        port = free_port()
        command = [sys.executable, "-m", "quorum.serve", "--port", str(port), "--workspace", str(workspace)]
        server = subprocess.Popen(command, cwd=workspace, env=env, stderr=subprocess.PIPE, text=True)
        try:
            assert server.stderr is not None
            token = server.stderr.readline().strip().rsplit("#token=", 1)[1]
            wait_listening(server, port, "quorum serve")  # type: ignore[arg-type]
            base = f"http://127.0.0.1:{port}"
            http_times, http_rate = asyncio.run(served(base, token, "scripted:s.json", args.runs, args.concurrent))
            per_stream = asyncio.run(stream_memory(base, token, "scripted:w.json", server.pid, args.concurrent))
        finally:
            server.terminate()
            server.wait(60)
    lib, http = statistics.median(lib_times) * 1000, statistics.median(http_times) * 1000
    print(f"per run, median of {args.runs}: library {lib:.1f} ms, HTTP+SSE {http:.1f} ms (+{http - lib:.1f} ms)")
    print(
        f"{args.concurrent} concurrent runs: library {lib_rate:.0f} runs/s, HTTP+SSE {http_rate:.0f} runs/s"
        f" ({http_rate / lib_rate:.0%} of the library; goal >= 50%)"
    )
    print(f"memory per open event stream: {per_stream:.0f} KiB ({args.concurrent} streams)")


if __name__ == "__main__":
    main()
