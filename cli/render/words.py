"""What the human output says about decisions and how a run ended: one place for the wording.

Each function returns plain, unstyled text (the renderer styles and escapes it). The README's CLI
section quotes these words, and ``tests/e2e/test_output_human.py`` pins them.
"""

from __future__ import annotations

import re
from typing import Any

from quorum.domain.events import PlanProposed, PlanReviewed, ReviewEvent, RunFinished

_DONE = "end_turn"


def rule_words(rule: str | None) -> str:
    """What a panel rule asks for: ``majority needed``, ``2 approvals needed``, ``60% approvals needed``."""
    kind, _, value = (rule or "").partition(":")
    if kind == "at_least":
        return f"{value} approval{'s' if value != '1' else ''} needed"
    if kind == "percentage":
        return f"{value}% approvals needed"
    return f"{kind or 'majority'} needed"


def _reviewers(count: int) -> str:
    return f"reviewer{'s' if count != 1 else ''}"


def decision_line(event: ReviewEvent) -> str:
    """One line saying who decided and how: ``rejected by 2 of 3 reviewers (unanimous needed)``.

    For a panel, the counts are the votes themselves (approvals for an approval, rejections for a
    rejection), so 2 approvals of 3 under ``unanimous`` reads ``rejected by 1 of 3 reviewers``.
    The reasons of the votes against are shown apart (``dissent``), once.
    """
    word = "approved" if event.approved else "rejected"
    reason = " ".join(event.reason.split())
    if event.decided_by == "quorum":
        approvals = sum(v.verdict == "approve" for v in event.votes)
        rejections = sum(v.verdict == "reject" for v in event.votes)
        cast = approvals + rejections
        if event.rule is None or not event.votes or not re.match(r"(APPROVED|REJECTED) \d+/\d+ ", reason):
            return f"{word} by the review panel: {reason}" if reason else f"{word} by the review panel"
        count = approvals if event.approved else rejections
        panel = len(event.votes)
        unanswered = panel - cast
        tail = f", {unanswered} did not answer" if unanswered else ""
        return f"{word} by {count} of {cast} {_reviewers(cast)} ({rule_words(event.rule)}{tail})"
    if event.decided_by == "human":
        if reason.startswith(f"{word} by the user"):  # already a whole sentence ("… for the rest of this run")
            return reason
        return f"{word} by the user: {reason}" if reason else f"{word} by the user"
    if event.decided_by == "policy":
        rule = f" {event.rule}" if event.rule else ""
        return f"{word} by rule{rule}: {reason}" if reason else f"{word} by rule{rule}"
    inner = re.fullmatch(r"auto-(?:approved|rejected) \((.*)\)", reason)
    said = inner.group(1) if inner else reason
    return f"{word} automatically: {said}" if said else f"{word} automatically"


def dissent(event: ReviewEvent | PlanReviewed) -> list[tuple[str, str, str]]:
    """(reviewer, verdict, reason) of each panel vote that was not an approval, for a panel decision."""
    if event.decided_by != "quorum":
        return []
    return [(v.reviewer, str(v.verdict), " ".join(v.reason.split())) for v in event.votes if v.verdict != "approve"]


def outcome(event: RunFinished) -> str:
    """How the run ended, in words: ``done``, ``stopped: tool turn limit (10)``, ``timed out after 300 s``."""
    reason = str(event.stop_reason)
    detail = " ".join((event.detail or "").split())
    if reason == _DONE:
        return "done"
    if reason == "max_turns":
        limit = re.search(r"\((\d+)\)", detail)
        return f"stopped: tool turn limit ({limit.group(1)})" if limit else "stopped: tool turn limit"
    if reason == "timeout":
        after = re.search(r"after (\S+ s)", detail)
        return f"timed out after {after.group(1)}" if after else "timed out"
    if reason == "rejected":
        count = re.match(r"(\d+) ", detail)
        return f"stopped: {count.group(1)} calls rejected in a row" if count else "stopped: calls rejected in a row"
    if reason == "max_tokens":
        return f"stopped: {detail}" if detail else "stopped: token limit"
    if reason == "max_cost":
        return f"stopped: {detail}" if detail else "stopped: cost cap"
    if reason == "no_plan":
        limit = re.search(r"\((\d+)\)", detail)
        return f"stopped: no plan approved in {limit.group(1)} planning turns" if limit else "stopped: no plan approved"
    if reason == "cancelled":
        return "cancelled"
    if reason == "awaiting_approval":
        return waiting_words(detail)
    return f"failed: {detail}" if detail else "failed"


def plan_lines(event: PlanProposed) -> list[str]:
    """A proposed plan as people read it: a heading with its summary, then the numbered steps."""
    attempt = f" (revision {event.attempt - 1})" if event.attempt > 1 else ""
    summary, *steps = event.plan.numbered().splitlines()
    return [f"plan{attempt}: {summary}", *(f"  {line}" for line in steps)]


def plan_decision(event: PlanReviewed) -> str:
    """``plan approved by 2 of 2 reviewers (…) — carrying it out``; ``plan rejected by alice: … — …``."""
    word = "approved" if event.approved else "rejected"
    reason = " ".join(event.reason.split())
    if event.by:  # a person decided later (quorum approve/reject, the web page)
        said = f": {reason}" if reason and reason != f"{word} by {event.by}" else ""
        line = f"{word} by {event.by}{said}"
    else:
        fields = event.model_dump(include={"call_id", "approved", "decided_by", "votes", "reason", "rule"})
        line = decision_line(ReviewEvent(name="propose_plan", **fields))
    after = " — carrying it out" if event.approved else " — the model may revise it"
    return f"plan {line}{after}"


def waiting_words(detail: str) -> str:
    """``waiting for approval: 2 calls (c1, c2)`` from an ``awaiting_approval`` stop's detail."""
    found = re.match(r"(\d+) call\(s\) wait for a person: (.*)", detail)
    if not found:
        return "waiting for approval"
    count = int(found.group(1))
    return f"waiting for approval: {count} call{'s' if count != 1 else ''} ({found.group(2)})"


def approve_hint(run_id: str) -> str:
    """The line after a run stopped ``awaiting_approval``: the exact commands that decide."""
    return f"decide with: quorum approve {run_id}  ·  quorum reject {run_id} --reason TEXT  ·  quorum pending {run_id}"


def _count(number: int) -> str:
    return f"{number:,}"


def totals(event: RunFinished, elapsed: float) -> str:
    """``2 turns · 1,234 tokens (1,000 in, 234 out) · 0.4 s``, with reviewer tokens and cost when known."""
    usage: Any = event.usage
    parts = [f"{event.turns} turn{'s' if event.turns != 1 else ''}"]
    tokens = usage.input_tokens + usage.output_tokens
    parts.append(f"{_count(tokens)} tokens ({_count(usage.input_tokens)} in, {_count(usage.output_tokens)} out)")
    # Reviewer tokens and cost are later additions to ``run_finished``: read them when present.
    reviewer = getattr(usage, "reviewer_input_tokens", 0) + getattr(usage, "reviewer_output_tokens", 0)
    if reviewer:
        parts.append(f"reviewers {_count(reviewer)} tokens")
    cost = getattr(event, "cost", None)
    if cost:  # a free model (scripted, test) costs nothing worth a word
        parts.append(f"${cost:.4f}" if cost < 1 else f"${cost:.2f}")
    parts.append(f"{elapsed:.1f} s")
    return " · ".join(parts)


def final_line(event: RunFinished, elapsed: float) -> str:
    """The run's last line: its outcome, then its totals."""
    return f"{outcome(event)} · {totals(event, elapsed)}"
