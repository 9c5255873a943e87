"""Cost of a checkpoint after a batch that changes a few files of a large workspace (issue 35).

    python bench/checkpoints.py [--files 10000] [--mib 200] [--batches 21] [--changed 3]

Builds a workspace of ``--files`` files totalling ``--mib`` MiB in 100 directories, records it once
(the first recording keeps every file's content: reported apart), then runs ``--batches`` batches
that each rewrite ``--changed`` files (new content of the same size) and record a checkpoint, as
``CheckpointingExecutor`` does after a call. Reports the median and p90 time of a checkpoint, the
growth of the store per batch against the bytes changed, and the same for a new process's first
checkpoint (which reads the stat index from disk). The goal: at most 100 ms a batch.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.figure import load
from quorum.infrastructure.checkpoints.store import FileCheckpointStore


def build(workspace: Path, files: int, total_bytes: int) -> list[Path]:
    size = total_bytes // files
    past = time.time() - 3600  # older than the racy window: the stat index is trusted for them
    paths = []
    for index in range(files):
        path = workspace / f"dir{index % 100:02d}" / f"file{index:05d}.txt"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(os.urandom(size // 2).hex().encode()[:size])
        os.utime(path, (past, past))
        paths.append(path)
    return paths


def store_bytes(root: Path) -> int:
    """The blobs' bytes (the index database's pages, a few KiB a checkpoint, are reported apart)."""
    return sum(p.stat().st_size for p in (root / "blobs").rglob("*") if p.is_file())


def measure(files: int, mib: int, batches: int, changed: int) -> dict[str, float]:
    """Record a ``files``-file workspace, then ``batches`` batches each rewriting ``changed`` files; the times.

    Keys: ``first`` (s, the first recording), ``median``/``p90`` (s, a batch's checkpoint), ``cold``
    (s, a new process's first checkpoint), ``growth`` (bytes a batch adds to the store, median),
    ``changed`` (bytes changed a batch), ``index`` (bytes of the index databases), ``store`` (bytes
    after the first recording).
    """
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        workspace, root = base / "ws", base / "store"
        workspace.mkdir()
        paths = build(workspace, files, mib * 1024 * 1024)
        store = FileCheckpointStore(root, workspace)
        started = time.perf_counter()
        store.baseline("bench")
        first, stored = time.perf_counter() - started, store_bytes(root)
        rng = random.Random(7)
        times, growth, written = [], [], 0
        for batch in range(batches):
            before = store_bytes(root)
            for path in rng.sample(paths, changed):
                size = path.stat().st_size
                path.write_bytes(os.urandom(size // 2).hex().encode()[:size])
                written += size
            started = time.perf_counter()
            checkpoint = store.record("bench", [f"c{batch}"])
            times.append(time.perf_counter() - started)
            growth.append(store_bytes(root) - before)
            assert len(checkpoint.changes) == changed, checkpoint.changes
        fresh = FileCheckpointStore(root, workspace)  # a new process: the index comes from disk
        started = time.perf_counter()
        fresh.record("bench", ["fresh"])
        cold = time.perf_counter() - started
        store.close()
        fresh.close()
        index = sum(p.stat().st_size for p in (root / "workspaces").rglob("index.db*"))
    times.sort()
    return {
        "first": first,
        "median": statistics.median(times),
        "p90": times[int(len(times) * 0.9)],
        "cold": cold,
        "growth": statistics.median(growth),
        "changed": written / batches,
        "index": index,
        "store": stored,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--mib", type=int, default=200)
    parser.add_argument("--batches", type=int, default=21)
    parser.add_argument("--changed", type=int, default=3)
    args = parser.parse_args()
    got = measure(args.files, args.mib, args.batches, args.changed)
    print(
        f"workspace: {args.files} files, {args.mib} MiB; first recording {got['first']:.2f} s, "
        f"store {got['store'] / 2**20:.1f} MiB ({load()})"
    )
    print(
        f"checkpoint after a batch changing {args.changed} files: median {got['median'] * 1000:.1f} ms, "
        f"p90 {got['p90'] * 1000:.1f} ms (first in a new process {got['cold'] * 1000:.1f} ms)"
    )
    print(
        f"store growth per batch: median {got['growth'] / 1024:.1f} KiB "
        f"of content for {got['changed'] / 1024:.1f} KiB changed; "
        f"the index database {got['index'] / 2**20:.1f} MiB in all"
    )


if __name__ == "__main__":
    main()
