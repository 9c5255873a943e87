"""Human output: the model's text on stdout; calls, decisions, results, live status and the final line on stderr.

One renderer for every run event, dispatching on the event's class through its ``HANDLERS``
table; ``record.RecordRenderer`` is the same renderer with the table of a recorded run (``quorum
logs show``). The
words of decisions and of the final line come from ``words``; the answer is drawn by ``answer``
(markdown on a terminal, plain text otherwise); the live status by ``live`` (only when stderr is
a terminal; votes as they arrive and progress reports appear only there, never as printed
lines). Everything shown comes from models, files and tools, so every string passes through
``printable`` (escape sequences and bidi overrides are shown escaped, never obeyed); only the
renderer's own styling writes escape sequences.

``verbosity``: -1 quiet (stdout gets only the final answer, stderr only the final line), 0
normal, 1 verbose (full results, every vote).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, TextIO

from quorum.application.plan_mode import PROPOSE_PLAN
from quorum.cli.render import words
from quorum.cli.render.answer import AnswerOut, MarkdownAnswer, PlainAnswer
from quorum.cli.render.color import is_terminal
from quorum.cli.render.live import LiveStatus
from quorum.domain import amounts
from quorum.domain.events import (
    ApprovalRequested,
    CheckpointEvent,
    ContextCompacted,
    McpLog,
    McpSampling,
    McpServerEvent,
    McpToolChanged,
    McpToolsPinned,
    ModelFallback,
    PlanProposed,
    PlanReviewed,
    ReasoningEvent,
    ReviewEvent,
    RunEvent,
    RunFinished,
    RunStarted,
    TextDelta,
    ToolCallEvent,
    ToolProgress,
    ToolResultEvent,
    TurnFinished,
    TurnStarted,
    VoteCast,
)
from quorum.infrastructure.terminal_text import printable

RESULT_PREVIEW = 300
ARGUMENTS_PREVIEW = 200


def _shorten(text: str, limit: int) -> str:
    """``text`` on one line, escaped, at most ``limit`` characters."""
    flat = printable(" ".join(text.split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _invalid_problem(call: ToolCallEvent, result: ToolResultEvent) -> str | None:
    """Why ``call`` was refused before review, when ``result`` is its ``invalid_arguments`` result; else None."""
    if call.id != result.call_id or result.outcome != "invalid_arguments":
        return None
    return result.problem or result.output


Handler = Callable[[Any, Any], None]
"""How a renderer shows one event: ``handler(renderer, event)``."""


class HumanRenderer:
    """Renders run events for a person (see the module docstring)."""

    HANDLERS: ClassVar[dict[type[Any], Handler]] = {}
    """Event class → handler: every event the renderer shows (set below the class)."""

    def __init__(
        self,
        out: TextIO,
        err: TextIO,
        *,
        verbosity: int = 0,
        color: bool = False,
        markdown: bool | None = None,
        live: bool | None = None,
    ) -> None:
        self._out = out
        self._err = err
        self._verbosity = verbosity
        self._color = color
        self._started = time.monotonic()
        self._out_is_terminal = is_terminal(out)
        use_markdown = self._out_is_terminal if markdown is None else markdown
        self._answer: AnswerOut = MarkdownAnswer(out, color=color) if use_markdown else PlainAnswer(out)
        use_live = is_terminal(err) and verbosity >= 0 if live is None else live
        self._status = LiveStatus(err, color=color) if use_live else None
        self._pending_call: ToolCallEvent | None = None
        self._own_run: str | None = None
        self._run_id: str | None = None
        """The run's id (``run_started``): what ``quorum undo`` takes, said with a reversible approval."""
        self.instructions: tuple[str, ...] = ()
        """The project instructions (AGENTS.md files) the run reads, named on its first line."""

    # -- dispatch ---------------------------------------------------------------------------------
    def on_event(self, event: RunEvent) -> None:
        if self._delegated(event):
            return
        pending, self._pending_call = self._pending_call, None
        if pending is not None:
            problem = _invalid_problem(pending, event) if isinstance(event, ToolResultEvent) else None
            if problem is not None:
                self._invalid(pending, problem)
                return
            self._announce(pending)
        self._dispatch(event)

    def _delegated(self, event: RunEvent) -> bool:
        """Show an event of a child run (a delegation, tagged with its run id) indented; True if it was one."""
        if isinstance(event, RunStarted) and self._own_run in (None, event.run_id):
            self._own_run = event.run_id
            return False
        if event.run_id is None or event.run_id == self._own_run:
            if isinstance(event, RunFinished):
                self._own_run = None
            return False
        line = words.delegated_line(event)
        if line is not None and self._verbosity >= 0:
            self._line(self._style(printable("    " + line), "dim"))
        return True

    def _dispatch(self, event: RunEvent) -> None:
        handler = self.HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)

    @contextlib.contextmanager
    def suspended(self) -> Iterator[None]:
        """Hide the live status while the body writes to the terminal (a review question)."""
        if self._status is None:
            yield
            return
        with self._status.suspended():
            yield

    def flush(self) -> None:
        """Say the call held back until its validity is known."""
        pending, self._pending_call = self._pending_call, None
        if pending is not None:
            self._announce(pending)

    def close(self) -> None:
        self.flush()
        if self._status is not None:
            self._status.close()
        self._answer.end()

    # -- writing -------------------------------------------------------------------------------
    def _style(self, text: str, style: str) -> str:
        codes = {"dim": "2", "green": "32", "red": "31", "yellow": "33", "bold red": "1;31", "bold green": "1;32"}
        return f"\x1b[{codes[style]}m{text}\x1b[0m" if self._color else text

    def _on_mcp_log(self, event: McpLog) -> None:
        if self._verbosity > 0:  # server logs are for -v
            logger = f" {event.logger}" if event.logger else ""
            self._line(self._style(printable(f"  mcp {event.server}{logger} [{event.level}] {event.message}"), "dim"))

    def _on_context_compacted(self, event: ContextCompacted) -> None:
        before, after = amounts.count(event.tokens_before), amounts.count(event.tokens_after)
        count = event.messages_compacted
        line = f"  context compacted: ~{before} → ~{after} tokens ({count} messages; the run log keeps them whole)"
        self._line(self._style(line, "dim"))

    def _on_checkpoint(self, event: CheckpointEvent) -> None:
        if self._verbosity > 0:  # the files a call changed are for -v; quorum undo lists them all
            self._line(self._style(printable(f"  {words.checkpoint_line(event)}"), "dim"))

    def _on_model_fallback(self, event: ModelFallback) -> None:
        self._line(self._style(printable(f"  {words.fallback_line(event)}"), "yellow"))

    def _on_mcp_sampling(self, event: McpSampling) -> None:
        if event.approved and event.error is None:
            tokens = f"{event.usage.input_tokens}+{event.usage.output_tokens} tokens"
            self._line(printable(f"  mcp {event.server} sampled {event.model} ({tokens})"))
        else:
            outcome = "failed" if event.approved else "refused"
            self._line(printable(f"  mcp {event.server} sampling {outcome}: {event.error}"))

    def _on_mcp_tools_pinned(self, event: McpToolsPinned) -> None:
        count = f"{event.tool_count} tool{'s' * (event.tool_count != 1)}"
        self._line(self._style(printable(f"● MCP server {event.server}: {count} pinned (first use)"), "dim"))

    def _on_mcp_tool_changed(self, event: McpToolChanged) -> None:
        what = "is new" if event.change == ["new"] else "changed (" + ", ".join(event.change) + ")"
        line = (
            f"! MCP tool {event.tool} of server {event.server} {what}: withheld until trusted "
            f"(quorum mcp trust {event.server} {event.tool})"
        )
        self._line(self._style(printable(line), "yellow"), quiet_ok=True)

    def _line(self, text: str, *, quiet_ok: bool = False) -> None:
        if self._verbosity < 0 and not quiet_ok:
            return
        with self.suspended():
            self._answer.end()
            self._err.write(text + "\n")
            self._err.flush()

    def _write_answer(self, text: str) -> None:
        if self._out_is_terminal and self._status is not None:
            with self._status.suspended():
                drawn = self._answer.write(text)
            if drawn:
                self._status.answered()
        else:
            self._answer.write(text)

    # -- handlers -----------------------------------------------------------------------------
    def _on_run_started(self, event: RunStarted) -> None:
        self._run_id = event.run_id
        read = f" · instructions: {', '.join(self.instructions)}" if self.instructions else ""
        self._line(self._style(printable(f"● run {event.run_id} · {event.model}{read}"), "dim"))

    def _on_turn_started(self, event: TurnStarted) -> None:
        if self._verbosity > 0:
            self._line(self._style(f"── turn {event.turn}", "dim"))
        else:
            self._answer.end()  # each response's text starts on its own line
        if self._status is not None:
            self._status.waiting()

    def _on_text(self, event: TextDelta) -> None:
        if self._verbosity >= 0:
            self._write_answer(event.text)

    def _on_reasoning(self, event: ReasoningEvent) -> None:
        """With ``-v``, the model's reasoning, dimmed: it is not the answer."""
        if self._verbosity <= 0:
            return
        lines = event.text.splitlines() or ["(reasoning not shown by the provider)"]
        for line in lines:
            self._line(self._style(printable(f"  ∴ {line}"), "dim"))

    def _on_tool_call(self, event: ToolCallEvent) -> None:
        if event.risk == "high":
            # Held until the next event: an invalid call (announced high-risk) is answered with an
            # ``invalid_arguments`` result in the same step of the loop, and said in one line with
            # it; any other call is said at the latest when that step yields.
            self._pending_call = event
            with contextlib.suppress(RuntimeError):  # no running loop: said with the next event
                asyncio.get_running_loop().call_soon(self.flush)
        else:
            self._announce(event)

    def _announce(self, event: ToolCallEvent) -> None:
        args = _shorten(json.dumps(event.arguments, ensure_ascii=False), ARGUMENTS_PREVIEW)
        risk = "  " + self._style("high risk", "yellow") if event.risk == "high" else ""
        self._line(f"→ {printable(event.name)} {args}{risk}")
        if self._status is not None:
            self._status.call_announced(event.id, event.name, high_risk=event.risk == "high")

    def _invalid(self, call: ToolCallEvent, problem: str) -> None:
        args = _shorten(json.dumps(call.arguments, ensure_ascii=False), ARGUMENTS_PREVIEW)
        mark = self._style("✗ invalid", "red")
        self._line(f"→ {printable(call.name)} {args}  {mark}: {_shorten(problem, RESULT_PREVIEW)}")

    def _on_review(self, event: ReviewEvent) -> None:
        if event.name != PROPOSE_PLAN:  # a plan's decision is said by its plan_reviewed event
            mark = self._style("✓", "green") if event.approved else self._style("✗", "red")
            self._line(f"  {mark} {printable(words.decision_line(event, self._run_id))}")
            self._votes(event)
        if self._status is not None:
            if event.approved:
                self._status.call_approved(event.call_id)
            else:
                self._status.call_done(event.call_id)

    def _on_approval_requested(self, event: ApprovalRequested) -> None:
        mark = self._style("⏸", "yellow")
        why = f": {_shorten(printable(event.reason), RESULT_PREVIEW)}" if event.reason else ""
        self._line(f"  {mark} waiting for a person{why}")
        for reviewer, verdict, reason in [(v.reviewer, str(v.verdict), v.reason) for v in event.votes]:
            self._line(f"      {printable(reviewer)} ({verdict}): {_shorten(reason, RESULT_PREVIEW)}")
        if self._status is not None:
            self._status.call_done(event.call_id)

    def _on_plan_proposed(self, event: PlanProposed) -> None:
        for line in words.plan_lines(event):
            self._line(printable(line))

    def _on_plan_reviewed(self, event: PlanReviewed) -> None:
        mark = self._style("✓", "green") if event.approved else self._style("✗", "red")
        self._line(f"  {mark} {printable(words.plan_decision(event))}")
        self._votes(event)

    def _votes(self, event: ReviewEvent | PlanReviewed) -> None:
        """The votes under a decision line: every vote of a plan, or with -v; else a panel's dissent."""
        if self._verbosity > 0 or isinstance(event, PlanReviewed):
            votes = [(vote.reviewer, str(vote.verdict), vote.reason) for vote in event.votes]
        else:
            votes = words.dissent(event)
        for reviewer, verdict, reason in votes:
            self._line(f"      {printable(reviewer)} ({verdict}): {_shorten(reason, RESULT_PREVIEW)}")

    def _on_vote(self, event: VoteCast) -> None:
        # Live status only: the review line that follows prints the votes (all of them with -v).
        if self._status is not None:
            self._status.call_voted(event.call_id, event.reviewer, str(event.verdict))

    def _on_progress(self, event: ToolProgress) -> None:
        # Live status only: a command's output is in its result line.
        if self._status is not None:
            self._status.call_progress(event.call_id, event.message, event.progress, event.total)

    def _on_tool_result(self, event: ToolResultEvent) -> None:
        if self._status is not None:
            self._status.call_done(event.call_id)
        name = printable(event.name)
        if event.is_rejected:  # the decision line said it, with its reasons
            if self._verbosity > 0:
                self._line(f"← {name} {self._style('not run', 'red')}: {printable(event.output)}")
            return
        if event.outcome == "not_run":
            note = event.problem or event.output
            self._line(f"← {name} {self._style('not run', 'yellow')}: {_shorten(note, RESULT_PREVIEW)}")
            return
        mark = self._style("✗ error", "red") if event.is_error else self._style("✓", "green")
        body = printable(event.output) if self._verbosity > 0 else _shorten(event.output, RESULT_PREVIEW)
        self._line(f"← {name} {mark} ({event.duration_ms:.0f} ms) {body}")

    def _on_mcp_server(self, event: McpServerEvent) -> None:
        name = printable(event.name)
        if event.state == "failed":
            # The first line of the error is the reason; the server's stderr tail follows with -v.
            error = (event.error or "unknown error").removeprefix("failed to start: ")
            lines = printable(error).splitlines() or ["unknown error"]
            shown = lines if self._verbosity > 0 else lines[:1]
            self._line(self._style(f"! MCP server {name} failed to start: {shown[0]}", "yellow"))
            for line in shown[1:]:
                self._line(f"    {line}")
        elif event.state == "restarted":
            why = f": {_shorten(printable(event.error), RESULT_PREVIEW)}" if event.error and self._verbosity > 0 else ""
            self._line(self._style(f"● MCP server {name} restarted{why}", "dim"))
        elif self._verbosity > 0:
            self._line(self._style(f"● MCP server {name} started ({event.duration_ms:.0f} ms)", "dim"))

    def _on_turn_finished(self, event: TurnFinished) -> None:
        if self._status is not None:
            self._status.idle()

    def _on_run_finished(self, event: RunFinished) -> None:
        if self._status is not None:
            self._status.idle()
        if self._verbosity < 0:
            self._answer.write(event.output)
        self._answer.end()
        elapsed = time.monotonic() - self._started
        if event.stop_reason == "end_turn":
            style = "green"
        elif event.stop_reason in ("error", "cancelled"):
            style = "red"
        else:
            style = "yellow"
        self._line(self._style(printable(words.final_line(event, elapsed)), style), quiet_ok=True)


HumanRenderer.HANDLERS = {
    RunStarted: HumanRenderer._on_run_started,
    TurnStarted: HumanRenderer._on_turn_started,
    TextDelta: HumanRenderer._on_text,
    ReasoningEvent: HumanRenderer._on_reasoning,
    ToolCallEvent: HumanRenderer._on_tool_call,
    VoteCast: HumanRenderer._on_vote,
    ReviewEvent: HumanRenderer._on_review,
    ApprovalRequested: HumanRenderer._on_approval_requested,
    PlanProposed: HumanRenderer._on_plan_proposed,
    PlanReviewed: HumanRenderer._on_plan_reviewed,
    ToolProgress: HumanRenderer._on_progress,
    ToolResultEvent: HumanRenderer._on_tool_result,
    McpServerEvent: HumanRenderer._on_mcp_server,
    McpLog: HumanRenderer._on_mcp_log,
    McpSampling: HumanRenderer._on_mcp_sampling,
    McpToolsPinned: HumanRenderer._on_mcp_tools_pinned,
    McpToolChanged: HumanRenderer._on_mcp_tool_changed,
    ContextCompacted: HumanRenderer._on_context_compacted,
    ModelFallback: HumanRenderer._on_model_fallback,
    CheckpointEvent: HumanRenderer._on_checkpoint,
    TurnFinished: HumanRenderer._on_turn_finished,
    RunFinished: HumanRenderer._on_run_finished,
}
