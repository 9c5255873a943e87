"""``quorum acp`` overhead (issue 25): a prompt through the Agent Client Protocol against the same run with the library.

The model is the offline scripted one (a low-risk ``list_dir`` call, then an answer), the run log
is on in both, so the difference is the driver's: the JSON-RPC messages over stdio, the session's
updates, the stop reason. Figures:

- start: spawning ``quorum acp`` until ``initialize`` and ``session/new`` have answered;
- per prompt, sequential, in one session: median wall time of ``session/prompt`` (every update
  received) vs ``Agent.run``.

    python bench/acp_overhead.py [--prompts 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TURNS = [{"tool_calls": [{"name": "list_dir", "arguments": {}}]}, {"text": "done"}]


def _env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUORUM_", "OPENAI_", "ANTHROPIC_"))}
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        env[name] = str(root / name.lower())
    env["QUORUM_DB"] = str(root / "acp.db")
    return env


class _Client:
    def __init__(self) -> None:
        self.updates = 0

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates += 1

    async def request_permission(self, **_: Any) -> Any:
        raise AssertionError("the benchmark's calls are low risk")


async def through_acp(root: Path, workspace: Path, prompts: int) -> tuple[float, list[float]]:
    from acp import spawn_agent_process, text_block

    script = root / "acp.json"
    script.write_text(json.dumps({"conversation": "continue", "repeat_last": False, "turns": TURNS * (prompts + 3)}))
    client = _Client()
    start = time.perf_counter()
    async with spawn_agent_process(
        client, sys.executable, "-m", "quorum.acp", "--model", f"scripted:{script}", env=_env(root), cwd=root
    ) as (conn, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        started = time.perf_counter() - start
        times = []
        for _ in range(prompts + 3):
            begin = time.perf_counter()
            answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("look")])
            times.append(time.perf_counter() - begin)
            assert answer.stop_reason == "end_turn", answer
    return started, times[3:]


async def library(root: Path, workspace: Path, prompts: int) -> list[float]:
    from quorum import Agent

    script = root / "lib.json"
    script.write_text(json.dumps({"turns": TURNS}))
    agent = Agent(model=f"scripted:{script}", builtins="read_only", workspace=workspace, run_log=root / "lib.db")
    try:
        times = []
        for _ in range(prompts + 3):
            begin = time.perf_counter()
            result = await agent.run("look")
            times.append(time.perf_counter() - begin)
            assert result.output == "done", result
        return times[3:]
    finally:
        await agent.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        workspace = root / "ws"
        workspace.mkdir()
        (workspace / "a.txt").write_text("a\n")
        started, acp_times = asyncio.run(through_acp(root, workspace, args.prompts))
        lib_times = asyncio.run(library(root, workspace, args.prompts))
    acp_ms, lib_ms = statistics.median(acp_times) * 1000, statistics.median(lib_times) * 1000
    print(f"start (spawn, initialize, session/new): {started * 1000:.0f} ms")
    print(f"per prompt, median of {args.prompts}: quorum acp {acp_ms:.1f} ms, library {lib_ms:.1f} ms")
    print(f"overhead per prompt: {acp_ms - lib_ms:+.1f} ms")


if __name__ == "__main__":
    main()
