"""Tokens and money read the same wherever a driver shows them."""

from quorum.domain import amounts
from quorum.domain.responses import RunUsage


def test_money_has_four_decimals_below_a_dollar_and_cents_above() -> None:
    assert [amounts.usd(x) for x in (0, 0.0125, 0.99994, 1, 12.345, 1234.5)] == [
        "$0.0000",
        "$0.0125",
        "$0.9999",
        "$1.00",
        "$12.35",
        "$1,234.50",
    ]
    assert amounts.usd_or(None) == "unknown" and amounts.usd_or(None, "cost unknown") == "cost unknown"


def test_tokens_are_counted_with_thousands_separated() -> None:
    assert amounts.tokens(1234) == "1,234 tokens" and amounts.in_out(1000, 234) == "1,000 in, 234 out"
    usage = RunUsage(input_tokens=1200, output_tokens=300, reviewer_input_tokens=800, reviewer_output_tokens=40)
    assert amounts.run_tokens(usage) == "1,200 in, 300 out (reviewers 800 in, 40 out)"
    assert amounts.run_tokens(RunUsage(input_tokens=1, output_tokens=2)) == "1 in, 2 out"


def test_the_cached_parts_of_the_input_follow_its_count() -> None:
    usage = RunUsage(
        input_tokens=24_300, output_tokens=212, cache_read_input_tokens=21_000, cache_write_input_tokens=3_100
    )
    assert amounts.run_tokens(usage) == "24,300 in (21,000 from cache, 3,100 to cache), 212 out"
    assert amounts.usage_in_out(RunUsage(input_tokens=5, output_tokens=1, cache_read_input_tokens=4)) == (
        "5 in (4 from cache), 1 out"
    )
