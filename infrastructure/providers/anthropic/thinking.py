"""Extended thinking on the Messages API: asking for it, and keeping its blocks byte for byte.

Asking: ``[agent] reasoning`` becomes ``thinking``. A model that takes adaptive thinking gets
``{"type": "adaptive"}`` with ``output_config.effort`` at the level; the others get
``{"type": "enabled", "budget_tokens": BUDGETS[level]}``. Thinking tokens count toward
``max_tokens``, which must exceed the budget, so the request's cap is the configured
``max_tokens`` plus the level's budget: the answer keeps the room it had without thinking.

Keeping: a ``thinking`` block (text and signature) or a ``redacted_thinking`` block (data) is
kept as a ``ReasoningBlock`` holding the block as received, and sent back as it is: the API checks
the signature, and refuses a tool loop whose assistant turn lost its thinking.
"""

from __future__ import annotations

from typing import Any, Literal

from quorum.domain.responses import ReasoningBlock, ReasoningLevel
from quorum.infrastructure.providers.http_body import MalformedResponse

API = "anthropic"
"""``ReasoningBlock.api`` of the blocks this API returns: only this adapter sends them back."""

BUDGETS: dict[ReasoningLevel, int] = {"low": 2_048, "medium": 8_192, "high": 16_384}
"""``budget_tokens`` per level (the API's minimum is 1,024); also the headroom added to ``max_tokens``."""

ADAPTIVE_MODELS = (
    "claude-opus-4-6",
    "claude-sonnet-4-6",
    "claude-opus-4-7",
    "claude-opus-4-8",
    "claude-opus-5",
    "claude-mythos",
    "claude-fable",
)
"""Model name prefixes that take ``{"type": "adaptive"}`` (``thinking = "auto"``); others get a budget.

Opus 4.6 and Sonnet 4.6 take both (a budget is deprecated there); the later ones refuse a budget.
A model not listed here (a newer one, a proxy's name) is served with ``thinking = "adaptive"``."""

ThinkingMode = Literal["auto", "budget", "adaptive"]
"""``[providers.NAME] thinking``: how reasoning is asked for; ``auto`` decides by the model name."""

KINDS = ("thinking", "redacted_thinking")
"""The block types kept."""


def with_thinking(
    request: dict[str, Any], level: ReasoningLevel, *, mode: ThinkingMode, max_tokens: int
) -> dict[str, Any]:
    """``request`` asking for ``level`` of thinking (``off``: unchanged)."""
    if level == "off":
        return request
    budget = BUDGETS[level]
    adaptive = mode == "adaptive" or (mode == "auto" and str(request["model"]).startswith(ADAPTIVE_MODELS))
    thinking: dict[str, Any] = {"type": "adaptive"} if adaptive else {"type": "enabled", "budget_tokens": budget}
    extra: dict[str, Any] = {"output_config": {"effort": level}} if adaptive else {}
    return {**request, "max_tokens": max_tokens + budget, "thinking": thinking, **extra}


def kept_block(raw: dict[str, Any], what: str) -> ReasoningBlock:
    """A ``thinking`` or ``redacted_thinking`` block as received, as a ``ReasoningBlock``.

    Raises:
        MalformedResponse: its text, signature or data is not a string.
    """
    if raw.get("type") == "thinking":
        for name in ("thinking", "signature"):
            if not isinstance(raw.get(name), str):
                raise MalformedResponse(f"{what}: a thinking block's {name} is not a string")
        return ReasoningBlock(api=API, wire=dict(raw), text=raw["thinking"])
    if not isinstance(raw.get("data"), str):
        raise MalformedResponse(f"{what}: a redacted_thinking block's data is not a string")
    return ReasoningBlock(api=API, wire=dict(raw))


def block_to_wire(block: ReasoningBlock) -> dict[str, Any] | None:
    """The block to send back, as received; None for another API's reasoning (not sendable here)."""
    if block.api != API or block.wire.get("type") not in KINDS:
        return None
    return dict(block.wire)
