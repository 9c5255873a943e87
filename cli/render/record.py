"""A recorded run as ``quorum logs show`` prints it: every turn, text, call, review, vote and result.

The human renderer with the table of a recorded run: the same dispatch on event classes, the same
escaping (every string passes through ``printable``) and the same words for amounts, without the
live parts (no status, no markdown, no colour). Everything goes to one stream, in full: each
call with its risk and id, each vote with its latency, each result's whole output, and the moment
each turn started.

A decision a person made is shown as theirs: ``by human (alice): "their reason"``, the name as
``words.person_name`` shows it and every reason of theirs (the decision's and their vote's) quoted,
so no text of theirs reads as Quorum's own.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TextIO

from quorum.cli.render import words
from quorum.cli.render.human import HumanRenderer
from quorum.cli.render.words import person_name
from quorum.domain import amounts
from quorum.domain.events import (
    CheckpointEvent,
    PlanProposed,
    PlanReviewed,
    ReasoningEvent,
    ReviewEvent,
    RunEvent,
    RunFinished,
    TextDelta,
    ToolCallEvent,
    ToolOutcome,
    ToolResultEvent,
    TurnStarted,
)
from quorum.infrastructure.terminal_text import printable, quoted

OUTCOME_WORDS: dict[ToolOutcome, str] = {
    "ok": "ok",
    "error": "error",
    "rejected": "rejected",
    "invalid_arguments": "invalid arguments",
    "timed_out": "timed out",
}


def when(moment: datetime | None) -> str:
    """A recorded moment in local time (``2026-01-31 14:05:09``), ``-`` when there is none."""
    return "-" if moment is None else moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


class RecordRenderer(HumanRenderer):
    """Renders the events of a recorded run, in full, on ``out`` (see the module docstring)."""

    def __init__(self, out: TextIO) -> None:
        super().__init__(out, out, verbosity=1, color=False, markdown=False, live=False)
        self._text: list[str] = []
        self._at: datetime | None = None

    def show(self, event: RunEvent, at: datetime | None = None) -> None:
        """Render ``event``, recorded at ``at``."""
        self._at = at
        self.on_event(event)

    def on_event(self, event: RunEvent) -> None:
        if not isinstance(event, TextDelta):
            self._said_text()
        self._dispatch(event)

    def close(self) -> None:
        self._said_text()
        super().close()

    def _print(self, text: str) -> None:
        self._line(printable(text))

    def _said_text(self) -> None:
        """The model's text gathered since the last other event, as one ``model:`` paragraph."""
        if self._text:
            self._print("  model: " + "".join(self._text).strip().replace("\n", "\n         "))
            self._text.clear()

    # -- handlers -----------------------------------------------------------------------------
    def _on_turn_started(self, event: TurnStarted) -> None:
        self._print(f"\n── turn {event.turn} ── {when(self._at)}")

    def _on_text(self, event: TextDelta) -> None:
        self._text.append(event.text)

    def _on_reasoning(self, event: ReasoningEvent) -> None:
        self._print("  reasoning:" + ("" if event.text else " (not shown by the provider)"))
        for line in event.text.splitlines():
            self._print(f"      {line}")

    def _on_tool_call(self, event: ToolCallEvent) -> None:
        arguments = json.dumps(event.arguments, ensure_ascii=False)
        self._print(f"  → {event.name} [{event.risk}] {arguments}  (id {event.id})")

    def _on_review(self, event: ReviewEvent) -> None:
        verdict = "approved" if event.approved else "REJECTED"
        rule = f", rule {event.rule}" if event.rule else ""
        who = _decider(event.decided_by, event.by)
        self._print(
            f"    review of {event.call_id}: {verdict} by {who}{rule}: {_reason(event.decided_by, event.reason)}"
        )
        for vote in event.votes:
            said = _reason(event.decided_by, vote.reason) if vote.reviewer == "human" else vote.reason
            self._print(f"      - {vote.reviewer}: {vote.verdict} ({vote.latency_ms:g} ms) {said}")

    def _on_plan_proposed(self, event: PlanProposed) -> None:
        self._print(f"  plan proposed ({event.call_id}, proposal {event.attempt}):")
        for line in event.plan.numbered().splitlines():
            self._print(f"      {line}")

    def _on_plan_reviewed(self, event: PlanReviewed) -> None:
        verdict = "approved" if event.approved else "REJECTED"
        who = _decider(event.decided_by, event.by)
        self._print(f"    plan {event.call_id}: {verdict} by {who}: {_reason(event.decided_by, event.reason)}")

    def _on_checkpoint(self, event: CheckpointEvent) -> None:
        self._print(printable(f"    {words.checkpoint_line(event)}"))

    def _on_tool_result(self, event: ToolResultEvent) -> None:
        outcome = OUTCOME_WORDS[event.outcome]
        self._print(f"  ← {event.name} {outcome} in {event.duration_ms:g} ms  (id {event.call_id})")
        for line in event.output.splitlines() or [""]:
            self._print(f"      {line}")

    def _on_run_finished(self, event: RunFinished) -> None:
        detail = f": {event.detail}" if event.detail else ""
        self._print(f"\n■ {event.stop_reason} after {event.turns} turn(s){detail}")
        self._print(f"  tokens {amounts.run_tokens(event.usage)} · cost {amounts.usd_or(event.cost)}")
        if event.output:
            self._print(event.output)


def _decider(decided_by: str, by: str | None) -> str:
    """``human (alice)``: who decided, the person named as ``person_name`` shows them."""
    return f"{decided_by} ({person_name(by)})" if by else decided_by


def _reason(decided_by: str, reason: str) -> str:
    """A person's reason quoted (it is their text, not Quorum's); any other decision's as it is."""
    return quoted(reason) if decided_by == "human" else reason


RecordRenderer.HANDLERS = {
    TurnStarted: RecordRenderer._on_turn_started,
    TextDelta: RecordRenderer._on_text,
    ReasoningEvent: RecordRenderer._on_reasoning,
    ToolCallEvent: RecordRenderer._on_tool_call,
    ReviewEvent: RecordRenderer._on_review,
    PlanProposed: RecordRenderer._on_plan_proposed,
    PlanReviewed: RecordRenderer._on_plan_reviewed,
    ToolResultEvent: RecordRenderer._on_tool_result,
    CheckpointEvent: RecordRenderer._on_checkpoint,
    RunFinished: RecordRenderer._on_run_finished,
}
