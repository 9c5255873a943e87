"""How tokens and cost read in ``logs show`` and ``stats``: the agent's, then the reviewers'."""

from __future__ import annotations

from quorum.domain.responses import RunUsage


def tokens_text(usage: RunUsage) -> str:
    """``1,200 in, 300 out (reviewers 800 in, 40 out)``; the reviewers' part only when they spent any."""
    text = f"{usage.input_tokens:,} in, {usage.output_tokens:,} out"
    if usage.reviewers.total_tokens:
        text += f" (reviewers {usage.reviewer_input_tokens:,} in, {usage.reviewer_output_tokens:,} out)"
    return text


def cost_text(cost: float | None) -> str:
    """``$0.0123``, or ``unknown`` when a model's prices are not known."""
    if cost is None:
        return "unknown"
    return f"${cost:,.4f}" if cost < 100 else f"${cost:,.2f}"
