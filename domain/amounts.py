"""How amounts read for people: token counts and money, one rule for every driver.

The CLI's run line, ``logs show``, ``stats``, chat's ``/cost`` and the ACP agent's ``/usage``
all word tokens and USD through these functions, so an amount reads the same wherever it is
shown. Money: four decimals below a dollar (a request costs fractions of a cent), cents from a
dollar on; thousands are separated (``$1,234.50``). The JSON forms (``--json``, the HTTP API)
carry the numbers, never these words.
"""

from __future__ import annotations

from quorum.domain.responses import RunUsage, Usage


def count(number: int) -> str:
    """``1,234``: a count with its thousands separated."""
    return f"{number:,}"


def tokens(number: int) -> str:
    """``1,234 tokens``."""
    return f"{count(number)} tokens"


def in_out(input_tokens: int, output_tokens: int) -> str:
    """``1,000 in, 234 out``: input and output tokens."""
    return f"{count(input_tokens)} in, {count(output_tokens)} out"


def cache_parts(usage: Usage) -> str:
    """``1,000 from cache, 150 to cache``: the cached parts of the input; empty when there are none."""
    parts = []
    if usage.cache_read_input_tokens:
        parts.append(f"{count(usage.cache_read_input_tokens)} from cache")
    if usage.cache_write_input_tokens:
        parts.append(f"{count(usage.cache_write_input_tokens)} to cache")
    return ", ".join(parts)


def usage_in_out(usage: Usage) -> str:
    """``1,200 in (1,000 from cache), 300 out``: ``in_out`` with the cached parts of the input, if any."""
    cached = cache_parts(usage)
    if not cached:
        return in_out(usage.input_tokens, usage.output_tokens)
    return f"{count(usage.input_tokens)} in ({cached}), {count(usage.output_tokens)} out"


def run_tokens(usage: RunUsage) -> str:
    """``1,200 in, 300 out (reviewers 800 in, 40 out)``; the reviewers' part only when they spent any.

    The cached parts of the agent's input follow its count when there are any (``usage_in_out``).
    """
    text = usage_in_out(usage)
    if usage.reviewers.total_tokens:
        text += f" (reviewers {in_out(usage.reviewer_input_tokens, usage.reviewer_output_tokens)})"
    return text


def usd(amount: float) -> str:
    """``$0.0125`` below a dollar, ``$12.35`` from a dollar on (see the module docstring)."""
    return f"${amount:,.4f}" if abs(amount) < 1 else f"${amount:,.2f}"


def usd_or(amount: float | None, unknown: str = "unknown") -> str:
    """``usd(amount)``, or ``unknown`` when the cost is not known (a model's prices are missing)."""
    return unknown if amount is None else usd(amount)
