from __future__ import annotations

import pytest

from quorum.domain import ConfigurationError, QuorumRule, Verdict, Vote

A, R, E = Verdict.APPROVE, Verdict.REJECT, Verdict.ERROR


def votes(*verdicts: Verdict) -> list[Vote]:
    return [Vote(reviewer=f"r{i}", verdict=v) for i, v in enumerate(verdicts)]


@pytest.mark.parametrize("text", ["majority", "unanimous", "at_least:2", "percentage:66.5"])
def test_parse_round_trips(text: str) -> None:
    assert str(QuorumRule.parse(text)) == text


@pytest.mark.parametrize("text", ["most", "at_least:0", "percentage:0", "percentage:101", "at_least:x", ""])
def test_parse_rejects(text: str) -> None:
    with pytest.raises(ConfigurationError):
        QuorumRule.parse(text)


@pytest.mark.parametrize(
    ("rule", "cast", "min_votes", "approved"),
    [
        ("majority", (A, A, R), None, True),
        ("majority", (A, R), None, False),  # a tie is not a majority
        ("majority", (A, E, E), None, False),  # one answering model cannot pass a three-model panel
        ("majority", (A, E, E), 1, True),
        ("majority", (A, A, E), None, True),
        ("unanimous", (A, A, A), None, True),
        ("unanimous", (A, A, R), None, False),
        ("unanimous", (A, A, E), None, True),  # over cast votes; 2 of 3 cast meets the default minimum
        ("at_least:2", (A, A, R, R), None, True),
        ("at_least:3", (A, A, R, R), None, False),
        ("percentage:75", (A, A, A, R), None, True),
        ("percentage:75", (A, A, R, R), None, False),
        ("majority", (), None, False),
        ("majority", (E, E, E), 0, False),  # no cast votes never approves
    ],
)
def test_rule_math(rule: str, cast: tuple[Verdict, ...], min_votes: int | None, approved: bool) -> None:
    ok, reason = QuorumRule.parse(rule).evaluate(votes(*cast), min_votes=min_votes)
    assert ok is approved
    assert reason


def test_not_enough_votes_says_so() -> None:
    ok, reason = QuorumRule.parse("majority").evaluate(votes(A, E, E))
    assert not ok and "not enough reviewers answered" in reason
