"""grep_search over a generated 50 MB tree, and the pathological pattern against the tool timeout.

    python bench/grep_search.py [--megabytes 50] [--runs 3]

Times (median of runs) a literal pattern, a regex, a regex with many matches and a pattern only
Python's ``re`` accepts (the budgeted fallback), through the real ``BuiltinToolSource`` (daemon
thread included). Then runs ``(a+)+$`` over lines of 30 ``a``s with the call under the default tool
timeout (60 s) and under 3 s, and prints its time. Before RE2 that call ran for minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from quorum.domain.tools import ToolCall  # noqa: E402
from quorum.infrastructure.tools.settings import ToolsSettings  # noqa: E402
from tests.integration.tools.conftest import builtin_source  # noqa: E402

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "return",
    "def",
    "class",
    "value",
    "import",
    "self",
    "while",
    "yield",
    "lambda",
]


def generate(root: Path, megabytes: int) -> int:
    """About ``megabytes`` MB of Python-like text in 100 KB files across nested directories."""
    rng = random.Random(7)
    target, written, index = megabytes * 1_000_000, 0, 0
    while written < target:
        directory = root / f"pkg{index % 20}" / f"mod{index % 7}"
        directory.mkdir(parents=True, exist_ok=True)
        lines = []
        for n in range(2000):
            words = " ".join(rng.choice(WORDS) for _ in range(7))
            lines.append(f"    def f{n}(self, x): {words}" if n % 50 == 0 else f"    {words}")
        data = ("\n".join(lines) + "\n").encode()
        (directory / f"file{index}.py").write_bytes(data)
        written += len(data)
        index += 1
    return index


async def grep(source: object, pattern: str, timeout: float, **extra: object) -> tuple[float, str]:
    call = ToolCall(native_id="b", name="grep_search", arguments={"pattern": pattern, **extra})
    start = time.perf_counter()
    try:
        async with asyncio.timeout(timeout):
            outcome = await source.execute(call)  # type: ignore[attr-defined]
        output = outcome.output
    except TimeoutError:
        output = "TIMED OUT"
    return time.perf_counter() - start, output


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--megabytes", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        files = generate(root, args.megabytes)
        (root / "evil.txt").write_text(("a" * 30 + "\n") * 1000)
        source = builtin_source(root, ToolsSettings())
        print(f"tree: {files} files, {args.megabytes} MB")
        cases = [
            ("literal, no match", "needle_not_there", {}),
            ("regex, no match", r"def \w+\(self, y\)", {}),
            ("regex, 200 matches", r"def f\d+0\(self", {}),
            ("regex, all ~22,000 matches", r"def f\d+\(self", {"max_results": 10**6}),
            ("\\A regex (per-line path), no match", r"\A    def f\d+\(self, y\)", {}),
            ("Python fallback (lookahead), no match", r"yield(?= yield yield yield yield)", {}),
        ]
        for label, pattern, extra in cases:
            samples = []
            for _ in range(args.runs):
                seconds, output = await grep(source, pattern, 120, **extra)
                samples.append(seconds)
            tail = output.splitlines()[-1][:100] if output else ""
            print(f"{label:40} {statistics.median(samples) * 1000:8.0f} ms   ({tail})")
        for timeout in (60.0, 3.0):
            seconds, output = await grep(source, "(a+)+$", timeout, path="evil.txt", max_results=1000)
            hits = sum(not line.startswith("[") for line in output.splitlines())
            verdict = "TIMED OUT" if output == "TIMED OUT" else f"{hits} matching lines"
            print(f"(a+)+$ over 1000 lines of 30 a's, tool timeout {timeout:g} s: {seconds * 1000:.1f} ms, {verdict}")
        seconds, output = await grep(source, r"^(a+)+$(?<=b)", 60.0, path="evil.txt")
        print(f"^(a+)+$(?<=b) (Python fallback) over the same file: {seconds:.2f} s: {output.splitlines()[-1][-90:]}")


if __name__ == "__main__":
    asyncio.run(main())
