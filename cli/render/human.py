"""Human output: the model's text streamed to stdout; calls, reviews, results and status on stderr.

Everything shown comes from models, files and tools, so every string passes through ``printable``
(escape sequences and bidi overrides are shown escaped, never obeyed); only the renderer's own
styling writes escape sequences.
"""

from __future__ import annotations

import json
import time
from typing import Any, TextIO

from quorum.cli.render.spinner import Spinner
from quorum.domain.events import (
    ReviewEvent,
    RunEvent,
    RunFinished,
    RunStarted,
    TextDelta,
    ToolCallEvent,
    ToolResultEvent,
    TurnStarted,
)
from quorum.infrastructure.terminal_text import printable

RESULT_PREVIEW = 300
ARGUMENTS_PREVIEW = 200


def _shorten(text: str, limit: int) -> str:
    """``text`` on one line, escaped, at most ``limit`` characters."""
    flat = printable(" ".join(text.split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class HumanRenderer:
    """Renders run events for a person.

    The model's text goes to ``out`` as it arrives (so ``> answer.txt`` captures the answer);
    everything else goes to ``err``. ``verbosity``: -1 quiet (text and final line only), 0 normal,
    1 verbose (full results).
    """

    def __init__(self, out: TextIO, err: TextIO, *, verbosity: int = 0, color: bool = False) -> None:
        self._out = out
        self._err = err
        self._verbosity = verbosity
        self._color = color
        self._started = time.monotonic()
        self._text_open = False
        self._spinner = Spinner(err) if err.isatty() and verbosity >= 0 else None

    def on_event(self, event: RunEvent) -> None:
        if self._spinner is not None:
            self._spinner.stop()
        handler = getattr(self, f"_on_{event.type}", None)
        if handler is not None:
            handler(event)
        # Only while waiting for the model: during tool calls a human review may be asking on the
        # same terminal, and a spinner would write over its prompt.
        if self._spinner is not None and event.type == "turn_started":
            self._spinner.start("waiting for the model")

    def _style(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self._color else text

    def _line(self, text: str, *, quiet_ok: bool = False) -> None:
        if self._verbosity < 0 and not quiet_ok:
            return
        self._close_text()
        self._err.write(text + "\n")
        self._err.flush()

    def _close_text(self) -> None:
        if self._text_open:
            self._out.write("\n")
            self._out.flush()
            self._text_open = False

    def _on_run_started(self, event: RunStarted) -> None:
        self._line(self._style(printable(f"● run {event.run_id} · {event.model}"), "2"))

    def _on_turn_started(self, event: TurnStarted) -> None:
        self._close_text()  # each response's text starts on its own line
        if self._verbosity > 0:
            self._line(self._style(f"── turn {event.turn}", "2"))

    def _on_text(self, event: TextDelta) -> None:
        self._out.write(printable(event.text))
        self._out.flush()
        self._text_open = not event.text.endswith("\n")

    def _on_tool_call(self, event: ToolCallEvent) -> None:
        args = _shorten(json.dumps(event.arguments, ensure_ascii=False), ARGUMENTS_PREVIEW)
        risk = self._style("HIGH", "1;33") if event.risk == "high" else self._style("low", "2")
        self._line(f"→ {printable(event.name)} {args}  [{risk}]")

    def _on_review(self, event: ReviewEvent) -> None:
        word = self._style("APPROVED", "1;32") if event.approved else self._style("REJECTED", "1;31")
        self._line(f"  {word} by {event.decided_by}: {printable(event.reason or '')}")
        for vote in event.votes:
            if vote.verdict != "approve" or self._verbosity > 0:
                self._line(f"    {printable(vote.reviewer)}: {vote.verdict} — {printable(vote.reason)}")

    def _on_tool_result(self, event: ToolResultEvent) -> None:
        if event.is_rejected:
            mark = self._style("✗ rejected", "31")
        elif event.is_error:
            mark = self._style("✗ error", "31")
        else:
            mark = self._style("✓", "32")
        body = printable(event.output) if self._verbosity > 0 else _shorten(event.output, RESULT_PREVIEW)
        self._line(f"← {printable(event.name)} {mark} ({event.duration_ms:.0f} ms) {body}")

    def _on_run_finished(self, event: RunFinished) -> None:
        self._close_text()
        elapsed = time.monotonic() - self._started
        usage: Any = event.usage
        tokens = usage.input_tokens + usage.output_tokens
        style = "32" if event.stop_reason == "end_turn" else "33"
        summary = (
            f"■ {event.stop_reason} · {event.turns} turn{'s' if event.turns != 1 else ''} · "
            f"{tokens} tokens ({usage.input_tokens} in, {usage.output_tokens} out) · {elapsed:.1f} s"
        )
        self._line(self._style(summary, style), quiet_ok=True)
        if event.detail and event.stop_reason != "end_turn":
            self._line(f"  {printable(event.detail)}", quiet_ok=True)

    def close(self) -> None:
        if self._spinner is not None:
            self._spinner.stop()
        self._close_text()
