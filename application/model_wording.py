"""Every sentence the loop writes for the model to read, in one place.

A tool result that is not a tool's own output (an error, a rejection, a timeout, a call left
unexecuted) and the notes the loop adds to a request (the turn limit) are worded here and nowhere
else, so changing what the model reads touches this one file, and ``docs/tools-and-sandbox.md``
("What the model receives when a call does not succeed") quotes it (a test compares the two).
Most of these sentences also end up in run events and in ``stop_reason`` details that people read:
they are written to be understood by both.
"""

from __future__ import annotations

from collections.abc import Iterable

from quorum.domain import amounts
from quorum.domain.review import ReviewDecision


def written_call_note(name: str) -> str:
    """The answer to a response that wrote a ``name`` call as text instead of making it."""
    return (
        f"You wrote a {name} call as text instead of calling the tool, so it was not run. To run it, "
        "make a real tool call. If you are done, answer in plain words, without a tool call."
    )


PROSE_NOTE = (
    "That was a tool call written as text, and no tools can run now. Answer in plain words: what you "
    "found and what you did."
)
"""Asked once when the answer after the turn limit is a tool call written as text."""


def stopped_with_calls(limit: int, done: str) -> str:
    """The run's output when the model's last answer was a tool call written as text: what was done."""
    return f"The run stopped at its tool turn limit ({limit}) without an answer from the model. {done}"


def wrote_calls_again(name: str, done: str) -> str:
    """The run's output when the model, told once, again answered with a ``name`` call written as text."""
    return f"The model answered with a {name} call written as text instead of an answer, twice; it was not run. {done}"


def what_was_done(calls: list[tuple[str, str]]) -> str:
    """The calls a run made and their outcomes, in words, for an output the model did not give."""
    if not calls:
        return "No tool call ran."
    shown = "; ".join(f"{name} ({outcome})" for name, outcome in calls[-20:])
    more = f"{len(calls) - 20} earlier call(s), then " if len(calls) > 20 else ""
    return f"Calls made: {more}{shown}."


TURN_LIMIT_NOTE = (
    "The tool turn limit of this run has been reached, so the calls above were not executed. "
    "Do not call tools. Give your best final answer from what you know so far."
)
"""The user text after the last results when ``on_turn_limit = "summarize"`` asks for an answer."""

INTERRUPTED_RESULT = "interrupted: the run ended before this call produced a result; it may or may not have run"
"""The result of a call whose run ended (killed, crashed) before it was answered, when the run is continued."""

RUN_CANCELLED = "the run was cancelled"
OUTPUT_TOKEN_LIMIT = "the model stopped at its output token limit"
THREAD_ABANDONED = " (its thread was abandoned)"
NOT_EXECUTED = "not executed: "
"""The start of the result of a call the loop left unexecuted because the run stops (its event: ``not_run``)."""
REFUSED = "; the call was not executed"
"""The end of the result of a call refused before it ran, its arguments wrong (event: ``invalid_arguments``)."""
COMPACTED = " was removed to save context; the run log keeps it]"
"""The end of the marker replacing an old tool output (``output_compacted``)."""
REPEATED = " calls exactly, and you already have its result above. Answer from it, or try something else."
"""The end of the loop guard's result (``repeated_call``)."""


def unknown_tool(name: str, available: Iterable[str]) -> str:
    """A call to a tool that is not offered."""
    return f"unknown tool {name!r}; available tools: {', '.join(available) or '(none)'}"


def withheld_tool(name: str, why: str) -> str:
    """A call to a tool a source knows but withholds: ``why`` says why and what the user can do."""
    return f"tool {name!r} is not offered in this run: {why}"


def not_executed_because(name: str, problem: str) -> str:
    """A call refused before it ran (its arguments are wrong): ``problem`` says what is wrong."""
    return f"{name}: {problem}{REFUSED}"


def arguments_not_an_object(error: str, received: str) -> str:
    """Arguments that are not a JSON object (``received``: the start of what the model sent)."""
    return f"arguments are not a JSON object ({error}); received: {received!r}"


def invalid_arguments(problems: list[str], more: int = 0) -> str:
    """Arguments that break the tool's schema: each of ``problems`` is ``where: what``."""
    return "invalid arguments: " + "; ".join(problems) + (f" (+{more} more)" if more else "")


def tool_failed(name: str, error: BaseException) -> str:
    """A tool that raised: its exception's type and message."""
    return f"tool {name!r} failed: {type(error).__name__}: {error}"


def os_error(name: str, error: OSError) -> str:
    """A built-in file tool's operating-system error (``strerror``: no errno, no path repeated)."""
    return f"{name} failed: {error.strerror or error}"


def tool_timed_out(name: str, seconds: float, how: str = "") -> str:
    """A call stopped at its timeout; ``how`` adds what was done to stop it (a killed process group)."""
    return f"{name} timed out after {seconds:g} s and was cancelled{how}"


def process_group_killed(exit_code: int | None) -> str:
    """``how`` of a command's timeout: its whole process group was killed."""
    return f"; the process group was killed (exit code {exit_code})"


def rejected(decision: ReviewDecision) -> str:
    """A call the review rejected: who decided, why, each dissenting vote, and a way forward."""
    lines = [f"Rejected by review ({decision.decided_by}): {decision.reason or 'no reason given'}"]
    for vote in decision.votes:
        if vote.verdict != "approve":
            lines.append(f"- {vote.reviewer} ({vote.verdict}): {vote.reason or 'no reason given'}")
    lines.append("The call was not executed. Consider a safer way to reach the goal.")
    return "\n".join(lines)


def review_failed(stage: str, error: BaseException | str) -> str:
    """The reason of a rejection because the review itself failed (fail-closed): ``stage`` names what failed."""
    what = f"{type(error).__name__}: {error}" if isinstance(error, BaseException) else error
    return f"{stage} failed: {what}"


def not_executed(detail: str) -> str:
    """The result of a call left unexecuted because the run stops (``detail``: why it stops)."""
    return f"{NOT_EXECUTED}{detail}"


def cancelled(detail: str) -> str:
    """The result of a call cut off by a timeout or cancellation of the whole run."""
    return f"cancelled: {detail}"


def rejections_exhausted(limit: int) -> str:
    """Why calls after too many rejections in a row are not executed."""
    return f"the run stops after {limit} consecutive rejections"


def turn_limit_reached(max_tool_turns: int) -> str:
    """Why the run stops at its tool turn limit."""
    return f"the tool turn limit ({max_tool_turns}) was reached"


def run_timed_out(seconds: float) -> str:
    """Why the run stopped at its timeout."""
    return f"the run timed out after {seconds:g} s"


def token_budget_exceeded(budget: int, used: int) -> str:
    """Why the run stopped at its token budget."""
    return f"the token budget of {budget} was exceeded ({used} used)"


def cycled_call(name: str, times: int, warnings_left: int) -> str:
    """A call the loop guard did not run: it already ran ``times`` times lately, to the same result each time."""
    last = (
        "the run stops at the next repeat"
        if warnings_left == 0
        else f"{warnings_left} more warning(s), then the run stops"
    )
    return (
        f"not executed: this {name} call, with these arguments, already ran {times} times in your recent calls "
        "and gave the same result each time, so you are going round in a circle. Do not repeat it: use the "
        f"result you have, try another tool or other arguments, or give your answer ({last})."
    )


def loop_detected(warnings: int) -> str:
    """Why the run stopped ``loop_detected``."""
    return f"the model kept repeating calls to the same result after {warnings} warnings"


def repeated_call(name: str, times: int) -> str:
    """A call the loop guard did not run: the same tool and arguments as each of the ``times`` calls before it."""
    return f"not executed: this {name} call repeats the previous {times}{REPEATED}"


def cost_cap_reached(cap: float, spent: float) -> str:
    """Why the run stopped at its cost cap (``[agent] max_cost_usd``)."""
    return f"the cost cap of ${cap:g} was reached ({amounts.usd(spent)} spent)"


def output_compacted(name: str, characters: int) -> str:
    """What replaces an old tool output when the context is compacted."""
    return f"[compacted: the {characters:,}-character output of {name}{COMPACTED}"


SUMMARY_INSTRUCTIONS = (
    "You summarize a conversation between a user and a software agent so that the agent can go on "
    "without it. Keep the facts found, the files and commands involved, decisions taken and what is "
    "left to do. Be brief; write no preamble."
)
"""The system prompt of the request that summarizes older conversation when the context is compacted."""


def summary_message(task: str, summary: str) -> str:
    """The first user message of a compacted history: the run's task verbatim, then the summary."""
    return f"{task}\n\n[The earlier conversation was compacted to save context. Its summary:]\n{summary}"


def outcome_unknown(why: str) -> str:
    """A high-risk call whose worker stopped mid-call (Temporal): it is not run again."""
    return (
        f"the outcome of this call is unknown: the worker executing it stopped or lost contact ({why}). "
        "It was not retried, as a high-risk call runs at most once. Check whether it took effect before trying again."
    )


def no_decision(timeout_seconds: float) -> str:
    """The rejection reason of a deferred call nobody decided within ``[review] approval_timeout``."""
    return f"no decision within [review] approval_timeout ({timeout_seconds / 3600:g} h); rejected"


PROPOSE_PLAN_DESCRIPTION = (
    "Propose your plan for the task: a summary and ordered steps, each with the files it changes and "
    "the commands it runs. Call it once you have explored enough; nothing is changed before the plan "
    "is approved. If it is rejected, revise it from the reasons given and propose it again."
)
"""The description of the ``propose_plan`` tool offered in plan mode's planning phase."""

PLANNING_INSTRUCTIONS = (
    "You are in plan mode, planning phase: explore with the read-only tools offered, then propose a "
    "plan with the propose_plan tool. Nothing can be changed in this phase: writes and commands that "
    "change things are refused."
)
"""Added to the system prompt during the planning phase."""

PLAN_NUDGE = "You have not proposed a plan. Call propose_plan with your plan now."
"""The user text after a planning-phase response that called no tool."""

PLANNING_REFUSED = "plan mode: only low-risk calls run in the planning phase; propose the change in your plan"
"""The reason a high-risk call of the planning phase is refused (whatever any rule or reviewer says)."""

PLAN_APPROVED = (
    "The plan was approved. Carry it out now, step by step. Every high-risk call is still reviewed, "
    "against this plan: a call that strays from it may be rejected."
)
"""The result of an approved ``propose_plan`` call: the execution phase starts."""

PLAN_NOT_APPROVED = "the plan was not approved"
"""Why a ``propose_plan`` call that did not pass review records no plan."""

PLAN_MALFORMED = "the plan is not well formed: give a summary and at least one step with a description"
"""The rejection of a ``propose_plan`` call whose arguments are not a plan."""


def approved_plan_prompt(plan: str) -> str:
    """The section the execution phase adds to the system prompt: the approved plan, numbered."""
    return f"The approved plan for this task (carry it out; reviewers check each high-risk call against it):\n{plan}"


def no_plan(max_plan_turns: int) -> str:
    """Why a plan-mode run stopped without an approved plan."""
    return f"no plan was approved within the planning turn limit ({max_plan_turns})"
