"""The live status on stderr while something takes time: the model, running tools, a review.

Each line says what is under way and for how long; a call under review adds the votes cast so far
(``reviewing write_file · 2.1 s · ✓ gpt-4.1 ✗ claude``), a running call its latest progress
(``running run_command · 3.2 s · Compiling foo``, ``40%``, ``3/10``, ``starting MCP server docs``).

Drawn with rich (imported on first use, so ``quorum --help`` never loads it) in a transient region
that is erased before any other line is written, and refreshed by a task on the run's own event
loop (no thread writes to the terminal behind the renderer's back). Used only when stderr is a
terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from quorum.infrastructure.terminal_text import printable

REFRESH_SECONDS = 0.1
MESSAGE_WIDTH = 120
"""Characters of a progress message shown (the line is also cut to the terminal's width)."""
VOTE_MARKS = {"approve": "✓", "reject": "✗", "error": "?"}


@dataclass
class _Call:
    name: str
    high_risk: bool
    state: str  # "running", "to review", "reviewing"
    since: float = field(default_factory=time.monotonic)
    votes: list[tuple[str, str]] = field(default_factory=list)  # (reviewer, verdict) as cast
    progress: str = ""  # the latest progress, as shown


def _amount(progress: float | None, total: float | None) -> str:
    """``3/10`` for counts, ``40%`` for fractions or a total of 100, the bare number without a total."""
    if progress is None:
        return ""
    if not total or total <= 0:
        return f"{progress:g}"
    if total == 100 or not (float(progress).is_integer() and float(total).is_integer()):
        return f"{min(progress / total, 1.0):.0%}"
    return f"{progress:g}/{total:g}"


def _message(text: str) -> str:
    """``text`` on one line, escaped, at most ``MESSAGE_WIDTH`` characters."""
    flat = printable(" ".join(text.split()))
    return flat if len(flat) <= MESSAGE_WIDTH else flat[: MESSAGE_WIDTH - 1] + "…"


def _reviewer(name: str) -> str:
    """A reviewer as shown among the votes: its model without the provider (``openai:gpt-4.1`` → ``gpt-4.1``)."""
    return printable(name.partition(":")[2] or name)


class LiveStatus:
    """What is under way, shown as spinner lines under the output until it is done.

    ``waiting()`` shows the model's wait; ``call_*`` track each tool call of a turn, shown as a
    group when several are under way; ``suspended()`` hides everything while something else
    writes to the terminal (an answer line, a review question).
    """

    def __init__(self, stream: TextIO, *, color: bool) -> None:
        self._stream = stream
        self._color = color
        self._model_since: float | None = None
        self._calls: dict[str, _Call] = {}
        self._live: Any = None
        self._task: asyncio.Task[None] | None = None
        self._suspended = 0

    # -- what is under way -------------------------------------------------------------------
    def waiting(self) -> None:
        """The model was asked; its answer is awaited."""
        self._calls.clear()
        self._model_since = time.monotonic()
        self._show()

    def answered(self) -> None:
        """The model's response started (its text is shown as it arrives)."""
        self._model_since = None
        self._show()

    def call_announced(self, call_id: str, name: str, *, high_risk: bool) -> None:
        self._model_since = None
        self._calls[call_id] = _Call(name, high_risk, "to review" if high_risk else "running")
        self._show()

    def call_voted(self, call_id: str, reviewer: str, verdict: str) -> None:
        """A reviewer voted on ``call_id``: it is under review now, and the vote is shown."""
        call = self._calls.get(call_id)
        if call is None:
            return
        if call.state == "to review":
            call.state, call.since = "reviewing", time.monotonic()
        call.votes.append((reviewer, verdict))
        self._show()

    def call_progress(
        self, call_id: str, message: str, progress: float | None = None, total: float | None = None
    ) -> None:
        """``call_id`` reported progress; the latest report replaces the one before."""
        call = self._calls.get(call_id)
        if call is None:
            return
        call.progress = " · ".join(part for part in (_amount(progress, total), _message(message)) if part)
        self._show()

    def call_approved(self, call_id: str) -> None:
        call = self._calls.get(call_id)
        if call is not None:
            call.state, call.since = "running", time.monotonic()
            call.votes.clear()
        self._show()

    def call_done(self, call_id: str) -> None:
        self._calls.pop(call_id, None)
        self._show()

    def idle(self) -> None:
        """Nothing is under way (the run ended)."""
        self._model_since = None
        self._calls.clear()
        self._show()

    @contextlib.contextmanager
    def suspended(self) -> Iterator[None]:
        """Hide the status while the body writes to the terminal; show it again afterwards."""
        self._suspended += 1
        self._hide()
        try:
            yield
        finally:
            self._suspended -= 1
            self._show()

    def close(self) -> None:
        self.idle()
        self._hide()

    # -- drawing ------------------------------------------------------------------------------
    def _busy(self) -> bool:
        return self._model_since is not None or bool(self._calls)

    def _show(self) -> None:
        if self._suspended or not self._busy():
            self._hide()
            return
        if self._live is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return
            from rich.console import Console
            from rich.live import Live

            console = Console(file=self._stream, force_terminal=True, no_color=not self._color, highlight=False)
            self._live = Live(
                console=console,
                auto_refresh=False,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start()
            self._task = loop.create_task(self._tick())
        self._live.update(self._renderable(), refresh=True)

    def _hide(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self._live is not None:
            live, self._live = self._live, None
            live.stop()

    async def _tick(self) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            while True:
                await asyncio.sleep(REFRESH_SECONDS)
                if self._live is not None:
                    self._live.update(self._renderable(), refresh=True)

    def _lines(self) -> list[str]:
        now = time.monotonic()
        if self._model_since is not None:
            return [f"waiting for the model · {now - self._model_since:.1f} s"]
        calls = list(self._calls.values())
        running = [c for c in calls if c.state == "running"]
        if not running:  # high-risk calls are reviewed one at a time, in order, after the others ran
            for call in calls:
                if call.state == "to review":
                    call.state, call.since = "reviewing", now
                    break
        lines = []
        for call in calls:
            if call.state == "to review":
                continue
            line = f"{'reviewing' if call.state == 'reviewing' else 'running'} {printable(call.name)}"
            line += f" · {now - call.since:.1f} s"
            if call.state == "reviewing" and call.votes:
                line += " · " + " ".join(f"{VOTE_MARKS.get(v, v)} {_reviewer(r)}" for r, v in call.votes)
            elif call.state == "running" and call.progress:
                line += " · " + call.progress
            lines.append(line)
        waiting = sum(c.state == "to review" for c in calls)
        if waiting:
            lines.append(f"{waiting} more to review")
        return lines

    def _renderable(self) -> Any:
        from rich.console import Group
        from rich.spinner import Spinner
        from rich.text import Text

        lines = self._lines()
        style = "cyan" if self._color else ""
        width = max(self._live.console.width - 3, 20) if self._live is not None else None  # spinner + space
        spinners = [Spinner("dots", Text(_fit(line, width)), style=style) for line in lines]
        if len(lines) > 1:
            running = sum(line.startswith("running ") for line in lines)
            if running > 1:
                return Group(Text(f"{running} calls in parallel", style="dim" if self._color else ""), *spinners)
        return Group(*spinners)


def _fit(line: str, width: int | None) -> str:
    """``line`` cut to ``width`` characters, so a long line never wraps inside the live region."""
    if width is None or len(line) <= width:
        return line
    return line[: width - 1] + "…"
