"""Cost of a ``pre_tool_use`` hook over the hook's own process (issue 38; decision 250).

    python bench/hook_overhead.py [--runs 200] [--content 2000] [--hook 'COMMAND']

Puts one tool call (``write_file`` with ``--content`` characters) to a trivial ``pre_tool_use``
hook that reads its payload and answers ``allow``, through what a run uses (``RunHooks.before_call``
on a ``ShellHookRunner``, with a redactor holding two secrets: the payload built, redacted, sent,
the answer read into a verdict), and runs the same hook process alone the same way (an asyncio
subprocess, ``sh -c COMMAND`` in a session of its own, the same payload bytes on stdin, the output
read whole). The two alternate in rounds on one event loop; the figure is the difference of the
medians (goal ≤ +2 ms). ``hook_cost(runs)`` gives the same figures to another script.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from quorum.application.hooks import RunHooks
from quorum.domain.secrets import Redactor, Secret
from quorum.domain.tools import ToolCall
from quorum.infrastructure.hooks.layers import ConfiguredHook
from quorum.infrastructure.hooks.runner import SHELL, ShellHookRunner

GOAL_MS = 2.0
ROUND = 10
ALLOW = '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'
HOOK = f"cat >/dev/null; echo '{ALLOW}'"
"""A hook that reads its payload and allows the call: what a hook costs beyond its own work."""


def _call(content: int) -> ToolCall:
    return ToolCall(native_id="call_1", name="write_file", arguments={"path": "src/app.py", "content": "x" * content})


_Timings = tuple[list[float], list[float]]
"""Wall times and this process's CPU times (the hook's own CPU is its child's, not counted), in s."""


async def _through_quorum(hooks: RunHooks, call: ToolCall, runs: int) -> _Timings:
    out: _Timings = ([], [])
    for _ in range(runs):
        started, cpu = time.perf_counter(), time.process_time()
        verdict = await hooks.before_call(call)
        out[0].append(time.perf_counter() - started)
        out[1].append(time.process_time() - cpu)
        assert verdict is not None and verdict.permission == "allow", verdict
    return out


async def _alone(command: str, data: bytes, cwd: str, env: dict[str, str], runs: int) -> _Timings:
    out: _Timings = ([], [])
    for _ in range(runs):
        started, cpu = time.perf_counter(), time.process_time()
        process = await asyncio.create_subprocess_exec(
            SHELL,
            "-c",
            command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
        answer, _ = await process.communicate(data)
        out[0].append(time.perf_counter() - started)
        out[1].append(time.process_time() - cpu)
        assert process.returncode == 0 and b"allow" in answer
    return out


async def _paired(command: str, content: int, runs: int, workspace: Path) -> tuple[_Timings, _Timings]:
    env = dict(os.environ)
    runner = ShellHookRunner(
        [ConfiguredHook("pre_tool_use", command, None, 10.0, "bench")], workspace=workspace, env=env
    )
    redactor = Redactor([Secret("OPENAI_API_KEY", "sk-bench-" + "k" * 40), Secret("TOKEN", "t" * 32)])
    hooks = RunHooks(runner, redactor, session_id="run_bench", run_id="run_bench")
    call = _call(content)
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "run_bench",
        "run_id": "run_bench",
        "transcript_path": None,
        "tool_name": call.name,
        "tool_input": call.arguments,
        "tool_use_id": call.native_id,
        "cwd": str(workspace),
    }
    data = json.dumps(payload).encode()
    child_env = {**env, "QUORUM_PROJECT_DIR": str(workspace)}
    await _through_quorum(hooks, call, 3)
    await _alone(command, data, str(workspace), child_env, 3)
    through: _Timings = ([], [])
    alone: _Timings = ([], [])
    while len(through[0]) < runs:
        for total, part in zip(through, await _through_quorum(hooks, call, ROUND), strict=True):
            total += part
        for total, part in zip(alone, await _alone(command, data, str(workspace), child_env, ROUND), strict=True):
            total += part
    return through, alone


def hook_cost(runs: int = 200, content: int = 2000, command: str = HOOK) -> dict[str, Any]:
    """A ``pre_tool_use`` hook's added wall time per call over its own process, in ms (medians).

    Keys: ``alone_ms`` (the hook process run directly), ``hooked_ms`` (the call put to the hook
    through ``RunHooks``), ``added_ms`` (the figure), their p90s, ``added_cpu_ms`` (this process's
    CPU per call, through ``RunHooks`` minus alone: less sensitive to load), ``goal_ms`` and ``load``.
    """
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        (through, through_cpu), (alone, alone_cpu) = asyncio.run(_paired(command, content, runs, Path(tmp).resolve()))
    median = {name: statistics.median(values) * 1000 for name, values in (("t", through), ("a", alone))}
    p90 = {name: statistics.quantiles(values, n=10)[-1] * 1000 for name, values in (("t", through), ("a", alone))}
    return {
        "added_cpu_ms": (statistics.fmean(through_cpu) - statistics.fmean(alone_cpu)) * 1000,
        "alone_ms": median["a"],
        "hooked_ms": median["t"],
        "added_ms": median["t"] - median["a"],
        "alone_p90_ms": p90["a"],
        "hooked_p90_ms": p90["t"],
        "goal_ms": GOAL_MS,
        "load": load,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--content", type=int, default=2000, help="characters of the call's write_file content")
    parser.add_argument("--hook", default=HOOK, help="the hook's command (must answer allow)")
    args = parser.parse_args()
    cost = hook_cost(args.runs, args.content, args.hook)
    load = " ".join(f"{value:.2f}" for value in cost["load"])
    print(f"pre_tool_use hook {args.hook!r}, {args.runs} calls each, alternating rounds of {ROUND}; load {load}")
    print(f"  hook process alone   median {cost['alone_ms']:6.2f} ms   p90 {cost['alone_p90_ms']:6.2f} ms")
    print(f"  call put to the hook median {cost['hooked_ms']:6.2f} ms   p90 {cost['hooked_p90_ms']:6.2f} ms")
    print(f"  our CPU per call: {cost['added_cpu_ms']:+.3f} ms through RunHooks (mean)")
    print(
        f"pre_tool_use hook: {cost['added_ms']:+.2f} ms over the hook's own process "
        f"(goal ≤ +{GOAL_MS:g} ms) (load {load})"
    )


if __name__ == "__main__":
    main()
