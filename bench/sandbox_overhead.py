"""Cost of a low-risk ``run_command`` in the bubblewrap sandbox versus on the host (issues 10 and 38).

    python bench/sandbox_overhead.py [--runs 60] [--command ls] [--where]

Runs the same command through ``BuiltinToolSource`` both ways, in alternating rounds on one event
loop: unreviewed in the sandbox (the low-risk path), and approved on the host (no sandbox). Reports
the median and p90 wall time of each, the median added by the sandbox (goal ≤ +3 ms, issue 38) and
the one-time probe that decides whether a sandbox works. Needs bubblewrap.

``--where`` also shows where the added time goes: ``bwrap`` itself run directly, growing from a bare
``bwrap --ro-bind / /`` to the real ``read_only`` layout one part at a time (each line's step is
what that part adds). ``sandbox_cost(runs)`` and ``sandbox_breakdown(runs)`` give the same figures
to another script (``bench/floors.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from quorum.domain.tools import Clearance, ToolCall
from quorum.infrastructure.sandbox import bubblewrap, detect
from quorum.infrastructure.tools.builtin import BuiltinToolSource
from quorum.infrastructure.tools.settings import ToolsSettings
from quorum.infrastructure.tools.shell.launch import CommandLauncher

GOAL_MS = 3.0
ROUND = 5
"""Calls of each kind per round; the kinds alternate round by round, so load drifts hit both alike."""


async def _timed(source: BuiltinToolSource, command: str, clearance: Clearance, runs: int) -> list[float]:
    call = ToolCall(native_id="b", name="run_command", arguments={"command": command})
    out: list[float] = []
    for _ in range(runs):
        started = time.perf_counter()
        outcome = await source.execute(call, clearance=clearance)
        out.append(time.perf_counter() - started)
        assert not outcome.is_error, outcome.output
    return out


async def _paired(source: BuiltinToolSource, command: str, runs: int) -> tuple[list[float], list[float]]:
    await _timed(source, command, Clearance.UNREVIEWED, 3)  # warm the page cache and the loop
    await _timed(source, command, Clearance.APPROVED, 3)
    sandboxed: list[float] = []
    host: list[float] = []
    while len(sandboxed) < runs:
        sandboxed += await _timed(source, command, Clearance.UNREVIEWED, ROUND)
        host += await _timed(source, command, Clearance.APPROVED, ROUND)
    return sandboxed, host


def _ms(values: list[float], q: float = 0.5) -> float:
    if q == 0.5:
        return statistics.median(values) * 1000
    return statistics.quantiles(values, n=100)[int(q * 100) - 1] * 1000


def sandbox_cost(runs: int = 60, command: str = "ls") -> dict[str, Any]:
    """The sandbox's added wall time per low-risk call, in ms (medians over ``runs`` of each kind).

    Keys: ``host_ms``, ``sandboxed_ms``, ``added_ms`` (the figure), ``host_p90_ms``,
    ``sandboxed_p90_ms``, ``probe_ms`` (once per process), ``backend``, ``goal_ms``, ``load``.

    Raises:
        SystemExit: no sandbox works on this machine.
    """
    started = time.perf_counter()
    status = detect.sandbox_status("auto")
    probe = time.perf_counter() - started
    if not status.enforced:
        raise SystemExit(f"no sandbox: {status.problem}")
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp).resolve()
        for i in range(20):
            (workspace / f"file{i}.txt").write_text("x\n")
        settings = ToolsSettings()
        source = BuiltinToolSource(workspace, settings, CommandLauncher(workspace, settings, status, os.environ))
        sandboxed, host = asyncio.run(_paired(source, command, runs))
    return {
        "host_ms": _ms(host),
        "sandboxed_ms": _ms(sandboxed),
        "added_ms": _ms(sandboxed) - _ms(host),
        "host_p90_ms": _ms(host, 0.9),
        "sandboxed_p90_ms": _ms(sandboxed, 0.9),
        "probe_ms": probe * 1000,
        "backend": status.describe(),
        "goal_ms": GOAL_MS,
        "load": load,
    }


def _ladder(program: str, user_namespace: bool, workspace: Path) -> list[tuple[str, list[str]]]:
    """``bwrap`` command lines growing from bare to the real ``read_only`` layout, one part at a time."""
    user = ["--unshare-user", "--uid", str(bubblewrap.NOBODY), "--gid", str(bubblewrap.NOBODY)]
    if not user_namespace:
        user = ["--cap-drop", "ALL"]
    pid = ["--unshare-pid"]
    others = ["--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    net = ["--unshare-net"]
    session = ["--die-with-parent", "--new-session"]
    isolation = [*others, *pid, *net, *user, *session]
    masks = list(bubblewrap._masks())
    system = list(bubblewrap._system_mounts())[: -len(masks) or None]
    special = ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    ws = ["--ro-bind", str(workspace), str(workspace), "--chdir", str(workspace)]
    root = ["--ro-bind", "/", "/"]
    return [
        ("bwrap --ro-bind / / (no namespace but mounts)", [program, *root]),
        ("+ user namespace (nobody)", [program, *user, *root]),
        ("+ pid namespace", [program, *pid, *user, *root]),
        ("+ ipc, uts, cgroup namespaces", [program, *others, *pid, *user, *root]),
        ("+ net namespace", [program, *others, *pid, *net, *user, *root]),
        ("+ die-with-parent, new-session", [program, *isolation, *root]),
        ("+ /proc", [program, *isolation, *root, "--proc", "/proc"]),
        ("+ /dev", [program, *isolation, *root, "--proc", "/proc", "--dev", "/dev"]),
        ("+ private /tmp", [program, *isolation, *root, *special]),
        ("OS dirs + workspace instead of /", [program, *isolation, *system, *special, *ws]),
        (
            f"+ {sum(a in ('--ro-bind', '--tmpfs') for a in masks)} masks in /etc (= read_only)",
            [program, *isolation, *system, *masks, *special, *ws],
        ),
    ]


def sandbox_breakdown(runs: int = 40, command: str = "ls") -> dict[str, Any]:
    """Where the sandbox's time goes: median wall ms of ``sh -c COMMAND`` under each ``_ladder`` step.

    Keys: ``steps`` (a list of (label, median ms)), ``host_ms`` (the command alone), ``load``.
    Runs ``bwrap`` directly (``subprocess.run``), in alternating rounds.
    """
    status = detect.sandbox_status("auto")
    sandbox = status.sandbox
    if not isinstance(sandbox, bubblewrap.Bubblewrap):
        raise SystemExit(f"no bubblewrap sandbox: {status.problem or status.describe()}")
    load = os.getloadavg()
    shell = ["/bin/sh", "-c", command]
    env = {"PATH": "/usr/bin:/bin"}
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp).resolve()
        variants = [("host", shell)] + [
            (label, [*argv, "--", *shell])
            for label, argv in _ladder(sandbox.program, sandbox.user_namespace, workspace)
        ]
        times: dict[str, list[float]] = {label: [] for label, _ in variants}
        for rounds in range(-1, max(1, runs // ROUND)):
            for label, argv in variants:
                for _ in range(ROUND):
                    started = time.perf_counter()
                    subprocess.run(argv, stdout=subprocess.DEVNULL, env=env, cwd=workspace, check=True)
                    if rounds >= 0:  # the first round warms up
                        times[label].append(time.perf_counter() - started)
    steps = [(label, _ms(values)) for label, values in times.items()]
    return {"host_ms": steps[0][1], "steps": steps[1:], "load": load}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--command", default="ls")
    parser.add_argument("--where", action="store_true", help="also time bwrap's parts one by one")
    args = parser.parse_args()
    cost = sandbox_cost(args.runs, args.command)
    load = " ".join(f"{value:.2f}" for value in cost["load"])
    print(f"sandbox: {cost['backend']}; probe (once per process): {cost['probe_ms']:.1f} ms; load {load}")
    print(f"{args.command!r} through BuiltinToolSource, {args.runs} runs each, alternating rounds of {ROUND}")
    print(f"  host       median {cost['host_ms']:6.2f} ms   p90 {cost['host_p90_ms']:6.2f} ms")
    print(f"  sandboxed  median {cost['sandboxed_ms']:6.2f} ms   p90 {cost['sandboxed_p90_ms']:6.2f} ms")
    if args.where:
        parts = sandbox_breakdown(args.runs, args.command)
        print(f"where it goes: bwrap run directly, 'sh -c {args.command}' alone {parts['host_ms']:.2f} ms")
        previous = parts["host_ms"]
        for label, ms in parts["steps"]:
            print(f"  {label:<48} {ms:6.2f} ms  step {ms - previous:+5.2f}")
            previous = ms
    print(f"sandboxed read: {cost['added_ms']:+.2f} ms over unsandboxed (goal ≤ +{GOAL_MS:g} ms) (load {load})")


if __name__ == "__main__":
    main()
