"""What ``quorum batch`` shows: progress as tasks end, the summary table, or JSON lines.

Human output: one line per task on stderr as it ends (``done``, ``failed``, ``stopped``,
``waiting for approval``), under a live status line (rich, only when stderr is a terminal) counting
running and ended tasks; then the summary table on stdout. ``--json``: one object per task on
stdout as it ends (``"type": "task"``, skipped ones first), then one ``"type": "summary"`` object.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any, TextIO

from quorum.cli.batch.tasks import BatchTask, TaskOutcome
from quorum.infrastructure.terminal_text import printable

LABELS = {"done": "done", "failed": "failed", "stopped": "stopped", "waiting": "waiting for approval"}


def _one_line(text: str | None, width: int = 60) -> str:
    flat = printable(" ".join((text or "").split()))
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def counts(outcomes: Sequence[TaskOutcome]) -> Counter[str]:
    return Counter(outcome.category for outcome in outcomes)


class JsonProgress:
    """``--json``: a line per ended task, then the summary."""

    def __init__(self, stream: TextIO = sys.stdout) -> None:
        self._stream = stream

    def started(self, task: BatchTask, run_id: str) -> None:
        """Nothing: only outcomes are printed."""

    def ended(self, outcome: TaskOutcome) -> None:
        self._stream.write(json.dumps(outcome.as_json()) + "\n")
        self._stream.flush()

    def finish(self, outcomes: Sequence[TaskOutcome], exit_code: int) -> None:
        tally = counts(outcomes)
        summary: dict[str, Any] = {"type": "summary", "tasks": len(outcomes)}
        summary.update({category: tally[category] for category in LABELS})
        summary.update(skipped=sum(o.skipped for o in outcomes), exit_code=exit_code)
        self._stream.write(json.dumps(summary) + "\n")
        self._stream.flush()


class HumanProgress:
    """Lines on stderr as tasks end (a live status line on a terminal), the table on stdout at the end."""

    def __init__(self, total: int, *, live: bool, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> None:
        from rich.console import Console

        self._total = total
        self._ended: list[TaskOutcome] = []
        self._running = 0
        # Not a terminal: no width to fit, so wide enough that ids and run ids stay whole.
        self._out = Console(file=out, highlight=False, width=None if out.isatty() else 160)
        self._err = Console(file=err, highlight=False, soft_wrap=True)
        self._live: Any = None
        if live:
            from rich.live import Live

            self._live = Live(self._status(), console=self._err, transient=True, auto_refresh=False)
            self._live.start()

    def _status(self) -> str:
        tally = counts(self._ended)
        parts = [f"{tally[c]} {LABELS[c]}" for c in LABELS if tally[c]]
        return f"batch: {len(self._ended)}/{self._total} ended, {self._running} running" + (
            " · " + ", ".join(parts) if parts else ""
        )

    def _refresh(self) -> None:
        if self._live is not None:
            self._live.update(self._status(), refresh=True)

    def started(self, task: BatchTask, run_id: str) -> None:
        self._running += 1
        self._refresh()

    def ended(self, outcome: TaskOutcome) -> None:
        if not outcome.skipped:
            self._running -= 1
        self._ended.append(outcome)
        label = ("already " if outcome.skipped else "") + LABELS[outcome.category]
        why = ""
        if outcome.category != "done":
            why = f" ({outcome.status}" + (f": {_one_line(outcome.detail)})" if outcome.detail else ")")
        line = f"[{len(self._ended)}/{self._total}] {label}: {printable(outcome.task.id)}"
        self._err.print(line + (f" · run {outcome.run_id}" if outcome.run_id else "") + why, markup=False)
        self._refresh()

    def finish(self, outcomes: Sequence[TaskOutcome], exit_code: int) -> None:
        from rich.table import Table
        from rich.text import Text

        if self._live is not None:
            self._live.stop()
        table = Table(title=None, show_edge=False, pad_edge=False)
        for column in ("id", "result", "status", "run", "turns"):
            table.add_column(column, no_wrap=True)
        table.add_column("output or detail", overflow="fold")
        for outcome in sorted(outcomes, key=lambda o: o.task.line):
            shown = outcome.output if outcome.category == "done" else (outcome.detail or outcome.output)
            result = LABELS[outcome.category] + (" (earlier)" if outcome.skipped else "")
            cells = (printable(outcome.task.id), result, outcome.status, outcome.run_id or "-", str(outcome.turns))
            table.add_row(*(Text(cell) for cell in (*cells, _one_line(shown))))
        self._out.print(table)
        tally = counts(outcomes)
        self._out.print(f"{len(outcomes)} tasks: " + ", ".join(f"{tally[c]} {LABELS[c]}" for c in LABELS), markup=False)
