"""What the human output says about decisions and how a run ended: one place for the wording.

Each function returns plain, unstyled text (the renderer styles and escapes it) worded from the
events' fields (a stop's ``stop``, a panel's votes and ``votes_needed``), never from the
sentences the application wrote: those are shown as they are, or not at all. The README's CLI
section quotes these words, and ``tests/e2e/test_output_human.py`` pins them.

What a person wrote when deciding later (``quorum approve``/``reject``, the web page: the event's
``by`` and ``reason``) is shown as theirs: the name after "by", the reason as a quotation
(``quoted``), so no wording of theirs reads as Quorum's own (decision 205).
"""

from __future__ import annotations

import json

from quorum.domain import amounts
from quorum.domain.events import (
    CheckpointEvent,
    ModelFallback,
    PlanProposed,
    PlanReviewed,
    ReviewEvent,
    RunEvent,
    RunFinished,
    RunStarted,
    ToolCallEvent,
    ToolResultEvent,
)
from quorum.domain.review import counted
from quorum.infrastructure.terminal_text import quoted

_DONE = "end_turn"


def rule_words(rule: str | None) -> str:
    """What a panel rule asks for: ``majority needed``, ``2 approvals needed``, ``60% approvals needed``."""
    kind, _, value = (rule or "").partition(":")
    if kind == "at_least":
        return f"{value} approval{'s' if value != '1' else ''} needed"
    if kind == "percentage":
        return f"{value}% approvals needed"
    return f"{kind or 'majority'} needed"


_UNAVAILABLE = {
    "overloaded": "is overloaded",
    "server_error": "failed with a server error",
    "rate_limited": "is rate-limiting requests",
    "timeout": "timed out",
    "connection": "cannot be reached",
}


def fallback_line(event: ModelFallback) -> str:
    """``model a:x is overloaded: answering with b:y from now on`` (a reviewer's seat named first)."""
    who = f"reviewer {event.reviewer}: " if event.reviewer else ""
    return f"{who}model {event.from_} {_UNAVAILABLE[event.reason]}: answering with {event.to} from now on"


def checkpoint_line(event: CheckpointEvent) -> str:
    """``checkpoint after c2: created a.txt; modified b.txt, c.txt`` (what ``quorum undo`` can put back)."""
    said = [
        f"{word} {', '.join(paths)}"
        for word, paths in (("created", event.created), ("modified", event.modified), ("deleted", event.deleted))
        if paths
    ]
    if event.unrestorable:
        said.append(f"cannot undo {', '.join(event.unrestorable)} (over max_file_mib)")
    return f"checkpoint after {', '.join(event.call_ids)}: {'; '.join(said)}"


def _reviewers(count: int) -> str:
    return f"reviewer{'s' if count != 1 else ''}"


def decision_line(event: ReviewEvent, run_id: str | None = None) -> str:
    """One line saying who decided and how: ``rejected by 2 of 3 reviewers (unanimous needed)``.

    A reversible approval (``[review] reversible = "auto"``) says how to take it back:
    ``approved: reversible (quorum undo RUN)``, ``run_id`` being the run's id.

    For a panel, the counts are the votes themselves (approvals for an approval, rejections for a
    rejection), so 2 approvals of 3 under ``unanimous`` reads ``rejected by 1 of 3 reviewers``.
    The reasons of the votes against are shown apart (``dissent``), once.
    """
    word = "approved" if event.approved else "rejected"
    reason = " ".join(event.reason.split())
    if event.decided_by == "reversible":
        return f"{word}: reversible (quorum undo {run_id})" if run_id else f"{word}: reversible ({reason})"
    if event.decided_by == "quorum":
        approvals = sum(v.verdict == "approve" for v in event.votes)
        rejections = sum(v.verdict == "reject" for v in event.votes)
        cast = approvals + rejections
        if event.rule is None or not counted(event.votes, event.votes_needed):
            return f"{word} by the review panel: {reason}" if reason else f"{word} by the review panel"
        count = approvals if event.approved else rejections
        panel = len(event.votes)
        unanswered = panel - cast
        tail = f", {unanswered} did not answer" if unanswered else ""
        return f"{word} by {count} of {cast} {_reviewers(cast)} ({rule_words(event.rule)}{tail})"
    if event.decided_by == "human" and event.by:
        return persons_decision(word, event.by, event.reason)
    if event.decided_by == "human":
        if reason.startswith(f"{word} by the user"):  # already a whole sentence ("… for the rest of this run")
            return reason
        return f"{word} by the user: {reason}" if reason else f"{word} by the user"
    if event.decided_by == "hook":
        hook = " ".join((event.hook or "").split())
        hook = f" `{hook[:60]}…`" if len(hook) > 60 else f" `{hook}`" if hook else ""
        return f"{word} by the hook{hook}: {reason}" if reason else f"{word} by the hook{hook}"
    if event.decided_by == "policy":
        rule = f" {event.rule}" if event.rule else ""
        return f"{word} by rule{rule}: {reason}" if reason else f"{word} by rule{rule}"
    said = _auto_reason(reason)
    return f"{word} automatically: {said}" if said else f"{word} automatically"


def person_name(by: str) -> str:
    """Who decided, as shown: a plain name (letters, digits, ``._@+-``) as it is, anything else ``quoted``."""
    plain = 0 < len(by) <= 64 and all(char.isascii() and (char.isalnum() or char in "._@+-") for char in by)
    return by if plain else quoted(by)


def persons_decision(word: str, by: str, reason: str) -> str:
    """``approved by alice: "their reason"``: a later decision, the reason quoted (none when it is the default)."""
    said = reason.strip()
    quote = f": {quoted(said)}" if said and said != f"{word} by {by}" else ""
    return f"{word} by {person_name(by)}{quote}"


def _auto_reason(reason: str) -> str:
    """What an automatic decision's reason says without its ``auto-approved (…)`` wrapping."""
    for word in ("auto-approved (", "auto-rejected ("):
        if reason.startswith(word) and reason.endswith(")"):
            return reason[len(word) : -1]
    return reason


def dissent(event: ReviewEvent | PlanReviewed) -> list[tuple[str, str, str]]:
    """(reviewer, verdict, reason) of each panel vote that was not an approval, for a panel decision."""
    if event.decided_by != "quorum":
        return []
    return [(v.reviewer, str(v.verdict), " ".join(v.reason.split())) for v in event.votes if v.verdict != "approve"]


_AT_LIMIT = {
    "max_turns": ("stopped: tool turn limit ({})", "stopped: tool turn limit"),
    "timeout": ("timed out after {} s", "timed out"),
    "rejected": ("stopped: {} calls rejected in a row", "stopped: calls rejected in a row"),
    "no_plan": ("stopped: no plan approved in {} planning turns", "stopped: no plan approved"),
    "loop_detected": (
        "stopped: the model kept repeating itself after {} warnings",
        "stopped: the model kept repeating itself",
    ),
    "invalid_output": (
        "stopped: the answer did not match the output schema in {} tries",
        "stopped: the answer did not match the output schema",
    ),
}
"""Stop reason → its words with the limit reached (``stop.limit``), and without (events recorded before it)."""


def outcome(event: RunFinished) -> str:
    """How the run ended, in words: ``done``, ``stopped: tool turn limit (10)``, ``timed out after 300 s``.

    Numbers and call ids come from the event's ``stop``; an event recorded without one (before
    it existed) is worded without them.
    """
    reason = str(event.stop_reason)
    detail = " ".join((event.detail or "").split())
    stop = event.stop
    if reason == _DONE:
        return "done"
    if reason == "rejected" and stop is not None and stop.hook is not None:  # the detail names the hook and why
        return f"stopped: {detail}" if detail else "stopped: a hook blocked the message"
    if reason in _AT_LIMIT:
        with_limit, without = _AT_LIMIT[reason]
        return with_limit.format(f"{stop.limit:g}") if stop is not None and stop.limit is not None else without
    if reason == "max_tokens":
        return f"stopped: {detail}" if detail else "stopped: token limit"
    if reason == "max_cost":
        return f"stopped: {detail}" if detail else "stopped: cost cap"
    if reason == "cancelled":
        return "cancelled"
    if reason == "awaiting_approval":
        return waiting_words(stop.waiting_calls if stop is not None else [])
    return f"failed: {detail}" if detail else "failed"


def plan_lines(event: PlanProposed) -> list[str]:
    """A proposed plan as people read it: a heading with its summary, then the numbered steps."""
    attempt = f" (revision {event.attempt - 1})" if event.attempt > 1 else ""
    summary, *steps = event.plan.numbered().splitlines()
    return [f"plan{attempt}: {summary}", *(f"  {line}" for line in steps)]


def plan_decision(event: PlanReviewed) -> str:
    """``plan approved by 2 of 2 reviewers (…) — carrying it out``; ``plan rejected by alice: … — …``."""
    word = "approved" if event.approved else "rejected"
    if event.by:  # a person decided later (quorum approve/reject, the web page)
        line = persons_decision(word, event.by, event.reason)
    else:
        fields = event.model_dump(include={"call_id", "approved", "decided_by", "votes", "reason", "rule"})
        line = decision_line(ReviewEvent(name="propose_plan", **fields))
    after = " — carrying it out" if event.approved else " — the model may revise it"
    return f"plan {line}{after}"


def waiting_words(calls: list[str]) -> str:
    """``waiting for approval: 2 calls (c1, c2)`` for the ``calls`` waiting for a person."""
    if not calls:
        return "waiting for approval"
    return f"waiting for approval: {len(calls)} call{'s' if len(calls) != 1 else ''} ({', '.join(calls)})"


def approve_hint(run_id: str) -> str:
    """The line after a run stopped ``awaiting_approval``: the exact commands that decide."""
    return f"decide with: quorum approve {run_id}  ·  quorum reject {run_id} --reason TEXT  ·  quorum pending {run_id}"


def totals(event: RunFinished, elapsed: float) -> str:
    """``2 turns · 1,234 tokens (1,000 in, 234 out) · 0.4 s``, with reviewer tokens and cost when known."""
    usage = event.usage
    parts = [f"{event.turns} turn{'s' if event.turns != 1 else ''}"]
    tokens = usage.input_tokens + usage.output_tokens
    parts.append(f"{amounts.tokens(tokens)} ({amounts.usage_in_out(usage)})")
    reviewer = usage.reviewer_input_tokens + usage.reviewer_output_tokens
    if reviewer:
        parts.append(f"reviewers {amounts.tokens(reviewer)}")
    if event.cost:  # a free model (scripted, test) costs nothing worth a word
        parts.append(amounts.usd(event.cost))
    parts.append(f"{elapsed:.1f} s")
    return " · ".join(parts)


def final_line(event: RunFinished, elapsed: float) -> str:
    """The run's last line: its outcome, then its totals."""
    return f"{outcome(event)} · {totals(event, elapsed)}"


def delegated_line(event: RunEvent) -> str | None:
    """The line under a delegation for an event of its child run (None: not shown)."""
    if isinstance(event, RunStarted):
        return f"↳ subagent run {event.run_id} · {event.model}"
    if isinstance(event, ToolCallEvent):
        return f"↳ {event.name} " + json.dumps(event.arguments, ensure_ascii=False)[:100]
    if isinstance(event, ReviewEvent) and not event.approved:
        return f"↳ {event.name} rejected: {event.reason}"
    if isinstance(event, ToolResultEvent) and event.is_error and not event.is_rejected:
        return f"↳ {event.name} failed: {event.output.splitlines()[0] if event.output else ''}"
    if isinstance(event, RunFinished):
        return f"↳ subagent finished: {event.stop_reason}"
    return None
