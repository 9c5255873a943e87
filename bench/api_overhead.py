"""The agent loop through the public API (``from quorum import Agent, tool``) vs the bare openai SDK.

Everything Quorum-side goes through ``Agent`` and ``@tool`` only; the baseline is
``openai.AsyncOpenAI().chat.completions.create`` sending the same requests (checked byte for byte
against an in-process server before measuring). The model is the local Chat Completions wire
server of tests/support, run in a child process, so the CPU time measured here
(``time.process_time``) is the client's alone. The server answers from the request: a request
with tools gets one call of ``lookup`` per key named in the task, a request ending with tool
results gets their values joined, anything else gets a fixed text (``api_clients.py``: the server
and both clients).

* S1: a one-turn text answer (no tools), non-streaming and streaming: median CPU and wall time per
  turn of ``Agent.run`` vs one ``create`` call (and reading the text). Samples are paired (one
  of each, alternating which goes first); the overhead is the median of the paired differences,
  which drift in the shared machine's load moves less than a difference of medians. "connects":
  new TCP connections per sample (0: the keep-alive connection was reused).
* S2: a run with a tool turn: the model calls a ``@tool(risk="low")`` function twice in one
  response, then answers: ``Agent.run`` vs the bare SDK doing the same two requests and calling
  the function itself.
* S3: throughput: ``--runs`` runs (batches of ``--batch`` through ``asyncio.gather``) on ONE
  ``Agent`` with ``run_log=<temp sqlite file>``, each run one tool call then an answer; runs/s
  with the run log on, off, and the bare SDK doing the same. The run log is then read with
  ``sqlite3``: it must hold every run, each with all its events.
* Import time: fresh interpreters, ``python -c "import quorum"`` and ``"from quorum import Agent"``
  vs ``python -c pass``.

    python bench/api_overhead.py [--turns 300] [--runs 200] [--batch 50] [--repeats 5] [--imports 15]
    python bench/api_overhead.py --turns-only [--turns 300]     # S1/S2 and the per-turn figure only

The last line is issue 38's figure: ``per-turn overhead: +X ms CPU (goal ≤ +0.3 ms)``, the S1
non-streaming text turn's CPU overhead (one ``Agent.run`` of one turn vs one ``create`` call),
with the load average. ``per_turn_overhead(turns)`` returns the same figures to another script
(``bench/floors.py``).

Goals: ≤ +0.3 ms CPU overhead per turn (issue 38); S3 ≥ 25 runs/s with the run log on;
``import quorum`` ≤ 30 ms above ``python -c pass``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.api_clients import TEXT_ANSWER, TEXT_TASK, Bare, make_agent, serve, tool_answer, tool_task, verify  # noqa: E402

Step = Callable[[], Awaitable[Any]]

CONNECTS = [0]
"""TCP connections this process opened: a client that does not reuse its connections pays here."""


def count_connects() -> None:
    import socket

    connect = socket.socket.connect

    def counted(self: socket.socket, address: Any) -> None:
        CONNECTS[0] += 1
        connect(self, address)

    socket.socket.connect = counted  # type: ignore[method-assign]


async def paired(n: int, ours: Step, bare: Step, warm_up: int = 20) -> dict[str, list[float]]:
    """CPU and wall seconds of ``n`` calls of each, alternating which goes first."""
    for _ in range(warm_up):
        await ours()
        await bare()
    out: dict[str, list[float]] = {"ours_cpu": [], "ours_wall": [], "bare_cpu": [], "bare_wall": []}
    out |= {"ours_connects": [0.0], "bare_connects": [0.0]}
    for i in range(n):
        for name, step in (("ours", ours), ("bare", bare)) if i % 2 == 0 else (("bare", bare), ("ours", ours)):
            connects, cpu, wall = CONNECTS[0], time.process_time(), time.perf_counter()
            await step()
            out[f"{name}_wall"].append(time.perf_counter() - wall)
            out[f"{name}_cpu"].append(time.process_time() - cpu)
            out[f"{name}_connects"][0] += CONNECTS[0] - connects
    return out


async def scenario(url: str, n: int, tools: bool, stream: bool) -> dict[str, list[float]]:
    task, want = (tool_task("a", "b"), tool_answer("a", "b")) if tools else (TEXT_TASK, TEXT_ANSWER)
    bare = Bare(url)
    async with make_agent(url, tools=tools, stream=stream) as agent:

        async def ours() -> None:
            result = await agent.run(task)
            assert result.output == want and result.stop_reason == "end_turn", result

        async def theirs() -> None:
            assert await bare.run(task, tools, stream) == want

        try:
            return await paired(n, ours, theirs)
        finally:
            await bare.client.close()


async def throughput(url: str, runs: int, batch: int, repeats: int, log: Path) -> dict[str, Any]:
    """runs/s of ``runs`` one-tool-call runs, ``batch`` at a time: run log on, off, bare SDK."""
    tasks = [tool_task("abc"[i % 3]) for i in range(runs)]
    wants = [tool_answer("abc"[i % 3]) for i in range(runs)]
    logged = make_agent(url, tools=True, stream=False, run_log=log)
    unlogged = make_agent(url, tools=True, stream=False)
    bare = Bare(url)
    events_of: dict[str, int] = {}

    async def agent_runs(agent: Any, record: bool) -> None:
        for start in range(0, runs, batch):
            results = await asyncio.gather(*(agent.run(t) for t in tasks[start : start + batch]))
            for result, want in zip(results, wants[start : start + batch], strict=True):
                assert result.stop_reason == "end_turn" and result.output == want, (result.stop_reason, result.output)
                if record:
                    events_of[result.run_id] = len(result.events)

    async def bare_runs() -> None:
        for start in range(0, runs, batch):
            texts = await asyncio.gather(*(bare.run(t, True, False) for t in tasks[start : start + batch]))
            assert texts == wants[start : start + batch]

    variants: dict[str, Callable[[], Awaitable[None]]] = {
        "log on": lambda: agent_runs(logged, True),
        "log off": lambda: agent_runs(unlogged, False),
        "bare SDK": bare_runs,
    }
    rates: dict[str, list[float]] = {name: [] for name in variants}
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    loop_cpu: dict[str, list[float]] = {name: [] for name in variants}  # the event loop's thread alone
    try:
        for go in variants.values():  # warm-up: connections, imports, the log's schema
            await go()
        for _ in range(repeats):
            for name, go in variants.items():
                start_cpu, start, start_loop = time.process_time(), time.perf_counter(), time.thread_time()
                await go()
                rates[name].append(runs / (time.perf_counter() - start))
                cpu[name].append((time.process_time() - start_cpu) / runs)
                loop_cpu[name].append((time.thread_time() - start_loop) / runs)
        await asyncio.sleep(0.05)  # let a flush scheduled by the last events run
    finally:
        await logged.aclose()
        await unlogged.aclose()
        await bare.client.close()
    return {"rates": rates, "cpu": cpu, "loop_cpu": loop_cpu, "events_of": events_of}


def check_log(log: Path, events_of: dict[str, int]) -> str:
    """Every run the agent reported is in the log, with every one of its events, finished."""
    with sqlite3.connect(f"file:{log}?mode=ro", uri=True) as conn:
        runs = dict(conn.execute("SELECT id, stop_reason FROM runs").fetchall())
        counts = dict(conn.execute("SELECT run_id, COUNT(*) FROM events GROUP BY run_id").fetchall())
        distinct = conn.execute("SELECT COUNT(DISTINCT run_id) FROM events").fetchone()[0]
        finished = conn.execute("SELECT COUNT(*) FROM events WHERE type = 'run_finished'").fetchone()[0]
    assert set(runs) == set(events_of), f"{len(runs)} runs in the log, {len(events_of)} run"
    assert distinct == len(events_of) == finished
    assert all(reason == "end_turn" for reason in runs.values())
    assert counts == events_of, "a run is missing events in the log"
    per_run = sorted(set(events_of.values()))
    return (
        f"run log holds all {len(runs):,} runs of the agent with the log on (distinct run ids), "
        f"{sum(counts.values()):,} events ({'/'.join(map(str, per_run))} per run, as the runs reported), "
        f"every run finished (end_turn)"
    )


def import_times(runs: int) -> dict[str, float]:
    commands = {
        "python -c pass": "pass",
        'python -c "import quorum"': "import quorum",
        'python -c "from quorum import Agent"': "from quorum import Agent",
    }
    samples: dict[str, list[float]] = {label: [] for label in commands}
    with tempfile.TemporaryDirectory() as away:  # not the checkout: import the installed package
        for round_ in range(runs + 1):
            for label, code in commands.items():
                start = time.perf_counter()
                subprocess.run([sys.executable, "-c", code], cwd=away, check=True, capture_output=True)
                if round_:  # the first round warms the file cache and .pyc files
                    samples[label].append(time.perf_counter() - start)
        probe = (
            "import sys, quorum\n"
            "print(sorted(m for m in ('pydantic', 'openai', 'httpx', 'dependency_injector', 'quorum.agent')"
            " if m in sys.modules))"
        )
        heavy = subprocess.run([sys.executable, "-c", probe], cwd=away, check=True, capture_output=True, text=True)
    out = {label: statistics.median(s) * 1e3 for label, s in samples.items()}
    out["heavy"] = heavy.stdout.strip()  # type: ignore[assignment]
    return out


PER_TURN_GOAL_MS = 0.3
"""Issue 38's goal for the per-turn CPU overhead over the bare SDK."""

TURN_ROWS = (
    ("S1 text turn, non-streaming", False, False),
    ("S1 text turn, streaming", False, True),
    ("S2 tool run (2 turns), non-stream.", True, False),
    ("S2 tool run (2 turns), streaming", True, True),
)
"""The S1/S2 rows: (label, a tool run, streaming)."""


def start_server() -> tuple[subprocess.Popen[str], str]:
    """The wire server in a child process (its CPU is not this process's), and its URL."""
    child = subprocess.Popen(
        [sys.executable, __file__, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert child.stdout is not None
    return child, child.stdout.readline().strip()


def stop_server(child: subprocess.Popen[str]) -> None:
    if child.stdin is not None:
        child.stdin.close()
    child.wait(10)


def overhead_ms(m: dict[str, list[float]], kind: str = "cpu", per: int = 1) -> float:
    """The median of the paired differences (Agent − bare SDK), ms, divided by ``per`` turns."""
    return ms([a - b for a, b in zip(m[f"ours_{kind}"], m[f"bare_{kind}"], strict=True)]) / per


def turn_samples(url: str, turns: int, report: Callable[[str, dict[str, list[float]]], None] | None = None) -> dict:
    """The S1/S2 paired samples against the server at ``url``, by row label (``report`` is told each row)."""
    results: dict[str, dict[str, list[float]]] = {}
    for label, tools, stream in TURN_ROWS:
        results[label] = asyncio.run(scenario(url, turns, tools, stream))
        if report is not None:
            report(label, results[label])
    return results


def turn_figures(results: dict[str, dict[str, list[float]]], turns: int) -> dict[str, Any]:
    """The per-turn figures of ``turn_samples``' results (ms CPU, medians), the headline first."""
    text, text_stream, tool, tool_stream = (results[label] for label, _, _ in TURN_ROWS)
    return {
        "overhead_ms": overhead_ms(text),
        "goal_ms": PER_TURN_GOAL_MS,
        "bare_ms": ms(text["bare_cpu"]),
        "agent_ms": ms(text["ours_cpu"]),
        "streaming_overhead_ms": overhead_ms(text_stream),
        "tool_turn_overhead_ms": overhead_ms(tool, per=2),
        "tool_turn_streaming_overhead_ms": overhead_ms(tool_stream, per=2),
        "turns": turns,
        "load": os.getloadavg(),
    }


def per_turn_overhead(turns: int = 300) -> dict[str, Any]:
    """Issue 38's per-turn figure: CPU ms per turn of ``Agent.run`` over the bare openai SDK.

    Starts the local wire server in a child process, checks both clients send the same requests,
    then takes ``turns`` paired samples of each S1/S2 row. ``overhead_ms`` (the headline) is the
    S1 non-streaming text turn: one ``Agent.run`` of one turn vs one ``create`` call; the others
    are the streaming turn and a tool run's model turn (its two turns' overhead ÷ 2). ``load``:
    the load average when measured (the machine may be shared).
    """
    asyncio.run(verify())
    child, url = start_server()
    try:
        return turn_figures(turn_samples(url, turns), turns)
    finally:
        stop_server(child)


def headline(figures: dict[str, Any]) -> str:
    """The line that states the figure (the last line ``api_overhead.py`` prints)."""
    load = ", ".join(f"{x:.1f}" for x in figures["load"])
    return (
        f"per-turn overhead: {figures['overhead_ms']:+.3f} ms CPU (goal ≤ +{figures['goal_ms']} ms)"
        f"  [Agent {figures['agent_ms']:.3f} ms vs bare SDK {figures['bare_ms']:.3f} ms a turn; "
        f"streaming {figures['streaming_overhead_ms']:+.3f}, tool run per model turn "
        f"{figures['tool_turn_overhead_ms']:+.3f} / streaming {figures['tool_turn_streaming_overhead_ms']:+.3f}; "
        f"median of {figures['turns']} paired samples; load {load}]"
    )


# --- report ------------------------------------------------------------------------------------


def ms(values: list[float]) -> float:
    return statistics.median(values) * 1e3


def row(label: str, m: dict[str, list[float]], per: int = 1) -> str:
    cells = []
    for kind in ("cpu", "wall"):
        ours, bare = ms(m[f"ours_{kind}"]), ms(m[f"bare_{kind}"])
        extra = ms([a - b for a, b in zip(m[f"ours_{kind}"], m[f"bare_{kind}"], strict=True)])
        both = f"{bare:8.3f} {ours:8.3f}" if per == 1 else " " * 17
        cells.append(f"{both} {extra / per:+9.3f}")
    if per == 1:
        bare_n, ours_n = (m[f"{side}_connects"][0] / len(m[f"{side}_cpu"]) for side in ("bare", "ours"))
        cells.append(f"{bare_n:5.1f} {ours_n:5.1f}")
    return f"{label:<34} " + "   ".join(cells)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=300, help="paired samples per S1/S2 row")
    parser.add_argument("--runs", type=int, default=200, help="S3 runs per measurement")
    parser.add_argument("--batch", type=int, default=50, help="S3 runs in flight at once")
    parser.add_argument("--repeats", type=int, default=5, help="S3 measurements per variant")
    parser.add_argument("--imports", type=int, default=15, help="interpreters per import-time row")
    parser.add_argument("--turns-only", action="store_true", help="S1/S2 and the per-turn figure only")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return

    count_connects()
    asyncio.run(verify())
    print("checked: the bare SDK sends the same requests as Agent.run (S1, S2; plain and streaming)\n")
    child, url = start_server()
    try:
        print(
            f"S1/S2: medians of {args.turns} paired samples, ms; overhead = median of the paired differences "
            f"(local wire server in a child process); load {', '.join(f'{x:.1f}' for x in os.getloadavg())}"
        )
        head = f"{'':<34} {'bare':>8} {'Agent':>8} {'overhead':>9}"
        print(f"{'':<34} {'--------- CPU ----------':>27}   {'--------- wall ---------':>27}   {'connects':>11}")
        print(f"{head}   {head[35:]}   {'bare':>5} {'Agent':>5}")

        def report(label: str, m: dict[str, list[float]]) -> None:
            print(row(label, m), flush=True)
            if label.startswith("S2"):
                print(row("   overhead per model turn (÷ 2)", m, per=2))

        figures = turn_figures(turn_samples(url, args.turns, report), args.turns)
        if not args.turns_only:
            s3_and_imports(url, args)
    finally:
        stop_server(child)
    print(f"\n{headline(figures)}")


def s3_and_imports(url: str, args: argparse.Namespace) -> None:
    """S3 (throughput, the run log checked) and the import times, printed."""
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "runs.db"
        s3 = asyncio.run(throughput(url, args.runs, args.batch, args.repeats, log))
        verdict = check_log(log, s3["events_of"])
    print(
        f"\nS3: {args.runs} one-tool-call runs on one Agent, {args.batch} at a time (asyncio.gather), "
        f"non-streaming; median of {args.repeats}"
    )
    for name in s3["rates"]:
        rate, cpu = statistics.median(s3["rates"][name]), ms(s3["cpu"][name])
        spread = f"{min(s3['rates'][name]):.0f}–{max(s3['rates'][name]):.0f}"
        print(f"  {name:<9} {rate:7.0f} runs/s  (range {spread})   {cpu:6.3f} ms CPU per run")
    print(f"  {verdict}")

    imports = import_times(args.imports)
    heavy = imports.pop("heavy")
    floor = imports["python -c pass"]
    print(f"\nImport time: median of {args.imports} fresh interpreters")
    for label, value in imports.items():
        above = "" if label == "python -c pass" else f"   +{value - floor:5.1f} ms above python -c pass"
        print(f"  {label:<38} {value:6.1f} ms{above}")
    print(f"  heavy modules loaded by `import quorum`: {heavy}")


if __name__ == "__main__":
    main()
